/// What ``JSONScanner`` learned about a buffer in its single pass.
///
/// Carrying the whitespace facts lets the hot path decide whether a body can be embedded in a
/// JSON Lines journal verbatim (no line breaks), must be compacted first, or is already compact.
public struct JSONScanResult: Sendable, Hashable {
    /// `nil` when the buffer holds exactly one valid JSON value.
    public var error: JSONSyntaxError?
    /// Kind of the top-level value; `nil` when the buffer is invalid.
    public var topLevelKind: JSONKind?
    /// `true` if any whitespace outside strings (including leading and trailing) was seen.
    public var hasInsignificantWhitespace: Bool
    /// `true` if that insignificant whitespace contains `\n` or `\r` — such a buffer must not be
    /// embedded verbatim in a line-oriented format.
    public var hasLineBreak: Bool

    /// Creates a result; mostly useful in tests.
    public init(
        error: JSONSyntaxError?,
        topLevelKind: JSONKind?,
        hasInsignificantWhitespace: Bool,
        hasLineBreak: Bool
    ) {
        self.error = error
        self.topLevelKind = topLevelKind
        self.hasInsignificantWhitespace = hasInsignificantWhitespace
        self.hasLineBreak = hasLineBreak
    }

    /// `true` when the buffer is exactly one valid JSON value.
    @inlinable public var isValid: Bool { error == nil }

    /// `true` when the buffer is valid and its top-level value is an object (what APNs and FCM
    /// require of a request body).
    @inlinable public var isObject: Bool { error == nil && topLevelKind == .object }

    /// `true` when the buffer is valid and has no insignificant whitespace at all, so it can be
    /// copied verbatim wherever compact JSON is expected.
    @inlinable public var isCompact: Bool { error == nil && !hasInsignificantWhitespace }
}
