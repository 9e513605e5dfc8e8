import Foundation
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockSimulation
import PushMockTesting
import PushMockTransport
import Testing

private let fcmToken = PushMockHarness.sampleRegistrationToken

/// The C1 rows only fault injection produces (APNs under load, failing or shutting down).
@Suite("Injected APNs faults (C1 rows)")
struct InjectedAPNsTests {
    @Test(
        arguments: [
            ("TooManyRequests", 429), ("InternalServerError", 500), ("ServiceUnavailable", 503), ("Shutdown", 503),
            ("Forbidden", 403), ("BadCertificate", 403),
        ] as [(String, Int)])
    func errorRows(reason: String, status: Int) async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(match: FaultMatch(platform: .apns), action: .apnsError(reason: reason)))
            let response = try await mock.sendOnNewConnection(try mock.apnsRequest())
            expectAPNsError(response, status: status, reason: reason)
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.response.status == status)
            #expect(record.annotations["fault"]?.contains(reason) == true)
            // The request was still fully parsed for the record.
            #expect(record.notification?.token == PushMockHarness.sampleDeviceToken)
        }
    }

    @Test("an injected 410 carries the fault's timestamp")
    func unregistered() async throws {
        try await withPushMock { mock in
            let action = FaultAction.apnsError(reason: "Unregistered", timestamp: 1_700_000_000_123)
            try mock.addFault(FaultRule(action: action))
            let response = try await mock.sendOnNewConnection(try mock.apnsRequest())
            #expect(response.status == 410)
            #expect(response.apnsTimestamp == 1_700_000_000_123)
        }
    }

    @Test("IdleTimeout and Shutdown as GOAWAY with JSON debug data", arguments: ["IdleTimeout", "Shutdown"])
    func goAway(reason: String) async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .goAway(reason: reason)))
            let connection = try await mock.connect()
            do {
                _ = try await connection.send(try mock.apnsRequest())
                Issue.record("expected GOAWAY")
            } catch let error as HTTP2ClientError {
                guard case .goAway(let goAway) = error.kind else { Issue.record("\(error)"); return }
                #expect(String(decoding: goAway.debugData, as: UTF8.self) == #"{"reason":"\#(reason)"}"#)
                #expect(goAway.errorCode == .noError)
                #expect(goAway.lastStreamID == 0)
            }
            await connection.closeFuture()
            // Only the next request got it: a new connection works.
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            let record = try #require(mock.recordings.records(newestFirst: false).first)
            #expect(record.response.status == 0)
            #expect(record.response.reason == reason)
        }
    }
}

