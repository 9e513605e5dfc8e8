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
/// Appending reserves sequence numbers under the lock, encodes the lines outside it, and
/// inserts the batch under the lock again, at its place in sequence order (batches of
/// concurrent event loops may finish encoding out of order). ``lastSequence`` is the highest
/// number below which every record is in the store.
///
/// Waiting (``wait(timeout:until:)``, ``wait(forSequence:timeout:)``) suspends on a
/// continuation stored under the lock and resumed by the next change — no polling.
public final class RecordingStore: Sendable {
    /// Tuning for a store.
    public struct Configuration: Sendable, Hashable {
        /// Maximum number of records kept in memory (default 100,000 — roughly 100–300 MB for
        /// typical push traffic; lower it for long soak runs). Values below 1 are treated as 1.
        public var capacity: Int
        /// The last sequence number already used, e.g. the highest `seq` in an existing journal
        /// being appended to; the first appended record gets this plus one. Default 0.
        public var lastAssignedSequence: UInt64

        /// Creates a configuration; see the properties for the defaults.
        public init(capacity: Int = 100_000, lastAssignedSequence: UInt64 = 0) {
            self.capacity = capacity
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
        /// Ring storage. Invariant: if `buffer.count < capacity` then `head == 0` (records are in
        /// order from index 0); otherwise the oldest record is at `head`.
        var buffer: [StoredExchange] = []
        var head = 0
        let capacity: Int
        /// The highest sequence number handed out.
        var lastReserved: UInt64
        /// Ranges handed out but not inserted yet (usually none or one).
        var pending: [ClosedRange<UInt64>] = []
        var evicted: UInt64 = 0
        /// Incremented on every append batch and clear; waiters wait for it to move.
        var changeCount: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 0

        init(capacity: Int, lastSequence: UInt64) {
            self.capacity = capacity
            self.lastReserved = lastSequence
        }

        var count: Int { buffer.count }

        /// Every record up to this number has been inserted (or evicted since).
        var lastSequence: UInt64 {
            guard let first = pending.min(by: { $0.lowerBound < $1.lowerBound }) else { return lastReserved }
            return first.lowerBound - 1
        }

        mutating func reserve(_ count: Int) -> UInt64 {
            let first = lastReserved + 1
            lastReserved += UInt64(count)
            pending.append(first...lastReserved)
            return first
        }

        /// The entry at logical position `index` (0 = oldest).
        func entry(at index: Int) -> StoredExchange {
            buffer[physical(index)]
        }

        func physical(_ index: Int) -> Int {
            let position = head + index
            return position < buffer.count ? position : position - buffer.count
        }

        func sequence(at index: Int) -> UInt64 {
            buffer[physical(index)].sequence
        }

        /// Inserts a batch (ascending sequence numbers) reserved as `range`.
        mutating func insert(_ entries: [StoredExchange], reserved range: ClosedRange<UInt64>) {
            if let index = pending.firstIndex(of: range) {
                pending.remove(at: index)
            }
            guard let first = entries.first else { return }
            if count == 0 || sequence(at: count - 1) < first.sequence {
                for entry in entries {
                    append(entry)
                }
                return
            }
            // Another batch with higher numbers got here first (concurrent event loops): merge.
            var merged = ordered()
            merged.append(contentsOf: entries)
            merged.sort { $0.sequence < $1.sequence }
            let overflow = max(0, merged.count - capacity)
            evicted += UInt64(overflow)
            replaceAll(with: Array(merged.dropFirst(overflow)))
        }

        private mutating func append(_ entry: StoredExchange) {
            if buffer.count < capacity {
                buffer.append(entry)
            } else {
                buffer[head] = entry
                head += 1
                if head == capacity { head = 0 }
                evicted += 1
            }
        }

        /// First logical index whose sequence is ≥ `sequence` (binary search; sequences ascend).
        func lowerBound(_ sequence: UInt64) -> Int {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if self.sequence(at: middle) < sequence {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            return low
        }

        func ordered() -> [StoredExchange] {
            guard head != 0 else { return buffer }
            return Array(buffer[head...]) + buffer[..<head]
        }

        mutating func replaceAll(with entries: [StoredExchange]) {
            buffer = entries
            head = 0
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
    private let state: Mutex<State>

    /// Creates an empty store.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        state = Mutex(State(capacity: max(1, configuration.capacity), lastSequence: configuration.lastAssignedSequence))
    }

    // MARK: Appending

    /// Appends a batch: assigns each record the next sequence number (written back into
    /// `records`), encodes every record as a journal line, and stores the lines.
    ///
    /// - Returns: the batch's journal bytes (every line, each ending in `\n`), ready for
    ///   ``JournalWriter/append(_:completion:)``. The store keeps slices of the same buffer.
    @discardableResult
    public func append(_ records: inout [ExchangeRecord]) -> [UInt8] {
        guard !records.isEmpty else { return [] }
        let first = state.withLock { $0.reserve(records.count) }
        let range = first...(first + UInt64(records.count - 1))

        // Encode outside the lock, each line into its own right-sized buffer: one buffer for
        // the whole batch crossed glibc's mmap threshold (≈ 128 KiB) and cost page faults.
        var entries: [StoredExchange] = []
        entries.reserveCapacity(records.count)
        var totalBytes = 0
        for index in records.indices {
            records[index].sequence = first + UInt64(index)
            var line: [UInt8] = []
            line.reserveCapacity(2048)
            records[index].encodeJSONLine(into: &line)
            totalBytes += line.count
            entries.append(
                StoredExchange(
                    sequence: records[index].sequence,
                    summary: ExchangeSummary(records[index]),
                    line: line[..<(line.count - 1)]  // without the "\n"
                )
            )
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(totalBytes)
        for entry in entries {
            bytes.append(contentsOf: entry.line)
            bytes.append(UInt8(ascii: "\n"))
        }

        let continuations = state.withLock { state in
            state.insert(entries, reserved: range)
            state.changeCount &+= 1
            return state.takeSuspendedWaiters()
        }
        for continuation in continuations {
            continuation.resume(returning: true)
        }
        return bytes
    }

    /// Appends one record and returns the sequence number it was given.
    @discardableResult
    public func append(_ record: ExchangeRecord) -> UInt64 {
        var batch = [record]
        append(&batch)
        return batch[0].sequence
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
                var index = (cursor.map { state.lowerBound($0) } ?? state.count) - 1
                while index >= 0 && result.count < maximum {
                    let entry = state.entry(at: index)
                    if filter(entry.summary) { result.append(entry) }
                    index -= 1
                }
            } else {
                var index = cursor.map { $0 == .max ? state.count : state.lowerBound($0 + 1) } ?? 0
                while index < state.count && result.count < maximum {
                    let entry = state.entry(at: index)
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
            let index = state.lowerBound(sequence)
            guard index < state.count, state.sequence(at: index) == sequence else { return nil }
            return state.entry(at: index)
        }
        return try? entry?.record()
    }

    /// Number of records currently retained.
    public var count: Int {
        state.withLock { $0.count }
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

    /// Removes every record. Sequence numbering continues where it was (numbers are never
    /// reused, so cursors and journal lines stay unambiguous).
    public func clear() {
        let continuations = state.withLock { state in
            state.replaceAll(with: [])
            state.changeCount &+= 1
            return state.takeSuspendedWaiters()
        }
        continuations.forEach { $0.resume(returning: true) }
    }

    /// Removes the records of one namespace (`nil`: records without a namespace) and returns
    /// how many were removed. Costs O(n): it is a test-isolation operation, not a hot path.
    @discardableResult
    public func clear(namespace: String?) -> Int {
        let (removed, continuations) = state.withLock { state in
            let all = state.ordered()
            let kept = all.filter { $0.summary.namespace != namespace }
            state.replaceAll(with: kept)
            state.changeCount &+= 1
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
                let (snapshot, change) = self.state.withLock { ($0.ordered(), $0.changeCount) }
                if predicate(snapshot.compactMap { try? $0.record() }) { return true }
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
