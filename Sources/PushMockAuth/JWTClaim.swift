/// One claim of a JWT that PushMock signs, kept in an ordered list (`[JWTClaim]`) rather than a
/// dictionary.
///
/// Order matters for tests and recordings: the same claims always serialise to the same bytes,
/// which a dictionary cannot promise, and the value enum keeps everything `Sendable` without
/// resorting to `Any`.
public struct JWTClaim: Sendable, Hashable {
    /// A JSON value a claim may carry.
    public enum Value: Sendable, Hashable {
        /// A JSON string.
        case string(String)
        /// A JSON integer, e.g. a NumericDate in whole seconds.
        case integer(Int64)
        /// A JSON number with a fractional part. Non-finite values are written as `null`.
        case number(Double)
        /// A JSON boolean.
        case bool(Bool)
        /// A JSON array of strings, e.g. a multi-valued `aud`.
        case strings([String])
    }

    /// The claim name, e.g. `iss`.
    public var name: String
    /// The claim value.
    public var value: Value

    /// Creates a claim: `JWTClaim("iat", .integer(1_700_000_000))`.
    public init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }

    /// The claims as a JSON object, in list order. Later duplicates are written too; avoid them.
    static func jsonObject(_ claims: [JWTClaim]) -> String {
        "{" + claims.map { JWTJSON.quoted($0.name) + ":" + $0.value.json }.joined(separator: ",") + "}"
    }
}

extension JWTClaim.Value {
    /// The value as JSON text.
    var json: String {
        switch self {
        case .string(let text): JWTJSON.quoted(text)
        case .integer(let number): String(number)
        case .number(let number): number.isFinite ? "\(number)" : "null"
        case .bool(let flag): flag ? "true" : "false"
        case .strings(let texts): "[" + texts.map(JWTJSON.quoted).joined(separator: ",") + "]"
        }
    }
}
