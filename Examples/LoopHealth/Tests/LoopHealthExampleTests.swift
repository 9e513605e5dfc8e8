// The Loop Health worked example (Examples/LoopHealth/README.md): Loop's backend triggers its
// Knock workflows, which send to the users' Expo push tokens. Here the backend's own code
// (`LoopNotifications`, in Sources/) sends through PushMock's Expo endpoint, and the test walks
// one Monday on the gateway's virtual clock with the example's own files under pushmock/.
import Foundation
import LoopHealthExample
import PushMockControl
import PushMockTesting
import Testing

@Suite("Loop Health example: Knock workflows to Expo push tokens, through the gateway", .serialized)
struct LoopHealthExampleTests {
    static let mayaPhone = "ExponentPushToken[maya-iphone-Hx7Qd2LmR9]"
    static let samPixel = "ExponentPushToken[sam-pixel-Tq4Vw1ZkP3]"
    static let samOldIPad = "ExponentPushToken[sam-old-ipad-Bn6Ys0JcE5]"

    @Test("a Monday of Loop notifications: send, quiet hours, opens, revoked permission, an uninstalled app and an outage, then the checks")
    func monday() async throws {
        try await withPushMock { mock in
            // The same files `pushmock serve --config pushmock/pushmock.json` reads: the Expo
            // project and tokens, the app's notification categories, the clock (Monday
            // 23 November 2026, 08:00 UTC, frozen).
            try mock.register(configFile: LoopFiles.path("pushmock.json"))
            let users = try LoopFiles.users()
            for user in users.users { try mock.addUser(user) }
            let policy = try PolicyFile(contentsOfFile: LoopFiles.path("policy.json"))

            // The backend's sender: PushMock's Expo endpoint instead of https://exp.host. Its
            // retries wait on the gateway's clock, so an outage costs no real time.
            let clock = mock.clock
            let sender = try ExpoSender(configuration: mock.expoSenderConfiguration { $0.sleep = RetrySleep { clock.advance(by: $0) } })
            defer { Task { await sender.shutdown() } }
            let loop = LoopNotifications(sender: sender, templates: try LoopTemplates(directory: LoopFiles.path("templates"))) {
                Date(timeIntervalSince1970: Double(clock.now().millisecondsSince1970) / 1000)
            }
            for user in users.users {
                await loop.register(try LoopFiles.recipient(user))
            }

            // 1. Send: 09:00 in Berlin, Maya gets each of the six workflows, a minute apart.
            for workflow in LoopWorkflow.all {
                let delivery = try await loop.trigger(workflow, for: "maya", data: try LoopFiles.data(workflow))
                guard case .sent(let report) = delivery else {
                    Issue.record("\(workflow) was not sent at once: \(delivery)")
                    continue
                }
                #expect(report.okCount == 1, "\(report.summary)")
                clock.advance(by: .seconds(60))
            }
            let mayaDevice = try #require(mock.device(Self.mayaPhone, service: .expo))
            #expect(mayaDevice.displayed.count == 6)
            #expect(
                mayaDevice.displayed.map { try? JSONValue(parsing: $0.notification.payload)["title"]?.stringValue } == [
                    "Time for your BPC-157", "BPC-157 running low", "🎉 30-day streak!", "Your lab results are ready",
                    "Protocol update from Dr. Patel", "Time for your weekly check-in",
                ])

            // 2. Quiet hours: at 03:06 in New York two supply alerts for Sam are held — his own
            // quiet hours end at 07:00, Loop's night at 08:00 — and go out as ONE summary five
            // minutes after both have ended (the seed's scheduleSmartNotification and batching).
            for supply in ["BPC-157", "TB-500"] {
                var data = try LoopFiles.data(.supplyLow)
                data["compound_name"] = .string(supply)
                let delivery = try await loop.trigger(.supplyLow, for: "sam", data: data)
                guard case .scheduled(let at) = delivery else {
                    Issue.record("the supply alert was not held: \(delivery)")
                    continue
                }
                #expect(at == LoopFiles.date("2026-11-23T13:05:00Z"), "08:05 in New York")
            }
            #expect(mock.device(Self.samPixel, service: .expo) == nil, "nothing reached Sam during his night")

            // 3a. Engagement by command (as `pushmock device act|open|dismiss`): Maya logs her
            // dose from the button, reads her lab results, swipes the check-in away.
            let mayaMorning = await loop.sent.filter { $0.userID == "maya" }
            func ticket(_ workflow: LoopWorkflow, of messages: [LoopNotifications.SentMessage]) throws -> String {
                try #require(messages.first { $0.workflow == workflow }).ticketID
            }
            try mock.act("log_dose", on: try ticket(.doseReminder, of: mayaMorning), token: Self.mayaPhone, service: .expo)
            try mock.open(try ticket(.labResultsReady, of: mayaMorning), token: Self.mayaPhone, service: .expo)
            try mock.dismiss(try ticket(.weeklyCheckIn, of: mayaMorning), token: Self.mayaPhone, service: .expo)
            // The supply alert's category (declared in pushmock.json) offers Reorder Now and View
            // Details; a phone has no "Log Dose" button on it.
            let refusal = #expect(throws: EngagementRefusal.self) {
                try mock.act("log_dose", on: try ticket(.supplyLow, of: mayaMorning), token: Self.mayaPhone, service: .expo)
            }
            #expect(refusal?.status == 400)

