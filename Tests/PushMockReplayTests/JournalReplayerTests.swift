import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockReplay
import PushMockSender
import PushMockSimulation
import PushMockTesting
import PushMockToolkit
import Testing

@Suite("Replaying a journal to another gateway with fresh credentials")
struct JournalReplayerTests {
    /// Records a few APNs exchanges (accepted with every header that matters, and one
    /// rejected) into a journal and returns its path.
    func recordAPNsJournal() async throws -> String {
        let path = temporaryJournalPath()
        try await withPushMock(configure: { $0.recording.journalPath = path }) { mock in
            try await withAPNsSender(configuration: try mock.apnsConfiguration()) { sender in
                var first = APNsNotification(
                    deviceToken: deviceToken(1), payloadJSON: Array(#"{"aps":{"alert":"first"},"z":1,"a":2}"#.utf8), topic: mock.topic)
                first.priority = .considerPower
                first.collapseID = "orders"
                first.expiration = .init(secondsSince1970: 4_000_000_000)
                #expect(await sender.send(first).outcome.isAccepted)
                let second = APNsNotification(
                    deviceToken: deviceToken(2), payloadJSON: Array(#"{"aps":{"content-available":1}}"#.utf8), topic: mock.topic,
                    pushType: .background, priority: .considerPower)
                #expect(await sender.send(second).outcome.isAccepted)
                let rejected = await sender.send(
                    APNsNotification(deviceToken: "not-hex", payloadJSON: Array(#"{"aps":{"alert":"x"}}"#.utf8), topic: mock.topic))
                #expect(rejected.outcome.kind == .rejected)
            }
        }
        return path
    }

    @Test("APNs: every outcome matches on a fresh gateway with a new key; order, headers and payload bytes are kept")
    func apnsAllMatch() async throws {
        let journal = try await recordAPNsJournal()
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let (records, problems) = try JournalReader.readAll(path: journal)
        #expect(problems.isEmpty)
        #expect(records.count == 3)

        try await withPushMock { target in
            let key = target.trustNewKey()
            let report = try await withAPNsSender(configuration: try target.apnsConfiguration(authentication: .token(key))) { sender in
                await JournalReplayer(apns: sender).replay(records)
            }
            #expect(report.comparisons.count == 3)
            #expect(report.allMatch, "\(report.renderText())")
            #expect(report.sameCount == 3)
            #expect(report.comparisons.map(\.recorded.kind) == [.accepted, .accepted, .rejected])

            let replayed = target.recordings.records(limit: 10).sorted { $0.sequence < $1.sequence }
            #expect(replayed.count == 3)
            for (original, again) in zip(records, replayed) {
                #expect(again.request.path == original.request.path)
                #expect(again.request.body == original.request.body)
                for name in ["apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id"] {
                    #expect(again.request.headers.first(named: name) == original.request.headers.first(named: name), "\(name)")
                }
                // Signed with the new key, never with the recorded authorization.
                #expect(again.auth?.keyID == "REPLAYKEY1")
            }
            #expect(replayed.first?.request.body.textValue == #"{"aps":{"alert":"first"},"z":1,"a":2}"#)
        }
    }

    @Test("APNs: an unregistered token and an injected fault on the target show as differences")
    func apnsDifferences() async throws {
        let journal = try await recordAPNsJournal()
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let (records, _) = try JournalReader.readAll(path: journal)

        try await withPushMock { target in
            target.state.devices.register(
                APNsDeviceRecord(
                    token: APNsDeviceToken(deviceToken(1)), bundleID: target.topic,
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 1_700_000_000_000)))
            )
            let report = try await withAPNsSender(configuration: try target.apnsConfiguration()) { sender in
                await JournalReplayer(apns: sender).replay(records)
            }
            #expect(!report.allMatch)
            #expect(report.differentCount == 1)
            let difference = try #require(report.differences.first)
            #expect(difference.recipient == deviceToken(1))
            #expect(difference.recorded == ReplayOutcome(kind: .accepted, status: 200, reason: nil))
            #expect(difference.replayed == ReplayOutcome(kind: .tokenInvalid, status: 410, reason: "Unregistered"))
            let text = report.renderText()
            #expect(
                text.contains(
                    "DIFFERENT #\(difference.sequence) apns \(deviceToken(1)): recorded accepted 200, replayed invalid-token 410 Unregistered"
                ))
            #expect(text.hasSuffix("3 replayed: 2 same, 1 different\n"))

            let json = try JSONValue(parsing: report.renderJSON())
            #expect(json["summary"]?["different"]?.intValue == 1)
            #expect(json["summary"]?["allMatch"]?.boolValue == false)
            #expect(json["exchanges"]?[0]?["verdict"]?.stringValue == "different")
            #expect(json["exchanges"]?[0]?["replayed"]?["reason"]?.stringValue == "Unregistered")
            let junit = report.renderJUnit()
            #expect(junit.contains(#"tests="3" failures="1""#))
        }

        // Only the rejected one, by filter; a fault on the target turns it into a 503.
        try await withPushMock { target in
            try target.addFault(FaultRule(match: FaultMatch(platform: .apns), action: .apnsError(reason: "ServiceUnavailable")))
            let report = try await withAPNsSender(configuration: try target.apnsConfiguration()) { sender in
                await JournalReplayer(apns: sender, query: RecordingQuery(status: StatusFilter("4xx"))).replay(records)
            }
            #expect(report.comparisons.count == 1)
            #expect(report.comparisons.first?.replayed?.kind == .failed)
            #expect(report.comparisons.first?.replayed?.status == 503)
            #expect(report.differentCount == 1)
        }
    }

    @Test("FCM: replayed with a new service account into its project; an unregistered token differs")
    func fcm() async throws {
        let journal = temporaryJournalPath()
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let token = PushMockHarness.sampleRegistrationToken
        try await withPushMock(configure: { $0.recording.journalPath = journal }) { mock in
            try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
                #expect(await sender.send(FCMPushMessage(target: .token(token), notification: .init(title: "Hi"))).outcome.isAccepted)
                #expect(await sender.send(FCMPushMessage(target: .topic("news"), notification: .init(title: "News"))).outcome.isAccepted)
                let invalid = await sender.send(
                    try FCMPushMessage(json: JSONValue(parsing: #"{"token":"\#(token)","notification":{"title":7}}"#)))
                #expect(invalid.outcome.kind == .rejected, "\(invalid)")
            }
        }
        let (records, _) = try JournalReader.readAll(path: journal)
        let sends = records.filter { $0.platform == .fcm }
        #expect(sends.count == 3)

        try await withPushMock { target in
            let account = try SampleServiceAccount.generate(
                projectID: "replay-project", tokenURI: "https://127.0.0.1:\(target.tlsPort)/token")
            target.state.serviceAccounts.register(
                ServiceAccountRecord(
                    clientEmail: account.json.clientEmail, privateKeyID: account.json.privateKeyID, publicKey: account.key.publicKey,
                    projectID: "replay-project")
            )
            let report = try await withFCMSender(configuration: try target.fcmConfiguration(account: account.json)) { sender in
                await JournalReplayer(fcm: sender, fcmProject: "replay-project").replay(records)
            }
            #expect(report.allMatch, "\(report.renderText())")
            #expect(report.comparisons.count == 3)
            let replayed = target.recordings.records(limit: 20).filter { $0.platform == .fcm }
            #expect(replayed.count == 3)
            #expect(replayed.allSatisfy { $0.request.path == "/v1/projects/replay-project/messages:send" })
            #expect(replayed.allSatisfy { $0.auth?.subject == nil || $0.auth?.subject == account.json.clientEmail })

            // The same journal, with the token gone on the target.
            target.state.fcmTokens.register(
                FCMTokenRecord(
                    token: FCMRegistrationToken(token), project: "replay-project",
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 1_700_000_000_000))))
            let again = try await withFCMSender(configuration: try target.fcmConfiguration(account: account.json)) { sender in
                await JournalReplayer(fcm: sender, fcmProject: "replay-project").replay(records)
            }
            #expect(again.differentCount >= 1, "\(again.renderText())")
            #expect(again.differences.first?.replayed?.kind == .tokenInvalid)
        }
    }

    @Test("Expo: sends replayed ticket by ticket with the sender's own access token; an uninstalled token differs")
    func expo() async throws {
        let journal = temporaryJournalPath()
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let tokens = (1...3).map { "ExponentPushToken[replay\($0)aaaaaaaaaaaaaaaaa]" }
        let project = "@acme/reminders"
        func uninstall(_ token: String, on mock: PushMockHarness) {
            mock.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(token), project: ExpoProjectName(project),
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 0))))
        }
        func sender(for mock: PushMockHarness, accessToken: String? = nil) throws -> ExpoSender {
            try ExpoSender(
                configuration: ExpoSenderConfiguration(
                    server: try SenderEndpoint(url: "http://127.0.0.1:\(mock.cleartextPort)"), accessToken: accessToken,
                    retry: RetryPolicy(maximumAttempts: 1)))
        }
        try await withPushMock(configure: { $0.recording.journalPath = journal }) { mock in
            uninstall(tokens[2], on: mock)
            let expo = try sender(for: mock)
            let report = await expo.send(tokens.map { ExpoPushMessage(to: $0, title: "Dose due") })
            #expect(report.okCount == 2)
            // A raw request the SDKs would never build: a request error, replayed as one.
            let invalid = await expo.send(
                wireRequest: WireRequest(
                    path: "/--/api/v2/push/send", headers: HTTPHeaderList(),
                    body: Array(#"[{"to":"\#(tokens[0])","priority":"urgent"}]"#.utf8),
                    recipient: tokens[0]))
            guard case .requestError(400, "VALIDATION_ERROR", _) = invalid.outcome else {
                Issue.record("expected a 400 VALIDATION_ERROR: \(invalid)")
                return
            }
            await expo.shutdown()
        }
        let (records, _) = try JournalReader.readAll(path: journal)
        let selection = JournalReplayer().selection(from: records)
        #expect(selection.map(\.platform) == [.expo, .expo])

        try await withPushMock { target in
            uninstall(tokens[2], on: target)
            // The target demands an access token for the project; the replay brings its own.
            target.state.expoTokens.register(
                project: ExpoProjectRecord(name: ExpoProjectName(project), accessTokens: ["replay-secret"], requiresAccessToken: true))
            let expo = try sender(for: target, accessToken: "replay-secret")
            let report = await JournalReplayer(expo: expo).replay(records)
            #expect(report.allMatch, "\(report.renderText())")
            #expect(
                report.comparisons.map(\.recorded.description) == [
                    "invalid-token 200 ok, ok, DeviceNotRegistered", "rejected 400 VALIDATION_ERROR",
                ])
            #expect(report.comparisons.first?.replayedID?.split(separator: " ").count == 2)
            let replayed = target.recordings.records(limit: 10).filter { $0.platform == .expo }
            #expect(replayed.count == 2)
            #expect(replayed.allSatisfy { $0.request.headers.first(named: "authorization") != nil })

            // The first token gone on the target too: the first send differs.
            uninstall(tokens[0], on: target)
            let again = await JournalReplayer(expo: expo).replay(records)
            #expect(again.differentCount == 1, "\(again.renderText())")
            #expect(again.differences.first?.replayed?.reason == "DeviceNotRegistered, ok, DeviceNotRegistered")
            await expo.shutdown()
        }
    }

    @Test("outcomes from records: APNs and FCM error bodies, no answer at all")
    func recordedOutcomes() throws {
        var apns = ExchangeRecord(platform: .apns)
        apns.response = ResponseInfo(status: 410, body: RecordedBody(capturing: Array(#"{"reason":"Unregistered","timestamp":1}"#.utf8)))
        #expect(ReplayOutcome(recorded: apns) == ReplayOutcome(kind: .tokenInvalid, status: 410, reason: "Unregistered"))
        apns.response = ResponseInfo(status: 503, body: RecordedBody(capturing: Array(#"{"reason":"ServiceUnavailable"}"#.utf8)))
        #expect(ReplayOutcome(recorded: apns).kind == .failed)
        apns.response = ResponseInfo(status: 0)
        #expect(ReplayOutcome(recorded: apns).matches(ReplayOutcome(kind: .failed, status: nil, reason: "connection closed")))

        var fcm = ExchangeRecord(platform: .fcm)
        fcm.response = ResponseInfo(
            status: 404,
            body: RecordedBody(
                capturing: Array(
                    #"{"error":{"code":404,"status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
                        .utf8))
        )
        #expect(ReplayOutcome(recorded: fcm) == ReplayOutcome(kind: .tokenInvalid, status: 404, reason: "UNREGISTERED"))
    }

    @Test("request rewriting: FCM project, dropped credentials, replayable paths only")
    func rewriting() {
        var record = ExchangeRecord(platform: .fcm)
        record.request = RequestInfo(
            method: "POST",
            path: "/v1/projects/old-project/messages:send",
            headers: HTTPHeaderList([("content-type", "application/json"), ("authorization", "<redacted>"), ("content-length", "12")]),
            body: RecordedBody(capturing: Array(#"{"message":{}}"#.utf8))
        )
        #expect(ReplayableRequest.isReplayable(record))
        let request = ReplayableRequest.wireRequest(for: record, fcmProject: "new-project")
        #expect(request.path == "/v1/projects/new-project/messages:send")
        #expect(request.headers.map(\.name) == ["content-type"])
        #expect(request.body == Array(#"{"message":{}}"#.utf8))
        record.request.path = "/token"
        #expect(!ReplayableRequest.isReplayable(record))
    }
}
