#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file operation on a journal, with the system error.
///
/// Journal failures must reach whoever acknowledged the request (never be lost in a log), so
/// they carry enough to act on: which operation, which file, and `errno`.
public struct JournalIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being attempted.
    public enum Operation: String, Sendable, Hashable {
        case createDirectory = "create directory for"
        case open = "open"
        case read = "read"
        case write = "write to"
        case sync = "sync"
        case close = "close"
        /// Renaming or deleting files while rotating the journal.
        case rotate = "rotate"
        /// An append after ``JournalWriter/close()``.
        case appendAfterClose = "append to closed journal"
    }

    /// The operation that failed.
    public var operation: Operation
    /// The journal file's path.
    public var path: String
    /// The `errno` value, or 0 when there is none.
    public var code: Int32
    /// Extra explanation when there is no `errno` (e.g. from Foundation).
    public var detail: String?

    /// Creates an error.
    public init(operation: Operation, path: String, code: Int32, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.code = code
        self.detail = detail
    }

    /// The system's message for ``code``.
    public var systemMessage: String {
        guard code != 0, let message = strerror(code) else { return detail ?? "unknown error" }
        return String(cString: message)
    }

    public var description: String {
        "cannot \(operation.rawValue) \(path): \(systemMessage)" + (code != 0 ? " (errno \(code))" : "")
    }
}
