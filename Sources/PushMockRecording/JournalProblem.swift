/// A journal line that could not be read as a record.
///
/// The reader reports problems instead of failing the whole file, because a journal is an
/// append-only log that outlives crashes and format changes: one bad line (a torn write, a
/// hand edit) must not hide the thousands of good ones around it.
public struct JournalProblem: Sendable, Hashable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// Byte offset of the line's first byte in the file.
    public var byteOffset: Int64
    /// What was wrong.
    public var message: String
    /// `true` when this is the file's last line and it has no terminating `\n` — the signature of
    /// a write interrupted by a crash, as opposed to a corrupt line in the middle.
    public var isTornLastLine: Bool

    /// Creates a problem report.
    public init(line: Int, byteOffset: Int64, message: String, isTornLastLine: Bool = false) {
        self.line = line
        self.byteOffset = byteOffset
        self.message = message
        self.isTornLastLine = isTornLastLine
    }

    public var description: String {
        "line \(line) (byte \(byteOffset))\(isTornLastLine ? ", torn last line" : ""): \(message)"
    }
}
