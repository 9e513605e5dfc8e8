import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockSimulation
import PushMockTesting
import PushMockToolkit
import PushMockTransport
import Testing

/// 2026-11-21T10:00:00Z.
private let tenOClock = Timestamp(millisecondsSince1970: 1_795_255_200_000)
private let token = PushMockHarness.sampleDeviceToken
private let dosePayload = #"{"aps":{"alert":{"title":"Dose due","body":"Take 5 mg"},"category":"DOSE"}}"#

/// Sends one APNs notification with a chosen `apns-id` on a fresh connection.
private func send(
    _ mock: PushMockHarness, id: String, token: String = token, payload: String = dosePayload, pushType: String = "alert",
    priority: String? = nil
) async throws {
    var headers = [("apns-id", id)]
    if let priority { headers.append(("apns-priority", priority)) }
    let response = try await mock.sendOnNewConnection(
        try mock.apnsRequest(token: token, pushType: pushType, payload: payload, headers: headers))
    expectAccepted(response)
}

private func uuid(_ index: Int) -> String {
    "00000000-0000-4000-8000-" + String(format: "%012d", index)
}

@Suite("Engagement: opens, dismissals, actions and permission")
struct EngagementTests {
    @Test("by command over the control API: open, action from the declared category, refusals, events linked to the recording")
    func controlAPICommands() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: tenOClock)
            let control = try mock.controlClient()
            _ = try await control.call(
                "POST", "categories",
                json: Array(#"{"id":"DOSE","actions":[{"id":"TAKEN","title":"Taken"},{"id":"SNOOZE","title":"Later"}]}"#.utf8))
            try await send(mock, id: uuid(1))
            try await send(mock, id: uuid(2))
            try await send(mock, id: uuid(3), payload: #"{"aps":{"content-available":1}}"#, pushType: "background")
            let base = "devices/apns/\(token)/notifications"

            mock.clock.advance(by: .seconds(42))
            let opened = try await control.call("POST", "\(base)/\(uuid(1))/open")
            let openedJSON = try JSONValue(parsing: opened.body)
            #expect(openedJSON["notification"]?["engagement"]?.stringValue == "opened")
            #expect(openedJSON["notification"]?["engagedAt"]?.stringValue == "2026-11-21T10:00:42.000Z")
            #expect(openedJSON["notification"]?["shown"] == .bool(false), "a tapped notification leaves the screen")

            let wrong = try await control.request("POST", "\(base)/\(uuid(2))/action", json: Array(#"{"action":"DELETE"}"#.utf8))
            #expect(wrong.status == 400)
            #expect(wrong.errorMessage?.contains("TAKEN, SNOOZE") == true)
            #expect(try await control.request("POST", "\(base)/\(uuid(2))/action").status == 400, "the action must be named")
            let acted = try await control.call("POST", "\(base)/\(uuid(2))/action", json: Array(#"{"action":"TAKEN"}"#.utf8))
            #expect(try JSONValue(parsing: acted.body)["notification"]?["action"]?.stringValue == "TAKEN")

            let again = try await control.request("POST", "\(base)/\(uuid(1))/dismiss")
            #expect(again.status == 409)
            #expect(again.errorMessage?.contains("already opened") == true)
            let silent = try await control.request("POST", "\(base)/\(uuid(3))/open")
            #expect(silent.status == 409)
            #expect(silent.errorMessage?.contains("no alert") == true)
            #expect(try await control.request("POST", "\(base)/\(uuid(9))/open").status == 404)
            #expect(try await control.request("POST", "\(base)/\(uuid(1))/like").status == 404)
            #expect(
                try await control.request("POST", "devices/apns/\(String(repeating: "ab", count: 32))/notifications/\(uuid(1))/open").status
                    == 404)

            let report = try await control.call("GET", "devices/apns/\(token)").decode(DeviceReport.self)
            let events = (report.timeline ?? []).map(\.event)
            #expect(events == ["delivered", "delivered", "delivered", "opened", "action"])
            #expect(report.timeline?.last?.action == "TAKEN")
            #expect(report.notifications?.first?.category == "DOSE")

            // The engagement of a recorded push, by its sequence number.
            let linked = try JSONValue(parsing: try await control.call("GET", "engagement/events", query: [("sequence", "2")]).body)
            let event = try #require(linked["events"]?.arrayValue?.first)
            #expect(linked["events"]?.arrayValue?.count == 1)
            #expect(event["event"]?.stringValue == "action")
            #expect(event["id"]?.stringValue == uuid(2))
            #expect(event["reason"]?.stringValue == "by command")
            let all = try JSONValue(parsing: try await control.call("GET", "engagement/events").body)
            #expect(all["events"]?.arrayValue?.count == 2)
            #expect(try await control.request("GET", "engagement/events", query: [("event", "liked")]).status == 400)
            await control.close()
        }
    }

    @Test("the Swift harness refuses an action the declared category does not offer, as the control API does")
    func harnessChecksDeclaredActions() async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            _ = try await control.call(
                "POST", "categories",
                json: Array(#"{"id":"DOSE","actions":[{"id":"TAKEN","title":"Taken"},{"id":"SNOOZE","title":"Later"}]}"#.utf8))
            await control.close()
            try await send(mock, id: uuid(1))
            let refusal = #expect(throws: EngagementRefusal.self) { try mock.act("DELETE", on: uuid(1), token: token) }
            #expect(refusal?.status == 400)
            #expect(refusal?.message == "category DOSE offers the actions TAKEN, SNOOZE; DELETE is not one of them")
            #expect(try mock.act("TAKEN", on: uuid(1), token: token).engagement == .acted(actionID: "TAKEN"))
        }
    }

    @Test("permission: denied is delivered but never displayed and cannot be tapped; provisional is quiet; Swift harness")
    func permission() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: tenOClock)
            mock.setPermission(.denied, token: token)
            try await send(mock, id: uuid(1))
            let denied = try #require(mock.device(token))
            #expect(denied.notifications.first?.status == .delivered, "the service delivers whatever the phone's settings")
            #expect(DeviceReport(denied, detailed: false).showing.isEmpty)
            #expect(denied.timeline.map(\.kind) == [.permission, .delivered])
            #expect(throws: EngagementRefusal.self) { try mock.open(uuid(1), token: token) }

            mock.setPermission(.provisional, token: token)
            try await send(mock, id: uuid(2))
            let quiet = try #require(mock.device(token))
            #expect(DeviceReport(quiet, detailed: false).showing == [uuid(2)])
            #expect(quiet.notifications.last?.reason?.contains("quietly") == true)
            let dismissed = try mock.dismiss(uuid(2), token: token)
            #expect(dismissed.engagement == .dismissed)

            mock.setPermission(.granted, token: token)
            try await send(mock, id: uuid(3))
            try mock.engage(.displayed, notification: uuid(3), token: token)
            let acted = try mock.act("SNOOZE", on: uuid(3), token: token)
            #expect(acted.engagement == .acted(actionID: "SNOOZE"))
            #expect(acted.displayedAt == tenOClock)
            let control = try mock.controlClient()
            let revoked = try await control.call("PATCH", "devices/apns/\(token)", json: Array(#"{"permission":"revoked"}"#.utf8))
            #expect(try revoked.decode(DeviceReport.self).permission == .denied)
            #expect(try await control.request("PATCH", "devices/apns/\(token)", json: Array(#"{"permission":"maybe"}"#.utf8)).status == 400)
            await control.close()
        }
    }

    @Test("a user's permission applies to every device they own")
    func userPermission() async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let fcmToken = "fcm-token-of-ada:APA91b" + String(repeating: "x", count: 40)
            _ = try await control.call("POST", "users", json: Array(#"{"id":"ada","tokens":["\#(token)","\#(fcmToken)"]}"#.utf8))
            let answer = try JSONValue(
                parsing: try await control.call("POST", "users/ada/permission", json: Array(#"{"permission":"denied"}"#.utf8)).body)
            #expect(answer["devices"]?.arrayValue?.compactMap { $0["permission"]?.stringValue } == ["denied", "denied"])
            #expect(mock.device(token)?.permission == .denied)
            #expect(mock.device(fcmToken, service: .fcm)?.permission == .denied)
            #expect(
                try await control.request("POST", "users/nobody/permission", json: Array(#"{"permission":"denied"}"#.utf8)).status == 404)
            #expect(try await control.request("POST", "users/ada/permission", json: Array(#"{"connectivity":"idle"}"#.utf8)).status == 400)
            await control.close()
        }
    }

    /// Sends 60 DOSE notifications to 60 devices under one seed and returns what the users did.
    static func seededRun(seed: UInt64) async throws -> [String] {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: tenOClock)
            let control = try mock.controlClient()
            let model = """
                {"seed": \(seed), "rules": [
                  {"category": "DOSE", "open": 0.5, "dismiss": 0.2, "actions": [{"id": "TAKEN", "probability": 0.2}],
                   "delay": {"min": 10, "max": 60}}
                ]}
                """
            _ = try await control.call("PUT", "engagement/model", json: Array(model.utf8))
            let tokens = (1...60).map { String(format: "%064x", $0) }
            for (index, device) in tokens.enumerated() {
                try await send(mock, id: uuid(index), token: device)
            }
            #expect(mock.device(tokens[0])?.plannedCount ?? 0 <= 1)
            // Nothing happens before the shortest delay, everything by the longest.
            mock.clock.advance(by: .seconds(9))
            let early = try JSONValue(parsing: try await control.call("GET", "engagement/events").body)
            #expect(early["events"]?.arrayValue?.isEmpty == true)
            mock.clock.advance(by: .seconds(52))
            var outcomes: [String] = []
            for device in tokens {
                let notification = try #require(mock.device(device)?.notifications.first)
                #expect(notification.planned == nil)
                if let engaged = notification.engagement, let at = notification.engagedAt {
                    let delay = (at - tenOClock).components.seconds
                    #expect((10...60).contains(delay))
                    outcomes.append("\(engaged)@\(at)")
                } else {
                    outcomes.append("ignored")
                }
            }
            let reason = mock.device(tokens.first!)?.timeline.last?.reason
            #expect(outcomes.allSatisfy { $0 == "ignored" } || reason == "behaviour model (seed \(seed))" || reason == nil)
            await control.close()
            return outcomes
        }
    }

    @Test("a seeded behaviour model is repeatable on the virtual clock, and another seed differs")
    func seededModel() async throws {
        let first = try await Self.seededRun(seed: 42)
        let second = try await Self.seededRun(seed: 42)
        #expect(first == second)
        #expect(first.filter { $0.hasPrefix("opened") }.count >= 15, "about half of 60 open: \(first)")
        #expect(first.contains { $0.hasPrefix("action TAKEN") })
        #expect(first.contains { $0.hasPrefix("dismissed") })
        #expect(first.contains("ignored"))
        let other = try await Self.seededRun(seed: 7)
        #expect(other != first)
    }

    /// FCM message names are random, so this only repeats because the draw is keyed by the
    /// device's n-th judged notification rather than by the notification's id.
    static func seededFCMRun(seed: UInt64) async throws -> [String] {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: tenOClock)
            mock.engagementModel = EngagementModel(
                seed: seed, rules: [.init(open: 0.4, dismiss: 0.3, delay: .init(min: 5, max: 50))])
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let tokens = (1...8).map { "fcm-\($0)-of-the-run:APA91b" + String(repeating: "x", count: 30) }
            for round in 1...4 {
                for device in tokens {
                    let body = #"{"message":{"token":"\#(device)","notification":{"title":"Dose \#(round)"}}}"#
                    let response = try await connection.send(mock.fcmSend(body, accessToken: accessToken))
                    #expect(response.status == 200)
                }
            }
            await connection.close()
            mock.clock.advance(by: .seconds(60))
            return try tokens.flatMap { device in
                try #require(mock.device(device, service: .fcm)).notifications.map { entry in
                    entry.engagement.map { "\($0)@\(entry.engagedAt.map(String.init(describing:)) ?? "?")" } ?? "ignored"
                }
            }
        }
    }

    @Test("FCM: the seeded model repeats although FCM's message names are random")
    func seededModelOverFCM() async throws {
        let first = try await Self.seededFCMRun(seed: 11)
        let second = try await Self.seededFCMRun(seed: 11)
        #expect(first.count == 32)
        #expect(first == second)
        #expect(first.contains("ignored") && first.contains { $0.hasPrefix("opened") } && first.contains { $0.hasPrefix("dismissed") })
        #expect(try await Self.seededFCMRun(seed: 12) != first)
    }

    @Test("without a model nothing is planned; a command before the planned time wins; the model is validated")
    func modelEdges() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: tenOClock)
            try await send(mock, id: uuid(1))
            #expect(mock.device(token)?.notifications.first?.planned == nil)
            #expect(mock.device(token)?.plannedCount == 0)

            mock.engagementModel = EngagementModel(seed: 3, rules: [.init(priority: "high", open: 1, delay: .init(min: 30, max: 30))])
            try await send(mock, id: uuid(2), priority: "5")
            #expect(mock.device(token)?.notifications.last?.planned == nil, "the rule covers high priority only")
            try await send(mock, id: uuid(3), priority: "10")
            #expect(mock.device(token)?.notifications.last?.planned?.engagement == .opened)
            try mock.dismiss(uuid(3), token: token)
            mock.clock.advance(by: .seconds(60))
            let device = try #require(mock.device(token))
            #expect(device.notifications.last?.engagement == .dismissed, "the user's own dismissal came first")
            #expect(device.plannedCount == 0)

            let control = try mock.controlClient()
            let bad = try await control.request(
                "PUT", "engagement/model", json: Array(#"{"seed":1,"rules":[{"open":0.8,"dismiss":0.5}]}"#.utf8))
            #expect(bad.status == 400)
            #expect(bad.errorMessage?.contains("more than 1") == true)
            // A delay of 1e300 s was taken, and the next push judged by it trapped in the
            // conversion to milliseconds, taking the gateway down.
            for delay in ["1e300", #"{"min":0,"max":1e300}"#, "315576000001"] {
                let far = try await control.request(
                    "PUT", "engagement/model", json: Array(#"{"seed":1,"rules":[{"open":1,"delay":\#(delay)}]}"#.utf8))
                #expect(far.status == 400, "\(delay): \(far.text)")
                #expect(
                    far.errorMessage == "rules[0]: delay needs 0 <= min <= max <= 315576000000 seconds (at most 10000 years)", "\(far.text)"
                )
            }
            // Set in Swift, the model is not validated: the plan stops at 10,000 years.
            mock.engagementModel = EngagementModel(seed: 3, rules: [.init(open: 1, delay: .init(min: 1e300, max: 1e300))])
            try await send(mock, id: uuid(4), priority: "10")
            let planned = try #require(mock.device(token)?.notifications.last?.planned)
            #expect(planned.at == mock.clock.now() + .seconds(315_576_000_000))
            #expect(try await control.call("DELETE", "engagement/model").status == 200)
            #expect(try await control.request("GET", "engagement/model").status == 404)
            await control.close()
        }
    }

    @Test("the funnel and latency report over REST and Swift: stored high priority misses \"critical within 5 s\"")
    func report() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: tenOClock)
            let control = try mock.controlClient()
            let other = String(repeating: "cd", count: 32)
            let gone = String(repeating: "ef", count: 32)
            _ = try await control.call(
                "POST", "apns/tokens", json: Array(#"{"token":"\#(gone)","bundleId":"dev.pushmock.sample","state":"unregistered"}"#.utf8))
            try await send(mock, id: uuid(1))
            try await send(mock, id: uuid(2), payload: #"{"aps":{"content-available":1}}"#, pushType: "background", priority: "5")
            try mock.open(uuid(1), token: token)
            #expect(try await mock.sendOnNewConnection(try mock.apnsRequest(token: gone)).status == 410)

            let met = try await control.request("GET", "report", query: [("target", "critical=high:5s")])
            #expect(met.status == 200)
            let json = try JSONValue(parsing: met.body)
            #expect(json["total"]?["sent"]?.intValue == 3)
            #expect(json["total"]?["accepted"]?.intValue == 2)
            #expect(json["total"]?["delivered"]?.intValue == 2)
            #expect(json["total"]?["displayed"]?.intValue == 1, "the background push shows nothing")
            #expect(json["total"]?["opened"]?.intValue == 1)
            #expect(json["passed"] == .bool(true))

            mock.setConnectivity(.offline, token: other)
            try await send(mock, id: uuid(3), token: other)
            mock.clock.advance(by: .seconds(8))
            mock.setConnectivity(.online, token: other)
            let missed = try await control.request("GET", "report", query: [("target", "critical=high:5s"), ("format", "junit")])
            #expect(missed.status == 417)
            #expect(missed.text.contains("<failure"))
            #expect(missed.text.contains("slowest of 2 was 8000 ms"))
            let text = try await control.request("GET", "report", query: [("format", "text")])
            #expect(text.text.contains("category DOSE"))

            let swift = mock.funnelReport(targets: [LatencyTarget(name: "critical", priority: "high", withinMilliseconds: 10_000)])
            #expect(swift.passed)
            #expect(swift.latency.first { $0.priority == "high" }?.max == 8000)
            #expect(try await control.request("GET", "report", query: [("target", "urgent:5s")]).status == 400)
            #expect(try await control.request("POST", "report").status == 405)
            await control.close()
        }
    }

    @Test("Expo error tickets inside a 200 answer count as refused in the funnel")
    func expoTickets() async throws {
        try await withPushMock { mock in
            let answer = try await ExpoCurl.post(
                mock,
                json:
                    #"[{"to":"ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]","title":"Hi"},{"to":"ExponentPushToken[not.valid]","title":"Hi"}]"#
            )
            #expect(answer.status == 200, "\(answer.text)")
            let report = mock.funnelReport()
            #expect(report.total.sent == 2)
            #expect(report.total.accepted == 1)
            #expect(report.total.delivered == 1)
            #expect(report.groups.first { $0.dimension == "platform" && $0.value == "expo" }?.stages.sent == 2)
        }
    }
}