/// The C3 and C5 rows only fault injection produces.
@Suite("Injected FCM and IID faults (C3, C5 rows)")
struct InjectedGoogleTests {
    @Test(
        arguments: [
            ("QUOTA_EXCEEDED", 429, "RESOURCE_EXHAUSTED", 60 as Int?), ("UNAVAILABLE", 503, "UNAVAILABLE", 30),
            ("UNAVAILABLE", 503, "UNAVAILABLE", nil),
            ("INTERNAL", 500, "INTERNAL", nil),
        ] as [(String, Int, String, Int?)])
    func fcmRows(code: String, status: Int, canonical: String, retryAfter: Int?) async throws {
        try await withPushMock { mock in
            try mock.addFault(
                FaultRule(match: FaultMatch(platform: .fcm, token: Glob("*APA91b*")), action: .fcmError(code: code, retryAfter: retryAfter))
            )
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let response = try await connection.send(mock.fcmSend(#"{"message":{"token":"\#(fcmToken)"}}"#, accessToken: accessToken))
            #expect(response.status == status)
            let error = try #require(response.googleError)
            #expect(error.status == canonical)
            #expect(error.errorCode == code)
            #expect(response.header("retry-after") == retryAfter.map(String.init))
            if code == "QUOTA_EXCEEDED" {
                let details = (response.jsonObject?["error"] as? [String: Any])?["details"] as? [[String: Any]]
                #expect(details?.contains { ($0["@type"] as? String) == "type.googleapis.com/google.rpc.QuotaFailure" } == true)
            }
            // Never a Retry-After on success.
            let clean = try await connection.send(mock.fcmSend(#"{"message":{"topic":"news"}}"#, accessToken: accessToken))
            #expect(clean.status == 200)
            #expect(clean.header("retry-after") == nil)
            await connection.close()
        }
    }

    @Test("IID rate limit and server errors", arguments: [("RESOURCE_EXHAUSTED", 429), ("INTERNAL", 500), ("UNAVAILABLE", 503)])
    func iidRows(error: String, status: Int) async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(action: FaultAction.iidError(error: error)))
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            var request = mock.fcmSend(
                #"{"to":"/topics/news","registration_tokens":["\#(fcmToken)"]}"#, accessToken: accessToken, path: "/iid/v1:batchAdd")
            request.headers.append(name: "access_token_auth", value: "true")
            let response = try await connection.send(request)
            #expect(response.status == status)
            #expect(response.jsonObject?["error"] as? String == error)
            // The fault answered instead of the endpoint: nothing was subscribed.
            #expect(mock.state.fcmTokens.lookup(FCMRegistrationToken(fcmToken)) == nil)
            await connection.close()
        }
    }

    @Test("an injected token-endpoint failure issues no token")
    func oauth() async throws {
        try await withPushMock { mock in
            try mock.addFault(
                FaultRule(
                    trigger: FaultTrigger(count: 1), action: FaultAction.oauthError(error: "internal_failure", description: "Backend error")
                ))
            let connection = try await mock.connect()
            let failed = try await connection.send(mock.tokenRequest(assertion: try mock.assertion()))
            #expect(failed.status == 500)
            #expect(failed.jsonObject?["error"] as? String == "internal_failure")
            #expect(mock.state.accessTokens.count == 0)
            #expect(try await connection.send(mock.tokenRequest(assertion: try mock.assertion())).status == 200)
            await connection.close()
        }
    }
}

/// Connection-level chaos as a real HTTP/2 client sees it.
@Suite("Connection faults")
struct ConnectionFaultTests {
    @Test("RST_STREAM with the configured code")
    func reset() async throws {
        try await withPushMock { mock in
            let action = FaultAction.reset(.refusedStream)
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: action))
            let connection = try await mock.connect()
            await #expect(throws: HTTP2ClientError(.streamReset(.refusedStream))) {
                _ = try await connection.send(try mock.apnsRequest())
            }
            // The connection survives a stream reset.
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            await connection.close()
        }
    }

    @Test("close: the connection drops without an answer")
    func close() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .close))
            let connection = try await mock.connect()
            await #expect(throws: HTTP2ClientError(.connectionClosed)) {
                _ = try await connection.send(try mock.apnsRequest())
            }
            #expect(mock.recordings.records(limit: 1).first?.annotations["fault"] != nil)
        }
    }

    @Test("hang: no answer until the client gives up; other streams are unaffected")
    func hang() async throws {
        try await withPushMock(configure: { $0.shutdownGracePeriod = .milliseconds(200) }) { mock in
            try mock.addFault(FaultRule(match: FaultMatch(token: Glob("ff*")), action: .hang))
            let connection = try await mock.connect()
            let hung = try mock.apnsRequest(token: String(repeating: "ff", count: 32))
            let outcome = await withTaskGroup(of: String.self) { group in
                group.addTask { (try? await connection.send(hung)).map { "answered \($0.status)" } ?? "failed" }
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(300))
                    return "timed out"
                }
                let first = await group.next()!
                group.cancelAll()
                return first
            }
            #expect(outcome == "timed out")
            // The abandoned stream was reset; the connection goes on.
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            #expect(try await connection.inFlightCount == 0)
            await connection.close()
        }
    }

    @Test("latency delays the answer by the drawn amount")
    func latency() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(action: .pass, latency: .fixed(300)))
            let connection = try await mock.connect()
            let started = ContinuousClock.now
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            #expect(ContinuousClock.now - started >= .milliseconds(300))
            #expect(mock.recordings.records(limit: 1).first?.annotations["fault"]?.contains("after 300 ms") == true)
            await connection.close()
        }
    }

    @Test("SETTINGS change: MAX_CONCURRENT_STREAMS 1")
    func settings() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: FaultAction.settings(maxConcurrentStreams: 1)))
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            #expect(try await connection.remoteMaxConcurrentStreams == 1)
            await connection.close()
        }
    }

    @Test("a seeded flaky network resets the same requests on every run")
    func deterministicFlakiness() async throws {
        func run() async throws -> [Int] {
            try await withPushMock { mock in
                var parameters = FaultPreset.Parameters()
                parameters.probability = 0.3
                parameters.seed = 11
                for rule in try FaultPreset.flakyNetwork.rules(parameters) { try mock.addFault(rule) }
                let connection = try await mock.connect()
                var failed: [Int] = []
                for index in 0..<40 {
                    do { _ = try await connection.send(try mock.apnsRequest()) } catch { failed.append(index) }
                }
                await connection.close()
                return failed
            }
        }
        let first = try await run()
        let second = try await run()
        #expect(first == second)
        #expect(!first.isEmpty)
    }

    @Test("presets and rules through the control API; counters in the listing")
    func controlAPI() async throws {
        try await withPushMock { mock in
            let control = try await mock.connect(tls: false)
            let preset = try await control.send(
                HTTPRequestMessage(
                    method: "POST", path: "/_pushmock/faults/presets/outage", body: Array(#"{"forSeconds": 60, "platform": "apns"}"#.utf8)))
            #expect(preset.status == 201, "\(String(decoding: preset.body, as: UTF8.self))")
            expectAPNsError(try await mock.sendOnNewConnection(try mock.apnsRequest()), status: 503, reason: "ServiceUnavailable")
            let listing = try await control.send(HTTPRequestMessage(method: "GET", path: "/_pushmock/faults"))
            let rules = try #require(try JSONSerialization.jsonObject(with: Data(listing.body)) as? [[String: Any]])
            #expect(rules.count == 1)
            #expect(rules.first?["fired"] as? Int == 1)
            let bad = try await control.send(
                HTTPRequestMessage(method: "POST", path: "/_pushmock/faults", body: Array(#"{"action":{"type":"apns-error"}}"#.utf8)))
            #expect(bad.status == 400)
            #expect(String(decoding: bad.body, as: UTF8.self).contains("needs a reason"))
            #expect(try await control.send(HTTPRequestMessage(method: "DELETE", path: "/_pushmock/faults")).status == 200)
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            await control.close()
        }
    }
}
