import Foundation
import NIOCore
import NIOPosix
import PushMockAuth
@_spi(Locking) import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockSender
import PushMockSimulation
import PushMockTestSupport
import PushMockTesting
import Testing

/// Every outcome class and every retry rule, against the real gateway over TLS.
@Suite("APNs sender: outcomes")
struct APNsOutcomeTests {
    @Test("accepted: apns-id, apns-unique-id, one attempt, one connection, headers as built")
    func accepted() async throws {
        try await withPushMock { mock in
            try await withAPNsSender(configuration: try mock.apnsConfiguration()) { sender in
                let result = await sender.send(
                    APNsNotification(
                        deviceToken: PushMockHarness.sampleDeviceToken,
                        payload: alertPayload,
                        priority: .considerPower,
                        expiration: .immediately,
                        collapseID: "news",
                        apnsID: "123e4567-e89b-12d3-a456-4266554400a0"
                    )
                )
                guard case .accepted(let acceptance) = result.outcome else {
                    Issue.record("\(result)")
                    return
                }
                #expect(acceptance.id == "123e4567-e89b-12d3-a456-4266554400a0")
                #expect(acceptance.uniqueID != nil)
                #expect(result.attempts == 1)
                #expect(result.recipient == PushMockHarness.sampleDeviceToken)
                #expect(sender.openConnectionCount == 1)
                let record = try #require(mock.recordings.records(limit: 1).first)
                #expect(record.response.status == 200)
                #expect(record.connection.alpn == "h2")
                #expect(record.connection.tls)
                #expect(record.notification?.token == PushMockHarness.sampleDeviceToken)
                #expect(record.notification?.topic == mock.topic)
                #expect(record.notification?.pushType == "alert")
                #expect(record.notification?.priority == 5)
                #expect(record.notification?.expiration == 0)
                #expect(record.notification?.collapseID == "news")
                #expect(record.request.body.jsonValue == alertPayload.jsonValue)
                #expect(record.auth?.keyID == mock.sampleKey.keyID)
            }
        }
    }

