import Foundation
@_spi(Locking) import PushMockCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The shared state of a ``JournalWriter`` and its writer thread.
///
/// Kept separate from `JournalWriter` so the thread holds only this object: releasing the
/// writer runs its `deinit`, which closes the file and stops the thread.
///
/// Locking protocol: all mutable state lives in `state` (a `Mutex`). `wakeup` and `exited` are
/// condition variables used only for sleeping. The writer thread checks its wake-up condition
/// under `state` *while holding* `wakeup`'s lock and then waits; producers change `state` first
/// and then signal while taking `wakeup`'s lock, so a wake-up can never be lost. To keep the
/// append path cheap, producers signal only when the thread announced it was going to sleep.
final class JournalFileCore: Sendable {
    typealias Completion = @Sendable (Result<Void, any Error>) -> Void

    private struct State {
        var descriptor: Int32
        var closed = false
        var stopRequested = false
        var threadRunning = false
        /// Identifies the writer thread, so `close()` called *on* it (from a completion, or a
        /// `deinit` running there) can avoid waiting for itself.
        var writerThreadID: UInt?
        /// Set when the writer thread itself asked to close: it closes the file on exit.
        var closeOnThreadExit = false
        var writerSleeping = false
        /// The first I/O failure; once set, every append fails with it.
        var failure: JournalIOError?
        /// Group commit queue: concatenated bytes and their completions, in order.
        var pending: [UInt8] = []
        var completions: [Completion] = []
        /// Bytes written since the last sync (interval mode).
        var dirty = false
        var statistics = JournalWriter.Statistics()
        /// Size of the live file (for rotation by size).
        var fileBytes: Int64 = 0
        /// When the live file was opened or created (for rotation by age).
        var openedAt = ContinuousClock.now
        /// Descriptors of rotated-out files still to be synced and closed by the sync thread
        /// (`.fsyncInterval` only: that thread may be syncing the old descriptor right now).
        var retired: [Int32] = []
    }

    let path: String
    let durability: JournalWriter.Durability
    let rotation: JournalWriter.Rotation?
    private let onError: (@Sendable (JournalIOError) -> Void)?
    private let state: SanitizerVisibleMutex<State>
    private let wakeup = NSCondition()
    private let exited = NSCondition()

    init(
        path: String,
        descriptor: Int32,
        durability: JournalWriter.Durability,
        rotation: JournalWriter.Rotation? = nil,
        onError: (@Sendable (JournalIOError) -> Void)?
    ) {
        self.path = path
        self.durability = durability
        self.rotation = rotation
        self.onError = onError
        var initial = State(descriptor: descriptor)
        initial.fileBytes = POSIXFile.size(descriptor)
        state = SanitizerVisibleMutex(initial)
    }

    var statistics: JournalWriter.Statistics {
        state.withLock { $0.statistics }
    }

    func startThreadIfNeeded() {
        let interval: Duration?
        switch durability {
        case .written: return
        case .fsyncEachBatch: interval = nil
        case .fsyncInterval(let duration): interval = duration
        }
        state.withLock { $0.threadRunning = true }
        let thread = Thread { [self] in
            state.withLock { $0.writerThreadID = currentThreadID() }
            if let interval {
                runSyncLoop(interval: interval)
            } else {
                runGroupCommitLoop()
            }
            if state.withLock({ $0.closeOnThreadExit }) {
                // close() was called on this thread; finish it now. Errors go to the hook.
                try? closeDescriptor()
            }
            state.withLock { $0.threadRunning = false }
            exited.lock()
            exited.broadcast()
            exited.unlock()
        }
        thread.name = "PushMock journal"
        thread.start()
    }

    private func report(_ error: JournalIOError) {
        onError?(error)
    }

    // MARK: Synchronous writes (.written, .fsyncInterval)

    /// Writes under the lock; returns the error if the append failed.
    func writeSynchronously(_ bytes: [UInt8]) -> JournalIOError? {
        var isNewFailure = false
        let error: JournalIOError? = state.withLock { state in
            if state.closed || state.stopRequested {
                return JournalIOError(operation: .appendAfterClose, path: path, code: 0, detail: "the journal is closed")
            }
            if let failure = state.failure { return failure }
            if let failure = rotateIfDue(&state, incoming: bytes.count) {
                isNewFailure = true
                return failure
            }
            let outcome = bytes.withUnsafeBytes { POSIXFile.writeAll(state.descriptor, $0) }
            state.statistics.writeCalls += outcome.calls
            state.statistics.bytesWritten += UInt64(outcome.written)
            state.fileBytes += Int64(outcome.written)
            if let code = outcome.errorCode {
                let failure = JournalIOError(operation: .write, path: path, code: code)
                state.failure = failure
                state.statistics.failures += 1
                isNewFailure = true
                return failure
            }
            state.statistics.appends += 1
            state.dirty = true
            return nil
        }
        if isNewFailure, let error { report(error) }
        return error
    }

