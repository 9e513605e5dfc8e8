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
        // The summary prefilter is cheap; the rest needs the decoded record, so it runs
        // outside the store's lock, page by page.
        var result: [StoredExchange] = []
        var position = cursor
        let maximum = limit ?? Int.max
        while result.count < maximum {
            let page = entries(matching: { query.mayMatch($0) }, newestFirst: newestFirst, limit: 512, after: position)
            guard let last = page.last else { break }
            for entry in page where result.count < maximum {
                if let record = try? entry.record(), query.matches(record) {
                    result.append(entry)
                }
            }
            position = last.sequence
            if page.count < 512 { break }
        }
        return result
    }

    /// Records matching `query`, oldest first by default.
    public func records(matching query: RecordingQuery, newestFirst: Bool = false, limit: Int? = nil) -> [ExchangeRecord] {
        entries(matching: query, newestFirst: newestFirst, limit: limit).compactMap { try? $0.record() }
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
