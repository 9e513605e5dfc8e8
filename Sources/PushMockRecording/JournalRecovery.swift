import Foundation
import PushMockJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What opening an existing journal for appending found and repaired.
///
/// Run once at start-up, before the ``JournalWriter`` opens the file:
///
/// * **Torn last line.** A file that does not end in `\n` ends in the remains of a write that
///   a crash (or a full disk) interrupted. Appending after it would glue the next record to
///   the fragment and lose both to readers. The fragment is moved out: its bytes are appended
///   to `<path>.torn` (so nothing is destroyed) and the journal is truncated to its last whole
///   line. A fragment was never acknowledged — the writer acknowledges a line only once all of
///   it is written — so no acknowledged record is lost. Never fatal: if the fragment cannot be
///   saved it is still cut off, and the report says so.
/// * **Sequence numbers.** The highest `seq` of the journal (its last decodable line; the
///   newest rotated file when the live one is empty), so a restarted gateway continues the
///   numbering in the same file instead of starting again at 1.
package struct JournalRecovery: Sendable, Hashable {
    /// A fragment cut off the end of the journal.
    package struct TornTail: Sendable, Hashable, CustomStringConvertible {
        /// Where the fragment started (the new length of the file).
        package var byteOffset: Int64
        /// How many bytes it had.
        package var byteCount: Int64
        /// The file its bytes were appended to, `nil` if saving them failed.
        package var savedTo: String?

        package var description: String {
            "torn last line (\(byteCount) bytes at offset \(byteOffset)) cut off"
                + (savedTo.map { " and saved to \($0)" } ?? " (could not be saved)")
        }
    }

    /// The journal's path.
    package var path: String
    /// The highest sequence number found, 0 for a new or empty journal.
    package var lastSequence: UInt64
    /// The fragment removed from the end, if there was one.
    package var tornTail: TornTail?

    /// The sidecar file torn fragments are saved to.
    package static func tornPath(_ path: String) -> String { "\(path).torn" }

    /// Repairs the end of the journal at `path` (if it is a regular file) and finds its last
    /// sequence number. A missing file is a new journal. Devices and pipes (e.g. `/dev/null`)
    /// are left alone.
    package static func prepare(path: String) throws(JournalIOError) -> JournalRecovery {
        var recovery = JournalRecovery(path: path, lastSequence: 0, tornTail: nil)
        var status = stat()
        guard stat(path, &status) == 0 else {
            recovery.lastSequence = lastSequenceOfRotated(path)
            return recovery
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return recovery }

        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw JournalIOError(operation: .open, path: path, code: errno) }
        defer { _ = POSIXFile.close(descriptor) }

        let size = Int64(status.st_size)
        if size > 0 {
            let last = try readBytes(descriptor, path: path, offset: size - 1, count: 1)
            if last != [0x0A] {
                recovery.tornTail = try cutTornTail(descriptor, path: path, size: size)
            }
        }
        let end = recovery.tornTail?.byteOffset ?? size
        recovery.lastSequence = try lastSequence(descriptor, path: path, end: end) ?? lastSequenceOfRotated(path)
        return recovery
    }

    // MARK: Torn tail

    private static func cutTornTail(_ descriptor: Int32, path: String, size: Int64) throws(JournalIOError) -> TornTail {
        // The start of the fragment: just after the last "\n" (0 when there is none).
        var start: Int64 = 0
        var position = size
        search: while position > 0 {
            let chunkStart = max(0, position - 65_536)
            let chunk = try readBytes(descriptor, path: path, offset: chunkStart, count: Int(position - chunkStart))
            if let newline = chunk.lastIndex(of: 0x0A) {
                start = chunkStart + Int64(newline) + 1
                break search
            }
            position = chunkStart
        }
        let savedTo = saveFragment(descriptor, path: path, from: start, to: size)
        while ftruncate(descriptor, off_t(start)) != 0 {
            let code = errno
            if code != EINTR { throw JournalIOError(operation: .write, path: path, code: code, detail: "truncating a torn last line") }
        }
        _ = POSIXFile.syncData(descriptor)
        return TornTail(byteOffset: start, byteCount: size - start, savedTo: savedTo)
    }

    /// Appends the fragment, then a `\n`, to the sidecar file; its path, or `nil` on failure.
    private static func saveFragment(_ descriptor: Int32, path: String, from start: Int64, to end: Int64) -> String? {
        let sidecar = tornPath(path)
        guard let output = try? POSIXFile.openForAppending(path: sidecar) else { return nil }
        defer { _ = POSIXFile.close(output) }
        var offset = start
        while offset < end {
            let count = Int(min(end - offset, 1 << 20))
            guard let bytes = try? readBytes(descriptor, path: path, offset: offset, count: count) else { return nil }
            let outcome = bytes.withUnsafeBytes { POSIXFile.writeAll(output, $0) }
            guard outcome.errorCode == nil else { return nil }
            offset += Int64(count)
        }
        let newline: [UInt8] = [0x0A]
        guard newline.withUnsafeBytes({ POSIXFile.writeAll(output, $0) }).errorCode == nil else { return nil }
        _ = POSIXFile.syncData(output)
        return sidecar
    }

    // MARK: Last sequence number

    /// The `seq` of the last line (before `end`) that is a JSON object with a whole-number
    /// `seq`, reading backwards; `nil` if there is none. Each byte is read at most twice
    /// (once looking for line breaks, once as part of a candidate line), whatever the lines'
    /// lengths.
    private static func lastSequence(_ descriptor: Int32, path: String, end: Int64) throws(JournalIOError) -> UInt64? {
        var lineEnd = end  // exclusive end of the line being looked for
        while lineEnd > 0 {
            // Skip the line break(s) before `lineEnd`, then find the start of the line.
            let last = try readBytes(descriptor, path: path, offset: lineEnd - 1, count: 1)
            if last == [0x0A] || last == [0x0D] {
                lineEnd -= 1
                continue
            }
            let lineStart = try startOfLine(descriptor, path: path, endingAt: lineEnd)
            if let sequence = try sequence(descriptor, path: path, lineStart: lineStart, lineEnd: lineEnd) {
                return sequence
            }
            lineEnd = lineStart
        }
        return nil
    }

    /// The offset just after the last `\n` before `end`, 0 if there is none.
    private static func startOfLine(_ descriptor: Int32, path: String, endingAt end: Int64) throws(JournalIOError) -> Int64 {
        var position = end
        while position > 0 {
            let chunkStart = max(0, position - 65_536)
            let chunk = try readBytes(descriptor, path: path, offset: chunkStart, count: Int(position - chunkStart))
            if let newline = chunk.lastIndex(of: 0x0A) { return chunkStart + Int64(newline) + 1 }
            position = chunkStart
        }
        return 0
    }

    /// Lines up to this size are parsed whole; longer ones only by their start, which the
    /// writer always makes `{"v":1,"seq":N,` (a 500 MB line must not be parsed to restart).
    private static let wholeLineLimit: Int64 = 1 << 20

    private static func sequence(_ descriptor: Int32, path: String, lineStart: Int64, lineEnd: Int64) throws(JournalIOError) -> UInt64? {
        let length = lineEnd - lineStart
        if length <= wholeLineLimit {
            let line = try readBytes(descriptor, path: path, offset: lineStart, count: Int(length))
            guard let value = try? JSONValue(parsing: line),
                case .object(let object) = value,
                case .number(let text)? = object["seq"]
            else { return nil }
            return UInt64(text)
        }
        let head = try readBytes(descriptor, path: path, offset: lineStart, count: 64)
        let prefix = Array(#"{"v":1,"seq":"#.utf8)
        guard head.starts(with: prefix) else { return nil }
        let digits = head.dropFirst(prefix.count).prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard !digits.isEmpty, head.count > prefix.count + digits.count, head[prefix.count + digits.count] == 0x2C else { return nil }
        return UInt64(String(decoding: digits, as: UTF8.self))
    }

    /// The last sequence number of the newest rotated file (`path.1`), 0 if none.
    private static func lastSequenceOfRotated(_ path: String) -> UInt64 {
        let rotated = JournalFiles.rotatedPath(path, index: 1)
        let descriptor = open(rotated, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { _ = POSIXFile.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return 0 }
        return (try? lastSequence(descriptor, path: rotated, end: Int64(status.st_size))) ?? nil ?? 0
    }

    private static func readBytes(_ descriptor: Int32, path: String, offset: Int64, count: Int) throws(JournalIOError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if result > 0 {
                done += result
            } else if result == 0 {
                break
            } else {
                let code = errno
                if code == EINTR { continue }
                throw JournalIOError(operation: .read, path: path, code: code)
            }
        }
        return Array(bytes[..<done])
    }
}