    // MARK: Group commit (.fsyncEachBatch)

    /// Queues bytes for the writer thread; returns an error (and does not keep `completion`)
    /// if the append cannot be accepted.
    func enqueue(_ bytes: [UInt8], completion: @escaping Completion) -> JournalIOError? {
        enum Outcome {
            case queued(signal: Bool)
            case rejected(JournalIOError)
        }
        let outcome: Outcome = state.withLock { state in
            if state.closed || state.stopRequested {
                return .rejected(JournalIOError(operation: .appendAfterClose, path: path, code: 0, detail: "the journal is closed"))
            }
            if let failure = state.failure { return .rejected(failure) }
            state.pending.append(contentsOf: bytes)
            state.completions.append(completion)
            let signal = state.writerSleeping
            state.writerSleeping = false
            return .queued(signal: signal)
        }
        switch outcome {
        case .queued(let signal):
            if signal {
                wakeup.lock()
                wakeup.signal()
                wakeup.unlock()
            }
            return nil
        case .rejected(let error):
            return error
        }
    }

    private func runGroupCommitLoop() {
        var batch: [UInt8] = []
        var completions: [Completion] = []
        while true {
            // Sleep until there is work or a stop request (work first: close flushes).
            wakeup.lock()
            var stop = false
            while true {
                let (hasWork, stopping) = state.withLock { state -> (Bool, Bool) in
                    if !state.completions.isEmpty { return (true, false) }
                    if state.stopRequested { return (false, true) }
                    state.writerSleeping = true
                    return (false, false)
                }
                if hasWork { break }
                if stopping {
                    stop = true
                    break
                }
                wakeup.wait()
            }
            wakeup.unlock()
            if stop { return }

            // Take everything queued so far.
            var isNewFailure = false
            let (descriptor, previousFailure) = state.withLock { state -> (Int32, JournalIOError?) in
                swap(&state.pending, &batch)
                swap(&state.completions, &completions)
                state.writerSleeping = false
                if state.failure == nil, let failure = rotateIfDue(&state, incoming: batch.count) {
                    isNewFailure = true
                    return (state.descriptor, failure)
                }
                return (state.descriptor, state.failure)
            }
            if isNewFailure, let previousFailure { report(previousFailure) }
            isNewFailure = false

            var failure = previousFailure
            var calls: UInt64 = 0
            var written = 0
            var synced = false
            if failure == nil {
                let outcome = batch.withUnsafeBytes { POSIXFile.writeAll(descriptor, $0) }
                calls = outcome.calls
                written = outcome.written
                if let code = outcome.errorCode {
                    failure = JournalIOError(operation: .write, path: path, code: code)
                    isNewFailure = true
                } else if let code = POSIXFile.syncData(descriptor) {
                    failure = JournalIOError(operation: .sync, path: path, code: code)
                    isNewFailure = true
                } else {
                    synced = true
                }
            }
            let appendCount = UInt64(completions.count)
            state.withLock { state in
                state.statistics.writeCalls += calls
                state.statistics.bytesWritten += UInt64(written)
                state.fileBytes += Int64(written)
                state.statistics.batches += 1
                if synced {
                    state.statistics.syncs += 1
                    state.statistics.appends += appendCount
                }
                if isNewFailure {
                    state.statistics.failures += 1
                    if state.failure == nil { state.failure = failure }
                }
            }
            if isNewFailure, let failure { report(failure) }

            let result: Result<Void, any Error> = failure.map { .failure($0) } ?? .success(())
            for completion in completions {
                completion(result)
            }
            batch.removeAll(keepingCapacity: true)
            completions.removeAll(keepingCapacity: true)
        }
    }

    // MARK: Periodic sync (.fsyncInterval)

    private func runSyncLoop(interval: Duration) {
        let components = interval.components
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        while true {
            let deadline = Date(timeIntervalSinceNow: max(seconds, 0.001))
            wakeup.lock()
            var stop = false
            while true {
                let stopping = state.withLock { state -> Bool in
                    if state.stopRequested { return true }
                    state.writerSleeping = true
                    return false
                }
                if stopping {
                    stop = true
                    break
                }
                if !wakeup.wait(until: deadline) { break }
            }
            wakeup.unlock()
            if stop { return }

            syncAndCloseRetired()
            let (descriptor, needsSync) = state.withLock { state -> (Int32, Bool) in
                state.writerSleeping = false
                guard state.failure == nil, state.dirty else { return (-1, false) }
                state.dirty = false
                return (state.descriptor, true)
            }
            guard needsSync else { continue }
            syncAndRecord(descriptor)
        }
    }

