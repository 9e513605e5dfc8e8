import Foundation
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockTesting
import PushMockTransport
import Testing

@Suite("Playback: answering from a recorded journal")
struct PlaybackTests {
    static let goneToken = "0a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a"

    /// Records: an accepted alert, a 410 for a token that is gone, a 400 for a malformed token, and
    /// a second (accepted) send to the same token as the first. Returns the journal path.
    func recordJournal() async throws -> String {
        let path = NSTemporaryDirectory() + "pushmock-playback-\(UUID().uuidString).jsonl"
        try await withPushMock(configure: { $0.recording.journalPath = path }) { mock in
            mock.state.devices.register(
                APNsDeviceRecord(
                    token: APNsDeviceToken(Self.goneToken), bundleID: mock.topic,
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 1_700_000_000_000)))
            )
            let connection = try await mock.connect()
            let first = try await connection.send(mock.apnsRequest(payload: #"{"aps":{"alert":"Hello"},"n":1}"#))
            #expect(first.status == 200)
            let gone = try await connection.send(mock.apnsRequest(token: Self.goneToken))
            #expect(gone.status == 410)
            let badTopic = try await connection.send(mock.apnsRequest(token: "not-hex"))
            #expect(badTopic.status == 400)
            let again = try await connection.send(mock.apnsRequest(payload: #"{"aps":{"alert":"Hello"},"n":1}"#))
            #expect(again.status == 200)
            await connection.close()
        }
        return path
    }

    @Test("identical requests get the recorded status, body and apns-id; others fall through; the journal says which")
    func playback() async throws {
        let journal = try await recordJournal()
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let recorded = try JournalReader.readAll(path: journal).records
        #expect(recorded.count == 4)
        let recordedGone = try #require(recorded.first { $0.response.status == 410 })
        let firstIDs = recorded.filter { $0.response.status == 200 }.compactMap { $0.response.headers.first(named: "apns-id") }
        #expect(firstIDs.count == 2)

        let log = NSTemporaryDirectory() + "pushmock-playback-log-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await withPushMock(configure: {
            $0.playback = PlaybackOptions(journalPath: journal)
            $0.recording.journalPath = log
        }) { mock in
            #expect(mock.state.playback?.answerCount == 4)
            let connection = try await mock.connect()
            // The token is active here, but the recording said 410: playback wins.
            let gone = try await connection.send(mock.apnsRequest(token: Self.goneToken))
            #expect(gone.status == 410)
            #expect(gone.apnsReason == "Unregistered")
            #expect(gone.apnsTimestamp == 1_700_000_000_000)
            #expect(gone.header("apns-id") == recordedGone.response.headers.first(named: "apns-id"))
            #expect(gone.body == recordedGone.response.body.bytes)

            let badTopic = try await connection.send(mock.apnsRequest(token: "not-hex"))
            #expect(badTopic.status == 400)

            // Member order does not matter in the default `body` mode; identical requests take
            // the recorded answers in order, then the last one again.
            let reordered = #"{"n":1,"aps":{"alert":"Hello"}}"#
            var ids: [String?] = []
            for _ in 0..<3 {
                let response = try await connection.send(mock.apnsRequest(payload: reordered))
                #expect(response.status == 200)
                ids.append(response.header("apns-id"))
            }
            #expect(ids == [firstIDs[0], firstIDs[1], firstIDs[1]])

            // Not recorded: simulated as usual (a fresh apns-id).
            let unmatched = try await connection.send(mock.apnsRequest(payload: #"{"aps":{"alert":"Something new"}}"#))
            #expect(unmatched.status == 200)
            #expect(!firstIDs.contains(unmatched.header("apns-id") ?? ""))

            // Authentication is still checked: a bad provider token is refused, not played back.
            let forged = try await connection.send(mock.apnsRequest(token: Self.goneToken, providerToken: .some("not.a.token")))
            #expect(forged.status == 403)
            await connection.close()

            let records = mock.recordings.records(limit: 20).sorted { $0.sequence < $1.sequence }
            #expect(records.count == 7)
            #expect(records[0].annotations["playback"] == "seq \(recordedGone.sequence)")
            #expect(records[0].response.status == 410)
            #expect(records[0].response.reason == "Unregistered")
            #expect(records[5].annotations["playback"] == "unmatched")
            #expect(records[6].annotations["playback"] == nil)
            #expect(records[6].response.status == 403)
        }
        // Played-back exchanges are in the journal like any other, with the annotation.
        let logged = try JournalReader.readAll(path: log).records
        #expect(logged.count == 7)
        #expect(logged.filter { $0.annotations["playback"]?.hasPrefix("seq ") == true }.count == 5)
    }

    @Test("unmatched requests can be refused; path matching ignores the body; strict compares bytes")
    func modes() async throws {
        let journal = try await recordJournal()
        defer { try? FileManager.default.removeItem(atPath: journal) }

        try await withPushMock(configure: { $0.playback = PlaybackOptions(journalPath: journal, unmatched: .reject) }) { mock in
            let connection = try await mock.connect()
            let unmatched = try await connection.send(mock.apnsRequest(payload: #"{"aps":{"alert":"Something new"}}"#))
            #expect(unmatched.status == 404)
            #expect(unmatched.apnsReason == "PlaybackUnmatched")
            await connection.close()
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.annotations["playback"] == "unmatched, rejected")
            #expect(record.response.status == 404)
        }

        try await withPushMock(configure: { $0.playback = PlaybackOptions(journalPath: journal, match: .path) }) { mock in
            let connection = try await mock.connect()
            let response = try await connection.send(mock.apnsRequest(token: Self.goneToken, payload: #"{"aps":{"alert":"Different"}}"#))
            #expect(response.status == 410)
            await connection.close()
        }

        try await withPushMock(configure: { $0.playback = PlaybackOptions(journalPath: journal, match: .strict) }) { mock in
            let connection = try await mock.connect()
            let sameBytes = try await connection.send(mock.apnsRequest(token: Self.goneToken, payload: #"{"aps":{"alert":"Hello"}}"#))
            #expect(sameBytes.status == 410)
            let reorderedMembers = try await connection.send(mock.apnsRequest(payload: #"{"n":1,"aps":{"alert":"Hello"}}"#))
            #expect(mock.recordings.records(limit: 1).first?.annotations["playback"] == "unmatched")
            #expect(reorderedMembers.status == 200)
            await connection.close()
        }
    }

    @Test("Expo: recorded tickets and receipts come back (gzip as asked); unmatched receipts come from the played-back tickets")
    func expo() async throws {
        let tokenA = "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]"
        let tokenB = "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]"
        let tokenC = "ExponentPushToken[cccccccccccccccccccccc]"
        let project = "@acme/reminders"
        let batch = #"[{"to":"\#(tokenA)","title":"Dose due"},{"to":"\#(tokenB)","title":"Dose due"},{"to":"\#(tokenC)","body":"x"}]"#
        let journal = NSTemporaryDirectory() + "pushmock-playback-expo-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: journal) }

        // The recording: C is uninstalled (ticket error), B's relay fails later (receipt error).
        var recordedIDs: [String] = []
        var recordedSend: [UInt8] = []
        var recordedReceipts: [UInt8] = []
        try await withPushMock(configure: { $0.recording.journalPath = journal }) { mock in
            let clock = try #require(mock.state.virtualClock)
            clock.freeze()
            mock.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(tokenC), project: ExpoProjectName(project),
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 0))))
            mock.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(tokenB), project: ExpoProjectName(project), relayFailure: .init(error: "InvalidCredentials")))
            let sent = try await ExpoCurl.post(mock, json: batch)
            recordedSend = Array(sent.text.utf8)
            recordedIDs = try #require(sent.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue })
            #expect(recordedIDs.count == 2)
            clock.advance(by: .seconds(3))
            let receipts = try await ExpoCurl.post(
                mock, "/--/api/v2/push/getReceipts", json: #"{"ids":["\#(recordedIDs[0])","\#(recordedIDs[1])"]}"#)
            recordedReceipts = Array(receipts.text.utf8)
            #expect(receipts.json?["data"]?[recordedIDs[1]]?["details"]?["error"]?.stringValue == "InvalidCredentials")
        }

        // Played back on a gateway that knows none of these tokens.
        try await withPushMock(configure: { $0.playback = PlaybackOptions(journalPath: journal) }) { mock in
            let clock = try #require(mock.state.virtualClock)
            clock.freeze()
            #expect(mock.state.playback?.answerCount == 2)
            let sent = try await ExpoCurl.post(mock, json: batch, headers: ["content-type: application/json", "accept-encoding: gzip"])
            #expect(sent.status == 200)
            #expect(sent.headers["content-encoding"] == "gzip")
            let replayed = try await ExpoCurl.post(mock, body: Array(batch.utf8), compressed: true)
            #expect(Array(replayed.text.utf8) == recordedSend, "\(replayed.text)")

            // The same getReceipts: the recorded answer, byte for byte.
            let same = try await ExpoCurl.post(
                mock, "/--/api/v2/push/getReceipts", json: #"{"ids":["\#(recordedIDs[0])","\#(recordedIDs[1])"]}"#)
            #expect(Array(same.text.utf8) == recordedReceipts)
            // Another order: no recording matches, the store answers with the recorded outcomes
            // once the receipt delay has passed on this gateway's clock.
            let reordered = #"{"ids":["\#(recordedIDs[1])","\#(recordedIDs[0])"]}"#
            let early = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: reordered)
            #expect(early.json?["data"]?.objectValue?.isEmpty == true, "\(early.text)")
            clock.advance(by: .seconds(3))
            let composed = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: reordered)
            #expect(composed.json?["data"]?[recordedIDs[0]]?["status"]?.stringValue == "ok", "\(composed.text)")
            #expect(composed.json?["data"]?[recordedIDs[1]]?["details"]?["error"]?.stringValue == "InvalidCredentials")

            let records = mock.recordings.records(limit: 10).sorted { $0.sequence < $1.sequence }
            #expect(
                records.map { $0.annotations["playback"] ?? "-" }.map { $0.hasPrefix("seq ") ? "seq" : $0 } == [
                    "seq", "seq", "seq", "unmatched", "unmatched",
                ])
            #expect(records[0].annotations["tickets"] == "ok 2, DeviceNotRegistered 1")
            #expect(records[0].notification?.resolvedTokens == [tokenA, tokenB])
            // Played-back messages reach no device.
            #expect(mock.state.simulatedDevices.devices(now: clock.now()).isEmpty)
        }

        // Refused when asked to: Expo's error envelope with our code.
        try await withPushMock(configure: { $0.playback = PlaybackOptions(journalPath: journal, unmatched: .reject) }) { mock in
            let other = try await ExpoCurl.post(mock, json: #"[{"to":"\#(tokenA)","title":"Not recorded"}]"#)
            #expect(other.status == 404)
            #expect(other.json?["errors"]?[0]?["code"]?.stringValue == "PLAYBACK_UNMATCHED", "\(other.text)")
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.annotations["playback"] == "unmatched, rejected")
            #expect(record.response.reason == "PLAYBACK_UNMATCHED")
        }
    }

    @Test("the configuration file's playback section")
    func configurationFile() throws {
        let directory = NSTemporaryDirectory() + "pushmock-playback-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/config.json"
        try Data(#"{"playback":{"journal":"run.jsonl","match":"strict","unmatched":"reject"}}"#.utf8).write(to: URL(fileURLWithPath: path))
        var configuration = GatewayConfiguration()
        try ConfigurationFile.load(path: path).apply(to: &configuration)
        #expect(configuration.playback == PlaybackOptions(journalPath: directory + "/run.jsonl", match: .strict, unmatched: .reject))
        try Data(#"{"playback":{"journal":"run.jsonl","mode":"x"}}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { try ConfigurationFile.load(path: path) }
    }
}
