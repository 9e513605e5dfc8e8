import Foundation
import PushMockCore
import PushMockJSON
import PushMockQuery
import PushMockRecording

/// `/_pushmock/recordings…` (queries in the language of ``RecordingQuery``).
extension ControlAPI {
    func recordingRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        if request.matches("GET", "recordings") {
            let listing = try RecordingListing(request.queryItems, now: state.clock.now())
            return list(listing)
        }
        if request.matches("DELETE", "recordings") {
            let query = request.query
            if let namespace = query["namespace"] {
                return Self.json(status: 200, ["cleared": JSONValue(state.recordings.clear(namespace: namespace))])
            }
            guard query.isEmpty else {
                throw ControlAPIError(400, "DELETE /_pushmock/recordings takes only namespace=…")
            }
            return Self.json(status: 200, ["cleared": JSONValue(state.recordings.clear())])
        }
        if request.matches("GET", "recordings", "*") {
            let sequence = request.segments[1]
            guard let number = UInt64(sequence), let entry = state.recordings.entries(after: number &- 1, oldestFirstLimit: 1),
                entry.sequence == number
            else {
                throw ControlAPIError(404, "no recording with sequence \(sequence)")
            }
            return Self.rawJSON(status: 200, Array(entry.line))
        }
        return nil
    }

    /// Routes answered later, off the event loop: `GET /recordings?wait=5s` (until `count`
    /// matches exist), and any listing with a query. A query may decode and match every
    /// record of a full store (seconds, more with a long `where` glob on long payloads), and on
    /// the event loop that held up every connection of the loop: a push on a new connection
    /// waited 3.8 s.
    func waitingRoute(_ request: ControlRequest) throws -> (@Sendable () async throws -> HTTPResponseMessage)? {
        guard request.matches("GET", "recordings"), request.query["wait"] != nil || request.queryItems.contains(where: Self.isQueryItem)
        else { return nil }
        let listing = try RecordingListing(request.queryItems, now: state.clock.now())
        guard listing.wait != nil || !listing.query.isEmpty else { return nil }
        let query = listing.query
        // Oldest first from a cursor, the wait is for matches after it (tailing the store);
        // it counted the whole store, and such a page came back empty at once.
        let cursor = listing.newestFirst ? nil : listing.after
        return { [self] in
            if let wait = listing.wait {
                _ = await state.recordings.waitForMatches(
                    count: listing.waitCount, after: cursor, timeout: wait, prefilter: { query.mayMatch($0) }, matches: query.matches)
            }
            return try await context.runBlocking { _ in list(listing) }
        }
    }

    /// Whether a query item of `GET /recordings` is part of the query (not paging or waiting).
    private static func isQueryItem(_ item: (name: String, value: String)) -> Bool {
        !["limit", "after", "order", "wait", "count"].contains(item.name)
    }

    private func list(_ listing: RecordingListing) -> HTTPResponseMessage {
        let entries = state.recordings.entries(
            matching: listing.query, newestFirst: listing.newestFirst, limit: listing.limit, after: listing.after)
        // The stored lines are the journal's JSON objects: embed them as they are.
        var bytes: [UInt8] = Array(#"{"records":["#.utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: entry.line)
        }
        var tail = #"],"count":\#(entries.count),"total":\#(state.recordings.count)"#
        if entries.count == listing.limit, let last = entries.last {
            tail += #","next":\#(last.sequence)"#
        }
        bytes.append(contentsOf: (tail + "}").utf8)
        return Self.rawJSON(status: 200, bytes)
    }
}

/// `GET /_pushmock/recordings` parameters: the query plus paging and waiting.
struct RecordingListing: Sendable {
    var query: RecordingQuery
    var limit: Int
    var after: UInt64?
    var newestFirst: Bool
    /// Long poll: wait up to this long for `waitCount` matches.
    var wait: Duration?
    var waitCount: Int

    init(_ items: [(name: String, value: String)], now: @autoclosure () -> Timestamp) throws {
        query = try RecordingQuery(queryItems: items, now: now())
        limit = 100
        newestFirst = true
        waitCount = 1
        var seen: Set<String> = []
        for (name, value) in items {
            // Paging and waiting take one value each: `limit=1&limit=2` used the last.
            if ["limit", "after", "order", "wait", "count"].contains(name), !seen.insert(name).inserted {
                throw ControlAPIError(400, "\(name) is given twice")
            }
            switch name {
            case "limit":
                guard let number = Int(value), number > 0 else { throw ControlAPIError(400, "limit must be a positive integer") }
                limit = number
            case "after":
                guard let number = UInt64(value) else { throw ControlAPIError(400, "after must be a sequence number") }
                after = number
            case "order":
                guard ["newest", "oldest"].contains(value) else { throw ControlAPIError(400, "order is newest or oldest") }
                newestFirst = value == "newest"
            case "wait":
                guard let duration = DurationText.parse(value), duration > .zero, duration <= .seconds(300) else {
                    throw ControlAPIError(400, "wait is a duration up to 300s, e.g. 5s")
                }
                wait = duration
            case "count":
                guard let number = Int(value), number > 0 else { throw ControlAPIError(400, "count must be a positive integer") }
                waitCount = number
                // Without `wait` nothing waits for it: it was taken and ignored.
                guard items.contains(where: { $0.name == "wait" }) else {
                    throw ControlAPIError(400, "count is how many matches wait= waits for; give wait too")
                }
            default:
                guard RecordingQuery.queryItemNames.contains(name) else {
                    throw ControlAPIError(400, "unknown query item \(name); see docs/queries.md")
                }
            }
        }
    }
}

extension RecordingStore {
    /// The first entry after `sequence` (oldest first).
    func entries(after sequence: UInt64, oldestFirstLimit limit: Int) -> StoredExchange? {
        entries(matching: { _ in true }, newestFirst: false, limit: limit, after: sequence).first
    }
}
