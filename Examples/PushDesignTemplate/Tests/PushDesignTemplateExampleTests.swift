import Foundation
import PushDesignTemplateExample
import PushMockControl
import PushMockTesting
import Testing

/// The push-design template's backend sending through FCM HTTP v1 to the real gateway, with
/// the template's preferences, rate limits, funnel and receipt/click callbacks.
@Suite("Push design template: FCM, preferences, rate limits, funnel, receipt and click webhooks", .serialized)
struct PushDesignTemplateExampleTests {
    @Test("a day: every type, quiet hours and caps, disabled versus uninstalled, opens, verified webhooks, the funnel")
    func aDay() async throws {
        let receiver = try await AnalyticsReceiver()
        defer { receiver.stop() }
        try await withPushMock(clock: VirtualClock(frozenAt: Template.oslo(10))) { mock in
            try await Template.prepare(mock)
            let control = try mock.controlClient()
            let hook = #"""
                {"id":"backend-analytics","url":"\#(receiver.url)","secret":"\#(Template.secret)",
                 "events":["delivery-receipt","engagement"],"maxAttempts":5,"initialBackoff":"100ms"}
                """#
            _ = try await control.call("POST", "webhooks", json: Array(hook.utf8))
            let service = try Template.service(mock)
            // Noor turned notifications off in Android settings; the backend cannot know.
            mock.setPermission(.denied, token: Template.noor, service: .fcm)

            // 10:00 — transactional notifications.
            let ingridOrder = try await service.notify(
                "ingrid", type: .orderConfirmed, entityID: "48213", title: "Order confirmed", body: "Arrives Thursday")
            let olaOrder = try await service.notify(
                "ola", type: .orderConfirmed, entityID: "48214", title: "Order confirmed", body: "Arrives Friday")
            let noorSecurity = try await service.notify(
                "noor", type: .accountSecurity, entityID: "noor", title: "New sign-in", body: "A new device signed in to your account")
            let leePayment = try await service.notify(
                "lee", type: .paymentReceived, entityID: "pay-77", title: "Payment received", body: "£40.00 from Sam")
            guard case .sent(let ingridOrderIDs) = ingridOrder, case .sent = olaOrder, case .sent(let noorIDs) = noorSecurity else {
                Issue.record("transactional sends: \(ingridOrder) \(olaOrder) \(noorSecurity)")
                return
            }

            // Disabled versus uninstalled (docs/engagement.md): FCM accepts Noor's alert and her
            // phone receives it, but shows nothing and she cannot tap it; Lee's app is gone, so
            // FCM answers 404 UNREGISTERED and the backend forgets the token.
            let noorPhone = try #require(mock.device(Template.noor, service: .fcm))
            #expect(noorPhone.notifications.map(\.status) == [.delivered])
            #expect(noorPhone.notifications.last?.suppressed == true)
            #expect(DeviceReport(noorPhone, detailed: false).showing.isEmpty)
            #expect(throws: EngagementRefusal.self) { try mock.open(noorIDs[0], token: Template.noor, service: .fcm) }
            #expect(leePayment == .noDevice)
            #expect(service.forgottenTokens == [Template.lee])
            let leeRecord = try #require(mock.records(RecordingQuery(token: Glob(Template.lee))).first)
            #expect(leeRecord.response.status == 404)
            #expect(leeRecord.response.reason == "UNREGISTERED")
            #expect(mock.device(Template.lee, service: .fcm) == nil, "nothing reached an uninstalled app")

            // 10:01 — a chat message; Ingrid taps "Reply" at once (an action tap, the CTR).
            mock.clock.set(to: Template.oslo(10, 1))
            guard
                case .sent(let messageIDs) = try await service.notify(
                    "ingrid", type: .messageReceived, entityID: "c-7", title: "Kari", body: "Are we still on for Friday?")
            else {
                Issue.record("message not sent")
                return
            }
            try mock.act("REPLY", on: messageIDs[0], token: Template.ingrid, service: .fcm)

            // 10:05 — marketing: Ingrid opted in, Ola did not.
            mock.clock.set(to: Template.oslo(10, 5))
            #expect(
                try await service.notify("ingrid", type: .promoOffer, entityID: "winter-25", title: "25% off", body: "This week only")
                    .isSent)
            #expect(
                try await service.notify("ola", type: .promoOffer, entityID: "winter-25", title: "25% off", body: "This week only")
                    == .dropped("marketing notifications are off"))

            // 22:30 — quiet hours: the feature announcement waits for 08:00.
            mock.clock.set(to: Template.oslo(22, 30))
            let held = try await service.notify(
                "ingrid", type: .featureAnnounce, entityID: "dark-mode", title: "Dark mode is here", body: "Try it tonight")
            #expect(held == .held(until: Date(timeIntervalSince1970: Double(Template.oslo(8, day: 1).millisecondsSince1970) / 1000)))
            #expect(try await service.flush().isEmpty, "nothing is due at 22:30")
            mock.clock.set(to: Template.oslo(8, day: 1))
            let flushed = try await service.flush()
            #expect(flushed.count == 1 && flushed[0].isSent, "\(flushed)")
            // 08:05 — a third marketing push in 7 days is dropped, not queued.
            mock.clock.set(to: Template.oslo(8, 5, day: 1))
            #expect(
                try await service.notify("ingrid", type: .reEngagement, entityID: "ingrid", title: "We miss you", body: "See what's new")
                    == .dropped("marketing limit reached"))

            // The seeded model: high priority tapped after 45 s, marketing swiped away after
            // 15 min. An hour later everything has played out.
            mock.clock.advance(by: .seconds(3600))
            let ingridPhone = try #require(mock.device(Template.ingrid, service: .fcm))
            #expect(
                ingridPhone.notifications.map { $0.engagement?.description ?? "-" } == ["opened", "action REPLY", "dismissed", "dismissed"])
            #expect(ingridPhone.notifications.first?.notification.id == ingridOrderIDs[0])

            // The funnel of section 9: sent → delivered → opened, and the action taps.
            // Sent 7 (Lee's refused), delivered 6, displayed 5 (not Noor's), opened 2 (the orders),
            // 1 action tap (Reply), 2 swiped away (the marketing pair).
            let report = mock.funnelReport()
            let total = report.total
            #expect(counts(total) == [7, 6, 6, 5, 2, 1, 2], "\(report.text)")
            let high = try #require(report.groups.first { $0.dimension == "priority" && $0.value == "high" }?.stages)
            let normal = try #require(report.groups.first { $0.dimension == "priority" && $0.value == "normal" }?.stages)
            #expect([high.delivered, high.opened, high.acted] as [Int] == [4, 2, 1], "transactional and messages")
            #expect([normal.delivered, normal.dismissed] as [Int] == [2, 2], "marketing")
            // Section 9's funnel metrics.
            #expect(Double(total.delivered) / Double(total.sent) == 6.0 / 7.0, "delivery rate = delivered / sent")
            #expect(Double(total.opened) / Double(total.delivered) == 2.0 / 6.0, "open rate = opened / delivered")
            #expect(Double(total.acted) / Double(total.opened) == 0.5, "CTR = action taps / opened")
            #expect(report.latency.map { $0.max ?? -1 } == [0, 0], "every phone was online")

            // Section 1's receipt and click callbacks reached the backend, signed.
            let events = try await receiver.wait(for: 11)
            #expect(events.count == 11, "\(events)")
            #expect(events.allSatisfy { $0["verified"] as? Bool == true })
            let bodies = events.compactMap { $0["body"] as? [String: Any] }
            let data = bodies.compactMap { $0["data"] as? [String: Any] }
            let kinds = data.compactMap { $0["event"] as? String }
            #expect(kinds.filter { $0 == "delivered" }.count == 6)
            #expect(Set(kinds.filter { $0 != "delivered" }) == ["opened", "action", "dismissed"])
            let reply = try #require(data.first { $0["event"] as? String == "action" })
            #expect(reply["action"] as? String == "REPLY")
            #expect(reply["id"] as? String == messageIDs[0])
            #expect(reply["token"] as? String == Template.ingrid)
            #expect(
                !data.contains { $0["token"] as? String == Template.noor && $0["event"] as? String != "delivered" },
                "no clicks from a phone that shows nothing")

            // Links, contracts, policy.
            let links = mock.checkLinks(try RouteTable(contentsOfFile: TemplateFiles.path("routes.json")))
            #expect(links.isClean, "\(links)")
            #expect(links.linkCount == 6, "one deepLinkPath per accepted notification")
            #expect(links.notifications.flatMap(\.screens).contains("OrderDetail/48213"))
            let contracts = mock.checkContracts(try ContractFile(contentsOfFile: TemplateFiles.path("contracts/payload.json")))
            #expect(contracts.isClean, "\(contracts)")
            let policy = mock.checkPolicy(try PolicyFile(contentsOfFile: TemplateFiles.path("policy.json")))
            #expect(policy.isClean, "\(policy)")
            #expect(policy.notificationCount == 6)
            await control.close()
            await service.sender.shutdown()
        }
    }

    @Test("messages: 100 an hour, then one \"N new messages\"; the design's literal payload is refused by FCM v1")
    func messageRateLimit() async throws {
        try await withPushMock(clock: VirtualClock(frozenAt: Template.oslo(11))) { mock in
            try await Template.prepare(mock)
            mock.engagementModel = nil
            let service = try Template.service(mock)
            for number in 0..<100 {
                let outcome = try await service.notify(
                    "ingrid", type: .messageReceived, entityID: "c-\(number % 5)", title: "Group chat", body: "Message \(number)")
                #expect(outcome.isSent, "message \(number): \(outcome)")
                mock.clock.advance(by: .seconds(30))
            }
            // 11:50 — the 101st and 102nd wait for a summary.
            #expect(
                try await service.notify("ingrid", type: .messageReceived, entityID: "c-1", title: "Group chat", body: "101")
                    == .batched(pending: 1))
            #expect(
                try await service.notify("ingrid", type: .messageReceived, entityID: "c-2", title: "Group chat", body: "102")
                    == .batched(pending: 2))
            #expect(try await service.flush().isEmpty, "the hour is still full")
            mock.clock.set(to: Template.oslo(12, 1))
            let summaries = try await service.flush()
            #expect(summaries.count == 1 && summaries[0].isSent)
            let summary = try #require(mock.records(RecordingQuery(token: Glob(Template.ingrid))).last?.request.body.jsonValue)
            #expect(summary["message"]?["notification"]?["title"]?.stringValue == "2 new messages")
            #expect(summary["message"]?["data"]?["deepLinkPath"]?.stringValue == "/chats")

            let policy = mock.checkPolicy(try PolicyFile(contentsOfFile: TemplateFiles.path("policy.json")))
            #expect(policy.isClean, "\(policy)")
            #expect(policy.notificationCount == 101)
            // Had the backend sent the 101st at 11:50, the cap would say so.
            let strict = try PolicyFile(
                parsing:
                    #"{"version":1,"types":[{"name":"m","match":{"path":"$.message.data.notificationType","equals":"message.received"}}],"frequencyCaps":[{"name":"messages-per-hour","types":["m"],"limit":99,"window":"1h"}]}"#
            )
            #expect(mock.checkPolicy(strict).violations.count == 1)
            let report = mock.funnelReport()
            #expect(counts(report.total) == [101, 101, 101, 101, 0, 0, 0], "\(report.text)")

            // Section 4.2 as written puts `channelId` beside `priority` in `android`: FCM HTTP v1
            // has no such field (it is `android.notification.channel_id`) and refuses the message.
            let literal = try FCMPushMessage(
                json: try JSONValue(
                    parsing: Array(
                        #"""
                        {"token":"\#(Template.ingrid)","notification":{"title":"Order confirmed","body":"Arrives Thursday"},
                         "data":{"notificationType":"order.confirmed","entityType":"order","entityId":"48213","deepLinkPath":"/orders/48213",
                                 "timestamp":"2026-11-24T10:00:00Z","version":"1"},
                         "apns":{"payload":{"aps":{"sound":"default","badge":1,"content-available":1}}},
                         "android":{"channelId":"transactional","priority":"high"}}
                        """#.utf8)))
            let refused = await service.sender.send(literal, validateOnly: true)
            guard case .rejected(let rejection) = refused.outcome else {
                Issue.record("the literal payload was not refused: \(refused.outcome)")
                return
            }
            #expect(rejection.reason == "INVALID_ARGUMENT")
            #expect(rejection.message?.contains("channelId") == true, "\(rejection)")
            await service.sender.shutdown()
        }
    }
}

extension NotificationService.Outcome {
    var isSent: Bool {
        if case .sent = self { return true }
        return false
    }
}

/// A funnel row as [sent, accepted, delivered, displayed, opened, acted, dismissed].
func counts(_ stages: FunnelReport.Stages) -> [Int] {
    [stages.sent, stages.accepted, stages.delivered, stages.displayed, stages.opened, stages.acted, stages.dismissed]
}
