import PushMockJSON

/// A value read from JSON according to an ``FCMFieldKind`` (internal to the validator).
indirect enum FCMParsedValue: Sendable, Hashable {
    case string(String)
    case bool(Bool)
    case int32(Int32)
    case float(Double)
    case enumeration(FCMEnumSchema.Value)
    case duration(Duration)
    case timestamp(Timestamp)
    /// Map entries in wire order, duplicates included.
    case map([FCMStringMap.Entry])
    case structObject(JSONObject)
    case message(FCMParsedMessage)
    case list([FCMParsedValue])
}
