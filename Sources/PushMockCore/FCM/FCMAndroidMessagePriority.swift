/// `android.priority`: how urgently FCM delivers to Android (`NORMAL` may be delayed in Doze;
/// `HIGH` wakes the device). The Admin SDKs send it in lower case.
public struct FCMAndroidMessagePriority: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case normal = "NORMAL"
        case high = "HIGH"
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

    /// Default; delivered when the device is not in Doze.
    public static let normal = Self(.normal)
    /// Delivered immediately, waking a sleeping device.
    public static let high = Self(.high)

    /// Every value in declaration order (index = proto number).
    public static let all: [FCMAndroidMessagePriority] = Known.allCases.map(FCMAndroidMessagePriority.init)

    /// The schema of `google.firebase.fcm.v1.AndroidMessagePriority`.
    public static let schema = FCMEnumSchema(
        name: "google.firebase.fcm.v1.AndroidMessagePriority",
        names: Known.allCases.map(\.rawValue)
    )
}
