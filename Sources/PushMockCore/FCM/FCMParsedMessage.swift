import PushMockJSON

/// One message read from JSON: the fields that were set (non-null), by schema position. A field
/// sent twice holds its last value.
struct FCMParsedMessage: Sendable, Hashable {
    let schema: FCMMessageSchema
    var values: [Int: FCMParsedValue] = [:]

    init(schema: FCMMessageSchema) {
        self.schema = schema
    }

    /// The value of the field called `name`, if set.
    subscript(name: String) -> FCMParsedValue? {
        guard let index = schema.index(of: name) else {
            preconditionFailure("\(schema.name) has no field \(name)")
        }
        return values[index]
    }

    func isSet(_ name: String) -> Bool { self[name] != nil }

    func string(_ name: String) -> String? {
        if case .string(let value) = self[name] { return value }
        return nil
    }

    func bool(_ name: String) -> Bool? {
        if case .bool(let value) = self[name] { return value }
        return nil
    }

    func int32(_ name: String) -> Int32? {
        if case .int32(let value) = self[name] { return value }
        return nil
    }

    func float(_ name: String) -> Double? {
        if case .float(let value) = self[name] { return value }
        return nil
    }

    func enumeration(_ name: String) -> FCMEnumSchema.Value? {
        if case .enumeration(let value) = self[name] { return value }
        return nil
    }

    func duration(_ name: String) -> Duration? {
        if case .duration(let value) = self[name] { return value }
        return nil
    }

    func timestamp(_ name: String) -> Timestamp? {
        if case .timestamp(let value) = self[name] { return value }
        return nil
    }

    /// Map entries in wire order, duplicates included.
    func mapEntries(_ name: String) -> [FCMStringMap.Entry]? {
        if case .map(let entries) = self[name] { return entries }
        return nil
    }

    /// The map with "last occurrence wins" applied.
    func map(_ name: String) -> FCMStringMap? {
        mapEntries(name).map { FCMStringMap($0.map { ($0.key, $0.value) }) }
    }

    func structObject(_ name: String) -> JSONObject? {
        if case .structObject(let value) = self[name] { return value }
        return nil
    }

    func message(_ name: String) -> FCMParsedMessage? {
        if case .message(let value) = self[name] { return value }
        return nil
    }

    func strings(_ name: String) -> [String]? {
        guard case .list(let elements) = self[name] else { return nil }
        return elements.compactMap { if case .string(let value) = $0 { return value } else { return nil } }
    }

    func durations(_ name: String) -> [Duration]? {
        guard case .list(let elements) = self[name] else { return nil }
        return elements.compactMap { if case .duration(let value) = $0 { return value } else { return nil } }
    }
}
