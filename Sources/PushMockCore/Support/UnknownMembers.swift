/// Refuses members a decoded object does not know: a misspelt member would otherwise leave
/// its default in force without a word.
package enum UnknownMembers {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Throws `dataCorrupted` for the first member of the object being decoded that is neither
    /// in `known` (listed in the message) nor in `alsoAllowed` (read by an enclosing type that
    /// shares the object, such as a config file's `preset`).
    package static func reject(in decoder: any Decoder, known: [String], alsoAllowed: [String] = [], what: String) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) && !alsoAllowed.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "unknown member \"\(key.stringValue)\" in \(what) (expected: \(known.joined(separator: ", ")))")
        }
    }

    /// The same for the object under `key` of the object being decoded, when it is present and
    /// an object (a type mismatch is left to the member's own decoding), so a type whose
    /// members decode themselves can still refuse what they do not know.
    package static func reject(in decoder: any Decoder, member key: String, known: [String], what: String) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let memberKey = AnyKey(stringValue: key)
        guard container.contains(memberKey), try !container.decodeNil(forKey: memberKey),
            (try? container.nestedContainer(keyedBy: AnyKey.self, forKey: memberKey)) != nil
        else { return }
        try reject(in: try container.superDecoder(forKey: memberKey), known: known, what: what)
    }
}
