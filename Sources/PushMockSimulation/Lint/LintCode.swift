/// The stable identifier of a lint rule, e.g. `apns.background-high-priority`.
///
/// Codes are `<platform>.<kebab-case-name>` and never change meaning once published; the
/// catalogue of rules (``LintRule/all``) and `docs/lint-rules.md` list every one. JSON form:
/// the code string.
public struct LintCode: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Any code, including ones this version does not know (read back from a journal).
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // MARK: APNs: headers

    /// `apns-push-type` absent.
    public static let apnsMissingPushType = Self(rawValue: "apns.missing-push-type")
    /// Priority 10 (or omitted) on a background / content-available-only push.
    public static let apnsBackgroundHighPriority = Self(rawValue: "apns.background-high-priority")
    /// A non-zero `apns-expiration` that already lies in the past.
    public static let apnsExpirationInPast = Self(rawValue: "apns.expiration-in-past")
    /// `apns-collapse-id` on a background push, which shows nothing to collapse.
    public static let apnsCollapseIDOnBackground = Self(rawValue: "apns.collapse-id-on-background")
    /// Priority 1 on a push type the user expects promptly.
    public static let apnsPriorityOneUserFacing = Self(rawValue: "apns.priority-1-user-facing")

    // MARK: APNs: payload shape

    /// The body is not a JSON object.
    public static let apnsPayloadNotJSON = Self(rawValue: "apns.payload-not-json")
    /// No `aps` dictionary where the push type needs one.
    public static let apnsApsMissing = Self(rawValue: "apns.aps-missing")
    /// An `alert` push with no alert, badge or sound.
    public static let apnsAlertPushWithoutContent = Self(rawValue: "apns.alert-push-without-content")
    /// A `background` push that also carries alert, sound or badge.
    public static let apnsBackgroundWithUserContent = Self(rawValue: "apns.background-with-user-content")
    /// A `background` push without `content-available: 1`.
    public static let apnsBackgroundWithoutContentAvailable = Self(rawValue: "apns.background-without-content-available")
    /// `content-available` with a value other than 1.
    public static let apnsContentAvailableNotOne = Self(rawValue: "apns.content-available-not-one")
    /// `mutable-content` with a value other than 1.
    public static let apnsMutableContentNotOne = Self(rawValue: "apns.mutable-content-not-one")
    /// `aps.alert` with nothing to display.
    public static let apnsEmptyAlert = Self(rawValue: "apns.empty-alert")
    /// `mutable-content: 1` without a visible alert.
    public static let apnsMutableContentWithoutAlert = Self(rawValue: "apns.mutable-content-without-alert")
    /// An image / attachment URL without `mutable-content: 1`.
    public static let apnsImageWithoutMutableContent = Self(rawValue: "apns.image-without-mutable-content")
    /// A critical alert for an app without the Critical Alerts entitlement.
    public static let apnsCriticalWithoutEntitlement = Self(rawValue: "apns.critical-without-entitlement")
    /// `interruption-level` not one of the four documented values.
    public static let apnsUnknownInterruptionLevel = Self(rawValue: "apns.unknown-interruption-level")
    /// `relevance-score` outside 0…1.
    public static let apnsRelevanceScoreOutOfRange = Self(rawValue: "apns.relevance-score-out-of-range")
    /// Critical sound `volume` outside 0…1.
    public static let apnsCriticalVolumeOutOfRange = Self(rawValue: "apns.critical-volume-out-of-range")
    /// `badge` not a non-negative integer.
    public static let apnsBadgeInvalid = Self(rawValue: "apns.badge-invalid")
    /// `thread-id` empty (or not a string).
    public static let apnsThreadIDEmpty = Self(rawValue: "apns.thread-id-empty")
    /// An Apple key spelled the SDK way (`content_available`, `mutableContent`, …).
    public static let apnsMisspelledKey = Self(rawValue: "apns.misspelled-key")
    /// A key Apple does not define inside `aps`.
    public static let apnsCustomKeyInAps = Self(rawValue: "apns.custom-key-in-aps")

    // MARK: APNs: Live Activities

    /// `aps.event` missing or not start/update/end.
    public static let apnsLiveActivityMissingEvent = Self(rawValue: "apns.liveactivity-missing-event")
    /// `aps.timestamp` missing or not a number.
    public static let apnsLiveActivityMissingTimestamp = Self(rawValue: "apns.liveactivity-missing-timestamp")
    /// `aps.timestamp` more than 8 hours ahead (usually milliseconds).
    public static let apnsLiveActivityTimestampInFuture = Self(rawValue: "apns.liveactivity-timestamp-in-future")
    /// `update` / `start` without `content-state`.
    public static let apnsLiveActivityMissingContentState = Self(rawValue: "apns.liveactivity-missing-content-state")
    /// `start` without `attributes-type`, `attributes` or `alert`.
    public static let apnsLiveActivityStartIncomplete = Self(rawValue: "apns.liveactivity-start-incomplete")

    // MARK: FCM

    /// Data-only message to iOS with `apns-priority: 10`.
    public static let fcmIOSDataOnlyHighPriority = Self(rawValue: "fcm.ios-data-only-high-priority")
    /// Data-only message to iOS without `content-available: 1`.
    public static let fcmIOSDataOnlyWithoutContentAvailable = Self(rawValue: "fcm.ios-data-only-without-content-available")
    /// Image for iOS without `mutable-content: 1`.
    public static let fcmIOSImageWithoutMutableContent = Self(rawValue: "fcm.ios-image-without-mutable-content")
    /// Android `HIGH` priority on a message that shows no notification.
    public static let fcmAndroidHighPriorityWithoutNotification = Self(rawValue: "fcm.android-high-priority-without-notification")
    /// Android `ttl: "0s"` at normal priority.
    public static let fcmAndroidZeroTTLNormalPriority = Self(rawValue: "fcm.android-zero-ttl-normal-priority")
    /// A notification with neither title nor body.
    public static let fcmEmptyNotification = Self(rawValue: "fcm.empty-notification")
    /// A topic / condition send at Android `HIGH` priority.
    public static let fcmFanOutHighPriority = Self(rawValue: "fcm.fan-out-high-priority")
}
