// An example to copy: the team's own rules — each user's time zone and quiet hours, a delivery
// window — checked against what the code under test sent, on a virtual clock.
import Foundation
import PushMockTesting
import Testing

@Suite("Example: dose reminders keep each user's quiet hours and the delivery window")
struct DoseReminderPolicyTests {
    let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"

    /// Loop's rules: dose reminders (APNs category DOSE_REMINDER) only 07:00–22:00 in the user's
    /// zone; the users' own quiet hours hold for everything but critical alerts.
    static let policy = #"""
        {"version": 1, "name": "Loop dose reminders",
         "types": [{"name": "dose-reminder", "match": {"path": "$.aps.category", "equals": "DOSE_REMINDER"}}],
         "deliveryWindows": [{"name": "dose-daytime", "types": ["dose-reminder"], "start": "07:00", "end": "22:00",
                              "exemptInterruptionLevels": ["critical"]}],
         "userRules": {"exemptInterruptionLevels": ["critical"]}}
        """#

    @Test("22:00 in New York breaks Sam's quiet hours and the window; 09:00 is fine")
    func nightAndMorning() async throws {
        try await withPushMock { mock in
            // Sam lives in New York and asked for quiet from 21:00 to 07:00.
            try mock.addUser(
                PushUser(
                    id: "sam", timeZone: "America/New_York", locale: "en-US", tokens: [token],
                    preferences: UserPreferences(quietHours: [try UserQuietHours(start: "21:00", end: "07:00")])))
            let notifier = LoopNotifier(sender: mock.apnsSender)

            mock.clock.freeze()
            // Friday 22:00 in New York.
            mock.clock.set(to: Timestamp(millisecondsSince1970: ISO8601Milliseconds.parse("2026-03-28T02:00:00Z")!))
            try await notifier.sendDoseReminder(to: token, for: .init(id: "p1", compoundName: "BPC-157"))
            mock.clock.advance(by: .seconds(11 * 3600))  // Sat 09:00 in New York: the sender keeps working
            try await notifier.sendDoseReminder(to: token, for: .init(id: "p1", compoundName: "BPC-157"))

            let report = mock.checkPolicy(try PolicyFile(parsing: Self.policy))
            #expect(Set(report.violations(sequence: 1).map(\.rule)) == ["users.sam.quietHours[0]", "dose-daytime"], "\(report)")
            #expect(report.violations(sequence: 1).first?.timeZone == "America/New_York")
            #expect(report.violations(sequence: 2).isEmpty, "\(report)")
        }
    }
}
