import Foundation
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockSender
import PushMockSimulation
import PushMockTesting
import Testing

/// `ExpoSender` against the real gateway over h2c and TLS.
@Suite("ExpoSender against the gateway")
struct ExpoSenderTests {
    static func sender(_ mock: PushMockHarness, tls: Bool = false, configure: (inout ExpoSenderConfiguration) -> Void = { _ in }) throws
        -> ExpoSender
    {
        var configuration = ExpoSenderConfiguration(
            server: tls
                ? SenderEndpoint(host: "127.0.0.1", port: mock.tlsPort, usesTLS: true, serverHostname: "localhost")
                : SenderEndpoint(host: "127.0.0.1", port: mock.cleartextPort, usesTLS: false),
            trustRoots: mock.credentials.certificateAuthorityPEM.map(TrustRoots.pem) ?? .system,
            // Generous: a request timed out on a loaded machine is retried, and the counts and
            // sleeps these tests check would include that retry.
            requestTimeout: .seconds(120),
            connectTimeout: mock.clientConnectTimeout
        )
        configuration.sleep = RetrySleep { _ in }
        configure(&configuration)
        return try ExpoSender(configuration: configuration)
    }

    static func token(_ index: Int) -> String { "ExponentPushToken[" + String(format: "snd%019d", index) + "]" }

    @Test("1,050 messages: 11 requests of ≤ 100, tickets in order, receipts, tokens to delete", arguments: [false, true])
    func bulk(tls: Bool) async throws {
        // Receipts well after the retries' backoff, which moves the gateway clock below.
        try await withPushMock(configure: { $0.expo.receiptDelay = .seconds(120) }) { mock in
            let clock = try #require(mock.state.virtualClock)
            clock.freeze()
            let dead = Self.token(7)
            let uninstalledLater = Self.token(8)
            mock.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(dead), project: "@acme/app", state: .unregistered(at: Timestamp(millisecondsSince1970: 0))))
            mock.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(uninstalledLater), project: "@acme/app"))
            // The clock stands still, so 1,050 notifications are over the project's 600/s: the
            // sender's backoff (advancing the gateway clock instead of sleeping) gets them through.
            let sender = try Self.sender(mock, tls: tls) { $0.sleep = RetrySleep { clock.advance(by: $0) } }
            let messages = (0..<1050).map { ExpoPushMessage(to: Self.token($0 % 300), title: "Reminder \($0)", data: ["n": JSONValue($0)]) }
            let report = await sender.send(messages)
            #expect(report.requests - report.retries == 11)
            #expect(report.retries >= 1)
            #expect(mock.recordings.records { $0.response.reason == "TOO_MANY_REQUESTS" }.count == report.retries)
            #expect(report.tickets.map(\.token) == messages.map(\.to))
            let deadCount = messages.filter { $0.to == dead }.count
            #expect(report.okCount == 1050 - deadCount)
            #expect(report.errorCounts == ["DeviceNotRegistered": deadCount])
            #expect(report.tokensToDelete == [dead])

            let early = try await sender.receipts(for: Array(report.receiptIDs.keys))
            #expect(early.count == 0)
            _ = mock.state.expoTokens.update(ExpoTokenID(uninstalledLater), project: "@acme/app") {
                $0.state = .unregistered(at: clock.now())
            }
            clock.advance(by: .seconds(121))
            let receipts = await sender.pollReceipts(for: report, interval: .milliseconds(10), timeout: .seconds(120))
            #expect(receipts.missing.isEmpty)
            #expect(receipts.receipts.count == report.okCount)
            #expect(receipts.tokensToDelete == [dead, uninstalledLater])
            await sender.shutdown()
            // Receipts go 1000 ids a request: 2 early, 2 when polled.
            #expect(mock.recordings.records { $0.platform == .expo && $0.request.path.hasSuffix("getReceipts") }.count == 4)
            #expect(mock.recordings.records { $0.annotations["requestContentEncoding"] == "gzip" }.count >= 11)
        }
    }

    @Test("retries 429 and 5xx with backoff, then succeeds; gives up after maximumAttempts")
    func retries() async throws {
        try await withPushMock { mock in
            _ = try mock.addFault(
                FaultRule(trigger: FaultTrigger(count: 2), action: .expoError(.request(code: "TOO_MANY_REQUESTS"), retryAfter: 1)))
            let slept = SleepLog()
            let sender = try Self.sender(mock) { $0.sleep = RetrySleep { await slept.add($0) } }
            let report = await sender.send([ExpoPushMessage(to: Self.token(1), body: "x")])
            #expect(report.okCount == 1)
            #expect(report.requests == 3)
            #expect(report.retries == 2)
            let durations = await slept.durations
            #expect(durations == [.seconds(1), .seconds(1)], "\(report)")

            _ = try mock.addFault(FaultRule(trigger: FaultTrigger(count: 3), action: .expoError(.request(code: "INTERNAL_SERVER_ERROR"))))
            let failed = await sender.send([ExpoPushMessage(to: Self.token(2), body: "x")])
            #expect(failed.okCount == 0)
            #expect(
                failed.tickets.first?.outcome
                    == .requestFailed(
                        code: "INTERNAL_SERVER_ERROR",
                        message: "An unexpected error occurred on the Expo push notification service. Please try again."
                    ))
            #expect(failed.requests == 3)

            // Request errors that are not transient are not retried.
            let invalid = await sender.send([ExpoPushMessage(to: Self.token(3), priority: "urgent")])
            #expect(invalid.requests == 1)
            #expect(invalid.tickets.first?.outcome.errorCode == "VALIDATION_ERROR")
            await sender.shutdown()
        }
    }

    @Test("access token for a project with enhanced push security")
    func accessToken() async throws {
        try await withPushMock { mock in
            mock.state.expoTokens.register(
                project: ExpoProjectRecord(name: "@acme/app", accessTokens: ["tok-123"], requiresAccessToken: true))
            mock.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(Self.token(1)), project: "@acme/app"))
            let without = try Self.sender(mock)
            let denied = await without.send([ExpoPushMessage(to: Self.token(1), body: "x")])
            #expect(denied.tickets.first?.outcome.errorCode == "UNAUTHORIZED")
            await without.shutdown()
            let with = try Self.sender(mock) { $0.accessToken = "tok-123" }
            let allowed = await with.send([ExpoPushMessage(to: Self.token(1), body: "x")])
            #expect(allowed.okCount == 1)
            await with.shutdown()
        }
    }
}

actor SleepLog {
    var durations: [Duration] = []
    func add(_ duration: Duration) { durations.append(duration) }
}
