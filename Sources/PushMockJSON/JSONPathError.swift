/// Why a JSON path expression could not be parsed.
///
/// Paths are written by people in test assertions, so the error names the position (in
/// Unicode scalars from the start of the expression) and what was expected there.
public struct JSONPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expression as given.
    public var expression: String
    /// Offset in Unicode scalars where the problem was found.
    public var offset: Int
    /// Human-readable explanation.
    public var message: String

    /// Creates an error.
    public init(expression: String, offset: Int, message: String) {
        self.expression = expression
        self.offset = offset
        self.message = message
    }

    public var description: String {
        "invalid JSON path \"\(expression)\" at offset \(offset): \(message)"
    }
}
