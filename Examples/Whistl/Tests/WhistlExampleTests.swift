import Foundation
import PushMockControl
import PushMockTesting
import Testing
import WhistlExample

/// Whistl's intervention pushes through the real gateway (APNs and FCM over TLS), on a
/// virtual Monday in Melbourne: the six steps of the worked examples (Examples/README.md).
@Suite("Whistl: risk-driven interventions through APNs and FCM", .serialized)
struct WhistlExampleTests {
    @Test("a day: priorities, a phone in low-power mode, quiet hours, opens by model and by command, notifications disabled")
    func aDayOfInterventions() async throws {
        try await withPushMock(clock: VirtualClock(frozenAt: Whistl.melbourne(8))) { mock in
            try await Whistl.prepare(mock)
            let sleeps = SleepLog()
            let sms = SMSLog()
            let notifier = try Whistl.notifier(mock, sleeps: sleeps, sms: sms)

            // 08:00 — the morning briefing (low risk). Sam's phone is off until 08:06.
            mock.setConnectivity(.offline, token: Whistl.samAPNs)
            #expect(try await notifier.send(Whistl.briefing(1), to: "jordan").route == .push(channel: "apns", id: Whistl.id(1)))
            let priyaBriefing = try await notifier.send(Whistl.briefing(2), to: "priya")
            guard case .push(channel: "fcm", let priyaBriefingID) = priyaBriefing.route else {
                Issue.record("Priya's briefing: \(priyaBriefing)")
                return
            }
            #expect(try await notifier.send(Whistl.briefing(3), to: "sam").route == .push(channel: "apns", id: Whistl.id(3)))
            #expect(mock.device(Whistl.samAPNs)?.notifications.map(\.status) == [.stored], "held by APNs while the phone is off")
            mock.clock.advance(by: .seconds(5 * 60))
            // Priya taps it at 08:05, before the behaviour model would (its draw for her phone: opened at 08:20).
            try mock.open(priyaBriefingID, token: Whistl.priyaFCM, service: .fcm)
            mock.clock.advance(by: .seconds(60))
            mock.setConnectivity(.online, token: Whistl.samAPNs)
            #expect(mock.device(Whistl.samAPNs)?.notifications.first?.deliveredAt == Whistl.melbourne(8, 6))

            // 14:10 — Jordan is near a casino; the phone is in low-power mode (idle).
            mock.clock.set(to: Whistl.melbourne(14, 10))
            mock.setConnectivity(.idle, token: Whistl.jordanAPNs)
            _ = try await notifier.send(Whistl.venue(4), to: "jordan")
            #expect(mock.device(Whistl.jordanAPNs)?.notifications.last?.status == .delivered, "priority 10 wakes an idle phone")
            mock.clock.advance(by: .seconds(2 * 60))
            _ = try await notifier.send(Whistl.riskAlert(5), to: "jordan")
            #expect(mock.device(Whistl.jordanAPNs)?.notifications.last?.status == .stored, "priority 5 waits for the phone")
            mock.clock.advance(by: .seconds(4 * 60))
            mock.setConnectivity(.online, token: Whistl.jordanAPNs)
            #expect(mock.device(Whistl.jordanAPNs)?.notifications.last?.deliveredAt == Whistl.melbourne(14, 16))

            // 20:00 — Priya turns Whistl's notifications off in Android settings.
            mock.clock.set(to: Whistl.melbourne(20))
            mock.setPermission(.denied, token: Whistl.priyaFCM, service: .fcm)

            // 23:30 — quiet hours. Only the critical intervention goes out.
            mock.clock.set(to: Whistl.melbourne(23, 30))
            let critical = try await notifier.send(Whistl.spending(6), to: "jordan")
            #expect(critical.route == .push(channel: "apns", id: Whistl.id(6)))
            let criticalPayload = try #require(mock.records(RecordingQuery(messageID: Whistl.id(6))).first?.request.body.jsonValue)
            #expect(criticalPayload["aps"]?["interruption-level"]?.stringValue == "critical")
            #expect(criticalPayload["aps"]?["sound"]?["critical"]?.intValue == 1)
            try mock.act("CALL_SPONSOR", on: Whistl.id(6), token: Whistl.jordanAPNs)  // by command, at once
            #expect(try await notifier.send(Whistl.riskAlert(7), to: "priya").route == .suppressed)
            let disabled = try await notifier.send(Whistl.spending(8), to: "priya")
            guard case .push(channel: "fcm", let disabledID) = disabled.route else {
                Issue.record("Priya's critical intervention: \(disabled)")
                return
            }
            // Notifications disabled: FCM accepted it and the phone got it, nothing was shown.
            let priyaPhone = try #require(mock.device(Whistl.priyaFCM, service: .fcm))
            #expect(priyaPhone.notifications.last?.status == .delivered)
            #expect(priyaPhone.notifications.last?.suppressed == true, "delivered while notifications were off: never shown")
            #expect(DeviceReport(priyaPhone, detailed: false).showing.isEmpty)
            #expect(throws: EngagementRefusal.self) { try mock.open(disabledID, token: Whistl.priyaFCM, service: .fcm) }

            // An hour later the behaviour model (seeded, from behaviour.json) has played out.
            mock.clock.advance(by: .seconds(3600))
            let jordan = try #require(mock.device(Whistl.jordanAPNs))
            #expect(
                jordan.notifications.map { $0.engagement?.description ?? "ignored" } == [
                    "opened",  // the briefing, by the model
                    "action CALL_SPONSOR",  // the casino alert, by the model
                    "opened",  // the risk alert, by the model
                    "action CALL_SPONSOR",  // the critical one, by command (the model's plan lapsed)
                ])

            // The funnel and the guide's delivery targets, as numbers.
            let report = mock.funnelReport(targets: Whistl.targets)
            #expect(counts(report.total) == [7, 7, 7, 6, 4, 2, 0], "\(report.text)")
            #expect(counts(report.group("platform", "apns")) == [5, 5, 5, 5, 3, 2, 0])
            #expect(counts(report.group("platform", "fcm")) == [2, 2, 2, 1, 1, 0, 0], "Priya's critical alert was not displayed")
            let interventions = try #require(report.group("category", "INTERVENTION"))
            #expect(counts(interventions) == [4, 4, 4, 3, 1, 2, 0])
            #expect(interventions.stages.engagementRate == 1.0, "the guide's target: > 70 % act on interventions")
            #expect(report.latency.map(\.priority) == ["high", "normal"])
            #expect(report.latency.first?.max == 0, "every high/critical intervention at once, the idle phone included")
            #expect(report.latency.last?.max == 360_000, "Sam's briefing waited 6 min for his phone")
            #expect(report.latency.last?.p50 == 0)
            #expect(report.targets.map(\.passed) == [true, true, true, true])
            #expect(report.targets.map(\.observedMilliseconds) == [0, 0, 360_000, 360_000])
            #expect(report.passed)

            // Links, policy and contracts over everything recorded.
            let links = mock.checkLinks(try RouteTable(contentsOfFile: WhistlFiles.path("routes.json")))
            #expect(links.isClean, "\(links)")
            #expect(links.linkCount == 7)
            let policy = mock.checkPolicy(try PolicyFile(contentsOfFile: WhistlFiles.path("policy.json")))
            #expect(policy.isClean, "\(policy)")
            #expect(policy.notificationCount == 7)
            let contracts = mock.checkContracts(try ContractFile(contentsOfFile: WhistlFiles.path("contracts/whistl.json")))
            #expect(contracts.isClean, "\(contracts)")
            #expect(sleeps.drain().isEmpty && sms.all.isEmpty, "no retries, no fallback on a good day")
            await notifier.apns.shutdown()
            await notifier.fcm.shutdown()
        }
    }
    @Test(
        "outage and expired tokens: retries with the guide's backoff, APNs → FCM → SMS fallback, dead tokens forgotten, refreshed tokens used"
    )
    func outageAndExpiredTokens() async throws {
        try await withPushMock(clock: VirtualClock(frozenAt: Whistl.melbourne(12))) { mock in
            try await Whistl.prepare(mock)
            mock.engagementModel = nil
            let sleeps = SleepLog()
            let sms = SMSLog()
            let notifier = try Whistl.notifier(mock, sleeps: sleeps, sms: sms)
            func fault(_ name: String) throws -> FaultRule {
                try JSONDecoder().decode(FaultRule.self, from: try WhistlFiles.data("faults/\(name).json"))
            }

            // APNs answers 503 twice: the third attempt, 2 s + 4 s later, gets through.
            try mock.addFault(try fault("apns-503-burst"))
            let retried = try await notifier.send(Whistl.spending(11), to: "jordan")
            #expect(retried.route == .push(channel: "apns", id: Whistl.id(11)))
            #expect(retried.attempts.map(\.requests) == [3])
            #expect(sleeps.drain() == [.seconds(2), .seconds(4)])
            #expect(retried.timeToAccept == .seconds(6), "within the critical target of 10 s")

            // APNs unreachable for two minutes: three attempts fail, the iPhone's Firebase token
            // takes the intervention (FCM hands it to APNs on its own connection).
            try mock.addFault(try fault("apns-outage"))
            let fellBack = try await notifier.send(Whistl.venue(12), to: "jordan")
            #expect(fellBack.attempts.map(\.channel) == ["apns", "fcm"])
            #expect(fellBack.attempts.map(\.outcome) == ["failed", "accepted"])
            #expect(fellBack.attempts.first?.requests == 3)
            guard case .push(channel: "fcm", _) = fellBack.route else {
                Issue.record("expected the FCM fallback: \(fellBack)")
                return
            }
            #expect(sleeps.drain() == [.seconds(2), .seconds(4)])
            #expect(mock.device(Whistl.jordanFCM, service: .fcm)?.notifications.map(\.status) == [.delivered])

            // FCM down too: Priya's critical intervention goes out as SMS, the moderate one
            // waits in the app.
            try mock.addFault(try fault("fcm-outage"))
            let bySMS = try await notifier.send(Whistl.spending(13), to: "priya")
            #expect(bySMS.route == .sms)
            #expect(bySMS.attempts.map(\.reason) == ["UNAVAILABLE"])
            #expect(sms.all == ["priya"])
            #expect(try await notifier.send(Whistl.riskAlert(14), to: "priya").route == .inApp)
            #expect(sleeps.drain() == [.seconds(2), .seconds(4), .seconds(2), .seconds(4)])
            mock.clock.advance(by: .seconds(3 * 60))  // both outages are over

            // Sam deleted the app at 11:00: APNs answers 410 Unregistered and the token is forgotten.
            let control = try mock.controlClient()
            _ = try await control.call(
                "PATCH", "apns/tokens/\(Whistl.samAPNs)", json: Array(#"{"state":"unregistered","at":"2026-11-23T00:00:00Z"}"#.utf8))
            let gone = try await notifier.send(Whistl.venue(15), to: "sam")
            #expect(gone.attempts.map(\.reason) == ["Unregistered"])
            #expect(gone.forgottenTokens == [Whistl.samAPNs])
            #expect(gone.route == .inApp)
            #expect(notifier.devices.registration(for: "sam")?.apnsToken == nil)
            // He reinstalls; the app registers its new token and the next intervention arrives.
            notifier.devices.refreshToken(Whistl.samAPNsReinstalled, for: "sam")
            #expect(try await notifier.send(Whistl.venue(16), to: "sam").route == .push(channel: "apns", id: Whistl.id(16)))

            // FCM rotated Priya's token; the backend has not heard of the new one yet: 404
            // UNREGISTERED, forgotten, then onNewToken brings the new one.
            _ = try await control.call(
                "POST", "fcm/tokens/\(Whistl.priyaFCM)/rotate", json: Array(#"{"newToken":"\#(Whistl.priyaFCMRefreshed)"}"#.utf8))
            let stale = try await notifier.send(Whistl.riskAlert(17), to: "priya")
            #expect(stale.attempts.map(\.reason) == ["UNREGISTERED"])
            #expect(stale.forgottenTokens == [Whistl.priyaFCM])
            notifier.devices.refreshToken(Whistl.priyaFCMRefreshed, for: "priya")
            guard case .push(channel: "fcm", _) = try await notifier.send(Whistl.riskAlert(18), to: "priya").route else {
                Issue.record("Priya's refreshed token was not used")
                return
            }
            await control.close()

            // Refused attempts count as sent: 2 × 503, 3 connection faults and a 410 on APNs;
            // 6 × UNAVAILABLE and a 404 on FCM. Four interventions were accepted and delivered.
            let report = mock.funnelReport(targets: Whistl.targets)
            #expect(counts(report.total) == [17, 4, 4, 4, 0, 0, 0], "\(report.text)")
            #expect(counts(report.group("platform", "apns")) == [8, 2, 2, 2, 0, 0, 0])
            #expect(counts(report.group("platform", "fcm")) == [9, 2, 2, 2, 0, 0, 0])
            #expect(report.latency.map(\.undelivered) == [0, 0])
            #expect(report.passed, "the retried and the rerouted interventions still met their targets")
            let contracts = mock.checkContracts(try ContractFile(contentsOfFile: WhistlFiles.path("contracts/whistl.json")))
            #expect(contracts.isClean, "\(contracts)")
            let policy = mock.checkPolicy(try PolicyFile(contentsOfFile: WhistlFiles.path("policy.json")))
            #expect(policy.isClean, "\(policy)")
            await notifier.apns.shutdown()
            await notifier.fcm.shutdown()
        }
    }
}

/// A funnel row as [sent, accepted, delivered, displayed, opened, acted, dismissed].
func counts(_ stages: FunnelReport.Stages?) -> [Int] {
    guard let stages else { return [] }
    return [stages.sent, stages.accepted, stages.delivered, stages.displayed, stages.opened, stages.acted, stages.dismissed]
}

func counts(_ group: FunnelReport.Group?) -> [Int] { counts(group?.stages) }

extension FunnelReport {
    func group(_ dimension: String, _ value: String) -> Group? {
        groups.first { $0.dimension == dimension && $0.value == value }
    }
}
