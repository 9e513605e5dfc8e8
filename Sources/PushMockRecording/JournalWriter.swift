import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends encoded journal lines to a file with a chosen durability.
///
/// The file is opened with `O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC`, mode 0644; missing
/// parent directories are created. Each `append` must pass whole lines (normally one
/// ``ExchangeRecord/encodeJSONLine(into:)`` output); the bytes of one append are never
/// interleaved with another's, and the order in the file is the order in which appends were
/// accepted.
///
/// ## Durability
/// * ``Durability/written`` (default): `write(2)` happens synchronously in the caller, under a
///   lock. When `append` returns `true` the bytes are in the kernel: killing the process loses
///   nothing acknowledged (a power failure still can).
/// * ``Durability/fsyncEachBatch``: group commit. Appends are queued; a dedicated writer thread
///   takes everything queued from all callers, writes it with one `write(2)` (more only for
///   partial writes), calls `fdatasync` once, then runs every completion. Concurrent callers
///   thus share one sync, and an acknowledged line survives power loss.
/// * ``Durability/fsyncInterval(_:)``: synchronous writes as in `.written`, plus an `fdatasync`
///   at most once per interval from a background thread (only if something was written), and
///   one at ``close()``.
///
/// ## Failure
/// Every failure is reported to the caller whose bytes it affects (through the completion, or
/// `false` plus completion) *and* to the `onError` hook given at creation. After the first
/// write or sync failure the writer is *failed*: later appends fail immediately with that same
/// error instead of risking a journal with silent holes. (The file may end in a torn line,
/// which ``JournalReader`` reports.)
public final class JournalWriter: Sendable {
    /// How far an append must get before it is acknowledged.
    public enum Durability: Sendable, Hashable {
        /// Acknowledge after `write(2)` returns (the kernel has the bytes).
        case written
        /// Acknowledge after `fdatasync`, shared by all appends queued together (group commit).
        case fsyncEachBatch
        /// Acknowledge after `write(2)`; `fdatasync` in the background at most once per interval.
        case fsyncInterval(Duration)
    }

    /// Counters for tests and benchmarks. Updated after each operation completes.
    public struct Statistics: Sendable, Hashable {
        /// Successful `append` calls (each normally one line).
        public var appends: UInt64 = 0
        /// Bytes written to the file.
        public var bytesWritten: UInt64 = 0
        /// `write(2)` system calls made (including retries after partial writes and `EINTR`).
        public var writeCalls: UInt64 = 0
        /// Group-commit batches written (`.fsyncEachBatch` only).
        public var batches: UInt64 = 0
        /// Successful `fdatasync` calls.
        public var syncs: UInt64 = 0
        /// Failed operations (at most one before the writer enters the failed state, plus one
        /// for a failing close).
        public var failures: UInt64 = 0
        /// Times the live file was rotated (``Rotation``).
        public var rotations: UInt64 = 0

        /// Zeroed counters.
        public init() {}
    }

    /// When to start a new live file, and how many old ones to keep (see ``JournalFiles``).
    ///
    /// Checked before each append: when the live file is not empty and the append would take
    /// it over ``maximumBytes``, or it was opened at least ``maximumAge`` ago, it becomes
    /// `path.1` (older rotated files shift up, the oldest beyond ``keep`` is deleted) and a new
    /// live file is created. A single append larger than ``maximumBytes`` still goes into one
    /// file. The age counts from when this writer opened or created the file.
    package struct Rotation: Sendable, Hashable {
        /// Rotate before the live file would exceed this many bytes; `nil`: no size limit.
        package var maximumBytes: Int64?
        /// Rotate once the live file has been open this long; `nil`: no age limit.
        package var maximumAge: Duration?
        /// Rotated files kept (`path.1` … `path.keep`); 0 deletes the old file at rotation.
        package var keep: Int

        package init(maximumBytes: Int64? = nil, maximumAge: Duration? = nil, keep: Int = 5) {
            self.maximumBytes = maximumBytes.map { max($0, 1) }
            self.maximumAge = maximumAge
            self.keep = max(keep, 0)
        }
    }

    /// The journal file's path as given.
    public let path: String
    /// The durability chosen at creation.
    public let durability: Durability
    private let core: JournalFileCore

    /// Opens (creating if needed) the journal at `path`. Starts a writer thread for
    /// ``Durability/fsyncEachBatch`` and ``Durability/fsyncInterval(_:)``.
    ///
    /// - Parameter onError: Called once for every I/O failure (on the thread where it happened),
    ///   in addition to the failure being reported to the affected caller — use it for logging.
    public convenience init(
        path: String,
        durability: Durability = .written,
        onError: (@Sendable (JournalIOError) -> Void)? = nil
    ) throws(JournalIOError) {
        try self.init(path: path, durability: durability, rotation: nil, onError: onError)
    }

    /// Opens the journal as above, rotating it as `rotation` says (`nil`: never).
    package init(
        path: String,
        durability: Durability = .written,
        rotation: Rotation?,
        onError: (@Sendable (JournalIOError) -> Void)? = nil
    ) throws(JournalIOError) {
        self.path = path
        self.durability = durability
        let descriptor = try POSIXFile.openForAppending(path: path)
        core = JournalFileCore(path: path, descriptor: descriptor, durability: durability, rotation: rotation, onError: onError)
        core.startThreadIfNeeded()
    }

    deinit {
        try? core.close()
    }

    /// Appends `bytes` (whole lines).
    ///
    /// - Returns: `true` if the bytes were written successfully before returning — `completion`
    ///   is then **never** called. `false` if the outcome is delivered through `completion`,
    ///   which is then called **exactly once**: later from the writer thread
    ///   (``Durability/fsyncEachBatch``), or already before `append` returned when the append
    ///   failed synchronously (write error, writer failed or closed).
    ///
    /// With ``Durability/written`` and ``Durability/fsyncInterval(_:)`` a successful append
    /// always returns `true`. Completions run on the writer thread: keep them short (e.g. hop
    /// back to an event loop).
    public func append(_ bytes: [UInt8], completion: @escaping @Sendable (Result<Void, any Error>) -> Void) -> Bool {
        switch durability {
        case .written, .fsyncInterval:
            if let error = core.writeSynchronously(bytes) {
                completion(.failure(error))
                return false
            }
            return true
        case .fsyncEachBatch:
            if let error = core.enqueue(bytes, completion: completion) {
                completion(.failure(error))
            }
            return false
        }
    }

    /// Appends `bytes` and returns once they are as durable as ``durability`` promises; throws
    /// the ``JournalIOError`` otherwise.
    public func append(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let completedSynchronously = append(bytes) { result in
                continuation.resume(with: result)
            }
            if completedSynchronously {
                continuation.resume()
            }
        }
    }

    /// Flushes queued appends (running their completions), performs a final `fdatasync` for
    /// ``Durability/fsyncInterval(_:)``, stops the writer thread and closes the file. Blocks
    /// until done. Idempotent: later calls return immediately without error. Appends after
    /// `close` fail with ``JournalIOError/Operation/appendAfterClose``.
    ///
    /// - Throws: the final sync's or `close(2)`'s failure.
    public func close() throws(JournalIOError) {
        try core.close()
    }

    /// Current counters.
    public var statistics: Statistics {
        core.statistics
    }
}
