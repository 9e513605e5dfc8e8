#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a `.jsonl` journal into records, one line at a time, in bounded memory.
///
/// Bad lines do not stop the read: each yields ``Entry/problem(_:)`` with its line number and
/// reason, and reading continues. Blank lines are skipped silently. A last line without a
/// terminating `\n` is decoded if it is complete (only the newline was lost) and otherwise
/// reported with ``JournalProblem/isTornLastLine`` set — what a crash in the middle of a write
/// leaves behind.
///
/// ```swift
/// for entry in try JournalReader(path: "Recordings/run.jsonl") {
///     switch entry {
///     case .record(let record, _): …
///     case .problem(let problem): print(problem)
///     }
/// }
/// ```
///
/// A reader is a single-pass sequence and is not thread-safe; it closes its file at the end of
/// the input or when released.
public final class JournalReader: Sequence, IteratorProtocol {
    /// One line's outcome.
    public enum Entry: Sendable, Hashable {
        /// A decoded record and its 1-based line number.
        case record(ExchangeRecord, line: Int)
        /// A line that could not be decoded (or a read error, which ends the sequence).
        case problem(JournalProblem)
    }

    /// The file being read.
    public let path: String
    private var descriptor: Int32
    private var splitter = JournalLineSplitter()
    private var ready: [Entry] = []
    private var readyIndex = 0
    private var finished = false
    private static let chunkSize = 64 * 1024

    /// Opens `path` for reading.
    public init(path: String) throws(JournalIOError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw JournalIOError(operation: .open, path: path, code: errno) }
    }

    deinit {
        closeFile()
    }

    /// Why reading stopped early, if it did: the file could be opened but not read (a
    /// directory, an I/O error). The sequence also ends with a ``Entry/problem(_:)`` saying so.
    public private(set) var readError: JournalIOError?

    /// Reads a whole journal into memory: every decodable record, plus a report for each line
    /// that was not.
    ///
    /// - Throws: ``JournalIOError`` when the file cannot be opened or read to its end (a
    ///   directory is no empty journal: every check of it would pass).
    public static func readAll(path: String) throws(JournalIOError) -> (records: [ExchangeRecord], problems: [JournalProblem]) {
        var records: [ExchangeRecord] = []
        var problems: [JournalProblem] = []
        let reader = try JournalReader(path: path)
        for entry in reader {
            switch entry {
            case .record(let record, _): records.append(record)
            case .problem(let problem): problems.append(problem)
            }
        }
        if let error = reader.readError { throw error }
        return (records, problems)
    }

    /// Decodes journal bytes already in memory, with the same rules as reading a file.
    public static func entries(in bytes: [UInt8]) -> [Entry] {
        var splitter = JournalLineSplitter()
        var entries = splitter.feed(bytes[...])
        entries += splitter.finish()
        return entries
    }

    /// The next record or problem, reading more of the file as needed; `nil` at the end.
    public func next() -> Entry? {
        while true {
            if readyIndex < ready.count {
                defer { readyIndex += 1 }
                return ready[readyIndex]
            }
            guard !finished else { return nil }
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            fill()
        }
    }

    private func fill() {
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                ready = splitter.feed(chunk[..<count])
                if !ready.isEmpty { return }
            } else if count == 0 {
                ready = splitter.finish()
                finished = true
                closeFile()
                return
            } else if errno != EINTR {
                let error = JournalIOError(operation: .read, path: path, code: errno)
                readError = error
                ready = [.problem(splitter.problem(message: error.description))]
                finished = true
                closeFile()
                return
            }
        }
    }

    private func closeFile() {
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
    }
}

/// Splits a byte stream into lines and decodes them; shared by file and in-memory reading.
///
/// Each byte is searched for a newline once, however many reads a line spans (searching every
/// line from its start again made a 16 MB line take minutes), and a line longer than
/// ``maximumLineBytes`` is reported and skipped instead of held (`--journal /dev/zero` grew
/// without end).
struct JournalLineSplitter {
    /// The longest line kept. The gateway writes at most about 7 MiB a line (a 1 MiB body
    /// with every byte escaped), so a longer one is not a record.
    static let maximumLineBytes = 64 << 20

    private var pending: [UInt8] = []
    private var lineNumber = 0
    /// File offset of `pending[0]`.
    private var pendingOffset: Int64 = 0
    /// Leading bytes of `pending` already known to hold no newline.
    private var searched = 0
    /// Discarding the rest of a line longer than ``maximumLineBytes``, up to its newline.
    private var skippingLongLine = false

    mutating func feed(_ chunk: ArraySlice<UInt8>) -> [JournalReader.Entry] {
        var chunk = chunk
        if skippingLongLine {
            guard let newline = chunk.firstIndex(of: 0x0A) else {
                pendingOffset += Int64(chunk.count)
                return []
            }
            pendingOffset += Int64(newline + 1 - chunk.startIndex)
            chunk = chunk[(newline + 1)...]
            skippingLongLine = false
        }
        pending.append(contentsOf: chunk)
        var entries: [JournalReader.Entry] = []
        var lineStart = 0
        while let newline = pending[max(lineStart, searched)...].firstIndex(of: 0x0A) {
            if let entry = decode(pending[lineStart..<newline], offset: pendingOffset + Int64(lineStart), torn: false) {
                entries.append(entry)
            }
            lineStart = newline + 1
        }
        pending.removeSubrange(0..<lineStart)
        pendingOffset += Int64(lineStart)
        searched = pending.count
        if pending.count > Self.maximumLineBytes {
            lineNumber += 1
            entries.append(
                .problem(
                    JournalProblem(
                        line: lineNumber, byteOffset: pendingOffset,
                        message: "the line is longer than \(Self.maximumLineBytes >> 20) MiB, more than any record; skipped")))
            pendingOffset += Int64(pending.count)
            pending.removeAll()
            searched = 0
            skippingLongLine = true
        }
        return entries
    }

    mutating func finish() -> [JournalReader.Entry] {
        guard !pending.isEmpty else { return [] }
        defer {
            pendingOffset += Int64(pending.count)
            pending.removeAll()
            searched = 0
        }
        return decode(pending[...], offset: pendingOffset, torn: true).map { [$0] } ?? []
    }

    /// A problem positioned after the last complete line (for read errors).
    func problem(message: String) -> JournalProblem {
        JournalProblem(line: lineNumber + 1, byteOffset: pendingOffset, message: message)
    }

    private mutating func decode(_ line: ArraySlice<UInt8>, offset: Int64, torn: Bool) -> JournalReader.Entry? {
        lineNumber += 1
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        do {
            return .record(try ExchangeRecord.decode(jsonLine: line), line: lineNumber)
        } catch {
            let message = torn ? "incomplete last line (\(line.count) bytes, no newline): \(error)" : error.description
            return .problem(JournalProblem(line: lineNumber, byteOffset: offset, message: message, isTornLastLine: torn))
        }
    }
}
