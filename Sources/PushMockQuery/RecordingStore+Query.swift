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
        _ = await wait(timeout: timeout) { records in
            records.lazy.filter(query.matches).prefix(count).count >= count
        }
        return records(matching: query)
    }
}
