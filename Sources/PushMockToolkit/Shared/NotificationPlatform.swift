public import PushMockCore

/// The push service a recorded notification was sent through: the toolkit's checks read APNs
/// payloads and FCM `SendMessageRequest` bodies differently. JSON form: `"apns"` or `"fcm"`,
/// the spelling of ``PushMockRecording/ExchangeRecord/platform``.
public struct NotificationPlatform: Hashable, Sendable, Comparable, CustomStringConvertible, StringCodedValue {
    enum Value: String, Hashable, Sendable {
        case apns
        case fcm
    }

    let value: Value

    /// Apple Push Notification service: the body is the payload with its `aps` dictionary.
    public static let apns = Self(value: .apns)
    /// Firebase Cloud Messaging HTTP v1: the body is `{"message": {…}}`.
    public static let fcm = Self(value: .fcm)

    /// Every platform, in a stable order.
    public static let all: [Self] = [.apns, .fcm]

    private init(value: Value) { self.value = value }

    /// `apns` or `fcm` (case-insensitive); `nil` for the other record platforms (`oauth`, `iid`,
    /// `control`, `unknown`), which carry no notification.
    public init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue.lowercased()) else { return nil }
        self.value = value
    }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public static var expectedValues: String { "apns or fcm" }
}
