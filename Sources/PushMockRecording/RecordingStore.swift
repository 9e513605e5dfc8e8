@_spi(Locking) import PushMockCore
import Synchronization

/// The in-memory recording: a bounded ring of the most recent exchanges that tests and the
/// control API query, and the authority that assigns sequence numbers.
///
/// Each exchange is kept as its journal line — the very bytes the journal file gets — plus an
/// ``ExchangeSummary`` of the fields queries filter on. Typed ``ExchangeRecord`` values are
/// decoded from the line when asked for. Keeping lines rather than records was measured to
/// matter: a record holds a dozen separately allocated strings and arrays that all had to be
/// retained into the ring and freed on eviction, which cost more per request than the whole
/// HTTP/2 exchange.
///
/// Appending encodes each line *without* its start (`{"v":1,"seq":N,`) outside the lock, then
/// under the lock, in one step, takes the next sequence numbers, writes the line starts,
/// appends the batch at the end of the ring (O(1) per record, evicting the oldest beyond the
/// capacities) and hands the batch's bytes to the caller's journal. Sequence order, ring order
/// and journal order are therefore the same whichever event loop appends, and no batch ever
/// has to be merged into the ring. (The store used to take numbers first and insert later;
/// event loops finishing out of order then forced a copy and sort of the whole ring, most of
/// the gateway's CPU time under load.)
///
/// The ring is bounded by a record count and by an estimate of the memory it keeps alive
/// (``Configuration/byteCapacity``), whichever is reached first; the newest record is always
/// kept.
///
/// Waiting (``wait(timeout:until:)``, ``wait(forSequence:timeout:)``) suspends on a
/// continuation stored under the lock and resumed by the next change — no polling.
public final class RecordingStore: Sendable {
    /// Tuning for a store.
    public struct Configuration: Sendable, Hashable {
        /// The default ``byteCapacity``: 256 MiB.
        public static let defaultByteCapacity = 256 * 1024 * 1024

        /// Maximum number of records kept in memory (default 100,000 — about 230 MB for the
        /// benchmark's 250-byte APNs pushes, so ``byteCapacity`` usually binds first only for
        /// larger requests). Values below 1 are treated as 1.
        public var capacity: Int
        /// Maximum memory the kept records may hold, in bytes (default 256 MiB): an estimate of
        /// each record's heap use (its journal line's buffer, the summary's strings, its slot
        /// in the ring). The oldest records are evicted beyond it, so a few huge requests
        /// cannot pin gigabytes; the newest record is always kept. Values below 1 are treated
        /// as 1.
        public var byteCapacity: Int
        /// The last sequence number already used, e.g. the highest `seq` in an existing journal
        /// being appended to; the first appended record gets this plus one. Default 0.
        public var lastAssignedSequence: UInt64

        /// Creates a configuration; see the properties for the defaults.
        public init(
            capacity: Int = 100_000,
            byteCapacity: Int = Self.defaultByteCapacity,
            lastAssignedSequence: UInt64 = 0
        ) {
            self.capacity = capacity
            self.byteCapacity = byteCapacity
            self.lastAssignedSequence = lastAssignedSequence
        }
    }

    /// State of one suspended (or about to suspend) waiter.
    private enum Waiter {
        /// Registered, continuation not yet stored.
        case registered
        /// Cancelled before the continuation was stored.
        case cancelled
        case waiting(CheckedContinuation<Bool, Never>)
    }

    private struct State {
        var ring = ExchangeRing()
        let capacity: Int
        let byteCapacity: Int
        /// Sum of the kept entries' ``StoredExchange/retainedBytes``.
        var retainedBytes = 0
        /// The highest sequence number handed out; every record up to it is in the ring (or
        /// was evicted or cleared).
        var lastSequence: UInt64
        var evicted: UInt64 = 0
        /// Incremented on every append batch and clear; waiters wait for it to move.
        var changeCount: UInt64 = 0
        /// Incremented on every clear (whole store or a namespace).
        var clearCount: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 0
        /// The batch's journal bytes, reused from batch to batch (it never leaves the lock).
        var journalBytes: [UInt8] = []

        init(capacity: Int, byteCapacity: Int, lastSequence: UInt64) {
            self.capacity = capacity
            self.byteCapacity = byteCapacity
            self.lastSequence = lastSequence
        }

        var count: Int { ring.count }