    /// `fdatasync` outside the lock, then record the outcome.
    private func syncAndRecord(_ descriptor: Int32) {
        let code = POSIXFile.syncData(descriptor)
        let failure = code.map { JournalIOError(operation: .sync, path: path, code: $0) }
        state.withLock { state in
            if failure == nil {
                state.statistics.syncs += 1
            } else {
                state.statistics.failures += 1
                if state.failure == nil { state.failure = failure }
            }
        }
        if let failure { report(failure) }
    }

    /// Syncs and closes the descriptors of files rotated out (`.fsyncInterval`).
    private func syncAndCloseRetired() {
        let retired = state.withLock { state -> [Int32] in
            defer { state.retired.removeAll() }
            return state.retired
        }
        for descriptor in retired {
            syncAndRecord(descriptor)
            _ = POSIXFile.close(descriptor)
        }
    }

    // MARK: Rotation

    /// Rotates the live file when it is due (under the lock, before `incoming` bytes are
    /// written): rotated files shift up by one (`path.1` → `path.2` …, the oldest beyond
    /// `keep` deleted), the live file becomes `path.1`, and a new live file is created. Returns
    /// the failure, which also puts the writer into the failed state.
    private func rotateIfDue(_ state: inout State, incoming: Int) -> JournalIOError? {
        guard let rotation, state.fileBytes > 0 else { return nil }
        var due = false
        if let maximum = rotation.maximumBytes, state.fileBytes + Int64(incoming) > maximum { due = true }
        if let age = rotation.maximumAge, ContinuousClock.now - state.openedAt >= age { due = true }
        guard due else { return nil }

        let oldDescriptor = state.descriptor
        do throws(JournalIOError) {
            try JournalFiles.shift(path, keep: rotation.keep)
            state.descriptor = try POSIXFile.openForAppending(path: path)
        } catch {
            state.failure = error
            state.statistics.failures += 1
            return error
        }
        if case .fsyncEachBatch = durability { POSIXFile.syncDirectory(of: path) }
        switch durability {
        case .fsyncInterval:
            // The sync thread may be in fdatasync on the old descriptor: it closes it.
            state.retired.append(oldDescriptor)
        case .written, .fsyncEachBatch:
            // `.fsyncEachBatch`: every batch so far was synced before it was acknowledged.
            _ = POSIXFile.close(oldDescriptor)
        }
        state.fileBytes = 0
        state.openedAt = .now
        state.statistics.rotations += 1
        return nil
    }

    // MARK: Closing

    func close() throws(JournalIOError) {
        let onWriterThread = currentThreadID()
        let (threadRunning, isWriterThread) = state.withLock { state -> (Bool, Bool) in
            state.stopRequested = true
            let isWriterThread = state.threadRunning && state.writerThreadID == onWriterThread
            if isWriterThread { state.closeOnThreadExit = true }
            return (state.threadRunning, isWriterThread)
        }
        if isWriterThread {
            // Waiting here would wait for ourselves: the loop ends after the current batch and
            // the thread closes the file on its way out.
            return
        }
        if threadRunning {
            wakeup.lock()
            wakeup.broadcast()
            wakeup.unlock()
            exited.lock()
            while state.withLock({ $0.threadRunning }) {
                exited.wait()
            }
            exited.unlock()
        }
        syncAndCloseRetired()
        try closeDescriptor()
    }

    /// Final sync (interval mode) and `close(2)`, exactly once.
    private func closeDescriptor() throws(JournalIOError) {
        var finalSyncNeeded = false
        let closeOutcome: (descriptor: Int32, syncFirst: Bool)? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            if case .fsyncInterval = durability, state.dirty, state.failure == nil {
                finalSyncNeeded = true
                state.dirty = false
            }
            let descriptor = state.descriptor
            state.descriptor = -1
            return (descriptor, finalSyncNeeded)
        }
        guard let closeOutcome else { return }

        var failure: JournalIOError? = nil
        if closeOutcome.syncFirst, let code = POSIXFile.syncData(closeOutcome.descriptor) {
            failure = JournalIOError(operation: .sync, path: path, code: code)
        } else if closeOutcome.syncFirst {
            state.withLock { $0.statistics.syncs += 1 }
        }
        if let code = POSIXFile.close(closeOutcome.descriptor), failure == nil {
            failure = JournalIOError(operation: .close, path: path, code: code)
        }
        if let failure {
            state.withLock { $0.statistics.failures += 1 }
            report(failure)
            throw failure
        }
    }
}

/// A number identifying the calling thread (its `pthread_t`).
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}
