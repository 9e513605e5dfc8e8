import PushMockCore
public import PushMockRecording

extension RecordingStore {
    /// Stored exchanges matching `query`, newest first by default, at most `limit`, with their
    /// journal lines (the REST API embeds those as they are). Summaries prefilter before any
    /// record is decoded.
    public func entries(
        matching query: RecordingQuery,
        newestFirst: Bool = true,
        limit: Int? = nil,
        after cursor: UInt64? = nil
    ) -> [StoredExchange] {
        guard !query.isEmpty else { return entries(newestFirst: newestFirst, limit: limit, after: cursor) }
        var result: [StoredExchange] = []
        forEachMatch(of: query, newestFirst: newestFirst, limit: limit, after: cursor, isCancelled: { false }) { entry, _ in
            result.append(entry)
        }
        return result
    }

    /// Records matching `query`, oldest first by default. Each is decoded once. `isCancelled`
    /// is asked before each page of 512 candidates: a check nobody waits for any more stops
    /// decoding a full store (the records matched so far are returned).
    public func records(
        matching query: RecordingQuery, newestFirst: Bool = false, limit: Int? = nil, isCancelled: () -> Bool = { false }
    ) -> [ExchangeRecord] {
        var result: [ExchangeRecord] = []
        forEachMatch(of: query, newestFirst: newestFirst, limit: limit, after: nil, isCancelled: isCancelled) { _, record in
            result.append(record)
        }
        return result
    }

    /// Pages through the store: the summary prefilter under the lock, 512 candidates at a time,
    /// then each candidate decoded once outside it and handed on when the query matches it.
    private func forEachMatch(
        of query: RecordingQuery, newestFirst: Bool, limit: Int?, after cursor: UInt64?, isCancelled: () -> Bool,
        _ body: (StoredExchange, ExchangeRecord) -> Void
    ) {
        let pageSize = 512
        var position = cursor
        var count = 0
        let maximum = limit ?? Int.max
        while count < maximum, !isCancelled() {
            let page = entries(matching: { query.mayMatch($0) }, newestFirst: newestFirst, limit: pageSize, after: position)
            guard let last = page.last else { break }
            for entry in page where count < maximum {
                if let record = try? entry.record(), query.matches(record) {
                    body(entry, record)
                    count += 1
                }
            }
            position = last.sequence
            if page.count < pageSize { break }
        }
    }

    /// Waits (real time) until at least `count` exchanges match `query`, or `timeout` passes;
    /// returns the matches either way, oldest first.
    public func wait(for query: RecordingQuery, count: Int = 1, timeout: Duration) async -> [ExchangeRecord] {
        _ = await waitForMatches(count: count, timeout: timeout, prefilter: { query.mayMatch($0) }, matches: query.matches)
        return records(matching: query)
    }

    /// Waits (real time) until at least `count` exchanges after `cursor` pass `prefilter` (on
    /// their summaries) and `matches` (decoded), or `timeout` passes; `true` when they did.
    /// Each record is looked at once however often the store changes, and records appended
    /// later count as they come. A match later evicted for capacity still counts (a busy store
    /// would never let a wait finish otherwise); a clear (`DELETE /recordings`) starts the
    /// count again over what is left, as cleared matches no longer exist: a wait for three
    /// matches answered with one after two had been cleared.
    public func waitForMatches(
        count: Int,
        after cursor: UInt64? = nil,
        timeout: Duration,
        prefilter: @escaping @Sendable (ExchangeSummary) -> Bool,
        matches: @escaping @Sendable (ExchangeRecord) -> Bool
    ) async -> Bool {
        guard count > 0 else { return true }
        let start = MatchProgress(examined: cursor, found: 0, clears: clearCount)
        return await wait(timeout: timeout, from: start) { progress in
            let clears = self.clearCount
            if clears != progress.clears {
                progress = MatchProgress(examined: cursor, found: 0, clears: clears)
            }
            let (examined, found) = self.countMatches(
                after: progress.examined, upTo: count - progress.found, prefilter: prefilter, matches: matches)
            guard self.clearCount == clears else {
                // Cleared during the scan: what was counted may be gone. The clear moved the
                // store's change count too, so the wait asks again at once.
                progress = MatchProgress(examined: cursor, found: 0, clears: progress.clears)
                return false
            }
            progress.examined = examined
            progress.found += found
            return progress.found >= count
        }
    }

    /// Counts (up to `needed`) the records after `cursor` that pass both tests, oldest first;
    /// returns how many, and the sequence number up to which every record has been looked at.
    private func countMatches(
        after cursor: UInt64?, upTo needed: Int, prefilter: (ExchangeSummary) -> Bool, matches: (ExchangeRecord) -> Bool
    ) -> (examined: UInt64?, found: Int) {
        // Only up to the last record now: one appended during the scan is left for the next
        // call, which starts after `end`, so nothing is counted twice.
        let end = lastSequence
        if let cursor, cursor >= end { return (cursor, 0) }
        let pageSize = 512
        var position = cursor
        var found = 0
        scan: while found < needed {
            let page = entries(matching: prefilter, newestFirst: false, limit: pageSize, after: position)
            for entry in page {
                guard entry.sequence <= end else { break scan }
                if let record = try? entry.record(), matches(record) {
                    found += 1
                    if found >= needed { return (entry.sequence, found) }
                }
            }
            guard let last = page.last, page.count == pageSize else { break }
            position = last.sequence
        }
        return (end, found)
    }
}

/// How far a ``RecordingStore/waitForMatches(count:after:timeout:prefilter:matches:)`` has
/// counted: up to which sequence number, how many matched, and at which clear.
private struct MatchProgress: Sendable {
    var examined: UInt64?
    var found: Int
    var clears: UInt64
}