    @Test(
        "rejected with the gateway's reason, never retried",
        arguments: [
            ("BadDeviceToken", 400), ("DeviceTokenNotForTopic", 400), ("PayloadTooLarge", 413), ("Forbidden", 403),
            ("BadTopic", 400), ("TopicDisallowed", 400),
        ] as [(String, Int)]
    )
    func rejected(reason: String, status: Int) async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(match: FaultMatch(platform: .apns), action: .apnsError(reason: reason)))
            let sleeps = RecordedSleeps()
            try await withAPNsSender(configuration: try mock.apnsConfiguration(sleeps: sleeps)) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome == .rejected(Rejection(status: status, reason: reason)))
                #expect(result.outcome.kind == .rejected)
                #expect(result.attempts == 1)
            }
            #expect(sleeps.all.isEmpty)
            #expect(mock.recordings.count == 1)
        }
    }

    @Test("real validation failures are rejections too: a malformed token, an oversized payload")
    func realRejections() async throws {
        try await withPushMock { mock in
            try await withAPNsSender(configuration: try mock.apnsConfiguration()) { sender in
                let badToken = await sender.send(APNsNotification(deviceToken: "not-hex", payload: alertPayload))
                #expect(badToken.outcome == .rejected(Rejection(status: 400, reason: "BadDeviceToken")))
                let big = APNsPayload(alert: .text(String(repeating: "x", count: 5000)))
                let tooLarge = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: big))
                #expect(tooLarge.outcome == .rejected(Rejection(status: 413, reason: "PayloadTooLarge")))
                #expect(badToken.attempts == 1 && tooLarge.attempts == 1)
            }
            #expect(mock.recordings.count == 2)
        }
    }

    @Test("410 Unregistered: token no longer valid, with the timestamp APNs gave")
    func unregistered() async throws {
        try await withPushMock { mock in
            let gone = Timestamp(millisecondsSince1970: 1_700_000_000_123)
            mock.state.devices.register(
                APNsDeviceRecord(
                    token: APNsDeviceToken(PushMockHarness.sampleDeviceToken), bundleID: mock.topic, state: .unregistered(at: gone))
            )
            let sleeps = RecordedSleeps()
            try await withAPNsSender(configuration: try mock.apnsConfiguration(sleeps: sleeps)) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome == .tokenInvalid(TokenInvalidation(status: 410, reason: "Unregistered", timestamp: gone)))
                #expect(result.attempts == 1)
            }
            #expect(sleeps.all.isEmpty)
        }
    }

    @Test(
        "429/500/503 are retried with exponential backoff, then the send succeeds",
        arguments: [("TooManyRequests", 429), ("InternalServerError", 500), ("ServiceUnavailable", 503), ("Shutdown", 503)]
            as [(String, Int)]
    )
    func retriedThenAccepted(reason: String, status: Int) async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 2), action: .apnsError(reason: reason)))
            let sleeps = RecordedSleeps()
            try await withAPNsSender(configuration: try mock.apnsConfiguration(sleeps: sleeps)) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome.isAccepted, "\(result)")
                #expect(result.attempts == 3)
            }
            // 500 ms, then 1 s (no jitter in these tests).
            #expect(sleeps.all == [.milliseconds(500), .seconds(1)])
            let statuses = mock.recordings.records(newestFirst: false).map(\.response.status)
            #expect(statuses == [status, status, 200])
        }
    }

    @Test("jitter scales the backoff down by at most the jitter fraction, deterministically")
    func jitter() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 3), action: .apnsError(reason: "ServiceUnavailable")))
            let sleeps = RecordedSleeps()
            let configuration = try mock.apnsConfiguration(retry: RetryPolicy(jitter: 0.5), sleeps: sleeps) {
                $0.jitter = .constant(0)
            }
            try await withAPNsSender(configuration: configuration) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.attempts == 4)
            }
            #expect(sleeps.all == [.milliseconds(250), .milliseconds(500), .seconds(1)])
        }
    }

    @Test("failed after retries: every attempt answered 503; the last reason is reported")
    func failedAfterRetries() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(action: .apnsError(reason: "ServiceUnavailable")))
            let sleeps = RecordedSleeps()
            try await withAPNsSender(
                configuration: try mock.apnsConfiguration(retry: RetryPolicy(maximumAttempts: 3, jitter: 0), sleeps: sleeps)
            ) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                guard case .failed(let failure) = result.outcome else {
                    Issue.record("\(result)")
                    return
                }
                #expect(failure.status == 503)
                #expect(failure.reason == "ServiceUnavailable")
                #expect(failure.error.code == .serverError)
                #expect(result.attempts == 3)
            }
            #expect(sleeps.all.count == 2)
            #expect(mock.recordings.count == 3)
        }
    }

    @Test("GOAWAY: the connection is replaced and the notification sent again on the new one")
    func goAwayReconnects() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .goAway(reason: "Shutdown")))
            let sleeps = RecordedSleeps()
            try await withAPNsSender(configuration: try mock.apnsConfiguration(sleeps: sleeps)) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome.isAccepted, "\(result)")
                #expect(result.attempts == 2)
                #expect(sender.connectionsOpened == 2)
                // Later sends use the new connection.
                let next = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(next.outcome.isAccepted && next.attempts == 1)
                #expect(sender.connectionsOpened == 2)
            }
            #expect(sleeps.all == [.milliseconds(500)])
            let records = mock.recordings.records(newestFirst: false)
            #expect(records.map(\.response.reason) == ["Shutdown", nil, nil])
            #expect(records[0].connection.id != records[1].connection.id)
        }
    }

    @Test("a GOAWAY naming a certificate problem is final: BadCertificateEnvironment")
    func goAwayBadCertificateEnvironment() async throws {
        try await withPushMock { mock in
            let certificate = try mock.issueClientCertificate(bundleID: mock.topic, environments: [.production])
            let identity = try ClientIdentity.pem(certificateChain: certificate.certificatePEM, privateKey: certificate.privateKeyPEM)
            let sleeps = RecordedSleeps()
            try await withAPNsSender(configuration: try mock.apnsConfiguration(authentication: .certificate(identity), sleeps: sleeps)) {
                sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(
                    result.outcome
                        == .rejected(Rejection(status: 403, reason: "BadCertificateEnvironment", message: "sent in a GOAWAY frame")))
            }
            #expect(sleeps.all.isEmpty)
        }
    }

    @Test("RST_STREAM: retried on the same connection", arguments: ["REFUSED_STREAM", "INTERNAL_ERROR"])
    func resetIsRetried(code: String) async throws {
        try await withPushMock { mock in
            let action = FaultAction.reset(try #require(HTTP2ErrorCode(name: code)))
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: action))
            try await withAPNsSender(configuration: try mock.apnsConfiguration()) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome.isAccepted, "\(result)")
                #expect(result.attempts == 2)
                #expect(sender.connectionsOpened == 1)
            }
        }
    }

    @Test("connection faults are not retried when the policy says so; the fault is the reason")
    func faultsNotRetried() async throws {
        try await withPushMock { mock in
            let action = FaultAction.reset(.refusedStream)
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: action))
            let policy = RetryPolicy(jitter: 0, retriesConnectionFaults: false)
            try await withAPNsSender(configuration: try mock.apnsConfiguration(retry: policy)) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                guard case .failed(let failure) = result.outcome else {
                    Issue.record("\(result)")
                    return
                }
                #expect(failure.reason == "RST_STREAM REFUSED_STREAM")
                #expect(failure.error.code == .streamReset)
            }
        }
    }

    @Test("a request without an answer times out, its stream is reset, and it is retried")
    func timeout() async throws {
        try await withPushMock(configure: { $0.shutdownGracePeriod = .milliseconds(200) }) { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .hang))
            // Long enough that the answered retry never times out on a loaded machine: under
            // ThreadSanitizer with the CPUs oversubscribed four times, all five attempts of 2 s
            // timed out. The hung attempt costs this once.
            let configuration = try mock.apnsConfiguration { $0.connection.requestTimeout = .seconds(15) }
            try await withAPNsSender(configuration: configuration) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome.isAccepted, "\(result)")
                // The hung attempt, then the answered one (a very busy machine may time out
                // the second too).
                #expect(result.attempts >= 2)
                #expect(sender.connectionsOpened == 1)
            }
            let first = try #require(mock.recordings.records(newestFirst: false).first)
            #expect(first.annotations["fault"]?.contains("hang") == true)
        }
    }

    @Test("a timeout is a failure when timeouts are not retried")
    func timeoutFails() async throws {
        try await withPushMock(configure: { $0.shutdownGracePeriod = .milliseconds(200) }) { mock in
            try mock.addFault(FaultRule(action: .hang))
            let configuration = try mock.apnsConfiguration(retry: RetryPolicy(jitter: 0, retriesTimeouts: false)) {
                $0.connection.requestTimeout = .milliseconds(100)
            }
            try await withAPNsSender(configuration: configuration) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                guard case .failed(let failure) = result.outcome else {
                    Issue.record("\(result)")
                    return
                }
                #expect(failure.reason == "timeout")
                #expect(failure.error.code == .timeout)
            }
        }
    }

    @Test("nothing listening: connect failures are retried, then reported")
    func connectFailure() async throws {
        let sleeps = RecordedSleeps()
        // A port that was just free: nothing accepts there.
        let port = try await withPushMock { mock in mock.tlsPort }
        let result = try await Self.sendOnce(toPort: port, maximumAttempts: 3, sleeps: sleeps)
        guard case .failed(let failure) = result.outcome else {
            Issue.record("\(result)")
            return
        }
        #expect(failure.error.code == .connectionFailed)
        // In words, once: NIO's description of the attempt stays in `cause`, for programs.
        #expect(failure.error.message == "cannot connect to https://127.0.0.1:\(port): connection refused")
        #expect(failure.error.description == "connectionFailed: cannot connect to https://127.0.0.1:\(port): connection refused")
        #expect(failure.error.cause != nil)
        #expect(result.attempts == 3)
        #expect(sleeps.all == [.milliseconds(500), .seconds(1)])
    }

    /// One notification through a sender aimed at `port` on this machine (a token key the
    /// server need not know), with recorded sleeps; `scheme` `http` is h2c.
    static func sendOnce(
        toPort port: Int, scheme: String = "https", connection: ConnectionConfiguration = ConnectionConfiguration(),
        maximumAttempts: Int, sleeps: RecordedSleeps
    ) async throws -> SendResult {
        let configuration = APNsSenderConfiguration(
            server: try .custom(url: "\(scheme)://127.0.0.1:\(port)"),
            authentication: .token(.generate(keyID: "KEY0000001", teamID: "TEAM000001")),
            defaultTopic: "com.example",
            connection: connection,
            retry: RetryPolicy(maximumAttempts: maximumAttempts, jitter: 0),
            sleep: sleeps.sleep
        )
        return try await withAPNsSender(configuration: configuration) { sender in
            await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
        }
    }

    /// `https`: the TLS handshake never finishes. `http` (h2c): the connection is up at once
    /// and the server's SETTINGS never come; that wait shares the connect timeout, and ends as
    /// a timeout rather than as "connection closed".
    @Test(
        "a server that accepts and never writes a byte: each attempt ends at the connect timeout, as a timeout",
        arguments: ["https", "http"]
    )
    func silentServer(scheme: String) async throws {
        let sleeps = RecordedSleeps()
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        let result = try await Self.sendOnce(
            toPort: port, scheme: scheme, connection: ConnectionConfiguration(connectTimeout: .milliseconds(200)), maximumAttempts: 2,
            sleeps: sleeps)
        try await silent.close()
        guard case .failed(let failure) = result.outcome else {
            Issue.record("\(result)")
            return
        }
        #expect(failure.error.code == .connectionFailed)
        #expect(failure.error.cause as? ChannelError == .connectTimeout(.milliseconds(200)), "\(failure.error)")
        #expect(failure.error.message == "cannot connect to \(scheme)://127.0.0.1:\(port): timed out after 200 ms")
        #expect(result.attempts == 2)
        #expect(sleeps.all == [.milliseconds(500)])
    }

    @Test("ExpiredProviderToken: a fresh token is signed once; if that is rejected too the rejection stands")
    func expiredProviderToken() async throws {
        let gatewayClock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: gatewayClock) { mock in
            // The sender's clock is 61 minutes behind: every token it signs looks expired.
            let senderClock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000 - 61 * 60))
            let configuration = try mock.apnsConfiguration { $0.clock = senderClock }
            try await withAPNsSender(configuration: configuration) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome == .rejected(Rejection(status: 403, reason: "ExpiredProviderToken")))
                #expect(result.attempts == 2)
                #expect(sender.providerTokens?.mintedCount == 2)
            }
        }
    }

    @Test("shutdown fails what is still queued; nothing is dropped")
    func shutdown() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(action: .pass, latency: .fixed(100)))
            let sender = try APNsSender(configuration: try mock.apnsConfiguration())
            let tally = DeliveryTally()
            async let finished: Void = sender.send(
                contentsOf: (0..<20).map { APNsNotification(deviceToken: deviceToken($0), payload: alertPayload) }
            ) {
                tally.record($0)
            }
            try await Task.sleep(for: .milliseconds(30))
            await sender.shutdown()
            await finished
            let summary = tally.summary()
            #expect(summary.sent == 20)
            #expect(summary.accepted + summary.failed == 20)
            #expect(
                summary.failedByReason["sender shut down", default: 0] + summary.failedByReason["connection closed", default: 0]
                    == summary.failed)
        }
    }
}

