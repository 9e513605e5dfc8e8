/// The documents the lint rules cite. One place, so a moved page is fixed once.
enum LintSource {
    // Apple
    static let sendingRequests = "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns"
    static let generatingNotification = "https://developer.apple.com/documentation/usernotifications/generating-a-remote-notification"
    static let backgroundUpdates = "https://developer.apple.com/documentation/usernotifications/pushing-background-updates-to-your-app"
    static let modifyingContent =
        "https://developer.apple.com/documentation/usernotifications/modifying-content-in-newly-delivered-notifications"
    static let criticalInterruptionLevel =
        "https://developer.apple.com/documentation/usernotifications/unnotificationinterruptionlevel/critical"
    static let criticalAlertsEntitlement =
        "https://developer.apple.com/documentation/bundleresources/entitlements/com.apple.developer.usernotifications.critical-alerts"
    static let criticalSoundVolume =
        "https://developer.apple.com/documentation/usernotifications/unnotificationsound/criticalsoundnamed(_:withaudiovolume:)"
    static let liveActivityPushes =
        "https://developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications"
    static let liveActivityUpdateTimestamp =
        "https://developer.apple.com/documentation/activitykit/activity/update(_:alertconfiguration:timestamp:)"
    /// Apple DTS answer: update timestamps more than 8 hours ahead are dropped.
    static let liveActivityTimestampForum = "https://developer.apple.com/forums/thread/776165"
    /// Apple forum answer: `apns-expiration: 300` means 00:05 on 1 January 1970.
    static let expirationForum = "https://developer.apple.com/forums/thread/708937"
    /// apns2 pull request noting Apple's `time-senstive` typo; the working value is `time-sensitive`.
    static let interruptionLevelTypo = "https://github.com/sideshow/apns2/pull/185"

    // Firebase
    static let fcmMessagePriority = "https://firebase.google.com/docs/cloud-messaging/customize-messages/setting-message-priority"
    static let fcmAndroidPriority = "https://firebase.google.com/docs/cloud-messaging/android/message-priority"
    static let fcmLifespan = "https://firebase.google.com/docs/cloud-messaging/customize-messages/setting-message-lifespan"
    static let fcmIOSImage = "https://firebase.google.com/docs/cloud-messaging/ios/send-image"
    static let fcmTopics = "https://firebase.google.com/docs/cloud-messaging/topic-messaging"
    static let fcmMessageReference = "https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages"
}
