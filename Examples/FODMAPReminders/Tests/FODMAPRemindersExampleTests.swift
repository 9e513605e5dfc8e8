import FODMAPRemindersExample
// The FODMAP reminders worked example (Examples/FODMAPReminders/README.md). The app uses
// expo-notifications for two kinds of reminders:
// - LOCAL notifications the phone schedules itself (daily symptom reminder, dose reminders):
//   no push service ever sees them, so PushMock cannot either. `LocalReminderPlanner` computes
//   that schedule; the test checks it against the example's policy file (its quiet hours, cap
//   and spacing) with the toolkit's types — no gateway involved.
// - PUSH notifications the backend sends through Expo (test start, washout start and end):
//   these go through PushMock's Expo endpoint, on the gateway's virtual clock.
import Foundation
import PushMockTesting
import Testing

@Suite("FODMAP reminders example: local schedule and Expo pushes", .serialized)
struct FODMAPRemindersExampleTests {
    static let bia = "ExponentPushToken[bia-iphone-Q2w8Ls0Xy4]"
    static let leo = "ExponentPushToken[leo-android-Zp5Kd7Nm1R]"

    @Test("the backend's pushes through the gateway: spacing, quiet hours, opens, permission off, an outage, then the checks")
    func pushes() async throws {
        try await withPushMock { mock in
            // pushmock.json: the Expo project and tokens, the app's categories, the clock
            // (Tuesday 24 November 2026, 12:00 UTC: 09:00 for Bia in São Paulo, noon for Leo in London).
            try mock.register(configFile: FODMAPFiles.path("pushmock.json"))
            let users = try FODMAPFiles.users()
            for user in users.users { try mock.addUser(user) }
            let clock = mock.clock
            let sender = try ExpoSender(configuration: mock.expoSenderConfiguration { $0.sleep = RetrySleep { clock.advance(by: $0) } })
            defer { Task { await sender.shutdown() } }
            let backend = try FODMAPPushService(sender: sender, templatesDirectory: FODMAPFiles.path("templates")) {
                Date(timeIntervalSince1970: Double(clock.now().millisecondsSince1970) / 1000)
            }
            for user in users.users { await backend.register(try FODMAPFiles.backendUser(user)) }

            // 1. Send: Bia's test step starts, Leo's washout starts.
            guard
                case .sent(let first) = try await backend.remind(
                    .testStartReminder, userID: "bia", data: try FODMAPFiles.data("test-start"))
            else {
                Issue.record("the test-start reminder was not sent")
                return
            }
            #expect(try await backend.remind(.washoutStart, userID: "leo", data: try FODMAPFiles.data("washout-start")) != .dropped)
            let biaPhone = try #require(mock.device(Self.bia, service: .expo))
            #expect(
                biaPhone.displayed.map { try? JSONValue(parsing: $0.notification.payload)["title"]?.stringValue } == [
                    "Ready for the fructans test?"
                ])

            // 3a. Engagement by command: Bia taps "Start today's test" (`pushmock device act`).
            clock.advance(by: .seconds(5 * 60))
            try mock.act("start_test", on: try #require(first.first), token: Self.bia, service: .expo)
            await backend.markActioned(ticketID: try #require(first.first), action: "start_test", at: FODMAPFiles.now(clock))
            // Its category (pushmock.json) offers Start and Snooze, not "Mark as taken".
            let refusal = #expect(throws: EngagementRefusal.self) {
                try mock.act("dose_marked_taken", on: try #require(first.first), token: Self.bia, service: .expo)
            }
            #expect(refusal?.status == 400)
            // 3b. …and by the seeded behaviour model (behaviour.json) from now on.
            mock.engagementModel = try FODMAPFiles.behaviour()

            // 2. The clock walk. 12:20: a retried job asks for the same reminder again — the
            // hour between two of one type holds it until 13:00.
            clock.advance(by: .seconds(15 * 60))
            #expect(
                try await backend.remind(.testStartReminder, userID: "bia", data: try FODMAPFiles.data("test-start"))
                    == .held(until: FODMAPFiles.date("2026-11-24T13:00:00Z")))
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-24T12:59:59Z")))
            #expect(try await backend.sendDue().isEmpty)
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-24T13:00:00Z")))
            let second = try await backend.sendDue()
            #expect(second.count == 1)

            // 4. Permission: Leo turns notifications off at 14:00. Expo still accepts and
            // delivers the 15:00 washout end (ok ticket); his phone shows nothing. Once the app
            // has synced the permission, the backend shows the next reminder in the app instead.
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-24T14:00:00Z")))
            mock.setPermission(.denied, token: Self.leo, service: .expo)
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-24T15:00:00Z")))
            guard case .sent(let hidden) = try await backend.remind(.washoutEnd, userID: "leo", data: try FODMAPFiles.data("washout-end"))
            else {
                Issue.record("the washout end was not sent to Leo")
                return
            }
            let leoPhone = try #require(mock.device(Self.leo, service: .expo))
            #expect(leoPhone.notifications.last?.notification.id == hidden.first)
            #expect(leoPhone.notifications.last?.suppressed == true, "delivered, not displayed")
            #expect(throws: EngagementRefusal.self) { try mock.open(try #require(hidden.first), token: Self.leo, service: .expo) }
            await backend.setPermissionGranted(false, for: "leo")
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-24T16:00:00Z")))
            #expect(
                try await backend.remind(.testStartReminder, userID: "leo", data: try FODMAPFiles.data("test-start"))
                    == .inApp(reason: "notifications are turned off"))

            // 5. The failure: Expo answers 500 three times. The sender backs off and retries
            // (3 attempts); then the backend falls back to an in-app alert, as the design says.
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-24T17:00:00Z")))
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 3), action: .expoError(.request(code: "INTERNAL_SERVER_ERROR"))))
            #expect(
                try await backend.remind(.testStartReminder, userID: "bia", data: try FODMAPFiles.data("test-start"))
                    == .inApp(reason: "push failed: INTERNAL_SERVER_ERROR"))
            #expect(await backend.inAppAlerts.map(\.userID) == ["leo", "bia"])

            // 2 (cont.). 22:30 in São Paulo the washout ends: quiet hours hold it until 07:00.
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-25T01:30:00Z")))
            #expect(
                try await backend.remind(.washoutEnd, userID: "bia", data: try FODMAPFiles.data("washout-end"))
                    == .held(until: FODMAPFiles.date("2026-11-25T10:00:00Z")))
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-25T09:59:00Z")))
            #expect(try await backend.sendDue().isEmpty)
            clock.set(to: Timestamp(FODMAPFiles.date("2026-11-25T10:00:00Z")))
            #expect(try await backend.sendDue().count == 1)
            clock.advance(by: .seconds(3600))

            // History: what the phone reports back (here read from the simulated device) lands
            // in the backend's notification history.
            let biaNow = try #require(mock.device(Self.bia, service: .expo))
            for entry in biaNow.notifications {
                guard let engagement = entry.engagement, let at = entry.engagedAt else { continue }
                let action: String
                switch engagement {
                case .acted(let id): action = id
                case .opened: action = "opened"
                case .dismissed: action = "dismissed"
                default: continue
                }
                await backend.markActioned(ticketID: entry.notification.id, action: action, at: FODMAPFiles.date(at))
            }
            let history = await backend.history.filter { $0.userID == "bia" }
            #expect(history.map(\.type) == [.testStartReminder, .testStartReminder, .washoutEnd])
            #expect(history.map(\.action) == ["start_test", "start_test", "opened"])
            #expect(history[1].scheduledTime == FODMAPFiles.date("2026-11-24T12:20:00Z"))
            #expect(history[1].sentTime == FODMAPFiles.date("2026-11-24T13:00:00Z"))

            // 6. The checks with the example's files.
            let links = mock.checkLinks(try RouteTable(contentsOfFile: FODMAPFiles.path("routes.json")))
            #expect(links.isClean, "\(links.text)")
            #expect(Set(links.notifications.flatMap(\.screens)) == ["/tests/step-fructans-1", "/washout/wo-3"], "\(links.text)")
            let policy = mock.checkPolicy(try PolicyFile(contentsOfFile: FODMAPFiles.path("policy.json")))
            #expect(policy.isClean, "\(policy.text)")
            #expect(policy.notificationCount == 5)
            let contracts = mock.checkContracts(try ContractFile(contentsOfFile: FODMAPFiles.path("contracts/fodmap-data.json")))
            #expect(contracts.isClean, "\(contracts.text)")

            let report = mock.funnelReport(targets: [LatencyTarget(name: "test start", priority: "high", withinMilliseconds: 5000)])
            #expect(report.passed, "\(report.text)")
            #expect(report.total.sent == 8, "\(report.text)")
            #expect(report.total.accepted == 5, "\(report.text)")
            #expect(report.total.delivered == 5, "\(report.text)")
            #expect(report.total.displayed == 4, "\(report.text)")
            #expect(report.total.opened == 1, "\(report.text)")
            #expect(report.total.acted == 2, "\(report.text)")
            #expect(report.total.dismissed == 0, "\(report.text)")
            let testStart = try #require(report.groups.first { $0.dimension == "category" && $0.value == "test_start" })
            #expect(testStart.stages.accepted == 2 && testStart.stages.acted == 2, "\(report.text)")
            // The three 500 answers are refused requests: no type, category or priority.
            let refused = try #require(report.groups.first { $0.dimension == "type" && $0.value == "(none)" })
            #expect(refused.stages.sent == 3 && refused.stages.accepted == 0, "\(report.text)")
        }
    }

    @Test("the on-device schedule keeps the policy file's quiet hours, cap and spacing (no gateway: local notifications)")
    func localSchedule() throws {
        let policy = try PolicyFile(contentsOfFile: FODMAPFiles.path("policy.json"))
        let zone = try #require(TimeZone(identifier: "America/Sao_Paulo"))
        let tuesday = FODMAPFiles.date("2026-11-24T12:00:00Z")
        func check(_ planned: [LocalNotification]) {
            // Each fire time against the policy's own quiet hours (dose reminders exempt)…
            let night = policy.quietHours[0]
            for notification in planned where !night.exemptTypes.contains("dose-reminder") || notification.type != .doseReminder {
                #expect(!night.contains(secondsOfDay: FODMAPFiles.secondsOfDay(notification.fireAt, zone)), "\(notification)")
            }
            // …its daily cap and its hour between two of one type.
            let cap = policy.frequencyCaps.first { $0.name == "ten-a-day" }?.limit ?? 0
            #expect(planned.count <= cap)
            let spacing = policy.frequencyCaps.first { $0.name == "dose-reminder-spacing" }?.minimumSpacing ?? .zero
            let doses = planned.filter { $0.type == .doseReminder }.map(\.fireAt)
            for (earlier, later) in zip(doses, doses.dropFirst()) {
                #expect(later.timeIntervalSince(earlier) >= TimeInterval(spacing.components.seconds), "\(earlier) → \(later)")
            }
        }

        // Bia's preferences: doses at 08:00, 13:00 and 22:45, reminded 30 minutes before; the
        // daily symptom reminder at 21:30.
        let planner = LocalReminderPlanner(
            zone: zone, dailyReminderTime: TimeOfDay(hour: 21, minute: 30),
            doseTimes: [TimeOfDay(hour: 8, minute: 0), TimeOfDay(hour: 13, minute: 0), TimeOfDay(hour: 22, minute: 45)],
            stepID: "step-fructans-1")
        let full = planner.plan(day: tuesday, frequency: .full)
        #expect(
            full.scheduled.map { "\($0.type.rawValue) \(FODMAPFiles.localTime($0.fireAt, zone))" } == [
                "dose_reminder 07:30", "dose_reminder 12:30", "daily_reminder 21:30", "dose_reminder 22:15",
            ], "the 22:15 dose reminder breaks through the quiet hours (allowCritical)")
        check(full.scheduled)

        // Adaptive frequency: a week of logging drops the daily reminder, two weeks keep only
        // the first dose reminder, two missed days in three bring everything back.
        #expect(AdherenceAnalyzer.recommend(loggedDays: Array(repeating: true, count: 7)) == .reduced)
        #expect(planner.plan(day: tuesday, frequency: .reduced).scheduled.map(\.type) == [.doseReminder, .doseReminder, .doseReminder])
        #expect(AdherenceAnalyzer.recommend(loggedDays: Array(repeating: true, count: 14)) == .minimal)
        #expect(planner.plan(day: tuesday, frequency: .minimal).scheduled.count == 1)
        #expect(AdherenceAnalyzer.recommend(loggedDays: Array(repeating: true, count: 14) + [false, true, false]) == .full)

        // A step with a dose every 30 minutes from 06:00: the hour's spacing moves them apart,
        // the quiet hours start at 22:00, and the day's cap of 10 drops the rest.
        let busy = LocalReminderPlanner(
            zone: zone, dailyReminderTime: nil, doseTimes: (0..<24).map { TimeOfDay(hour: 6 + $0 / 2, minute: 30 * ($0 % 2)) },
            stepID: "step-fructans-1")
        let capped = busy.plan(day: tuesday, frequency: .full)
        #expect(capped.scheduled.count == 10)
        #expect(capped.dropped.count == 14)
        #expect(capped.scheduled.first.map { FODMAPFiles.localTime($0.fireAt, zone) } == "05:30")
        #expect(capped.scheduled.last.map { FODMAPFiles.localTime($0.fireAt, zone) } == "14:30")
        check(capped.scheduled)
    }
}

