/// The JSON shape and proto type of one schema field.
public indirect enum FCMFieldKind: Sendable, Hashable {
    /// A JSON string (`TYPE_STRING`).
    case string
    /// `true` or `false` (`TYPE_BOOL`).
    case bool
    /// A 32-bit integer, as a JSON number or a decimal string (`TYPE_INT32`).
    case int32
    /// A floating-point number, as a JSON number, a numeric string, `"NaN"` or `"±Infinity"`
    /// (`TYPE_FLOAT`; also used for `google.protobuf.FloatValue`, which reads the same).
    case float
    /// A proto enum: a value name (any letter case) or its number.
    case enumeration(FCMEnumSchema)
    /// `google.protobuf.Duration`: a string like `"3.5s"`.
    case duration
    /// `google.protobuf.Timestamp`: an RFC 3339 string like `"2024-01-02T03:04:05.123Z"`.
    case timestamp
    /// `map<string, string>`: a JSON object of strings; keys are taken verbatim (never re-cased).
    /// `entryType` is the proto name of the synthetic entry message, e.g.
    /// `google.firebase.fcm.v1.Message.DataEntry`.
    case stringMap(entryType: String)
    /// `google.protobuf.Struct`: any JSON object, kept as sent.
    case structObject
    /// A nested message.
    case message(FCMMessageSchema)

    /// The type Google names in `Invalid value at '…' (<type>), …` errors.
    public var typeName: String {
        switch self {
        case .string: return "TYPE_STRING"
        case .bool: return "TYPE_BOOL"
        case .int32: return "TYPE_INT32"
        case .float: return "TYPE_FLOAT"
        case .enumeration(let schema): return schema.typeURL
        case .duration: return "type.googleapis.com/google.protobuf.Duration"
        case .timestamp: return "type.googleapis.com/google.protobuf.Timestamp"
        case .stringMap(let entryType): return "type.googleapis.com/" + entryType
        case .structObject: return "type.googleapis.com/google.protobuf.Struct"
        case .message(let schema): return "type.googleapis.com/" + schema.name
        }
    }
}
