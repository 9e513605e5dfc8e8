import PushMockCore

extension LintRule {
    /// Every rule, APNs first, in the order of `docs/lint-rules.md`.
    public static let all: [LintRule] = apns + fcm

    private static func apnsRule(
        _ code: LintCode,
        _ severity: LintSeverity,
        trigger: String,
        effect: String,
        sources: [String]
    ) -> LintRule {
        LintRule(platform: .apns, code: code, severity: severity, trigger: trigger, effect: effect, sources: sources)
    }

    private static func fcmRule(
        _ code: LintCode,
        _ severity: LintSeverity,
        trigger: String,
        effect: String,
        sources: [String]
    ) -> LintRule {
        LintRule(platform: .fcm, code: code, severity: severity, trigger: trigger, effect: effect, sources: sources)
    }

    static let apns: [LintRule] = [
        apnsRule(
            .apnsMissingPushType, .warning,
            trigger: "No apns-push-type header.",
            effect:
                "Required on watchOS 6+ and recommended elsewhere; if it is missing APNs may return an error, delay the notification or drop it.",
            sources: [LintSource.sendingRequests]
        ),
        apnsRule(
            .apnsBackgroundHighPriority, .warning,
            trigger:
                "apns-priority 10 (or omitted, which means 10) on a background push or on a payload whose aps holds only content-available.",
            effect:
                "Apple: \"Always use priority 5. Using priority 10 is an error.\" APNs accepts it; background pushes are throttled and not guaranteed.",
            sources: [LintSource.sendingRequests, LintSource.backgroundUpdates]
        ),
        apnsRule(
            .apnsExpirationInPast, .warning,
            trigger: "A non-zero apns-expiration earlier than now (often a duration such as 300 instead of a UNIX time).",
            effect: "The notification is already expired: APNs does not store it, so an offline device never gets it.",
            sources: [LintSource.sendingRequests, LintSource.expirationForum]
        ),
        apnsRule(
            .apnsCollapseIDOnBackground, .info,
            trigger: "apns-collapse-id on a background push.",
            effect:
                "The collapse identifier coalesces notifications displayed to the user; a background push displays nothing, so it has no visible effect.",
            sources: [LintSource.sendingRequests]
        ),
        apnsRule(
            .apnsPriorityOneUserFacing, .info,
            trigger: "apns-priority 1 on an alert, voip, pushtotalk or location push.",
            effect:
                "Priority 1 prioritises the device's power over delivery and never wakes the device, so the user may see it much later.",
            sources: [LintSource.sendingRequests]
        ),
        apnsRule(
            .apnsPayloadNotJSON, .warning,
            trigger: "The body is not a JSON object.",
            effect:
                "The payload must be a JSON dictionary; APNs does not document rejecting it (this gateway accepts it), but the device has nothing to read.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsApsMissing, .warning,
            trigger: "An alert, background or liveactivity push whose payload has no aps dictionary.",
            effect: "The aps dictionary tells the system what to do; without it nothing is shown and the app is not woken.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsAlertPushWithoutContent, .warning,
            trigger: "apns-push-type alert (sent or inferred) but aps has no alert, badge or sound.",
            effect: "Nothing is shown; the push type must reflect the payload (a content-available-only payload is a background push).",
            sources: [LintSource.sendingRequests, LintSource.backgroundUpdates]
        ),
        apnsRule(
            .apnsBackgroundWithUserContent, .warning,
            trigger: "apns-push-type background with alert, sound or badge in aps.",
            effect:
                "A background notification must not contain keys that trigger user interaction; the push type no longer matches the payload.",
            sources: [LintSource.backgroundUpdates, LintSource.sendingRequests]
        ),
        apnsRule(
            .apnsBackgroundWithoutContentAvailable, .warning,
            trigger: "apns-push-type background without content-available: 1.",
            effect: "Without content-available: 1 the system does not wake the app, so the push does nothing.",
            sources: [LintSource.backgroundUpdates]
        ),
        apnsRule(
            .apnsContentAvailableNotOne, .info,
            trigger: "content-available present with a value other than the number 1 (0, true, \"1\", …).",
            effect: "Apple documents only the value 1; other values are not documented to mean anything.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsMutableContentNotOne, .info,
            trigger: "mutable-content present with a value other than the number 1.",
            effect: "Only 1 passes the notification to the service extension; other values are not documented.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsEmptyAlert, .warning,
            trigger:
                "aps.alert is an empty string, an empty dictionary, a dictionary without title, subtitle, body or loc keys, or not a string or dictionary.",
            effect: "There is no text to display. (What iOS then shows is not documented; usually nothing.)",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsMutableContentWithoutAlert, .warning,
            trigger: "mutable-content: 1 without an alert that has text.",
            effect: "Service extensions only run for notifications that display an alert; a sound- or badge-only payload skips it.",
            sources: [LintSource.modifyingContent]
        ),
        apnsRule(
            .apnsImageWithoutMutableContent, .warning,
            trigger:
                "An image or attachment URL (keys in LintConfiguration.imageURLKeys, e.g. image, image-url, attachment-url, fcm_options.image) without mutable-content: 1.",
            effect:
                "Remote notifications carry no images themselves; only a service extension, run because of mutable-content: 1, can download and attach one.",
            sources: [LintSource.modifyingContent, LintSource.fcmIOSImage]
        ),
        apnsRule(
            .apnsCriticalWithoutEntitlement, .warning,
            trigger:
                "interruption-level critical or a sound dictionary with critical: 1 for an app not listed in LintConfiguration.criticalAlerts (default: none).",
            effect:
                "Critical alerts require an approved entitlement; without it the notification is not treated as critical (it does not bypass mute or Focus).",
            sources: [LintSource.criticalInterruptionLevel, LintSource.criticalAlertsEntitlement]
        ),
        apnsRule(
            .apnsUnknownInterruptionLevel, .warning,
            trigger:
                "interruption-level other than passive, active, time-sensitive or critical (e.g. Apple's own typo time-senstive, or timeSensitive).",
            effect: "The value is not recognised, so the notification gets the default level (active) and does not break through Focus.",
            sources: [LintSource.generatingNotification, LintSource.interruptionLevelTypo]
        ),
        apnsRule(
            .apnsRelevanceScoreOutOfRange, .info,
            trigger: "relevance-score not a number between 0 and 1 (Live Activities excepted).",
            effect: "Apple defines it as a number between 0 and 1 used to sort the notification summary; other values are undocumented.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsCriticalVolumeOutOfRange, .info,
            trigger: "sound.volume not a number between 0 and 1.",
            effect: "Apple: the volume must be a value between 0.0 and 1.0; other values are undocumented.",
            sources: [LintSource.generatingNotification, LintSource.criticalSoundVolume]
        ),
        apnsRule(
            .apnsBadgeInvalid, .info,
            trigger: "badge not a non-negative integer (a string, a fraction, a negative number).",
            effect: "Apple defines badge as the number to display (0 removes it); other values are undocumented.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsThreadIDEmpty, .info,
            trigger: "thread-id is an empty string or not a string.",
            effect: "thread-id groups related notifications; an empty identifier groups nothing.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsMisspelledKey, .warning,
            trigger:
                "A key in aps or aps.alert that is an Apple key spelled with underscores or camel case (content_available, mutableContent, title_loc_key, …).",
            effect:
                "Apple's keys are hyphenated and APNs ignores unknown keys in aps, so the intended flag (e.g. content-available) is not set.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsCustomKeyInAps, .info,
            trigger: "A key inside aps that Apple does not define.",
            effect: "Apple: \"Don't add your own custom keys to the aps dictionary; APNs ignores custom keys.\" Put them beside aps.",
            sources: [LintSource.generatingNotification]
        ),
        apnsRule(
            .apnsLiveActivityMissingEvent, .warning,
            trigger: "A liveactivity push whose aps.event is missing or not start, update or end.",
            effect: "ActivityKit cannot tell what to do with the Live Activity, so the push has no effect.",
            sources: [LintSource.liveActivityPushes]
        ),
        apnsRule(
            .apnsLiveActivityMissingTimestamp, .warning,
            trigger: "A liveactivity push without a numeric aps.timestamp.",
            effect:
                "ActivityKit orders updates by timestamp and ignores updates older than the last one; without one the update cannot be ordered (what the device then does is not documented).",
            sources: [LintSource.liveActivityPushes, LintSource.liveActivityUpdateTimestamp]
        ),
        apnsRule(
            .apnsLiveActivityTimestampInFuture, .warning,
            trigger: "aps.timestamp more than 8 hours after now (typically milliseconds instead of seconds).",
            effect: "Apple DTS: timestamps beyond 8 hours (the longest a Live Activity lives) are dropped.",
            sources: [LintSource.liveActivityTimestampForum, LintSource.liveActivityPushes]
        ),
        apnsRule(
            .apnsLiveActivityMissingContentState, .warning,
            trigger: "A liveactivity start or update without an aps.content-state dictionary.",
            effect: "The content state is what the update changes; without it there is nothing to show.",
            sources: [LintSource.liveActivityPushes]
        ),
        apnsRule(
            .apnsLiveActivityStartIncomplete, .warning,
            trigger: "A liveactivity start without attributes-type, attributes or alert.",
            effect: "Push-to-start needs the attributes type and values and an alert; without them no Live Activity starts.",
            sources: [LintSource.liveActivityPushes]
        ),
    ]