@Suite("APNs sender: authentication")
struct APNsAuthenticationTests {
    @Test("certificate authentication from PEM files: no authorization header, the certificate's topic")
    func pemCertificate() async throws {
        try await withPushMock { mock in
            let certificate = try mock.issueClientCertificate(bundleID: mock.topic)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try certificate.certificatePEM.write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
            try certificate.privateKeyPEM.write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
            let identity = try ClientIdentity.pemFiles(certificate: directory + "/cert.pem", privateKey: directory + "/key.pem")
            try await withAPNsSender(configuration: try mock.apnsConfiguration(authentication: .certificate(identity))) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome.isAccepted, "\(result)")
                #expect(sender.providerTokens == nil)
            }
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.request.headers.first(named: "authorization") == nil)
            #expect(record.connection.clientCertificateSubject?.contains(mock.topic) == true)
        }
    }

    @Test("certificate authentication from a PKCS#12 bundle made by openssl", arguments: [false, true])
    func pkcs12(legacy: Bool) async throws {
        let openssl = try #require(
            ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) })
        try await withPushMock { mock in
            let certificate = try mock.issueClientCertificate(bundleID: mock.topic)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try certificate.certificatePEM.write(toFile: directory + "/cert.pem", atomically: true, encoding: .utf8)
            try certificate.privateKeyPEM.write(toFile: directory + "/key.pem", atomically: true, encoding: .utf8)
            var arguments = [
                "pkcs12", "-export", "-in", directory + "/cert.pem", "-inkey", directory + "/key.pem",
                "-out", directory + "/identity.p12", "-passout", "pass:s3cret", "-name", "APNs",
            ]
            if legacy {
                // What Keychain Access exports: 3DES / SHA-1.
                arguments += ["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1"]
            }
            let status = try await runProcess(openssl, arguments)
            try #require(status == 0)
            #expect(throws: SenderError.self) { try ClientIdentity.pkcs12(path: directory + "/identity.p12", passphrase: "wrong") }
            let identity = try ClientIdentity.pkcs12(path: directory + "/identity.p12", passphrase: "s3cret")
            try await withAPNsSender(configuration: try mock.apnsConfiguration(authentication: .certificate(identity))) { sender in
                let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(result.outcome.isAccepted, "\(result)")
            }
        }
    }

    @Test("provider token: reused, refreshed at 50 minutes, never sooner (injected clock)")
    func providerTokenRefresh() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            try await withAPNsSender(configuration: try mock.apnsConfiguration()) { sender in
                var issuedAt: [Int64] = []
                for minutes in [0, 19, 21, 49, 50, 69, 99, 100] {
                    clock.set(to: Timestamp(secondsSince1970: 1_800_000_000 + Int64(minutes) * 60))
                    let result = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                    #expect(result.outcome.isAccepted, "minute \(minutes): \(result)")
                    let record = try #require(mock.recordings.records(limit: 1).first)
                    let claims = try JSONValue(parsing: try #require(record.auth?.jwtClaims))
                    issuedAt.append(try #require(claims["iat"]?.int64Value))
                }
                let start: Int64 = 1_800_000_000
                #expect(issuedAt == [start, start, start, start, start + 50 * 60, start + 50 * 60, start + 50 * 60, start + 100 * 60])
                #expect(sender.providerTokens?.mintedCount == 3)
                #expect(sender.connectionsOpened == 1)
            }
        }
    }
}