        /// Appends at the end and moves the oldest entries beyond the capacities to `removed`.
        mutating func append(_ entry: consuming StoredExchange, evictingInto removed: inout [StoredExchange]) {
            retainedBytes += entry.retainedBytes
            ring.append(entry)
            while ring.count > 1 && (ring.count > capacity || retainedBytes > byteCapacity) {
                let oldest = ring.removeFirst()
                retainedBytes -= oldest.retainedBytes
                evicted += 1
                removed.append(oldest)
            }
        }

        mutating func replaceAll(with entries: [StoredExchange]) {
            ring.removeAll()
            retainedBytes = 0
            for entry in entries {
                ring.append(entry)
                retainedBytes += entry.retainedBytes
            }
        }

        /// Removes and returns every suspended waiter's continuation.
        mutating func takeSuspendedWaiters() -> [CheckedContinuation<Bool, Never>] {
            guard !waiters.isEmpty else { return [] }
            var continuations: [CheckedContinuation<Bool, Never>] = []
            for (id, waiter) in waiters {
                if case .waiting(let continuation) = waiter {
                    continuations.append(continuation)
                    waiters[id] = nil
                }
            }
            return continuations
        }
    }

    /// The configuration the store was created with.
    public let configuration: Configuration
    private let state: SanitizerVisibleMutex<State>
    /// Length of the last line encoded, to size the next line's buffer: a buffer much larger
    /// than its line is memory the ring keeps for nothing, one too small is copied to grow.
    private let lineLengthHint = Atomic<Int>(2048)

