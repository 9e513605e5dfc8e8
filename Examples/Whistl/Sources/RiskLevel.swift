public import PushMockCore

/// Whistl's priority classification ("Notification Priority Levels" in the delivery guide):
/// the risk level decides the APNs priority and interruption level, the FCM priority and
/// Android channel, how long a push may wait in the service's store, and the delivery target
/// the team reports against.
public enum RiskLevel: String, Sendable, CaseIterable, Comparable {
    case low, moderate, high, critical

    /// 5 (normal) for low and moderate, 10 (high) for high and critical.
    public var apnsPriority: APNsPriority {
        self >= .high ? APNsPriority(rawValue: 10)! : APNsPriority(rawValue: 5)!
    }

    /// The FCM/Android priority: `high` wakes a dozing phone, `normal` waits for it.
    public var androidPriority: String { self >= .high ? "high" : "normal" }

    /// `critical` breaks through Do Not Disturb and the mute switch (needs Apple's
    /// critical-alerts entitlement); `time-sensitive` breaks through Focus.
    public var interruptionLevel: String {
        switch self {
        case .low: "passive"
        case .moderate: "active"
        case .high: "time-sensitive"
        case .critical: "critical"
        }
    }

    /// The Android notification channel the app creates on start.
    public var channelID: String {
        switch self {
        case .low: "whistl-info"
        case .moderate, .high: "whistl-intervention"
        case .critical: "whistl-critical"
        }
    }

    /// `android.notification.notification_priority` (pre-Android-8 phones).
    public var notificationPriority: String {
        switch self {
        case .low: "PRIORITY_LOW"
        case .moderate: "PRIORITY_DEFAULT"
        case .high: "PRIORITY_HIGH"
        case .critical: "PRIORITY_MAX"
        }
    }

    /// The delivery target from the guide: < 30 min, < 10 min, < 1 min, < 10 s. An
    /// intervention that arrives later than this is no use, so it is also how long the
    /// service may store it (`apns-expiration`, FCM `ttl`).
    public var deliveryTarget: Duration {
        switch self {
        case .low: .seconds(30 * 60)
        case .moderate: .seconds(10 * 60)
        case .high: .seconds(60)
        case .critical: .seconds(10)
        }
    }

    /// Only critical interventions are delivered during quiet hours.
    public var bypassesQuietHours: Bool { self == .critical }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