@Suite("APNs sender: HTTP/2 connections")
struct APNsConnectionTests {
    @Test("the server's MAX_CONCURRENT_STREAMS is respected: no refused stream, one connection")
    func respectsSettings() async throws {
        try await withPushMock(configure: { $0.apns.maxConcurrentStreams = 3 }) { mock in
            try mock.addFault(FaultRule(action: .pass, latency: .fixed(20)))
            let configuration = try mock.apnsConfiguration { $0.connection.maximumConnections = 1 }
            try await withAPNsSender(configuration: configuration) { sender in
                let summary = await sender.send(
                    contentsOf: (0..<12).map { APNsNotification(deviceToken: deviceToken($0), payload: alertPayload) })
                #expect(summary.accepted == 12)
                #expect(summary.retries == 0)
                #expect(sender.connectionsOpened == 1)
            }
        }
    }

    @Test("a second connection opens only when the first is full")
    func poolGrows() async throws {
        try await withPushMock { mock in
            let configuration = try mock.apnsConfiguration {
                $0.connection.maximumConnections = 2
                $0.connection.maximumConcurrentStreams = 5
                // The held requests below must outlast the second connection's handshake.
                $0.connection.requestTimeout = .seconds(600)
            }
            try await withAPNsSender(configuration: configuration) { sender in
                let one = await sender.send(APNsNotification(deviceToken: deviceToken(100), payload: alertPayload))
                #expect(one.outcome.isAccepted)
                #expect(sender.connectionsOpened == 1)
                let first = try #require(mock.recordings.records().first?.connection.id)

                // The gateway never answers the batch's first five (tokens 0x100–0x104), which the
                // first connection takes, since its queue is first in, first out: its five streams
                // stay taken however long the second connection takes to open (timed rounds were
                // outrun by a loaded machine), and the other fifteen (0x200–0x20e) need the second.
                // Matched by token, not "the next five": on a loaded machine the gateway may read
                // the second connection's requests before the first's.
                let held = Glob(String(repeating: "0", count: 61) + "10?")
                try mock.addFault(FaultRule(match: FaultMatch(token: held), trigger: FaultTrigger(count: 5), action: .hang))
                let tokens = (0..<5).map { deviceToken(0x100 + $0) } + (0..<15).map { deviceToken(0x200 + $0) }
                let batch = Task {
                    await sender.send(contentsOf: tokens.map { APNsNotification(deviceToken: $0, payload: alertPayload) })
                }
                let deadline = ContinuousClock.now + .seconds(120)
                while mock.recordings.records().filter({ $0.response.status == 200 }).count < 16, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                let accepted = mock.recordings.records().filter { $0.response.status == 200 }
                #expect(accepted.count == 16)
                #expect(accepted.filter { $0.connection.id == first }.count == 1, "only the first send used the first connection")
                #expect(Set(accepted.map(\.connection.id)).count == 2, "the fifteen went over one second connection")
                #expect(sender.connectionsOpened == 2)

                // Shutting down fails the five held requests.
                await sender.shutdown()
                let summary = await batch.value
                #expect(summary.accepted == 15)
                #expect(summary.failed == 5)
            }
        }
    }

