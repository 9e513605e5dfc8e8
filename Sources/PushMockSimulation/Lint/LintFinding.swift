public import PushMockJSON

/// One thing a linter noticed about an accepted notification. Findings never change the
/// gateway's response; they are recorded with the exchange.
///
/// JSON form: `{"code":"apns.background-high-priority","severity":"warning",
/// "field":"apns-priority","message":"…","source":"https://…"}`.
public struct LintFinding: Hashable, Sendable, Codable, CustomStringConvertible {
    public var code: LintCode
    public var severity: LintSeverity
    /// Where the problem is: a header name (`apns-priority`) or a path into the body
    /// (`aps.content-available`, `message.android.priority`).
    public var field: String
    /// Plain words naming the offending field and value, and what will happen.
    public var message: String
    /// The document that describes the behaviour (the rule's first source).
    public var source: String

    public init(code: LintCode, severity: LintSeverity, field: String, message: String, source: String) {
        self.code = code
        self.severity = severity
        self.field = field
        self.message = message
        self.source = source
    }

    /// The rule this finding comes from, if this version knows the code.
    public var rule: LintRule? { LintRule.named(code) }

    public var description: String { "\(severity) \(code) [\(field)]: \(message)" }

    /// Writes the JSON form (see the type documentation) without going through `Codable`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.staticKey("code")
        writer.string(code.rawValue)
        writer.staticKey("severity")
        writer.string(severity.rawValue)
        writer.staticKey("field")
        writer.string(field)
        writer.staticKey("message")
        writer.string(message)
        writer.staticKey("source")
        writer.string(source)
        writer.endObject()
    }

    /// The JSON form as a value.
    public var jsonValue: JSONValue {
        [
            "code": .string(code.rawValue),
            "severity": .string(severity.rawValue),
            "field": .string(field),
            "message": .string(message),
            "source": .string(source),
        ]
    }
}
