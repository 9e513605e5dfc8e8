/// `android.notification.proxy`: whether the notification may be proxied to the device
/// (default `IF_PRIORITY_LOWERED`).
public struct FCMNotificationProxy: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case unspecified = "PROXY_UNSPECIFIED"
        case allow = "ALLOW"
        case deny = "DENY"
        case ifPriorityLowered = "IF_PRIORITY_LOWERED"
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

    /// Not set; FCM uses IF_PRIORITY_LOWERED.
    public static let unspecified = Self(.unspecified)
    /// Try to proxy this notification.
    public static let allow = Self(.allow)
    /// Do not proxy this notification.
    public static let deny = Self(.deny)
    /// Proxy only if the message priority was lowered on the device.
    public static let ifPriorityLowered = Self(.ifPriorityLowered)

    /// Every value in declaration order (index = proto number).
    public static let all: [FCMNotificationProxy] = Known.allCases.map(FCMNotificationProxy.init)

    /// The schema of `google.firebase.fcm.v1.AndroidNotification.Proxy`.
    public static let schema = FCMEnumSchema(
        name: "google.firebase.fcm.v1.AndroidNotification.Proxy",
        names: Known.allCases.map(\.rawValue)
    )
}
