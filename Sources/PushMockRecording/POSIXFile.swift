import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, checked wrappers over the system calls the journal uses.
///
/// Every return code is checked; `EINTR` is retried where that is correct (write, sync) and
/// not for `close` (on Linux the descriptor is released even when `close` reports `EINTR`).
enum POSIXFile {
    struct WriteOutcome {
        var written: Int
        var calls: UInt64
        /// `errno` of the failure, `nil` on success.
        var errorCode: Int32?
    }

    /// Creates missing parent directories and opens `path` for appending.
    static func openForAppending(path: String) throws(JournalIOError) -> Int32 {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let directory = String(path[..<slash])
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw JournalIOError(operation: .createDirectory, path: path, code: 0, detail: "\(error)")
            }
        }
        while true {
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return descriptor }
            let code = errno
            if code == EINTR { continue }
            throw JournalIOError(operation: .open, path: path, code: code)
        }
    }

    /// Writes all of `bytes`, continuing after partial writes and `EINTR`.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        var outcome = WriteOutcome(written: 0, calls: 0, errorCode: nil)
        guard let base = bytes.baseAddress else { return outcome }
        while outcome.written < bytes.count {
            let result = write(descriptor, base + outcome.written, bytes.count - outcome.written)
            outcome.calls += 1
            if result > 0 {
                outcome.written += result
            } else if result < 0 {
                let code = errno
                if code == EINTR { continue }
                outcome.errorCode = code
                return outcome
            } else {
                // write(2) returning 0 for a non-empty buffer means no progress is possible.
                outcome.errorCode = EIO
                return outcome
            }
        }
        return outcome
    }

    /// `fdatasync` (plain `fsync` where `fdatasync` is unavailable); returns `errno` on failure.
    static func syncData(_ descriptor: Int32) -> Int32? {
        while true {
            #if os(Linux)
            let result = fdatasync(descriptor)
            #else
            let result = fsync(descriptor)
            #endif
            if result == 0 { return nil }
            let code = errno
            if code != EINTR { return code }
        }
    }

    /// The size of an open file, 0 when it cannot be read (a device, a pipe).
    static func size(_ descriptor: Int32) -> Int64 {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }

    /// `fsync` of the directory holding `path`, so a rename or create in it survives power
    /// loss. Best effort: some file systems refuse to sync directories.
    static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }

    /// `close(2)`; returns `errno` on failure.
    static func close(_ descriptor: Int32) -> Int32? {
        #if canImport(Glibc)
        let result = Glibc.close(descriptor)
        #elseif canImport(Musl)
        let result = Musl.close(descriptor)
        #else
        let result = Darwin.close(descriptor)
        #endif
        return result == 0 ? nil : errno
    }
}