    @Test("an idle connection is PINGed; the server's answer is timed")
    func pingWhenIdle() async throws {
        try await withPushMock { mock in
            let configuration = try mock.apnsConfiguration { $0.connection.pingInterval = .milliseconds(30) }
            try await withAPNsSender(configuration: configuration) { sender in
                #expect(
                    await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload)).outcome
                        .isAccepted)
                // Generous: on a loaded machine the 30 ms timer and the answer can both be late.
                let deadline = ContinuousClock.now + .seconds(60)
                while sender.pings.acknowledged < 2, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(sender.pings.acknowledged >= 2)
                #expect(sender.pings.lastRoundTrip.map { $0 > .zero && $0 < .seconds(60) } == true)
                #expect(sender.openConnectionCount == 1)
            }
            // PINGs are not requests: nothing else was recorded.
            #expect(mock.recordings.count == 1)
        }
    }

    @Test("an idle connection is closed after the idle timeout; the next send reconnects")
    func idleTimeout() async throws {
        try await withPushMock { mock in
            let configuration = try mock.apnsConfiguration { $0.connection.idleTimeout = .milliseconds(50) }
            try await withAPNsSender(configuration: configuration) { sender in
                #expect(
                    await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload)).outcome
                        .isAccepted)
                let deadline = ContinuousClock.now + .seconds(60)
                while sender.openConnectionCount > 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(sender.openConnectionCount == 0)
                let again = await sender.send(APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload))
                #expect(again.outcome.isAccepted && again.attempts == 1)
                #expect(sender.connectionsOpened == 2)
            }
        }
    }

    @Test("bulk: a single-pass sequence is pulled once per notification, each result keeps its index")
    func bulkSinglePassSequence() async throws {
        try await withPushMock { mock in
            // Not a collection: the sender may only iterate it once, as it goes.
            let pulled = SanitizerVisibleMutex(0)
            let notifications = sequence(state: 0) { index -> APNsNotification? in
                guard index < 150 else { return nil }
                defer { index += 1 }
                pulled.withLock { $0 += 1 }
                return APNsNotification(deviceToken: deviceToken(index), payload: alertPayload)
            }
            let results = SanitizerVisibleMutex<[SendResult]>([])
            try await withAPNsSender(configuration: try mock.apnsConfiguration()) { sender in
                await sender.send(contentsOf: notifications) { result in results.withLock { $0.append(result) } }
            }
            #expect(pulled.withLock { $0 } == 150)
            let all = results.withLock { $0 }
            #expect(all.count == 150)
            #expect(all.compactMap(\.index).sorted() == Array(0..<150))
            #expect(all.allSatisfy { $0.index.map(deviceToken) == $0.recipient && $0.outcome.kind == .accepted })
            // The path is sent as `/3/device/` and the token, joined by the transport: each request
            // went to its own device.
            let paths = mock.recordings.records(newestFirst: false).map(\.request.path)
            #expect(paths.count == 150)
            #expect(Set(paths) == Set((0..<150).map { "/3/device/" + deviceToken($0) }))
        }
    }

    @Test("bulk: every outcome class counted, invalid tokens listed with timestamps, problems kept")
    func bulkSummary() async throws {
        try await withPushMock { mock in
            let gone = Timestamp(millisecondsSince1970: 1_700_000_000_000)
            for index in 0..<5 {
                mock.state.devices.register(
                    APNsDeviceRecord(token: APNsDeviceToken(deviceToken(200 + index)), bundleID: mock.topic, state: .unregistered(at: gone))
                )
            }
            try mock.addFault(FaultRule(match: FaultMatch(token: Glob("*7")), action: .apnsError(reason: "ServiceUnavailable")))
            let notifications = (0..<240).map { index -> APNsNotification in
                if index < 3 { return APNsNotification(deviceToken: "zz\(index)", payload: alertPayload) }
                return APNsNotification(deviceToken: deviceToken(index), payload: alertPayload)
            }
            let tally = DeliveryTally()
            let configuration = try mock.apnsConfiguration(retry: RetryPolicy(maximumAttempts: 2, jitter: 0))
            try await withAPNsSender(configuration: configuration) { sender in
                await sender.send(contentsOf: notifications) { tally.record($0) }
            }
            let summary = tally.summary()
            #expect(summary.sent == 240)
            #expect(summary.rejected == 3)
            #expect(summary.rejectedByReason == ["BadDeviceToken": 3])
            #expect(summary.invalidTokens.count == 5)
            #expect(summary.invalidTokens.allSatisfy { $0.timestamp == gone && $0.reason == "Unregistered" })
            #expect(Set(summary.invalidTokens.map(\.token)) == Set((200..<205).map(deviceToken)))
            let failing = (3..<240).filter { deviceToken($0).hasSuffix("7") }.count
            #expect(summary.failed == failing)
            #expect(summary.accepted == 240 - 3 - 5 - failing)
            #expect(summary.problems.count == 3 + failing)
            #expect(summary.retries == failing)
            #expect(summary.latencyP50 != nil && summary.latencyP99 != nil)
            #expect(Set(summary.problems.compactMap(\.index)).count == summary.problems.count)
        }
    }
}

func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "pushmock-sender-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@discardableResult
func runProcess(_ executable: String, _ arguments: [String]) async throws -> Int32 {
    try await ChildProcess.run(executable, arguments).status
}
