@_spi(Locking) import PushMockCore
import PushMockJSON
import PushMockQuery
import PushMockRecording
import Synchronization

/// What the web inbox needs beyond the rest of the API (`docs/inbox.md`):
///
/// | Method | Path | |
/// |---|---|---|
/// | GET | /_pushmock/recordings/stream | Server-Sent Events: each new record matching the query items, as it is recorded |
/// | GET, POST, DELETE | /_pushmock/categories | list / declare (one or an array of ``NotificationCategoryDefinition``) / remove all |
/// | DELETE | /_pushmock/categories/{id} | remove one |
extension ControlAPI {
    /// `GET /recordings/stream?…`: an event per new matching record. Query items are those of
    /// `GET /recordings` (``RecordingQuery``) plus `after` (start after this sequence number;
    /// default: the `Last-Event-ID` an EventSource sends when it reconnects, else the newest
    /// record now, so only new ones come).
    func streamingRoute(_ request: ControlRequest, lastEventID: String?) throws -> HTTPStreamingResponse? {
        guard request.matches("GET", "recordings", "stream") else { return nil }
        let query = try RecordingQuery(queryItems: request.queryItems.filter { $0.name != "after" }, now: state.clock.now())
        var after = state.recordings.lastSequence
        if let text = request.query["after"] {
            guard let number = UInt64(text) else { throw ControlAPIError(400, "after must be a sequence number") }
            after = number
        } else if let lastEventID, let number = UInt64(lastEventID.filter { $0 != " " }) {
            // A reconnecting EventSource names the last event it got: what came meanwhile
            // follows, where it was lost before.
            after = number
        }
        for (name, _) in request.queryItems where name != "after" && !RecordingQuery.queryItemNames.contains(name) {
            throw ControlAPIError(400, "unknown query item \(name); see docs/queries.md")
        }
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "text/event-stream")
        headers.append(name: "cache-control", value: "no-cache")
        guard state.eventStreamSlots.take() else {
            throw ControlAPIError(503, "at most \(EventStreamSlots.maximum) event streams may be open at once; close one")
        }
        let feed = RecordingEventFeed(store: state.recordings, query: query, after: after, slots: state.eventStreamSlots)
        return HTTPStreamingResponse(status: 200, headers: headers, body: AsyncStream(unfolding: { await feed.next() }))
    }

    func categoryRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let registry = state.notificationCategories
        if request.matches("GET", "categories") {
            return try Self.encoded(registry.all, key: "categories")
        }
        if request.matches("POST", "categories") {
            let declared: [NotificationCategoryDefinition] = try Self.decodeOneOrMany(request.body)
            guard declared.allSatisfy({ !$0.id.isEmpty }) else { throw ControlAPIError(400, "a category needs an id") }
            try registry.declare(declared, limit: state.registryLimits.notificationCategories)
            return try Self.encoded(declared, status: 201, key: "categories")
        }
        if request.matches("DELETE", "categories") {
            return Self.json(status: 200, ["removed": JSONValue(registry.removeAll())])
        }
        if request.matches("DELETE", "categories", "*") {
            let id = request.segments[1]
            guard registry.remove(id: id) > 0 else { throw ControlAPIError(404, "no category \(id)") }
            return Self.json(status: 200, ["removed": JSONValue(id)])
        }
        return nil
    }
}

/// The producer of one `GET /recordings/stream`: hands out the next Server-Sent Events chunk,
/// waiting on the store's append waiters in between. Runs in the transport's consumer task, so
/// cancelling that task (the client went away) ends the wait and the feed.
final class RecordingEventFeed: Sendable {
    private let store: RecordingStore
    private let query: RecordingQuery
    private struct Position {
        var cursor: UInt64
        var greeted = false
        /// The store's clear count last told to the client.
        var clears: UInt64
    }
    private let position: SanitizerVisibleMutex<Position>
    /// A comment line goes out when nothing happened for this long, so proxies and the browser
    /// keep the connection, and a client that left is noticed by the failed write.
    static let heartbeat = Duration.seconds(15)
    /// Records per chunk (the rest follow in the next).
    static let batch = 100

    /// Given back when the feed goes (its stream ended or its client left).
    private let slots: EventStreamSlots

    init(store: RecordingStore, query: RecordingQuery, after: UInt64, slots: EventStreamSlots) {
        self.store = store
        self.query = query
        self.position = SanitizerVisibleMutex(Position(cursor: after, clears: store.clearCount))
        self.slots = slots
    }

    deinit {
        slots.give()
    }

    /// The next chunk, or `nil` once the consuming task is cancelled.
    func next() async -> [UInt8]? {
        let greeted = position.withLock { position in
            defer { position.greeted = true }
            return position.greeted
        }
        if !greeted {
            // `retry` tells EventSource to reconnect quickly after a restart of the gateway.
            return Array("retry: 1000\n: pushmock recordings\n\n".utf8)
        }
        while !Task.isCancelled {
            // A clear removed what the client shows (and records not yet sent, which are gone):
            // it hears so, rather than a stream that silently skips them.
            let clears = store.clearCount
            let cleared = position.withLock { position in
                defer { position.clears = clears }
                return position.clears != clears
            }
            if cleared {
                return Array("event: cleared\ndata: {}\n\n".utf8)
            }
            let cursor = position.withLock { $0.cursor }
            // Read the newest number before looking, so nothing appended meanwhile is skipped.
            let newest = store.lastSequence
            let fresh = store.entries(matching: query, newestFirst: false, limit: Self.batch, after: cursor)
            let reached = fresh.count == Self.batch ? fresh[fresh.count - 1].sequence : max(newest, fresh.last?.sequence ?? 0)
            position.withLock { $0.cursor = max($0.cursor, reached) }
            if !fresh.isEmpty {
                return Self.events(fresh)
            }
            // Saturating: `after=18446744073709551615` waits for a record that never comes; a
            // wrapped 0 would count as reached at once and spin this loop, piling up memory.
            let seen = max(cursor, reached)
            let appended = await store.wait(forSequence: seen == .max ? .max : seen + 1, timeout: Self.heartbeat)
            if Task.isCancelled { return nil }
            if !appended {
                return Array(": keep-alive\n\n".utf8)
            }
        }
        return nil
    }

    /// `id: <seq>` and the record's journal line as `data` (a line never holds a raw line break).
    static func events(_ entries: [StoredExchange]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries {
            bytes.append(contentsOf: "id: \(entry.sequence)\nevent: record\ndata: ".utf8)
            bytes.append(contentsOf: entry.line)
            bytes.append(contentsOf: "\n\n".utf8)
        }
        return bytes
    }
}

/// How many event streams (`GET /recordings/stream`) one gateway holds open. A stream whose
/// client does not read holds up to a megabyte of unsent events before it is reset, and
/// hundreds of them per connection grew the gateway by a gigabyte; a browser tab of the inbox
/// is one stream, so the cap is far above what people open.
package final class EventStreamSlots: Sendable {
    /// The most streams open at once.
    package static let maximum = 128
    private let open = Synchronization.Atomic<Int>(0)

    package init() {}

    /// Takes a slot; `false` when all are taken.
    func take() -> Bool {
        let (_, taken) = open.add(1, ordering: .relaxed)
        guard taken > Self.maximum else { return true }
        open.subtract(1, ordering: .relaxed)
        return false
    }

    func give() { open.subtract(1, ordering: .relaxed) }
}
