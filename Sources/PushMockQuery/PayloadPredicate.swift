import Foundation
import PushMockCore
public import PushMockJSON

/// A condition on a notification's JSON body: the APNs payload, or the FCM
/// `SendMessageRequest` (so FCM paths start at `$.message`).
///
/// Text form (REST `where=`, CLI `--json-path`), one of:
/// - `$.aps.alert.title=Time for your BPC-157` — equal (the value is JSON when it parses as
///   JSON — `10`, `true`, `"quoted"`, `{"a":1}` — and a plain string otherwise); `==` works too;
/// - `$.aps.sound!=default` — not equal (or absent);
/// - `$.aps.alert.title~Time for *` — the string matches a glob (`*`, `?`);
/// - `$.aps.alert.title!~Time for *` — no string there matches the glob (or absent);
/// - `$.deep_link` — present; `!$.aps.sound` — absent.
public struct PayloadPredicate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How the value at the path is compared.
    public struct Operator: Sendable, Hashable, Codable, CustomStringConvertible {
        enum Value: String, Sendable, Hashable, Codable {
            case equals = "="
            case notEquals = "!="
            case matches = "~"
            case notMatches = "!~"
            case exists
            case absent
        }

        let value: Value

        public static let equals = Operator(value: .equals)
        public static let notEquals = Operator(value: .notEquals)
        public static let matches = Operator(value: .matches)
        public static let notMatches = Operator(value: .notMatches)
        public static let exists = Operator(value: .exists)
        public static let absent = Operator(value: .absent)

        public var description: String { value.rawValue }

        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let value = Value(rawValue: text == "==" ? "=" : text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "operator must be =, !=, ~, !~, exists or absent"))
            }
            self.value = value
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value.rawValue)
        }

        private init(value: Value) { self.value = value }
    }

    /// The JSON path, e.g. `$.aps.alert.title`.
    public var path: String
    public var op: Operator
    /// The value for `=`/`!=` (any JSON), or the glob for `~` (a string).
    public var value: JSONValue?

    enum CodingKeys: String, CodingKey {
        case path
        case op
        case value
    }

    public init(path: String, op: Operator, value: JSONValue? = nil) throws(QueryError) {
        do {
            _ = try JSONPath(path)
        } catch {
            throw QueryError("bad JSON path \(path): \(error)")
        }
        if op == .matches || op == .notMatches, value?.stringValue == nil {
            throw QueryError("\(path)\(op)…: a glob pattern (a string) is needed")
        }
        self.path = path
        self.op = op
        self.value = value
    }

    public static func equals(_ path: String, _ value: JSONValue) throws(QueryError) -> PayloadPredicate {
        try PayloadPredicate(path: path, op: .equals, value: value)
    }

    public static func matches(_ path: String, _ pattern: String) throws(QueryError) -> PayloadPredicate {
        try PayloadPredicate(path: path, op: .matches, value: .string(pattern))
    }

    public static func notMatches(_ path: String, _ pattern: String) throws(QueryError) -> PayloadPredicate {
        try PayloadPredicate(path: path, op: .notMatches, value: .string(pattern))
    }

    public static func exists(_ path: String) throws(QueryError) -> PayloadPredicate {
        try PayloadPredicate(path: path, op: .exists)
    }

    public static func absent(_ path: String) throws(QueryError) -> PayloadPredicate {
        try PayloadPredicate(path: path, op: .absent)
    }

    /// Parses the text form.
    public init(parsing text: String) throws(QueryError) {
        var text = Substring(text.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("!"), !text.dropFirst().contains(where: { "=~".contains($0) }) {
            text = text.dropFirst()
            try self.init(path: String(text), op: .absent)
            return
        }
        guard let (range, op) = Self.findOperator(in: text) else {
            try self.init(path: String(text), op: .exists)
            return
        }
        let path = String(text[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
        if Self.hasBareExclamationMark(path) {
            throw QueryError("\(text): unknown operator; use =, !=, ~ or !~ (or PATH for present, !PATH for absent)")
        }
        let rawValue = String(text[range.upperBound...])
        let value: JSONValue
        if op == .matches || op == .notMatches {
            value = .string(rawValue)
        } else {
            value = (try? JSONValue(parsing: rawValue)) ?? .string(rawValue)
        }
        try self.init(path: path, op: op, value: value)
    }

    /// The first `!=`, `!~`, `==`, `=` or `~` outside brackets and quotes. (A `!` before the
    /// operator that is neither is rejected by the caller: reading `!~` as `~` on a path ending
    /// in `!` once inverted conditions silently.)
    private static func findOperator(in text: Substring) -> (Range<Substring.Index>, Operator)? {
        var depth = 0
        var quote: Character?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "[" {
                depth += 1
            } else if character == "]" {
                depth -= 1
            } else if depth == 0 {
                let next = text.index(after: index)
                if character == "!", next < text.endIndex, text[next] == "=" {
                    return (index..<text.index(after: next), .notEquals)
                }
                if character == "!", next < text.endIndex, text[next] == "~" {
                    return (index..<text.index(after: next), .notMatches)
                }
                if character == "=" {
                    let end = next < text.endIndex && text[next] == "=" ? text.index(after: next) : next
                    return (index..<end, .equals)
                }
                if character == "~" {
                    return (index..<next, .matches)
                }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// Whether `path` has a `!` outside brackets and quotes (an operator nobody means).
    private static func hasBareExclamationMark(_ path: String) -> Bool {
        var depth = 0
        var quote: Character?
        for character in path {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "[" {
                depth += 1
            } else if character == "]" {
                depth -= 1
            } else if depth == 0, character == "!" {
                return true
            }
        }
        return false
    }

    public var description: String {
        switch op {
        case .exists: return path
        case .absent: return "!" + path
        case .matches: return "\(path)~\(value?.stringValue ?? "")"
        case .notMatches: return "\(path)!~\(value?.stringValue ?? "")"
        default: return "\(path)\(op)\(value.map(Self.render) ?? "")"
        }
    }

    /// Values as people wrote them: strings bare, everything else as JSON.
    static func render(_ value: JSONValue) -> String {
        value.stringValue ?? value.compactString
    }

    /// Evaluates against a body; `nil` body (not JSON) fails everything except `absent`.
    public func evaluate(_ body: JSONValue?) -> (passed: Bool, found: [JSONValue]) {
        guard let body, let jsonPath = try? JSONPath(path) else { return (op == .absent, []) }
        let found = jsonPath.evaluate(body)
        switch op {
        case .exists: return (!found.isEmpty, found)
        case .absent: return (found.isEmpty, found)
        case .equals: return (value.map(found.contains) ?? false, found)
        case .notEquals: return (value.map { !found.contains($0) } ?? true, found)
        case .notMatches:
            let glob = Glob(value?.stringValue ?? "")
            return (!found.contains { $0.stringValue.map(glob.matches) ?? false }, found)
        default:
            let glob = Glob(value?.stringValue ?? "")
            return (found.contains { $0.stringValue.map(glob.matches) ?? false }, found)
        }
    }
}

/// A query or expectation that cannot be used, in words.
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