    /// Creates an empty store.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        state = SanitizerVisibleMutex(
            State(
                capacity: max(1, configuration.capacity),
                byteCapacity: max(1, configuration.byteCapacity),
                lastSequence: configuration.lastAssignedSequence
            )
        )
    }

    // MARK: Appending

    /// Appends a batch: assigns each record the next sequence number (written back into
    /// `records`), encodes every record as a journal line, stores the lines, and passes the
    /// batch's journal bytes (every line, each ending in `\n`) to `journal` — all under the
    /// store's lock, so consecutive calls of `journal` see consecutive batches in sequence
    /// order whichever threads append.
    ///
    /// `journal` runs under the lock: keep it to handing the bytes on (one `write(2)` or a
    /// queue append) and never call back into the store from it. The bytes are only lent:
    /// copy them to keep them.
    ///
    /// - Returns: what `journal` returned.
    package func append<Outcome>(
        _ records: inout [ExchangeRecord],
        journal: (_ bytes: [UInt8]) -> Outcome
    ) -> Outcome {
        var memo = JournalLineMemo.disabled
        return append(&records, memo: &memo, journal: journal)
    }

    /// Appends a batch as ``append(_:journal:)`` does, with the members the batch's lines
    /// share with earlier lines of the same connection taken from (and kept in) `memo`.
    package func append<Outcome>(
        _ records: inout [ExchangeRecord],
        memo: inout JournalLineMemo,
        journal: (_ bytes: [UInt8]) -> Outcome
    ) -> Outcome {
        // Encode outside the lock, each line into its own right-sized buffer (one buffer for
        // the whole batch crossed glibc's mmap threshold, ≈ 128 KiB, and cost page faults),
        // with room in front for the line's start.
        var lines: [[UInt8]] = []
        var summaries: [ExchangeSummary] = []
        lines.reserveCapacity(records.count)
        summaries.reserveCapacity(records.count)
        let headroom = ExchangeRecord.lineStartCapacity
        // Capped: after one huge line the next ones would otherwise each hold a huge buffer.
        let lengthCap = 4096
        var expectedLength = min(lineLengthHint.load(ordering: .relaxed), lengthCap) + 128
        for index in records.indices {
            var line = [UInt8](unsafeUninitializedCapacity: headroom + expectedLength) { buffer, initialized in
                buffer.baseAddress!.initialize(repeating: 0, count: headroom)
                initialized = headroom
            }
            Self.encodeLine(of: &records[index], into: &line, memo: &memo, summaries: &summaries)
            // The next line is usually about as long (same client, same shape).
            expectedLength = min(line.count - headroom, lengthCap) + 128
            lines.append(line)
        }
        if let last = lines.last {
            lineLengthHint.store(last.count - headroom, ordering: .relaxed)
        }

        // The evicted entries come out of the lock to be freed here, outside it.
        let (first, outcome, _, continuations) = state.withLock { state in
            let first = state.lastSequence &+ 1
            state.lastSequence &+= UInt64(records.count)
            var removed: [StoredExchange] = []
            state.journalBytes.removeAll(keepingCapacity: true)
            for index in lines.indices {
                let sequence = first &+ UInt64(index)
                let start = ExchangeRecord.writeLineStart(sequence: sequence, into: &lines[index], endingAt: headroom)
                let end = lines[index].count
                lines[index].withUnsafeBufferPointer { line in
                    state.journalBytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[start..<end]))
                }
                state.append(
                    StoredExchange(
                        sequence: sequence,
                        summary: summaries[index],
                        line: lines[index][start..<(end - 1)],  // without the "\n"
                        lineBufferCapacity: lines[index].capacity
                    ),
                    evictingInto: &removed
                )
            }
            let outcome = journal(state.journalBytes)
            if state.journalBytes.capacity > 1 << 20 {
                state.journalBytes = []  // a burst's buffer is not kept for good
            }
            if !records.isEmpty { state.changeCount &+= 1 }
            return (first, outcome, removed, state.takeSuspendedWaiters())
        }
        for index in records.indices {
            records[index].sequence = first &+ UInt64(index)
        }
        for continuation in continuations {
            continuation.resume(returning: true)
        }
        return outcome
    }

    /// Encodes `record`'s journal line (after its sequence number) and its summary.
    ///
    /// The record comes `inout` only so that it is read in place: a record read from the
    /// array, a buffer or a pointer and passed to a function the compiler does not inline is
    /// copied first (two dozen references retained, then released), ≈ 1.5 % of the gateway's
    /// samples. Nothing here changes it.
    private static func encodeLine(
        of record: inout ExchangeRecord, into line: inout [UInt8], memo: inout JournalLineMemo, summaries: inout [ExchangeSummary]
    ) {
        record.encodeJSONLineAfterSequence(into: &line, memo: &memo)
        summaries.append(ExchangeSummary(borrowing: record))
    }

    /// Appends a batch as ``append(_:journal:)`` does and returns its journal bytes (every
    /// line, each ending in `\n`), e.g. for ``JournalWriter/append(_:completion:)``. Journal
    /// writes made with the result are ordered by whoever calls them, not by sequence number:
    /// concurrent appenders that journal should use ``append(_:journal:)``.
    @discardableResult
    public func append(_ records: inout [ExchangeRecord]) -> [UInt8] {
        guard !records.isEmpty else { return [] }
        return append(&records) { bytes in bytes }
    }

    /// Appends one record and returns the sequence number it was given.
    @discardableResult
    public func append(_ record: ExchangeRecord) -> UInt64 {
        var batch = [record]
        append(&batch)
        return batch[0].sequence
    }

    // MARK: Amending

    /// Replaces retained records by sequence number with `records` (re-encoded), e.g. when a
    /// batch's journal write failed after the store took it and the client was answered
    /// differently than recorded: the store must say what the client got. Records no longer
    /// retained are skipped. Returns how many were replaced.
    ///
    /// Not an append: sequence numbers, order and the journal are untouched.
    @discardableResult
    package func replace(_ records: [ExchangeRecord]) -> Int {
        let entries = records.map { record -> StoredExchange in
            var line: [UInt8] = []
            record.encodeJSONLine(into: &line)
            if line.last == 0x0A { line.removeLast() }
            return StoredExchange(sequence: record.sequence, summary: ExchangeSummary(record), line: line[...])
        }
        let (replaced, _, continuations) = state.withLock { state in
            var replaced = 0
            var old: [StoredExchange] = []  // freed outside the lock
            for entry in entries {
                let index = state.ring.lowerBound(entry.sequence)
                guard index < state.count, state.ring[index].sequence == entry.sequence else { continue }
                let previous = state.ring.replace(at: index, with: entry)
                state.retainedBytes += entry.retainedBytes - previous.retainedBytes
                old.append(previous)
                replaced += 1
            }
            if replaced > 0 { state.changeCount &+= 1 }
            return (replaced, old, replaced > 0 ? state.takeSuspendedWaiters() : [])
        }
        continuations.forEach { $0.resume(returning: true) }
        return replaced
    }

    // MARK: Querying

    /// Stored entries whose summary matches `filter`, newest first by default, at most `limit`
    /// of them. Cheap: nothing is decoded. `after` is a pagination cursor as for
    /// ``records(filter:newestFirst:limit:after:)``.
    public func entries(
        matching filter: (ExchangeSummary) -> Bool = { _ in true },
        newestFirst: Bool = true,
        limit: Int? = nil,
        after cursor: UInt64? = nil
    ) -> [StoredExchange] {
        if let limit, limit <= 0 { return [] }
        return state.withLock { state in
            var result: [StoredExchange] = []
            let maximum = limit ?? Int.max
            if newestFirst {
                var index = (cursor.map { state.ring.lowerBound($0) } ?? state.count) - 1
                while index >= 0 && result.count < maximum {
                    let entry = state.ring[index]
                    if filter(entry.summary) { result.append(entry) }
                    index -= 1
                }
            } else {
                var index = cursor.map { $0 == .max ? state.count : state.ring.lowerBound($0 + 1) } ?? 0
                while index < state.count && result.count < maximum {
                    let entry = state.ring[index]
                    if filter(entry.summary) { result.append(entry) }
                    index += 1
                }
            }
            return result
        }
    }

    /// Records matching `filter`, newest first by default, at most `limit` of them.
    ///
    /// `after` is a pagination cursor: the sequence number of the last record of the previous
    /// page. The page continues in the direction of travel — with records older than the cursor
    /// when `newestFirst`, newer otherwise.
    ///
    /// Records are decoded from their lines outside the lock, newest (or oldest) first, until
    /// `limit` match; a filter that matches little over a full store decodes a lot. Prefer
    /// ``entries(matching:newestFirst:limit:after:)`` to narrow by summary first.
    public func records(
        filter: (ExchangeRecord) -> Bool = { _ in true },
        newestFirst: Bool = true,
        limit: Int? = nil,
        after cursor: UInt64? = nil
    ) -> [ExchangeRecord] {
        if let limit, limit <= 0 { return [] }
        let candidates = entries(newestFirst: newestFirst, after: cursor)
        var result: [ExchangeRecord] = []
        let maximum = limit ?? Int.max
        for entry in candidates where result.count < maximum {
            if let record = try? entry.record(), filter(record) {
                result.append(record)
            }
        }
        return result
    }

    /// The retained record with this sequence number, if it has not been evicted or cleared.
    public func record(sequence: UInt64) -> ExchangeRecord? {
        let entry: StoredExchange? = state.withLock { state in
            let index = state.ring.lowerBound(sequence)
            guard index < state.count, state.ring[index].sequence == sequence else { return nil }
            return state.ring[index]
        }
        return try? entry?.record()
    }

    /// Number of records currently retained.
    public var count: Int {
        state.withLock { $0.count }
    }

    /// The estimated memory the retained records hold, in bytes (what
    /// ``Configuration/byteCapacity`` bounds).
    package var retainedBytes: Int {
        state.withLock { $0.retainedBytes }
    }

    /// Number of records evicted because the store was full (not counting cleared ones).
    public var evictedCount: UInt64 {
        state.withLock { $0.evicted }
    }

    /// The highest sequence number assigned so far (``Configuration/lastAssignedSequence``
    /// before the first append). Sequence numbers survive ``clear()``.
    public var lastSequence: UInt64 {
        state.withLock { $0.lastSequence }
    }

    // MARK: Clearing

    /// How many times records were cleared (``clear()``, ``clear(namespace:)``): a reader that
    /// counted records incrementally sees it move and counts again what is left.
    public var clearCount: UInt64 {
        state.withLock { $0.clearCount }
    }

    /// Removes every record and returns how many there were (counted in the same critical
    /// section: a count read before would miss records appended in between). Sequence
    /// numbering continues where it was (numbers are never reused, so cursors and journal
    /// lines stay unambiguous).
    @discardableResult
    public func clear() -> Int {
        let (removed, continuations) = state.withLock { state in
            let removed = state.count
            state.replaceAll(with: [])
            state.changeCount &+= 1
            state.clearCount &+= 1
            return (removed, state.takeSuspendedWaiters())
        }
        continuations.forEach { $0.resume(returning: true) }
        return removed
    }

    /// Removes the records of one namespace (`nil`: records without a namespace) and returns
    /// how many were removed. Costs O(n): it is a test-isolation operation, not a hot path.
    @discardableResult
    public func clear(namespace: String?) -> Int {
        let (removed, continuations) = state.withLock { state in
            let all = state.ring.ordered
            let kept = all.filter { $0.summary.namespace != namespace }
            state.replaceAll(with: kept)
            state.changeCount &+= 1
            state.clearCount &+= 1
            return (all.count - kept.count, state.takeSuspendedWaiters())
        }
        continuations.forEach { $0.resume(returning: true) }
        return removed
    }

    // MARK: Waiting

    /// Waits until `predicate` holds for the retained records (oldest first), re-checking after
    /// every append or clear. Returns `true` as soon as it holds (immediately if it already
    /// does), `false` on timeout or task cancellation.
    ///
    /// The predicate runs outside the lock on records decoded from a snapshot of the store, so
    /// each re-check costs O(count) decodes; appends that happen while a check runs are
    /// coalesced into one re-check.
    /// Intended for tests and the control API, not for per-request use.
    public func wait(
        timeout: Duration,
        until predicate: @escaping @Sendable ([ExchangeRecord]) -> Bool
    ) async -> Bool {
        await withDeadline(timeout) {
            while true {
                let (snapshot, change) = self.state.withLock { ($0.ring.ordered, $0.changeCount) }
                if predicate(snapshot.compactMap { try? $0.record() }) { return true }
                guard await self.waitForChange(after: change) else { return false }
            }
        }
    }

    /// Waits until `advance` says so, asking it again after every append or clear. `progress`
    /// is its own, carried from one call to the next (how far into the store it has read, what
    /// it has counted), so that a long wait over a full store reads each new record once:
    /// re-deciding the whole store on every append (``wait(timeout:until:)``) let 60 long
    /// polls over 60,000 records hold two CPUs for ten minutes. Returns `true` as soon as
    /// `advance` does, `false` on timeout or cancellation.
    public func wait<Progress: Sendable>(
        timeout: Duration,
        from progress: Progress,
        advancing advance: @escaping @Sendable (inout Progress) -> Bool
    ) async -> Bool {
        await withDeadline(timeout) {
            var progress = progress
            while true {
                // Read before `advance`, so that an append while it runs is not missed.
                let change = self.state.withLock { $0.changeCount }
                if advance(&progress) { return true }
                guard await self.waitForChange(after: change) else { return false }
            }
        }
    }

    /// Waits until a record with sequence number ≥ `sequence` has been appended (it may since
    /// have been evicted or cleared). Cheap: no snapshots. Returns `false` on timeout or
    /// cancellation.
    public func wait(forSequence sequence: UInt64, timeout: Duration) async -> Bool {
        await withDeadline(timeout) {
            while true {
                let (reached, change) = self.state.withLock { ($0.lastSequence >= sequence, $0.changeCount) }
                if reached { return true }
                guard await self.waitForChange(after: change) else { return false }
            }
        }
    }

    /// Runs `operation` racing a timer; whichever finishes first wins and the other is
    /// cancelled.
    private func withDeadline(_ timeout: Duration, _ operation: @escaping @Sendable () async -> Bool) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await operation() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let result = await group.next() ?? false
            group.cancelAll()
            return result
        }
    }

    /// Suspends until the store changes after `change` was observed. Returns `false` if the task
    /// was cancelled (before or during the wait), `true` otherwise.
    private func waitForChange(after change: UInt64) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiterID &+= 1
            state.waiters[state.nextWaiterID] = .registered
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.withLock { state in
                    switch state.waiters[id] {
                    case .registered?:
                        if state.changeCount != change {
                            state.waiters[id] = nil
                            return true
                        }
                        state.waiters[id] = .waiting(continuation)
                        return nil
                    default:
                        // Cancelled before suspending (or already gone).
                        state.waiters[id] = nil
                        return false
                    }
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Bool, Never>? = state.withLock { state in
                switch state.waiters[id] {
                case .waiting(let continuation)?:
                    state.waiters[id] = nil
                    return continuation
                case .registered?:
                    state.waiters[id] = .cancelled
                    return nil
                default:
                    return nil
                }
            }
            continuation?.resume(returning: false)
        }
    }

    /// Number of waits currently registered. Every wait unregisters itself when it returns, so
    /// a non-zero value when nobody is waiting would indicate a leak; exposed for diagnostics
    /// and tests.
    public var pendingWaiterCount: Int {
        state.withLock { $0.waiters.count }
    }
}
