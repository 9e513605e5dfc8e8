/// `Codable` through any encoder (configuration files, control-API bodies). Numbers keep their
/// value; objects decoded through `Decoder` lose member order (JSON objects are unordered, and
/// ``JSONValue`` equality ignores order).
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(String(integer))
        } else if let double = try? container.decode(Double.self) {
            self = JSONValue(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else if let object = try? container.decode([String: JSONValue].self) {
            var result = JSONObject()
            for key in object.keys.sorted() {
                result.append(key: key, value: object[key]!)
            }
            self = .object(result)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let text):
            if let integer = Int64(text) {
                try container.encode(integer)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let object):
            var dictionary: [String: JSONValue] = [:]
            for member in object.members {
                dictionary[member.key] = member.value
            }
            try container.encode(dictionary)
        }
    }
}
