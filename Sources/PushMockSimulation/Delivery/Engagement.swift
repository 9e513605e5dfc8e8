public import PushMockCore

/// What the user does with a delivered notification. `displayed` is the app or system showing
/// it (recorded when a test says so, e.g. an app that draws a data message itself); the others
/// end its life on screen: only one of them happens to a notification.
public enum Engagement: Sendable, Hashable, CustomStringConvertible {
    case displayed
    /// Tapped: the app opens (iOS default action, Android content intent).
    case opened
    /// Swiped away (iOS `UNNotificationDismissActionIdentifier`, Android delete intent).
    case dismissed
    /// An action button (the category's action identifier).
    case acted(actionID: String)

    /// The timeline kind this engagement is recorded as.
    public var kind: DeviceTimelineEvent.Kind {
        switch self {
        case .displayed: return .displayed
        case .opened: return .opened
        case .dismissed: return .dismissed
        case .acted: return .action
        }
    }

    /// Whether it takes the notification off the screen (everything but `displayed`).
    public var isFinal: Bool { self != .displayed }

    public var actionID: String? {
        if case .acted(let id) = self { return id }
        return nil
    }

    public var description: String {
        if case .acted(let id) = self { return "action \(id)" }
        return kind.rawValue
    }
}

/// Whether the user lets the app show notifications, as the phone decides it. The push
/// services do not know: they accept and deliver either way (`docs/engagement.md`).
///
/// - `granted`: delivered notifications with an alert are shown.
/// - `provisional`: iOS provisional authorization: delivered quietly to Notification Center
///   (no banner, sound or lock screen); the user can still open, dismiss or act on it there.
/// - `denied`: notifications are turned off (never allowed, or revoked in Settings): the
///   service accepts and delivers to the device, nothing is displayed and nothing can be tapped.
public struct NotificationPermission: Hashable, Sendable, CustomStringConvertible, StringCodedValue {
    public static let expectedValues = "granted, provisional or denied"

    enum Value: String, Hashable, Sendable {
        case granted
        case provisional
        case denied
    }

    let value: Value

    public static let granted = NotificationPermission(value: .granted)
    public static let provisional = NotificationPermission(value: .provisional)
    public static let denied = NotificationPermission(value: .denied)

    public init?(rawValue: String) {
        // "revoked" is how people describe a permission taken back in Settings.
        let text = rawValue.lowercased()
        guard let value = Value(rawValue: text == "revoked" ? "denied" : text) else { return nil }
        self.value = value
    }

    private init(value: Value) { self.value = value }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }

    /// Whether a delivered alert reaches the user's eyes at all.
    public var displays: Bool { self != .denied }
}

/// Why an engagement cannot happen; `status` is the control API's HTTP status for it.
public struct EngagementRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var message: String

    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    static func noDevice(_ address: DeviceAddress) -> Self {
        Self(status: 404, message: "no simulated device \(address): it appears with its first notification")
    }

    static func noNotification(_ id: String, _ address: DeviceAddress) -> Self {
        Self(status: 404, message: "device \(address) has no notification \(id) (forgotten, or never sent to this token)")
    }
}

/// An engagement the behaviour model decided on at delivery, due at `at` (gateway clock).
public struct PlannedEngagement: Sendable, Hashable {
    public var engagement: Engagement
    public var at: Timestamp
}