            // 3b. Engagement by the seeded behaviour model (behaviour.json) from now on.
            mock.engagementModel = try LoopFiles.behaviour()

            // 5a. The failure the seed worries about: Sam deleted the app from his old iPad. Expo
            // accepts the next push (ok ticket) and only the receipt says DeviceNotRegistered.
            clock.set(to: Timestamp(LoopFiles.date("2026-11-23T13:04:00Z")))
            let control = try mock.controlClient()
            _ = try await control.call(
                "POST", "expo/tokens",
                json: Array(
                    #"{"token":"\#(Self.samOldIPad)","project":"@loop/loop-health","platform":"ios","state":"uninstalled","at":"2026-11-23T13:05:01Z"}"#
                        .utf8))
            await control.close()

            clock.set(to: Timestamp(LoopFiles.date("2026-11-23T13:04:59Z")))
            #expect(try await loop.sendDue().isEmpty, "still Loop's night in New York")
            clock.set(to: Timestamp(LoopFiles.date("2026-11-23T13:05:00Z")))
            let held = try await loop.sendDue()
            #expect(held.map(\.okCount) == [2], "one summary to both of Sam's devices")
            let pixel = try #require(mock.device(Self.samPixel, service: .expo))
            let summary = try #require(pixel.displayed.last)
            #expect(try JSONValue(parsing: summary.notification.payload)["title"]?.stringValue == "2 supplies running low")
            #expect(summary.deliveredAt == Timestamp(LoopFiles.date("2026-11-23T13:05:00Z")))

            // Expo's advice: read receipts some minutes later. The iPad's says DeviceNotRegistered,
            // and the backend forgets the token.
            clock.advance(by: .seconds(15 * 60))
            let receipts = try await loop.checkReceipts()
            #expect(receipts.values.filter { $0 == .ok }.count == 7)
            #expect(receipts.values.compactMap { if case .error(let code, _) = $0 { code } else { nil } } == ["DeviceNotRegistered"])
            #expect(await loop.removedTokens == [Self.samOldIPad])
            #expect(await loop.recipient("sam")?.pushTokens == [Self.samPixel])
            // Sent to directly now, Expo answers the dead token with an error ticket at once.
            let direct = await sender.send([
                ExpoPushMessage(
                    to: Self.samOldIPad, title: "Time for your weekly check-in",
                    data: ["type": "checkin_reminder", "deep_link": "loop://checkin"])
            ])
            #expect(direct.tokensToDelete == [Self.samOldIPad])

            // 13:30 UTC, 08:30 in New York: Sam's dose reminder reaches only the Pixel; the model
            // has him log the dose within ten minutes.
            clock.advance(by: .seconds(10 * 60))
            guard case .sent(let dose) = try await loop.trigger(.doseReminder, for: "sam", data: try LoopFiles.data(.doseReminder)) else {
                Issue.record("Sam's dose reminder was not sent")
                return
            }
            #expect(dose.tickets.map(\.token) == [Self.samPixel])

