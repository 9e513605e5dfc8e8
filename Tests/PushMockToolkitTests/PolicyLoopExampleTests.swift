import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

/// The worked example: `Examples/LoopHealth/pushmock/policy.json` against Loop's notifications.
@Suite("Policy: the Loop example")
struct PolicyLoopExampleTests {
    typealias Payload = LinkPolicyFixtures.LoopPayload

    static func checker() throws -> PolicyChecker { PolicyChecker(policy: try LinkPolicyFixtures.loopPolicy()) }

    @Test(
        "each workflow has its type",
        arguments: [
            (Payload.doseReminder(), "dose-reminder"), (Payload.supplyLow, "supply-low"), (Payload.milestone, "milestone"),
            (Payload.labResults, "lab-results"), (Payload.protocolUpdated, "protocol-updated"), (Payload.weeklyCheckIn, "check-in"),
            (Payload.marketing(), "marketing"),
        ])
    func types(payload: String, type: String) throws {
        #expect(try Self.checker().type(of: LinkPolicyFixtures.apns(payload)) == type)
        let fcm = LinkPolicyFixtures.fcm(#"{"token":"t","notification":{"title":"x"},"data":{"type":"\#(Self.wireType(type))"}}"#)
        #expect(try Self.checker().type(of: fcm) == type)
    }

    static func wireType(_ type: String) -> String {
        [
            "dose-reminder": "dose_reminder", "supply-low": "supply_low", "milestone": "adherence_milestone", "lab-results": "lab_results",
            "protocol-updated": "protocol_updated", "check-in": "weekly_checkin", "marketing": "marketing",
        ][type]!
    }

    @Test("a typical day is clean")
    func typicalDay() throws {
        // Saturday 28 March 2026, Berlin (UTC+1): doses at 08:00 and 20:00, the rest in between.
        let records = [
            LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 1, at: "2026-03-28T07:00:00Z"),
            LinkPolicyFixtures.apns(Payload.supplyLow, sequence: 2, at: "2026-03-28T08:30:00Z"),
            LinkPolicyFixtures.apns(Payload.labResults, sequence: 3, at: "2026-03-28T09:15:00Z"),
            LinkPolicyFixtures.apns(Payload.protocolUpdated, sequence: 4, at: "2026-03-28T10:00:00Z"),
            LinkPolicyFixtures.apns(Payload.milestone, sequence: 5, at: "2026-03-28T17:00:00Z"),
            LinkPolicyFixtures.apns(Payload.weeklyCheckIn, sequence: 6, at: "2026-03-28T18:00:00Z"),
            LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 7, at: "2026-03-28T19:00:00Z"),
            LinkPolicyFixtures.apns(
                #"{"aps":{"content-available":1},"type":"sync","tz":"Europe/Berlin"}"#, sequence: 8, at: "2026-03-28T23:30:00Z",
                pushType: "background", priority: 5),
        ]
        let report = try Self.checker().check(records)
        #expect(report.isClean, "\(report)")
        #expect(report.summary == #"Policy "Loop notification policy": 0 violations in 8 notifications"#)
    }

    @Test("a dose reminder at 23:00 user-local breaks quiet hours; a critical one does not")
    func lateDoseReminder() throws {
        let late = LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 9, at: "2026-03-28T22:00:00Z")
        let report = try Self.checker().check([late])
        let violation = try #require(report.violations.first)
        #expect(report.violations.count == 1)
        #expect(violation.kind == .quietHours)
        #expect(violation.rule == "night")
        #expect(violation.notificationType == "dose-reminder")
        #expect(violation.localTime == "2026-03-28 23:00:00 +01:00")
        #expect(violation.notification.title == "Time for your Semaglutide")

        let critical = LinkPolicyFixtures.apns(Payload.doseReminder(level: "critical"), sequence: 10, at: "2026-03-28T22:00:00Z")
        #expect(try Self.checker().check([critical]).isClean)
        let timeSensitive = LinkPolicyFixtures.apns(Payload.labResults, sequence: 11, at: "2026-03-28T22:00:00Z")
        #expect(try Self.checker().check([timeSensitive]).isClean)
        // After the change to summer time, 23:00 in Berlin is 21:00 UTC.
        let afterDST = LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 12, at: "2026-03-29T21:00:00Z")
        #expect(try Self.checker().check([afterDST]).violations.first?.localTime == "2026-03-29 23:00:00 +02:00")
    }

    @Test("a third dose reminder in a day breaks the cap")
    func thirdDoseReminder() throws {
        let records = [
            LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 1, at: "2026-03-28T07:00:00Z"),
            LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 2, at: "2026-03-28T12:00:00Z"),
            LinkPolicyFixtures.apns(Payload.doseReminder(protocolID: "p2"), sequence: 3, at: "2026-03-28T19:00:00Z"),
        ]
        let report = try Self.checker().check(records)
        #expect(report.violations.map(\.rule) == ["dose-reminders-per-day"])
        let violation = try #require(report.violations.first)
        #expect(violation.notification.sequence == 3)
        #expect(violation.related.map(\.sequence) == [1, 2])
        #expect(violation.message == "3rd dose-reminder notification in the calendar day 2026-03-28 (Europe/Berlin) (limit 2)")
        // Two are fine; the next local day starts afresh.
        #expect(try Self.checker().check(records.prefix(2)).isClean)
        let nextDay = LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 4, at: "2026-03-29T07:00:00Z")
        #expect(try Self.checker().check(Array(records.prefix(2)) + [nextDay]).isClean)
    }

    @Test("the third marketing message in 7 days breaks the cap")
    func thirdMarketing() throws {
        let records = [
            LinkPolicyFixtures.apns(Payload.marketing("Loop Plus"), sequence: 1, at: "2026-03-23T10:00:00Z"),
            LinkPolicyFixtures.apns(Payload.marketing("Refer a friend"), sequence: 2, at: "2026-03-26T10:00:00Z"),
            LinkPolicyFixtures.apns(Payload.marketing("Spring sale"), sequence: 3, at: "2026-03-29T09:59:59Z"),
        ]
        let report = try Self.checker().check(records)
        // Sunday 29 March: also outside the weekday marketing window.
        #expect(report.violations.map(\.rule) == ["marketing-per-week", "marketing-weekday-daytime"])
        #expect(report.violations.first?.related.map(\.title) == ["Loop Plus", "Refer a friend"])
        // Seven days after the first, it no longer counts.
        var later = records[2]
        later.timeMilliseconds = LinkPolicyFixtures.time("2026-03-30T10:00:00Z")
        #expect(try Self.checker().check([records[0], records[1], later]).isClean)
    }

    @Test("the report, as text and as JSON")
    func report() throws {
        let records = [
            LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 1, at: "2026-03-28T07:00:00Z"),
            LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 2, at: "2026-03-28T12:00:00Z"),
            LinkPolicyFixtures.apns(Payload.doseReminder(), sequence: 3, at: "2026-03-28T22:00:00Z"),
            LinkPolicyFixtures.apns(
                #"{"aps":{"content-available":1},"tz":"Europe/Berlin"}"#, sequence: 4, at: "2026-03-28T22:30:00Z", pushType: "background",
                priority: 10),
        ]
        let report = try Self.checker().check(records)
        #expect(
            report.text == """
                Policy "Loop notification policy": 3 violations in 4 notifications (1 quiet-hours, 1 frequency-cap, 1 priority)
                #3 2026-03-28T22:00:00.000Z apns 740f4707… "Time for your Semaglutide" [dose-reminder]
                  quiet-hours "night": sent at 23:00 local time (Europe/Berlin), inside quiet hours 22:00–08:00
                  frequency-cap "dose-reminders-per-day": 3rd dose-reminder notification in the calendar day 2026-03-28 (Europe/Berlin) (limit 2); related: #1 2026-03-28T07:00:00.000Z, #2 2026-03-28T12:00:00.000Z
                #4 2026-03-28T22:30:00.000Z apns 740f4707…
                  priority "silent-pushes-priority-5": apns-priority 10; the rule allows 5
                """)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(report)
        #expect(try JSONDecoder().decode(PolicyReport.self, from: data) == report)
        let json = try JSONValue(parsing: Array(data))
        #expect(json["violationCount"] == 3)
        #expect(json["policy"] == "Loop notification policy")
        #expect(json["violations"]?[1]?["kind"] == "frequency-cap")
        #expect(json["violations"]?[1]?["related"]?[0]?["sequence"] == 1)
        #expect(json["violations"]?[0]?["notification"]?["token"] == .string(LinkPolicyFixtures.token))
        #expect(report.violations(sequence: 3).count == 2)
    }

    @Test("rule kinds have stable names")
    func kindNames() {
        #expect(
            PolicyRuleKind.all.map(\.rawValue) == [
                "time-zone", "quiet-hours", "frequency-cap", "minimum-spacing", "priority", "delivery-window", "opted-out", "event-timing",
                "event-instance", "canceled",
            ])
    }

    static func users() throws -> UserDirectory {
        try JSONDecoder().decode(
            UserDirectory.self, from: Data(contentsOf: URL(fileURLWithPath: LinkPolicyFixtures.loopDirectory + "/users.json")))
    }

    @Test("users.json: each user's own zone and preferences, not the payload's tz")
    func users() throws {
        let checker = PolicyChecker(policy: try LinkPolicyFixtures.loopPolicy(), users: try Self.users())
        let sam = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
        // 01:30 UTC Saturday: 02:30 in Berlin (the payload's tz), 21:30 Friday in New York.
        let late = LinkPolicyFixtures.apns(Payload.protocolUpdated, sequence: 1, at: "2026-03-28T01:30:00Z", token: sam)
        let report = checker.check([late])
        #expect(report.violations.map(\.rule) == ["users.sam.quietHours[0]"], "\(report)")
        #expect(report.violations.first?.localTime == "2026-03-27 21:30:00 -04:00")
        // Sam opted out of marketing; on a weekday afternoon in New York that is the only problem.
        let promo = LinkPolicyFixtures.apns(Payload.marketing(), sequence: 2, at: "2026-03-25T18:00:00Z", token: sam)
        #expect(checker.check([promo]).violations.map(\.kind) == [.optedOut])
        // Maya (Berlin) may get it.
        #expect(checker.check([LinkPolicyFixtures.apns(Payload.marketing(), sequence: 3, at: "2026-03-25T12:00:00Z")]).isClean)
    }
}
