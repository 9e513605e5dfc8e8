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

    enum CodingKeys: String, CodingKey, CaseIterable {
        case path
        case op
        case value
    }

    /// The JSON form `{"path", "op", "value"}`, held to the rules of the text form: a path that
    /// does not parse is refused here, not found to match nothing later.
    public init(from decoder: any Decoder) throws {
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "a payload condition")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let path = try container.decode(String.self, forKey: .path)
        let op = try container.decode(Operator.self, forKey: .op)
        let value = try container.decodeIfPresent(JSONValue.self, forKey: .value)
        do {
            try self.init(path: path, op: op, value: value)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .path, in: container, debugDescription: error.description)
        }
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
        if text.hasPrefix("!"), !text.unicodeScalars.dropFirst().contains(where: { $0 == "=" || $0 == "~" }) {
            text = text.dropFirst()
            try Self.refuseBareExclamationMark(in: text)
            try self.init(path: String(text), op: .absent)
            return
        }
        guard let (range, op) = Self.findOperator(in: text) else {
            // `$.x!y` is no path with a `!` in it, and no operator either: a typo of `!=`.
            try Self.refuseBareExclamationMark(in: text)
            try self.init(path: String(text), op: .exists)
            return
        }
        let path = String(text[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
        if Self.hasBareExclamationMark(path) { throw Self.unknownOperator(text) }
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
    /// in `!` once inverted conditions silently.) Scanned by Unicode scalar, not by character:
    /// a value that begins with a combining mark or an emoji modifier (`$.a=🏻`) joins the `=`
    /// into one character, which hid the operator.
    private static func findOperator(in text: Substring) -> (Range<Substring.Index>, Operator)? {
        let scalars = text.unicodeScalars
        var depth = 0
        var quote: Unicode.Scalar?
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "'" || scalar == "\"" {
                quote = scalar
            } else if scalar == "[" {
                depth += 1
            } else if scalar == "]" {
                depth -= 1
            } else if depth == 0 {
                let next = scalars.index(after: index)
                let following = next < scalars.endIndex ? scalars[next] : nil
                if scalar == "!", following == "=" {
                    return (index..<scalars.index(after: next), .notEquals)
                }
                if scalar == "!", following == "~" {
                    return (index..<scalars.index(after: next), .notMatches)
                }
                if scalar == "=" {
                    return (index..<(following == "=" ? scalars.index(after: next) : next), .equals)
                }
                if scalar == "~" {
                    return (index..<next, .matches)
                }
            }
            index = scalars.index(after: index)
        }
        return nil
    }

    /// Whether `path` has a `!` outside brackets and quotes (an operator nobody means).
    private static func unknownOperator(_ text: Substring) -> QueryError {
        QueryError("\(text): unknown operator; use =, !=, ~ or !~ (or PATH for present, !PATH for absent)")
    }

    private static func refuseBareExclamationMark(in text: Substring) throws(QueryError) {
        if hasBareExclamationMark(String(text)) { throw unknownOperator(text) }
    }

    private static func hasBareExclamationMark(_ path: String) -> Bool {
        var depth = 0
        var quote: Unicode.Scalar?
        for scalar in path.unicodeScalars {
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "'" || scalar == "\"" {
                quote = scalar
            } else if scalar == "[" {
                depth += 1
            } else if scalar == "]" {
                depth -= 1
            } else if depth == 0, scalar == "!" {
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
