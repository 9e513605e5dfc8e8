/// Why a condition did not parse: a reason and the byte offset where it was noticed.
public struct FCMConditionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset into the condition text.
    public let offset: Int
    /// What was wrong, e.g. `expected ')'`.
    public let reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(reason) (at offset \(offset))" }
}