    static let fcm: [LintRule] = [
        fcmRule(
            .fcmIOSDataOnlyHighPriority, .warning,
            trigger:
                "A message for iOS without notification and without alert, badge or sound in apns.payload, sent with apns.headers apns-priority 10.",
            effect:
                "Firebase: data messages to Apple devices must use priority 5; FCM is documented to reject 10 with INVALID_ARGUMENT (this gateway accepts it). APNs treats it as a background push, for which 10 is an error.",
            sources: [LintSource.fcmMessagePriority, LintSource.sendingRequests]
        ),
        fcmRule(
            .fcmIOSDataOnlyWithoutContentAvailable, .warning,
            trigger:
                "A message for iOS without notification and without alert, badge or sound, whose apns.payload.aps lacks content-available: 1.",
            effect: "Nothing is displayed and, without content-available: 1, iOS does not wake the app to receive the data.",
            sources: [LintSource.backgroundUpdates, LintSource.fcmMessagePriority]
        ),
        fcmRule(
            .fcmIOSImageWithoutMutableContent, .warning,
            trigger:
                "An image for iOS (notification.image, apns.fcm_options.image or an image key in apns.payload) without apns.payload.aps mutable-content: 1.",
            effect: "Firebase: Apple apps show FCM images only through a notification service extension, which needs mutable-content: 1.",
            sources: [LintSource.fcmIOSImage, LintSource.modifyingContent]
        ),
        fcmRule(
            .fcmAndroidHighPriorityWithoutNotification, .warning,
            trigger: "android.priority HIGH on a message without notification or android.notification.",
            effect:
                "High priority should result in a user-facing notification; if it does not, FCM deprioritises the app's messages to normal.",
            sources: [LintSource.fcmAndroidPriority]
        ),
        fcmRule(
            .fcmAndroidZeroTTLNormalPriority, .warning,
            trigger: "android.ttl of 0 seconds at normal priority (explicit or default).",
            effect:
                "TTL 0 discards what cannot be delivered immediately, and normal priority waits while the device is in Doze: the message is likely lost.",
            sources: [LintSource.fcmLifespan, LintSource.fcmAndroidPriority]
        ),
        fcmRule(
            .fcmEmptyNotification, .warning,
            trigger:
                "A notification (message.notification or android.notification) with neither title nor body (nor loc keys) for a platform that gets no text elsewhere.",
            effect:
                "There is nothing to display; on iOS it becomes an empty alert. (Device rendering of an empty notification is not documented.)",
            sources: [LintSource.fcmMessageReference, LintSource.generatingNotification]
        ),
        fcmRule(
            .fcmFanOutHighPriority, .info,
            trigger: "A topic or condition send with android.priority HIGH.",
            effect: "Topic messages are optimised for throughput, not latency; time-critical messages should target tokens.",
            sources: [LintSource.fcmTopics]
        ),
    ]
}
