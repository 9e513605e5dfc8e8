/// A proto enum of the FCM schema: its full name and its values with their numbers.
///
/// Proto3 JSON parsers accept an enum as its value name or its number; FCM also accepts names
/// in any letter case (the Admin SDKs send `"high"` for `HIGH`), so ``value(named:)`` ignores
/// ASCII case.
public struct FCMEnumSchema: Sendable, Hashable, CustomStringConvertible {
    /// One enum value.
    public struct Value: Sendable, Hashable, CustomStringConvertible {
        /// The value name, e.g. `HIGH`.
        public let name: String
        /// The value number, e.g. `1`.
        public let number: Int

        public init(name: String, number: Int) {
            self.name = name
            self.number = number
        }

        public var description: String { name }
    }

    /// The full proto name, e.g. `google.firebase.fcm.v1.AndroidMessagePriority`.
    public let name: String
    /// The values in declaration order.
    public let values: [Value]

    /// Creates an enum whose numbers are the positions of `names` (0, 1, 2…), as all FCM enums are.
    public init(name: String, names: [String]) {
        self.name = name
        self.values = names.enumerated().map { Value(name: $0.element, number: $0.offset) }
    }

    /// The type URL Google names in `Invalid value` errors.
    public var typeURL: String { "type.googleapis.com/" + name }

    public var description: String { name }

    /// The value whose name matches `text`, ignoring ASCII case.
    public func value(named text: String) -> Value? {
        values.first { FCMASCII.equalsIgnoringCase($0.name, text) }
    }

    /// The value with this number.
    public func value(number: Int) -> Value? {
        values.first { $0.number == number }
    }
}