            // 5b. An outage: Expo answers 500 three times. The sender retries (3 attempts), then
            // the backend keeps the lab results and sends them again five minutes later.
            clock.set(to: Timestamp(LoopFiles.date("2026-11-23T14:00:00Z")))
            try mock.addFault(
                FaultRule(trigger: FaultTrigger(count: 3), action: .expoError(.request(code: "INTERNAL_SERVER_ERROR"))))
            guard case .sent(let failed) = try await loop.trigger(.labResultsReady, for: "sam", data: try LoopFiles.data(.labResultsReady))
            else {
                Issue.record("the lab results were not attempted")
                return
            }
            #expect(failed.requests == 3)
            #expect(failed.tickets.map(\.outcome.errorCode) == ["INTERNAL_SERVER_ERROR"])
            #expect(await loop.scheduled.count == 1)
            clock.set(to: Timestamp(LoopFiles.date("2026-11-23T14:06:00Z")))
            #expect(try await loop.sendDue().map(\.okCount) == [1])
            clock.advance(by: .seconds(30 * 60))
            let samPixel = try #require(mock.device(Self.samPixel, service: .expo))
            #expect(samPixel.notifications.compactMap(\.engagement) == [.acted(actionID: "log_dose"), .opened])
            #expect(samPixel.timeline.filter { $0.kind.rawValue == "opened" }.first?.reason?.hasPrefix("behaviour model") == true)

            // 4. Revoked permission: at 19:00 in Berlin Maya turns notifications off. Expo still
            // accepts and delivers (ok ticket, ok receipt); her phone shows nothing.
            clock.set(to: Timestamp(LoopFiles.date("2026-11-23T18:00:00Z")))
            mock.setPermission(.denied, token: Self.mayaPhone, service: .expo)
            clock.set(to: Timestamp(LoopFiles.date("2026-11-23T20:00:00Z")))
            guard case .sent(let evening) = try await loop.trigger(.doseReminder, for: "maya", data: try LoopFiles.data(.doseReminder))
            else {
                Issue.record("Maya's evening reminder was not sent")
                return
            }
            #expect(evening.okCount == 1)
            let eveningTicket = try #require(evening.receiptIDs.keys.first)
            #expect(throws: EngagementRefusal.self) { try mock.open(eveningTicket, token: Self.mayaPhone, service: .expo) }
            // A retried Knock trigger sends the evening reminder twice: the third of Maya's day.
            clock.advance(by: .seconds(60))
            try await loop.trigger(.doseReminder, for: "maya", data: try LoopFiles.data(.doseReminder))
            clock.advance(by: .seconds(15 * 60))
            let late = try await loop.checkReceipts()
            #expect(late.count == 4 && late.values.allSatisfy { $0 == .ok }, "Sam's dose and lab results, Maya's two: \(late)")

