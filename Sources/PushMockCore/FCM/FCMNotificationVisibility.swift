/// `android.notification.visibility`: how much of the notification shows on a locked screen.
public struct FCMNotificationVisibility: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case unspecified = "VISIBILITY_UNSPECIFIED"
        case `private` = "PRIVATE"
        case `public` = "PUBLIC"
        case secret = "SECRET"
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

    /// Not set; Android uses PRIVATE.
    public static let unspecified = Self(.unspecified)
    /// Shown, but sensitive content hidden on secure lock screens.
    public static let `private` = Self(.private)
    /// Shown in full on all lock screens.
    public static let `public` = Self(.public)
    /// Not shown on secure lock screens.
    public static let secret = Self(.secret)

    /// Every value in declaration order (index = proto number).
    public static let all: [FCMNotificationVisibility] = Known.allCases.map(FCMNotificationVisibility.init)

    /// The schema of `google.firebase.fcm.v1.AndroidNotification.Visibility`.
    public static let schema = FCMEnumSchema(
        name: "google.firebase.fcm.v1.AndroidNotification.Visibility",
        names: Known.allCases.map(\.rawValue)
    )
}
