/// One field of an FCM message type: its proto (snake_case) name, the lowerCamelCase JSON name
/// protoc derives from it, its kind, and whether it is repeated or part of a `oneof`.
///
/// Proto3 JSON parsing accepts both names for every field; error paths always use the proto
/// name (`message.android.notification.event_time`), while "Unknown name" errors and the
/// `Field '<name>'` part of well-known-type errors quote the name as the client sent it.
public struct FCMField: Sendable, Hashable, CustomStringConvertible {
    /// The proto field name, e.g. `collapse_key`.
    public let name: String
    /// The JSON name, e.g. `collapseKey`.
    public let jsonName: String
    /// The value's shape.
    public let kind: FCMFieldKind
    /// Whether the field is a JSON array of `kind` values.
    public let isRepeated: Bool
    /// The `oneof` the field belongs to (`target` for token/topic/condition/fid).
    public let oneof: String?

    public init(_ name: String, _ kind: FCMFieldKind, repeated: Bool = false, oneof: String? = nil) {
        self.name = name
        self.jsonName = FCMASCII.lowerCamelCase(name)
        self.kind = kind
        self.isRepeated = repeated
        self.oneof = oneof
    }

    public var description: String { name }
}
