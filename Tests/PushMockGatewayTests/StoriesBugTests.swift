import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockSender
import PushMockSimulation
import PushMockTesting
import PushMockTransport
import Testing

/// Regression tests for the bugs issue #14 found while trying the seed teams' stories, each
/// against the real gateway over real sockets.
@Suite("Issue #14 bugs")
struct StoriesBugTests {
    /// Real time, as a sender that never heard of the gateway's virtual clock signs with it.
    static var realNow: Timestamp { SystemClock().now() }

    // MARK: Credentials and the clock

    @Test("after clock advance 6h a provider token signed with real time is accepted; 61 more minutes expire it")
    func providerTokenAcrossClockMove() async throws {
        try await withPushMock { mock in
            mock.clock.advance(by: .seconds(6 * 3600))
            let connection = try await mock.connect()
            let token = try mock.providerToken(issuedAt: Self.realNow)
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(token))))
            // The same token on another connection has the same age (first seen counts).
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(providerToken: .some(token))))
            mock.clock.advance(by: .seconds(61 * 60))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(token))), status: 403, reason: "ExpiredProviderToken")
            // Its replacement, signed with real time again, is fresh and a forced update.
            let fresh = try mock.providerToken(issuedAt: Self.realNow)
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(fresh))))
            await connection.close()
        }
    }

    @Test("a provider token in use when the clock moves 6h ahead has expired")
    func providerTokenInUseExpiresWithTheMove() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let token = try mock.providerToken(issuedAt: Self.realNow)
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(token))))
            mock.clock.advance(by: .seconds(6 * 3600))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(token))), status: 403, reason: "ExpiredProviderToken")
            await connection.close()
        }
    }

    @Test("a clock set into the past: a token signed with real time is fresh, and 61 minutes later expired")
    func providerTokenAfterClockSetBack() async throws {
        try await withPushMock { mock in
            mock.clock.set(to: Self.realNow - .seconds(30 * 86_400))
            let connection = try await mock.connect()
            let token = try mock.providerToken(issuedAt: Self.realNow)
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(token))))
            mock.clock.advance(by: .seconds(61 * 60))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(token))), status: 403, reason: "ExpiredProviderToken")
            await connection.close()
        }
    }

    @Test("OAuth: an assertion signed with real time after clock advance 6h gets a token, which expires 61 minutes later")
    func oauthAcrossClockMove() async throws {
        try await withPushMock { mock in
            mock.clock.advance(by: .seconds(6 * 3600))
            let connection = try await mock.connect()
            let assertion = try mock.assertion(issuedAt: Self.realNow)
            let granted = try await connection.send(mock.tokenRequest(assertion: assertion))
            #expect(granted.status == 200, "\(String(decoding: granted.body, as: UTF8.self))")
            let accessToken = try #require(try JSONValue(parsing: granted.body)["access_token"]?.stringValue)
            let message = #"{"message":{"token":"\#(PushMockHarness.sampleRegistrationToken)","notification":{"title":"Hi"}}}"#
            #expect(try await connection.send(mock.fcmSend(message, accessToken: accessToken)).status == 200)
            mock.clock.advance(by: .seconds(61 * 60))
            // The issued token expires on the gateway clock: the SDK's refresh-on-401 runs.
            let expired = try await connection.send(mock.fcmSend(message, accessToken: accessToken))
            #expect(expired.status == 401)
            #expect(expired.googleError?.status == "UNAUTHENTICATED")
            // An assertion signed on the gateway clock before the step is stale on both clocks.
            let stale = try await connection.send(
                mock.tokenRequest(assertion: try mock.assertion(issuedAt: mock.clock.now() - .seconds(66 * 60))))
            #expect(stale.status == 400)
            #expect(stale.jsonObject?["error"] as? String == "invalid_grant")
            // A new one signed with real time works again.
            let again = try await connection.send(mock.tokenRequest(assertion: try mock.assertion(issuedAt: Self.realNow)))
            #expect(again.status == 200)
            await connection.close()
        }
    }

    @Test("an assertion that is too old on both clocks is still invalid_grant")
    func oauthStaleAssertionStillRejected() async throws {
        try await withPushMock { mock in
            mock.clock.advance(by: .seconds(6 * 3600))
            let stale = try mock.assertion(issuedAt: Self.realNow - .seconds(2 * 3600))
            let response = try await mock.sendOnNewConnection(mock.tokenRequest(assertion: stale))
            #expect(response.status == 400)
            #expect(response.jsonObject?["error"] as? String == "invalid_grant")
        }
    }

    @Test("senders on real time keep working across clock advance 6h and a 61-minute step (APNs and FCM)")
    func sendersKeepSending() async throws {
        try await withPushMock { mock in
            let apns = try APNsSender(configuration: try mock.apnsSenderConfiguration { $0.clock = SystemClock() })
            let fcm = try FCMSender(configuration: try mock.fcmSenderConfiguration { $0.clock = SystemClock() })
            let message = FCMPushMessage(
                target: .token(PushMockHarness.sampleRegistrationToken), notification: .init(title: "Hi", body: "there"))
            let notification = APNsNotification(
                deviceToken: PushMockHarness.sampleDeviceToken, payload: APNsPayload(alert: .init(title: "Hi", body: "there")))
            #expect(await apns.send(notification).outcome.isAccepted)
            #expect(await fcm.send(message).outcome.isAccepted)
            for step in [6 * 3600, 61 * 60, 61 * 60] {
                mock.clock.advance(by: .seconds(Int64(step)))
                let apnsResult = await apns.send(notification)
                #expect(apnsResult.outcome.isAccepted, "APNs after +\(step)s: \(apnsResult.outcome)")
                let fcmResult = await fcm.send(message)
                #expect(fcmResult.outcome.isAccepted, "FCM after +\(step)s: \(fcmResult.outcome)")
            }
            await apns.shutdown()
            await fcm.shutdown()
            let reasons = mock.recordings.records(limit: 1000).compactMap(\.response.reason)
            #expect(!reasons.contains("TooManyProviderTokenUpdates"), "\(reasons)")
        }
    }

    // MARK: Forced provider-token updates

    @Test("ExpiredProviderToken injected into a connection's first request: replacing the token adopted after it is not too many")
    func injectedExpiryBeforeAdoption() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .apnsError(reason: "ExpiredProviderToken")))
            let connection = try await mock.connect()
            let first = try mock.providerToken()
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(first))), status: 403, reason: "ExpiredProviderToken")
            // A request sent with the same token before the client heard of the expiry.
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(first))))
            // The client re-signed after the answer: a forced update.
            let replacement = try mock.providerToken()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(replacement))))
            // The old token again (still in flight somewhere): expired, not "too many".
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(first))), status: 403, reason: "ExpiredProviderToken")
            // That answer forces one more update for a client that re-signs on it, and only one.
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken()))))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .some(try mock.providerToken()))),
                status: 429, reason: "TooManyProviderTokenUpdates")
            await connection.close()
        }
    }

    // MARK: --auth none

    @Test("auth none: FCM sends and IID calls need no credential, any assertion gets a token, Expo skips access tokens")
    func authNoneCoversEveryService() async throws {
        try await withPushMock(configure: {
            $0.apns.authentication = .none
            $0.fcm.authentication = .none
            $0.expo.authentication = .none
        }) { mock in
            let connection = try await mock.connect()
            let message = #"{"message":{"token":"\#(PushMockHarness.sampleRegistrationToken)","notification":{"title":"Hi"}}}"#
            let send = try await connection.send(mock.fcmSend(message, project: "any-project", accessToken: nil))
            #expect(send.status == 200, "\(String(decoding: send.body, as: UTF8.self))")
            var iidHeaders = HTTPHeaderList()
            iidHeaders.append(.contentType, value: "application/json")
            let iid = try await connection.send(
                HTTPRequestMessage(
                    method: "POST", path: "/iid/v1:batchAdd", headers: iidHeaders,
                    body: Array(#"{"to":"/topics/news","registration_tokens":["\#(PushMockHarness.sampleRegistrationToken)"]}"#.utf8)))
            #expect(iid.status == 200, "\(String(decoding: iid.body, as: UTF8.self))")
            // An account the gateway has never heard of.
            let stranger = try SampleServiceAccount.generate(projectID: "stranger")
            let assertion = try mock.assertion(key: stranger.key, clientEmail: stranger.json.clientEmail)
            #expect(try await connection.send(mock.tokenRequest(assertion: assertion)).status == 200)
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: .none)))
            await connection.close()

            let project = "@acme/secure"
            mock.state.expoTokens.register(
                project: ExpoProjectRecord(name: ExpoProjectName(project), accessTokens: ["abcdefghijkl"], requiresAccessToken: true))
            let expoToken = "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"
            mock.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(expoToken), project: ExpoProjectName(project)))
            let expo = try await ExpoCurl.post(mock, json: #"{"to":"\#(expoToken)","title":"Hi"}"#)
            #expect(expo.status == 200, "\(expo.text)")
            #expect(expo.json?["data"]?["status"]?.stringValue == "ok", "\(expo.text)")
        }
    }

    @Test("auth required (default): Expo's enhanced security still refuses a request without the project's token")
    func authRequiredExpo() async throws {
        try await withPushMock { mock in
            let project = "@acme/secure"
            mock.state.expoTokens.register(
                project: ExpoProjectRecord(name: ExpoProjectName(project), accessTokens: ["abcdefghijkl"], requiresAccessToken: true))
            let expoToken = "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"
            mock.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(expoToken), project: ExpoProjectName(project)))
            let expo = try await ExpoCurl.post(mock, json: #"{"to":"\#(expoToken)","title":"Hi"}"#)
            #expect(expo.status == 401, "\(expo.text)")
        }
    }

    // MARK: Queries

    @Test("where=PATH!~GLOB selects what does not match; a stray ! is a 400, never a different condition")
    func notGlobMatchOverREST() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            for title in ["Time for your dose", "Weekly summary"] {
                expectAccepted(try await connection.send(try mock.apnsRequest(payload: #"{"aps":{"alert":{"title":"\#(title)"}}}"#)))
            }
            await connection.close()
            let notMatching = try await ControlAPITests.curl(
                mock, "GET", "/_pushmock/recordings?where=" + Self.percentEncoded("$.aps.alert.title!~Time*"))
            #expect(notMatching.status == 200)
            #expect(notMatching.json?["count"]?.intValue == 1, "\(String(describing: notMatching.json))")
            let query = RecordingQuery(payload: [try PayloadPredicate(parsing: "$.aps.alert.title!~Time*")])
            #expect(mock.records(query).count == 1)
            let stray = try await ControlAPITests.curl(
                mock, "GET", "/_pushmock/recordings?where=" + Self.percentEncoded("$.aps.alert!title=x"))
            #expect(stray.status == 400)
        }
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    // MARK: Recorded latency

    @Test("the recorded latency includes an injected delay", arguments: ["apns", "apns-error", "apns-http1", "fcm"])
    func latencyIncludesInjectedDelay(service: String) async throws {
        try await withPushMock { mock in
            let action: FaultAction = service == "apns-error" ? .apnsError(reason: "TooManyRequests") : .pass
            try mock.addFault(FaultRule(action: action, latency: .fixed(400)))
            if service == "apns-http1" {
                // curl over HTTP/1.1 on the cleartext listener: the delay is real there too.
                let result = try await run(
                    "/usr/bin/curl",
                    [
                        "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http1.1", "-X", "POST",
                        "-H", "authorization: bearer \(try mock.cachedProviderToken())", "-H", "apns-topic: \(mock.topic)",
                        "-H", "apns-push-type: alert", "--data-binary", #"{"aps":{"alert":"Hi"}}"#,
                        "http://127.0.0.1:\(mock.cleartextPort)/3/device/\(PushMockHarness.sampleDeviceToken)",
                    ])
                #expect(result.output == "200")
                let record = try #require(mock.recordings.records(limit: 1).first)
                #expect(record.latencyMicroseconds >= 400_000, "recorded \(record.latencyMicroseconds) µs")
                return
            }
            let connection = try await mock.connect()
            if service == "apns" {
                expectAccepted(try await connection.send(try mock.apnsRequest()))
            } else if service == "apns-error" {
                expectAPNsError(try await connection.send(try mock.apnsRequest()), status: 429, reason: "TooManyRequests")
            } else {
                let accessToken = try await mock.fetchAccessToken(over: connection)
                let message = #"{"message":{"token":"\#(PushMockHarness.sampleRegistrationToken)","notification":{"title":"Hi"}}}"#
                #expect(try await connection.send(mock.fcmSend(message, accessToken: accessToken)).status == 200)
            }
            await connection.close()
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.latencyMicroseconds >= 400_000, "recorded \(record.latencyMicroseconds) µs")
            // The journal line carries the same number.
            let line = try #require(mock.recordings.entries(newestFirst: true).first)
            #expect(try line.record().latencyMicroseconds == record.latencyMicroseconds)
        }
    }

    // MARK: Token rotation

    @Test("rotating a rotated token rotates the newest one: A→B→C, nothing orphaned", arguments: ["apns", "fcm", "expo"])
    func chainedRotation(service: String) async throws {
        try await withPushMock { mock in
            let (a, b, c): (String, String, String)
            switch service {
            case "apns":
                (a, b, c) = (String(repeating: "a", count: 64), String(repeating: "b", count: 64), String(repeating: "c", count: 64))
            case "fcm":
                let base = PushMockHarness.sampleRegistrationToken
                (a, b, c) = ("A" + base.dropFirst(), "B" + base.dropFirst(), "C" + base.dropFirst())
            default:
                (a, b, c) = (
                    "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]", "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]",
                    "ExponentPushToken[cccccccccccccccccccccc]"
                )
            }
            func path(_ token: String) -> String {
                // Expo tokens carry brackets, which clients percent-encode; FCM tokens go as they are.
                "/_pushmock/\(service)/tokens/\(service == "expo" ? Self.percentEncoded(token) : token)"
            }
            let first = try await ControlAPITests.curl(mock, "POST", path(a) + "/rotate", body: #"{"newToken":"\#(b)"}"#)
            #expect(first.status == 201)
            let second = try await ControlAPITests.curl(mock, "POST", path(a) + "/rotate", body: #"{"newToken":"\#(c)"}"#)
            #expect(second.status == 201)
            // The token replaced the second time is B, the device's current one.
            #expect(second.json?["old"]?["token"]?.stringValue == b)
            #expect(second.json?["new"]?["token"]?.stringValue == c)
            let recordA = try await ControlAPITests.curl(mock, "GET", path(a))
            let recordB = try await ControlAPITests.curl(mock, "GET", path(b))
            let recordC = try await ControlAPITests.curl(mock, "GET", path(c))
            #expect(recordA.json?["replacedBy"]?.stringValue == b)
            #expect(recordB.json?["replacedBy"]?.stringValue == c)
            #expect(recordB.json?["state"]?.stringValue == "unregistered")
            #expect((recordC.json?["state"]?.stringValue ?? "active") == "active")
            // A keeps the time it died the first time.
            #expect(recordA.json?["at"] == first.json?["old"]?["at"])
            // Rotating to the newest again changes nothing.
            let again = try await ControlAPITests.curl(mock, "POST", path(a) + "/rotate", body: #"{"newToken":"\#(c)"}"#)
            #expect(again.json?["new"]?["token"]?.stringValue == c)
            #expect((try await ControlAPITests.curl(mock, "GET", path(c))).json?["state"]?.stringValue ?? "active" == "active")
        }
    }

    // MARK: FCM token lifecycle

    @Test("an FCM token unregistered without a project answers 404 UNREGISTERED to every project; --project binds it")
    func unregisteredUnknownFCMToken() async throws {
        try await withPushMock { mock in
            let token = PushMockHarness.sampleRegistrationToken
            let patched = try await ControlAPITests.curl(
                mock, "PATCH", "/_pushmock/fcm/tokens/\(token)", body: #"{"state":"unregistered"}"#)
            #expect(patched.status == 200)
            let other = "B" + token.dropFirst()
            let bound = try await ControlAPITests.curl(
                mock, "PATCH", "/_pushmock/fcm/tokens/\(other)", body: #"{"state":"unregistered","project":"acme"}"#)
            #expect(bound.json?["project"]?.stringValue == "acme")
            // A service account of another project than the sample one.
            let account = try SampleServiceAccount.generate(projectID: "acme")
            mock.state.serviceAccounts.register(
                ServiceAccountRecord(
                    clientEmail: account.json.clientEmail, privateKeyID: account.json.privateKeyID, publicKey: account.key.publicKey,
                    projectID: "acme"))
            let connection = try await mock.connect()
            let granted = try await connection.send(
                mock.tokenRequest(assertion: try mock.assertion(key: account.key, clientEmail: account.json.clientEmail)))
            let accessToken = try #require(try JSONValue(parsing: granted.body)["access_token"]?.stringValue)
            for registration in [token, other] {
                let message = #"{"message":{"token":"\#(registration)","notification":{"title":"Hi"}}}"#
                let response = try await connection.send(mock.fcmSend(message, project: "acme", accessToken: accessToken))
                #expect(response.status == 404)
                #expect(response.googleError?.errorCode == "UNREGISTERED")
            }
            await connection.close()
        }
    }

    // MARK: prettyPrint

    @Test(
        "FCM error bodies honour prettyPrint (default indented, false compact)", arguments: ["", "?prettyPrint=false", "?prettyPrint=true"])
    func prettyPrint(query: String) async throws {
        try await withPushMock { mock in
            let result = try await run(
                "/usr/bin/curl",
                [
                    "-s", "--http2-prior-knowledge", "-X", "POST", "-H", "content-type: application/json", "--data-binary", "{}",
                    "http://127.0.0.1:\(mock.cleartextPort)/v1/projects/\(mock.project)/messages:send\(query)",
                ])
            let compact = query == "?prettyPrint=false"
            let body = result.output
            #expect(body.hasPrefix(compact ? #"{"error":{"code":401,"# : "{\n  \"error\": {\n    \"code\": 401,"), "\(body)")
            #expect(body.hasSuffix("\n") != compact)
            #expect((try? JSONValue(parsing: Array(body.utf8)))?["error"]?["status"]?.stringValue == "UNAUTHENTICATED")
        }
    }

    // MARK: Configuration file

    @Test("fcm.serviceAccounts in the config file: a Google JSON file by path and an inline key are both trusted")
    func configServiceAccounts() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fromFile = try SampleServiceAccount.generate(projectID: "from-file")
        try fromFile.json.encodedJSON().write(to: URL(fileURLWithPath: directory + "/service-account.json"))
        let inline = try SampleServiceAccount.generate(projectID: "inline")
        let config: JSONValue = [
            "fcm": [
                "serviceAccounts": [
                    ["path": "service-account.json"],
                    [
                        "clientEmail": .string(inline.json.clientEmail), "projectId": "inline",
                        "privateKeyId": .string(inline.json.privateKeyID), "privateKeyPem": .string(inline.json.privateKey),
                    ],
                ]
            ]
        ]
        try Data(config.compactString.utf8).write(to: URL(fileURLWithPath: directory + "/pushmock.json"))
        let file = try ConfigurationFile.load(path: directory + "/pushmock.json")
        try await withPushMock { mock in
            try file.register(in: mock.state)
            let connection = try await mock.connect()
            for account in [fromFile, inline] {
                let assertion = try mock.assertion(key: account.key, clientEmail: account.json.clientEmail)
                let response = try await connection.send(mock.tokenRequest(assertion: assertion))
                #expect(response.status == 200, "\(account.json.projectID): \(String(decoding: response.body, as: UTF8.self))")
            }
            await connection.close()
        }
    }
}
