import Foundation
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockTesting
import PushMockTransport
import Testing

@Suite("Recording")
struct RecordingTests {
    static func lines(of path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test("every response is preceded by its record in memory and in the journal", arguments: RecordingOptions.Durability.allCases)
    func recordedBeforeResponse(durability: RecordingOptions.Durability) async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = directory + "/nested/journal.jsonl"
        try await withPushMock(configure: {
            $0.recording = RecordingOptions(journalPath: journal, durability: durability)
        }) { mock in
            let connection = try await mock.connect()
            for index in 1...40 {
                let request = index % 4 == 0 ? try mock.apnsRequest(payload: "") : try mock.apnsRequest()
                _ = try await connection.send(request)
                // The moment the answer arrives, the exchange is already on record.
                #expect(mock.recordings.count == index)
                #expect(try Self.lines(of: journal).count == index)
            }
            await connection.close()
        }
    }

    @Test("concurrent answers are group-committed and none is lost")
    func concurrentCommit() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = directory + "/journal.jsonl"
        try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: journal, durability: .fsync) }) { mock in
            let connections = try await withThrowingTaskGroup(of: HTTP2ClientConnection.self, returning: [HTTP2ClientConnection].self) {
                group in
                for _ in 0..<4 { group.addTask { try await mock.connect() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let request = try mock.apnsRequest()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<800 {
                    let connection = connections[index % connections.count]
                    group.addTask {
                        let status = try await connection.send(request).status
                        #expect(status == 200)
                    }
                }
                try await group.waitForAll()
            }
            let lines = try Self.lines(of: journal)
            #expect(lines.count == 800)
            let sequences = try lines.map { try ExchangeRecord.decode(jsonLine: Array($0.utf8)).sequence }
            #expect(Set(sequences) == Set(1...800))
            for connection in connections { await connection.close() }
        }
    }

    @Test("a journal line holds the exchange: decoded JWT, embedded payload, no signature")
    func journalContent() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = directory + "/journal.jsonl"
        try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: journal) }) { mock in
            let jwt = try mock.providerToken()
            let pretty =
                "{\n  \"aps\" : {\n    \"alert\" : {\"title\": \"Time for your BPC-157\"}\n  },\n  \"deep_link\": \"loop://protocols/p1/log\"\n}"
            let response = try await mock.sendOnNewConnection(
                try mock.apnsRequest(
                    payload: pretty,
                    providerToken: .some(jwt),
                    headers: [("apns-priority", "5"), ("apns-expiration", "1800000000"), ("apns-collapse-id", "dose-p1")]
                )
            )
            expectAccepted(response)
            let lines = try Self.lines(of: journal)
            #expect(lines.count == 1)
            let line = try #require(lines.first)
            #expect(!line.contains(String(jwt.split(separator: ".")[2])), "the signature never reaches the journal")
            let value = try JSONValue(parsing: Array(line.utf8))
            #expect(value["v"]?.intValue == 1)
            #expect(value["platform"]?.stringValue == "apns")
            #expect(value["environment"]?.stringValue == "sandbox")
            #expect(value["request"]?["method"]?.stringValue == "POST")
            #expect(value["request"]?["body"]?["aps"]?["alert"]?["title"]?.stringValue == "Time for your BPC-157")
            #expect(value["request"]?["body"]?["deep_link"]?.stringValue == "loop://protocols/p1/log")
            #expect(value["auth"]?["jwtClaims"]?["iss"]?.stringValue == mock.sampleKey.teamID)
            #expect(value["auth"]?["jwtHeader"]?["kid"]?.stringValue == mock.sampleKey.keyID)
            #expect(value["notification"]?["token"]?.stringValue == PushMockHarness.sampleDeviceToken)
            #expect(value["notification"]?["priority"]?.intValue == 5)
            #expect(value["notification"]?["expiration"]?.intValue == 1_800_000_000)
            #expect(value["notification"]?["collapseID"]?.stringValue == "dose-p1")
            #expect(value["notification"]?["messageID"]?.stringValue == response.header("apns-id"))
            #expect(value["response"]?["status"]?.intValue == 200)
            #expect(value["connection"]?["transport"]?.stringValue == "h2")
            #expect(value["streamID"]?.intValue == 1)
            // Decoding the line gives back the same record as the store holds.
            let decoded = try ExchangeRecord.decode(jsonLine: Array(line.utf8))
            #expect(decoded == mock.recordings.records(limit: 1).first)
        }
    }

    @Test("the in-memory store is bounded")
    func boundedMemory() async throws {
        try await withPushMock(configure: { $0.recording.memoryCapacity = 10 }) { mock in
            let connection = try await mock.connect()
            for _ in 0..<15 {
                _ = try await connection.send(try mock.apnsRequest())
            }
            #expect(mock.recordings.count == 10)
            #expect(mock.recordings.records(newestFirst: false).first?.sequence == 6)
            await connection.close()
        }
    }

    @Test("each record keeps its own request body while a connection repeats and alternates bodies")
    func repeatedBodies() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let first = #"{"aps":{"alert":"a"}}"#
            let second = #"{"aps":{"alert":"b"}}"#  // the same length, one byte apart
            let spaced = #"{ "aps" : { "alert" : "a" } }"#  // the first, with whitespace
            let bodies = [first, first, second, first, spaced, spaced, "not json", "not json", first, ""]
            for body in bodies {
                _ = try await connection.send(try mock.apnsRequest(payload: body))
            }
            await connection.close()
            let records = mock.recordings.records(newestFirst: false)
            #expect(records.count == bodies.count)
            for (record, body) in zip(records, bodies) {
                switch body {
                case "": #expect(record.request.body == .none)
                case "not json": #expect(record.request.body == .text("not json"))
                case spaced: #expect(record.request.body == .json(Array(first.utf8)), "compacted")
                default: #expect(record.request.body == .json(Array(body.utf8)))
                }
                #expect(record.request.bodySize == body.utf8.count)
            }
        }
    }

    @Test("no journal file when the journal is off")
    func journalOff() async throws {
        try await withPushMock { mock in
            #expect(mock.info.journalPath == nil)
            _ = try await mock.sendOnNewConnection(try mock.apnsRequest())
            #expect(mock.recordings.count == 1)
        }
    }

    @Test("requests a client reset before the answer are still recorded; control API calls are not")
    func controlNotRecorded() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect(tls: false)
            _ = try await connection.send(HTTPRequestMessage(method: "GET", path: "/_pushmock/health"))
            #expect(mock.recordings.count == 0)
            _ = try await connection.send(HTTPRequestMessage(method: "GET", path: "/favicon.ico"))
            #expect(mock.recordings.count == 1)
            #expect(mock.recordings.records(limit: 1).first?.response.reason == "BadPath")
            await connection.close()
        }
    }
}