/// The example's definition files (pushmock/ next to Tests/), found from this source file.
enum FODMAPFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pushmock").path

    static func path(_ name: String) -> String { directory + "/" + name }

    static func data(_ name: String) throws -> JSONObject {
        try #require(try JSONValue(parsing: String(contentsOfFile: path("data/\(name).json"), encoding: .utf8)).objectValue)
    }

    static func users() throws -> UserDirectory {
        try JSONDecoder().decode(UserDirectory.self, from: Data(contentsOf: URL(fileURLWithPath: path("users.json"))))
    }

    static func behaviour() throws -> EngagementModel {
        try JSONDecoder().decode(EngagementModel.self, from: Data(contentsOf: URL(fileURLWithPath: path("behaviour.json"))))
    }

    /// The backend's view of a user: zone, Expo tokens, and the rules with their own quiet hours.
    static func backendUser(_ user: PushUser) throws -> FODMAPPushService.User {
        var rules = ReminderRules()
        if let quiet = user.preferences.quietHours.first {
            rules.quietStart = try timeOfDay(quiet.start)
            rules.quietEnd = try timeOfDay(quiet.end)
        }
        return FODMAPPushService.User(
            id: user.id, timeZone: try #require(TimeZone(identifier: user.timeZone ?? "UTC")), pushTokens: user.tokens, rules: rules)
    }

    static func timeOfDay(_ text: String) throws -> TimeOfDay {
        let parts = text.split(separator: ":").compactMap { Int($0) }
        try #require(parts.count == 2)
        return TimeOfDay(hour: parts[0], minute: parts[1])
    }

    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    static func date(_ timestamp: Timestamp) -> Date {
        Date(timeIntervalSince1970: Double(timestamp.millisecondsSince1970) / 1000)
    }

    static func now(_ clock: VirtualClock) -> Date { date(clock.now()) }

    static func secondsOfDay(_ date: Date, _ zone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        return (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)
    }

    static func localTime(_ date: Date, _ zone: TimeZone) -> String {
        let seconds = secondsOfDay(date, zone)
        return String(format: "%02d:%02d", seconds / 3600, seconds / 60 % 60)
    }
}

extension Timestamp {
    init(_ date: Date) {
        self.init(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
}
