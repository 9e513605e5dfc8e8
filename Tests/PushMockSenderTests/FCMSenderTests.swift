import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockSender
import PushMockSimulation
import PushMockTesting
import Testing

private let registrationToken = PushMockHarness.sampleRegistrationToken

@Suite("FCM sender against the gateway over TLS")
struct FCMSenderTests {
    @Test("accepted: the message name; the access token is fetched once and reused")
    func accepted() async throws {
        try await withPushMock { mock in
            try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
                var message = FCMPushMessage(target: .token(registrationToken), notification: .init(title: "Hi", body: "There"))
                message.data = ["link": "myapp://orders/42"]
                message.android = .init(priority: .high, ttl: .seconds(3600))
                for _ in 0..<3 {
                    let result = await sender.send(message)
                    guard case .accepted(let acceptance) = result.outcome else {
                        Issue.record("\(result)")
                        return
                    }
                    #expect(acceptance.id.hasPrefix("projects/\(mock.project)/messages/0:"))
                    #expect(result.recipient == registrationToken)
                }
                #expect(sender.accessTokens.fetchCount == 1)
            }
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.response.status == 200)
            #expect(record.request.path == "/v1/projects/\(mock.project)/messages:send")
            let body = try #require(record.request.body.jsonValue)
            #expect(body["message"]?["data"]?["link"] == "myapp://orders/42")
            #expect(body["message"]?["android"]?["ttl"] == "3600s")
            #expect(body["validate_only"] == nil)
        }
    }

    @Test(
        "topics and conditions",
        arguments: [
            FCMPushMessage.Target.topic("news"), .topic("/topics/weather"), .condition("'news' in topics && !('sports' in topics)"),
        ])
    func fanOut(target: FCMPushMessage.Target) async throws {
        try await withPushMock { mock in
            try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
                let result = await sender.send(FCMPushMessage(target: target, notification: .init(title: "Hi")))
                #expect(result.outcome.isAccepted, "\(result)")
                #expect(result.recipient == target.description)
            }
            let body = try #require(mock.recordings.records(limit: 1).first?.request.body.jsonValue)
            #expect(body["message"]?[target.fieldName]?.stringValue == target.value)
            #expect(body["message"]?["topic"]?.stringValue?.hasPrefix("/topics/") != true)
        }
    }

    @Test("validate_only: validated, not delivered (fake_message_id); from the configuration or per send")
    func validateOnly() async throws {
        try await withPushMock { mock in
            try await withFCMSender(configuration: try mock.fcmConfiguration(validateOnly: true)) { sender in
                let result = await sender.send(FCMPushMessage(target: .token(registrationToken)))
                #expect(result.outcome == .accepted(Acceptance(id: "projects/\(mock.project)/messages/fake_message_id")))
                let real = await sender.send(FCMPushMessage(target: .token(registrationToken)), validateOnly: false)
                #expect(real.outcome.isAccepted && real.outcome != result.outcome)
            }
            let bodies = mock.recordings.records(newestFirst: false).compactMap(\.request.body.jsonValue)
            #expect(bodies.map { $0["validate_only"] } == [true, nil])
        }
    }

    @Test("401: the access token is refreshed and the message sent again")
    func unauthorizedRefreshes() async throws {
        try await withPushMock { mock in
            try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
                #expect(await sender.send(FCMPushMessage(target: .token(registrationToken))).outcome.isAccepted)
                mock.state.accessTokens.revokeAll()
                let result = await sender.send(FCMPushMessage(target: .token(registrationToken)))
                #expect(result.outcome.isAccepted, "\(result)")
                #expect(result.attempts == 2)
                #expect(sender.accessTokens.fetchCount == 2)
            }
            let statuses = mock.recordings.records(newestFirst: false).filter { $0.platform == .fcm }.map(\.response.status)
            #expect(statuses == [200, 401, 200])
        }
    }

    @Test("the access token is refreshed before it expires (injected clock)")
    func refreshBeforeExpiry() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
                #expect(await sender.send(FCMPushMessage(target: .topic("news"))).outcome.isAccepted)
                clock.advance(by: .seconds(50 * 60))
                #expect(await sender.send(FCMPushMessage(target: .topic("news"))).outcome.isAccepted)
                #expect(sender.accessTokens.fetchCount == 1)
                // 56 minutes: under 5 minutes left of the 3599 s token: refreshed before use.
                clock.advance(by: .seconds(6 * 60))
                #expect(await sender.send(FCMPushMessage(target: .topic("news"))).outcome.isAccepted)
                #expect(sender.accessTokens.fetchCount == 2)
            }
            let statuses = mock.recordings.records().filter { $0.platform == .fcm }.map(\.response.status)
            #expect(statuses == [200, 200, 200])
        }
    }

    @Test("UNREGISTERED: token no longer valid")
    func unregistered() async throws {
        try await withPushMock { mock in
            mock.state.fcmTokens.register(
                FCMTokenRecord(
                    token: FCMRegistrationToken(registrationToken), project: FCMProjectID(mock.project),
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 0))))
            try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
                let result = await sender.send(FCMPushMessage(target: .token(registrationToken)))
                #expect(result.outcome == .tokenInvalid(TokenInvalidation(status: 404, reason: "UNREGISTERED")))
                #expect(result.attempts == 1)
            }
        }
    }

    @Test("INVALID_ARGUMENT and SENDER_ID_MISMATCH are rejected, not retried")
    func rejected() async throws {
        try await withPushMock { mock in
            mock.state.fcmTokens.register(FCMTokenRecord(token: FCMRegistrationToken(registrationToken), project: "other-project"))
            let sleeps = RecordedSleeps()
            try await withFCMSender(configuration: try mock.fcmConfiguration(sleeps: sleeps)) { sender in
                let malformed = await sender.send(FCMPushMessage(target: .token("not a token!")))
                guard case .rejected(let rejection) = malformed.outcome else {
                    Issue.record("\(malformed)")
                    return
                }
                #expect(rejection.status == 400)
                #expect(rejection.reason == "INVALID_ARGUMENT")
                #expect(rejection.message == "The registration token is not a valid FCM registration token")
                let mismatch = await sender.send(FCMPushMessage(target: .token(registrationToken)))
                #expect(mismatch.outcome.reason == "SENDER_ID_MISMATCH")
                #expect(mismatch.outcome.kind == .rejected)
            }
            #expect(sleeps.all.isEmpty)
        }
    }

    @Test(
        "QUOTA_EXCEEDED / UNAVAILABLE / INTERNAL are retried; Retry-After is honoured exactly",
        arguments: [("QUOTA_EXCEEDED", 30 as Int?), ("UNAVAILABLE", 7), ("INTERNAL", nil)] as [(String, Int?)]
    )
    func retried(code: String, retryAfter: Int?) async throws {
        try await withPushMock { mock in
            try mock.addFault(
                FaultRule(
                    match: FaultMatch(platform: .fcm), trigger: FaultTrigger(count: 1),
                    action: .fcmError(code: code, retryAfter: retryAfter)))
            let sleeps = RecordedSleeps()
            try await withFCMSender(configuration: try mock.fcmConfiguration(sleeps: sleeps)) { sender in
                let result = await sender.send(FCMPushMessage(target: .token(registrationToken)))
                #expect(result.outcome.isAccepted, "\(result)")
                #expect(result.attempts == 2)
            }
            #expect(sleeps.all == [retryAfter.map { .seconds($0) } ?? .milliseconds(500)])
        }
    }

    @Test("a Retry-After longer than the policy allows fails the delivery at once")
    func retryAfterTooLong() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(match: FaultMatch(platform: .fcm), action: .fcmError(code: "UNAVAILABLE", retryAfter: 3600)))
            let sleeps = RecordedSleeps()
            try await withFCMSender(configuration: try mock.fcmConfiguration(sleeps: sleeps)) { sender in
                let result = await sender.send(FCMPushMessage(target: .token(registrationToken)))
                #expect(result.outcome.kind == .failed)
                #expect(result.outcome.reason == "UNAVAILABLE")
                #expect(result.attempts == 1)
            }
            #expect(sleeps.all.isEmpty)
        }
    }

    @Test("failed after retries: the last answer is reported")
    func failedAfterRetries() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(match: FaultMatch(platform: .fcm), action: .fcmError(code: "UNAVAILABLE")))
            let sleeps = RecordedSleeps()
            try await withFCMSender(
                configuration: try mock.fcmConfiguration(retry: RetryPolicy(maximumAttempts: 4, jitter: 0), sleeps: sleeps)
            ) { sender in
                let result = await sender.send(FCMPushMessage(target: .token(registrationToken)))
                guard case .failed(let failure) = result.outcome else {
                    Issue.record("\(result)")
                    return
                }
                #expect(failure.status == 503)
                #expect(failure.reason == "UNAVAILABLE")
                #expect(result.attempts == 4)
            }
            #expect(sleeps.all == [.milliseconds(500), .seconds(1), .seconds(2)])
        }
    }

    @Test("a token endpoint that refuses the assertion: every message fails with authorizationFailed")
    func tokenEndpointRefuses() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(action: FaultAction.oauthError(error: "invalid_grant", description: "Invalid JWT Signature.")))
            try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
                let summary = await sender.send(contentsOf: [FCMPushMessage(target: .topic("a")), FCMPushMessage(target: .topic("b"))])
                #expect(summary.failed == 2)
                let failure = try #require(summary.problems.first?.outcome)
                guard case .failed(let detail) = failure else {
                    Issue.record("\(failure)")
                    return
                }
                #expect(detail.error.code == .authorizationFailed)
                #expect(detail.error.message.contains("invalid_grant"))
                #expect(detail.error.message.contains("Invalid JWT Signature."))
            }
            #expect(mock.recordings.records().allSatisfy { $0.platform == .oauth })
        }
    }

    @Test("a token endpoint that fails once (500) is asked again")
    func tokenEndpointRetried() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: FaultAction.oauthError(error: "internal_failure")))
            let sleeps = RecordedSleeps()
            try await withFCMSender(configuration: try mock.fcmConfiguration(sleeps: sleeps)) { sender in
                let result = await sender.send(FCMPushMessage(target: .topic("news")))
                #expect(result.outcome.isAccepted, "\(result)")
                #expect(sender.accessTokens.fetchCount == 2)
            }
            #expect(sleeps.all == [.milliseconds(500)])
        }
    }

    @Test("bulk FCM: many messages over one connection, all accepted")
    func bulk() async throws {
        try await withPushMock { mock in
            try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
                let messages = (0..<300).map { FCMPushMessage(target: .topic("topic-\($0 % 7)"), data: ["n": String($0)]) }
                let summary = await sender.send(contentsOf: messages)
                #expect(summary.accepted == 300)
                #expect(summary.requests == 300)
                #expect(sender.accessTokens.fetchCount == 1)
            }
        }
    }
}