            // 6. The checks, with the example's files.
            let links = mock.checkLinks(try RouteTable(contentsOfFile: LoopFiles.path("routes.json")))
            // Every link opens its screen but the seed's summary link loop://supplies (in both
            // messages of the summary), which the app's handleDeepLink sends to
            // /supplies/undefined: the check finds it.
            #expect(links.findings.map(\.problem.kind) == [.fallback, .fallback], "\(links.text)")
            #expect(links.findings.allSatisfy { $0.notification.title == "2 supplies running low" }, "\(links.text)")
            #expect(
                Set(links.notifications.flatMap(\.screens)) == [
                    "/protocols/p-4821/log", "/supplies/s-118", "/achievements", "/labs/lab-9930", "/protocols/p-4821", "/checkin", "/",
                ], "\(links.text)")

            let day = mock.checkPolicy(policy)
            // Quiet hours and the night hold everywhere (the summary waited); only the
            // duplicated evening reminder breaks Loop's cap and Maya's own.
            #expect(Set(day.violations.map(\.rule)) == ["dose-reminders-per-day", "users.maya.caps[0]"], "\(day.text)")
            #expect(day.violations.allSatisfy { $0.timeZone == "Europe/Berlin" }, "\(day.text)")

            let contracts = mock.checkContracts(try ContractFile(contentsOfFile: LoopFiles.path("contracts/loop-data.json")))
            #expect(contracts.isClean, "\(contracts.text)")

            let report = mock.funnelReport(targets: [LatencyTarget(name: "dose reminders", priority: "high", withinMilliseconds: 5000)])
            #expect(report.passed, "\(report.text)")
            #expect(report.total.sent == 16, "\(report.text)")
            #expect(report.total.accepted == 12, "\(report.text)")
            #expect(report.total.delivered == 12, "\(report.text)")
            #expect(report.total.displayed == 10, "\(report.text)")
            #expect(report.total.opened == 2, "\(report.text)")
            #expect(report.total.acted == 2, "\(report.text)")
            #expect(report.total.dismissed == 1, "\(report.text)")
            let doses = try #require(report.groups.first { $0.dimension == "category" && $0.value == "dose_reminder" })
            #expect(doses.stages.accepted == 4 && doses.stages.displayed == 2 && doses.stages.acted == 2, "\(report.text)")
        }
    }

    @Test("every Expo template's variables are in the workflow's sample data")
    func sampleDataCoversTemplates() throws {
        for workflow in LoopWorkflow.all {
            let text = try String(contentsOfFile: LoopFiles.path("templates/\(workflow.file).expo.json"), encoding: .utf8)
            let template = try NotificationTemplate(json: text)
            #expect(template.missingVariables(in: try LoopFiles.data(workflow)).isEmpty, "\(workflow)")
        }
    }

    @Test("the seed's own supply template (no reorder_url) breaks the contract the Reorder Now button needs")
    func seedSupplyTemplateBreaksContract() async throws {
        try await withPushMock { mock in
            let sender = try ExpoSender(configuration: mock.expoSenderConfiguration())
            defer { Task { await sender.shutdown() } }
            let seedData: JSONObject = [
                "type": "supply_alert", "supply_id": "s-118", "severity": "low", "deep_link": "loop://supplies/s-118",
            ]
            let report = await sender.send([ExpoPushMessage(to: Self.samPixel, title: "BPC-157 running low", data: seedData)])
            #expect(report.okCount == 1)
            let contracts = mock.checkContracts(try ContractFile(contentsOfFile: LoopFiles.path("contracts/loop-data.json")))
            #expect(contracts.violations.map(\.contract) == ["supply_alert"], "\(contracts.text)")
            #expect(contracts.violations.first?.message.contains("reorder_url") == true, "\(contracts.text)")
        }
    }
}

/// The example's definition files (pushmock/ next to Tests/), found from this source file.
enum LoopFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pushmock").path

    static func path(_ name: String) -> String { directory + "/" + name }

    static func data(_ workflow: LoopWorkflow) throws -> JSONObject {
        let text = try String(contentsOfFile: path("data/\(workflow.file).json"), encoding: .utf8)
        return try #require(try JSONValue(parsing: text).objectValue)
    }

    static func users() throws -> UserDirectory {
        try JSONDecoder().decode(UserDirectory.self, from: Data(contentsOf: URL(fileURLWithPath: path("users.json"))))
    }

    static func behaviour() throws -> EngagementModel {
        try JSONDecoder().decode(EngagementModel.self, from: Data(contentsOf: URL(fileURLWithPath: path("behaviour.json"))))
    }

    /// The backend's view of a user: zone, Expo tokens, their own quiet hours and Loop's night
    /// (22:00–08:00, policy.json's `quietHours` "night").
    static func recipient(_ user: PushUser) throws -> LoopRecipient {
        let zone = try #require(TimeZone(identifier: user.timeZone ?? "UTC"))
        let own = user.preferences.quietHours.compactMap { QuietHours(start: $0.start, end: $0.end) }
        let night = try #require(QuietHours(start: "22:00", end: "08:00"))
        return LoopRecipient(
            id: user.id, timeZone: zone, pushTokens: user.tokens.filter { $0.hasPrefix("ExponentPushToken[") }, quietHours: own + [night])
    }

    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }
}

extension Timestamp {
    init(_ date: Date) {
        self.init(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
}
