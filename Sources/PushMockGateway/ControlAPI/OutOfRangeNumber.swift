import PushMockJSON

/// Foundation's `JSONDecoder` answers "The given data was not valid JSON." at the top of the
/// document for valid JSON holding a number its member's type cannot take (`"limit":
/// 99999999999999999999`, `1e400`, `"limit": 1.5`, `"seed": -1`): that sent users looking for a
/// syntax error. The gateway parses the body itself and names the number and its place
/// instead.
enum OutOfRangeNumber {
    /// `.preferences.caps[0].limit: the number 99999999999999999999 is out of range …`; for a
    /// body whose numbers all fit some Swift number, the fractions and negatives that may be
    /// the one; `nil` when `error` is another problem, the body is not JSON, or it holds no
    /// such number.
    static func describe(_ error: DecodingError, body: [UInt8]) -> String? {
        guard case .dataCorrupted(let context) = error, context.codingPath.isEmpty, !body.isEmpty,
            let document = try? JSONValue(parsing: body)
        else { return nil }
        var numbers: [(place: String, text: String)] = []
        collect(document, place: "", into: &numbers)
        if let (place, text) = numbers.first(where: { !fits($0.text) }) {
            let prefix = place.isEmpty ? "" : "\(place): "
            return "\(prefix)the number \(text) is out of range (whole numbers are at most 9223372036854775807 either way)"
        }
        // No fraction or negative number: the refusal was something else (Foundation also
        // refuses an escaped lone surrogate, `"\uD800"`, which JSON allows), so its words stand.
        let suspects = numbers.filter { $0.text.hasPrefix("-") || !isWhole($0.text) }.prefix(3)
        guard !suspects.isEmpty else { return nil }
        let named = suspects.map { "\($0.place.isEmpty ? "" : "\($0.place) = ")\($0.text)" }.joined(separator: ", ")
        return "a number does not fit its member: a fraction or a negative number where a whole or non-negative one is expected (\(named))"
    }

    private static func isWhole(_ text: String) -> Bool {
        !text.contains { $0 == "." || $0 == "e" || $0 == "E" }
    }

    private static func fits(_ text: String) -> Bool {
        isWhole(text) ? Int64(text) != nil || UInt64(text) != nil : Double(text).map(\.isFinite) ?? false
    }

    private static func collect(_ value: JSONValue, place: String, into numbers: inout [(place: String, text: String)]) {
        switch value {
        case .number(let text):
            numbers.append((place, text))
        case .array(let elements):
            for (index, element) in elements.enumerated() { collect(element, place: "\(place)[\(index)]", into: &numbers) }
        case .object(let object):
            for (key, member) in object.members { collect(member, place: "\(place).\(key)", into: &numbers) }
        default:
            break
        }
    }
}
