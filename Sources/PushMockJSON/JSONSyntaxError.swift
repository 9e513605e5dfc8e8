/// Why a byte buffer is not a single valid JSON value, and where the problem starts.
///
/// The scanner, the ``JSONValue`` parser and the journal reader all report this type so a
/// caller can show the same precise diagnostic (byte offset plus a short reason) whichever
/// path rejected the input, and tests can compare the paths against each other.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a syntax error. Kept coarse so that independent implementations
    /// (scanner and parser) can agree on it.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The input is empty or contains only whitespace.
        case emptyInput
        /// The input ended in the middle of a value.
        case unexpectedEndOfInput
        /// A byte that cannot start or continue the expected token.
        case unexpectedByte(UInt8)
        /// A malformed number (leading zero, missing digits after `-`, `.` or exponent…).
        case invalidNumber
        /// A misspelled `true`, `false` or `null`.
        case invalidLiteral
        /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`.
        case invalidEscape
        /// An unescaped byte below 0x20 inside a string.
        case controlCharacterInString
        /// A string that is not well-formed UTF-8 (overlong, surrogate, > U+10FFFF, truncated).
        case invalidUTF8
        /// Objects and arrays are nested deeper than the configured limit.
        case nestingTooDeep(limit: Int)
        /// An object member name that is not a string (this includes a trailing comma).
        case expectedKey
        /// A member name not followed by `:`.
        case expectedColon
        /// A value not followed by `,` or the closing bracket of its container.
        case expectedCommaOrClose
        /// A complete value followed by something other than whitespace.
        case trailingData

        public var description: String {
            switch self {
            case .emptyInput: "empty input"
            case .unexpectedEndOfInput: "unexpected end of input"
            case .unexpectedByte(let byte):
                if byte >= 0x21 && byte < 0x7F {
                    "unexpected character '\(Character(Unicode.Scalar(byte)))'"
                } else {
                    "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))"
                }
            case .invalidNumber: "invalid number"
            case .invalidLiteral: "invalid literal (expected true, false or null)"
            case .invalidEscape: "invalid escape sequence in string"
            case .controlCharacterInString: "unescaped control character in string"
            case .invalidUTF8: "invalid UTF-8 in string"
            case .nestingTooDeep(let limit): "nesting deeper than \(limit) levels"
            case .expectedKey: "expected a string member name"
            case .expectedColon: "expected ':' after member name"
            case .expectedCommaOrClose: "expected ',' or closing bracket"
            case .trailingData: "unexpected data after the JSON value"
            }
        }
    }

    /// Byte offset (0-based) of the first byte that made the input invalid; equal to the input
    /// length when the input ended too early.
    public var offset: Int
    /// What went wrong at ``offset``.
    public var reason: Reason

    /// Creates an error; public so other modules can report JSON problems uniformly.
    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(reason) at byte \(offset)" }
}
