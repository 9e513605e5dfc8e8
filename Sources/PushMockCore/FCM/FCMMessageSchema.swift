/// One message type of the FCM v1 schema: its full proto name and its fields, with a lookup
/// that accepts both the proto name and the JSON name of each field.
public struct FCMMessageSchema: Sendable, Hashable, CustomStringConvertible {
    /// The full proto name, e.g. `google.firebase.fcm.v1.AndroidConfig`.
    public let name: String
    /// The fields in declaration order.
    public let fields: [FCMField]
    private let indexByName: [String: Int]

    public init(name: String, fields: [FCMField]) {
        self.name = name
        self.fields = fields
        var index: [String: Int] = [:]
        for (position, field) in fields.enumerated() {
            index[field.name] = position
            index[field.jsonName] = position
        }
        self.indexByName = index
    }

    /// The position of the field called `name` (proto or JSON spelling, exact case).
    public func index(of name: String) -> Int? {
        indexByName[name]
    }

    /// The field called `name` (proto or JSON spelling, exact case).
    public func field(named name: String) -> FCMField? {
        index(of: name).map { fields[$0] }
    }

    /// The short name, e.g. `AndroidConfig`.
    public var shortName: String {
        String(name.split(separator: ".").last ?? Substring(name))
    }

    public var description: String { name }
}
