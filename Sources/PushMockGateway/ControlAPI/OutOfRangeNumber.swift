import PushMockJSON

/// Foundation's `JSONDecoder` answers "The given data was not valid JSON." at the top of the
/// document for valid JSON holding a number no Swift number can take (`"limit":
/// 99999999999999999999`, `1e400`): that sent users looking for a syntax error. The gateway
/// parses the body itself and names the number and its place instead.
enum OutOfRangeNumber {
    /// `.preferences.caps[0].limit: the number 99999999999999999999 is out of range …`, or
    /// `nil` when `error` is another problem or the body holds no such number.
    static func describe(_ error: DecodingError, body: [UInt8]) -> String? {
        guard case .dataCorrupted(let context) = error, context.codingPath.isEmpty, !body.isEmpty,
            let document = try? JSONValue(parsing: body), let (place, text) = first(in: document, place: "")
        else { return nil }
        let prefix = place.isEmpty ? "" : "\(place): "
        return "\(prefix)the number \(text) is out of range (whole numbers are at most 9223372036854775807 either way)"
    }

    private static func first(in value: JSONValue, place: String) -> (String, String)? {
        switch value {
        case .number(let text):
            let isWhole = !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
            let fits = isWhole ? Int64(text) != nil : Double(text).map(\.isFinite) ?? false
            return fits ? nil : (place, text)
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = first(in: element, place: "\(place)[\(index)]") { return found }
            }
            return nil
        case .object(let object):
            for (key, member) in object.members {
                if let found = first(in: member, place: "\(place).\(key)") { return found }
            }
            return nil
        default:
            return nil
        }
    }
}
