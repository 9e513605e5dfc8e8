import Foundation
import PushMockCore
import PushMockRecording
import PushMockToolkit

/// `/_pushmock/recordings…` (queries in the language of ``RecordingQuery``) and
/// `/_pushmock/expectations`.
extension ControlAPI {
    func recordingRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        if request.matches("GET", "recordings") {
            let listing = try RecordingListing(request.queryItems)
            return list(listing)
        }
        if request.matches("DELETE", "recordings") {
            let query = request.query
            if let namespace = query["namespace"] {
                return Self.json(status: 200, ["cleared": state.recordings.clear(namespace: namespace)])
            }
            guard query.isEmpty else {
                throw ControlAPIError(400, "DELETE /_pushmock/recordings takes only namespace=…")
            }
            let count = state.recordings.count
            state.recordings.clear()
            return Self.json(status: 200, ["cleared": count])
        }
        if request.matches("GET", "recordings", "*") {
            let sequence = request.segments[1]
            guard let number = UInt64(sequence), let entry = state.recordings.entries(after: number &- 1, oldestFirstLimit: 1), entry.sequence == number else {
                throw ControlAPIError(404, "no recording with sequence \(sequence)")
            }
            return Self.rawJSON(status: 200, Array(entry.line))
        }
        return nil
    }

    /// Routes that wait: `GET /recordings?wait=5s` (until `count` matches exist) and
    /// `POST /expectations`.
    func waitingRoute(_ request: ControlRequest) throws -> (@Sendable () async throws -> HTTPResponseMessage)? {
        if request.matches("GET", "recordings"), request.query["wait"] != nil {
            let listing = try RecordingListing(request.queryItems)
            guard let wait = listing.wait else { return nil }
            return { [self] in
                _ = await state.recordings.wait(for: listing.query, count: listing.waitCount, timeout: wait)
                return list(listing)
            }
        }
        if request.matches("POST", "expectations") {
            guard !request.body.isEmpty else { throw ControlAPIError(400, "a JSON body is required: an expectation or an array of them") }
            let batch = try ExpectationBatch(json: Data(request.body))
            if batch.longestWait > .seconds(300) { throw ControlAPIError(400, "within is at most 300s") }
            let format = request.query["format"] ?? "json"
            guard ["json", "junit", "text"].contains(format) else { throw ControlAPIError(400, "format is json, junit or text") }
            return { [self] in
                var results: [ExpectationResult] = []
                for expectation in batch.expectations {
                    results.append(await state.recordings.evaluate(expectation))
                }
                for order in batch.order {
                    results.append(state.recordings.evaluate(order))
                }
                return Self.expectationResponse(results, format: format)
            }
        }
        if request.segments.first == "expectations" {
            throw ControlAPIError(405, "\(request.method) is not supported on /_pushmock/expectations; POST expectations")
        }
        return nil
    }

    private func list(_ listing: RecordingListing) -> HTTPResponseMessage {
        let entries = state.recordings.entries(matching: listing.query, newestFirst: listing.newestFirst, limit: listing.limit, after: listing.after)
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

    /// 200 when every expectation passed, 417 Expectation Failed otherwise (so `curl --fail`
    /// fails a CI step), in JSON, JUnit XML or text.
    static func expectationResponse(_ results: [ExpectationResult], format: String) -> HTTPResponseMessage {
        let passed = results.allSatisfy(\.passed)
        let status = passed ? 200 : 417
        var headers = HTTPHeaderList()
        switch format {
        case "junit":
            headers.append(name: "content-type", value: "application/xml")
            return HTTPResponseMessage(status: status, headers: headers, body: Array(JUnitReport.render(JUnitReport.testCases(results)).utf8))
        case "text":
            headers.append(name: "content-type", value: "text/plain; charset=utf-8")
            return HTTPResponseMessage(status: status, headers: headers, body: Array((results.map(\.message).joined(separator: "\n\n") + "\n").utf8))
        default:
            let report = ExpectationReport(results: results)
            return (try? encoded(report, status: status)) ?? json(status: 500, ["error": "cannot encode the report"])
        }
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

    init(_ items: [(name: String, value: String)]) throws {
        query = try RecordingQuery(queryItems: items)
        limit = 100
        newestFirst = true
        waitCount = 1
        for (name, value) in items {
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
