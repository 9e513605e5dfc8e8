/// `android.notification.notification_priority`: the Android notification importance.
public struct FCMNotificationPriority: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case unspecified = "PRIORITY_UNSPECIFIED"
        case min = "PRIORITY_MIN"
        case low = "PRIORITY_LOW"
        case defaultPriority = "PRIORITY_DEFAULT"
        case high = "PRIORITY_HIGH"
        case max = "PRIORITY_MAX"
    }

    private let known: Known

    private init(_ known: Known) { self.known = known }

    /// The value named `name`, ignoring ASCII case (`high` and `HIGH` are the same value).
    public init?(name: String) {
        guard let value = Self.schema.value(named: name) else { return nil }
        self.init(Known.allCases[value.number])
    }

    /// The value with this proto number.
    public init?(number: Int) {
        guard Known.allCases.indices.contains(number) else { return nil }
        self.init(Known.allCases[number])
    }

    /// The canonical (upper-case) value name.
    public var name: String { known.rawValue }
    /// The proto enum number.
    public var number: Int { Known.allCases.firstIndex(of: known)! }
    public var description: String { known.rawValue }

    /// Not set; FCM uses PRIORITY_DEFAULT.
    public static let unspecified = Self(.unspecified)
    /// Lowest priority.
    public static let min = Self(.min)
    /// Lower priority.
    public static let low = Self(.low)
    /// Default priority.
    public static let defaultPriority = Self(.defaultPriority)
    /// Higher priority.
    public static let high = Self(.high)
    /// Highest priority.
    public static let max = Self(.max)

    /// Every value in declaration order (index = proto number).
    public static let all: [FCMNotificationPriority] = Known.allCases.map(FCMNotificationPriority.init)

    /// The schema of `google.firebase.fcm.v1.AndroidNotification.NotificationPriority`.
    public static let schema = FCMEnumSchema(
        name: "google.firebase.fcm.v1.AndroidNotification.NotificationPriority",
        names: Known.allCases.map(\.rawValue)
    )
}
