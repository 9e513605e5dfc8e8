public import PushMockJSON

/// Why one journal line could not be turned back into an ``ExchangeRecord``.
///
/// Field paths use dots (`request.headers[2]`) so a report points at the exact spot in a
/// possibly very long line.
public enum JournalDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line is not valid JSON.
    case syntax(JSONSyntaxError)
    /// The line is valid JSON but not an object.
    case notAnObject
    /// The `v` field names a format this reader does not understand.
    case unsupportedVersion(String)
    /// A required field is absent.
    case missingField(String)
    /// A field has the wrong type or an impossible value.
    case invalidField(String, expected: String)

    public var description: String {
        switch self {
        case .syntax(let error): "invalid JSON: \(error)"
        case .notAnObject: "line is not a JSON object"
        case .unsupportedVersion(let version): "unsupported journal format version \(version)"
        case .missingField(let path): "missing field \(path)"
        case .invalidField(let path, let expected): "field \(path) is not \(expected)"
        }
    }
}
