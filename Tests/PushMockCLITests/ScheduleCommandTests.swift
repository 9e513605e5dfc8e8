import Foundation
import Testing

/// `pushmock check schedule`: an in-app notification config played over the app events posted
/// to a `pushmock serve` process with a frozen clock, and over an exported users file.
@Suite("pushmock check schedule (process)", .serialized)
struct ScheduleCommandTests {
    static let config = #"""
        {"notifications": {
          "completeSetupReminder": {"title": "Complete Setup", "cancelationEvents": ["completeSetup"],
            "deliveryTimeOfDayStart": "09:00", "deliveryTimeOfDayEnd": "21:00",
            "deliveryTime": {"eventName": "app_entered_background", "eventOffsetSeconds": 600}},
          "nudge": {"deliveryTime": {"eventName": "habit_logged", "eventOffsetSeconds": 600},
            "idealDeliveryConditions": {"condition": "has_wifi", "maxWaitTimeSeconds": 1800}}}}
        """#

    @Test("windows, ideal conditions and the fallback from CLI events; the same from an exported users file; bad configs exit 2")
    func schedule() async throws {
        let directory = NSTemporaryDirectory() + "pushmock-schedule-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(#"{"users": [{"id": "ada", "timeZone": "Europe/Oslo"}]}"#.utf8).write(to: URL(fileURLWithPath: directory + "/config.json"))
        try Data(Self.config.utf8).write(to: URL(fileURLWithPath: directory + "/notifications.json"))
        try Data(#"{"notifications": {"n": {"deliveryTime": {"eventName": "x"}, "scheduleCondition": "isTablet()"}}}"#.utf8)
            .write(to: URL(fileURLWithPath: directory + "/bad.json"))
        let server = try await ServeProcess(
            arguments: ["--config", directory + "/config.json", "--clock-start", "2026-01-05T19:55:00Z", "--freeze-clock"],
            directory: directory)
        defer { server.kill() }
        let url = "http://127.0.0.1:\(server.cleartextPort)"
        func pushmock(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
            try await run(ServeProcess.binary, arguments + ["--server", url], directory: directory)
        }
        // 20:55 Oslo: leaves the app (due 21:05 → next morning 09:00); logs a habit without wifi.
        for arguments in [
            ["user", "event", "ada", "app_entered_background"], ["user", "event", "ada", "habit_logged", "--property", "has_wifi=false"],
        ] {
            let posted = try await pushmock(arguments)
            try #require(posted.status == 0, "\(posted.output)\(posted.error)")
        }
        #expect(try await pushmock(["clock", "advance", "12h10m"]).status == 0)
        let schedule = try await pushmock([
            "check", "schedule", "--config", "notifications.json", "--user", "ada", "--from", "2026-01-05T19:00:00Z",
        ])
        #expect(schedule.status == 0, "\(schedule.output)\(schedule.error)")
        #expect(schedule.output.contains("2026-01-05T19:00:00.000Z … 2026-01-06T08:05:00.000Z"), "\(schedule.output)")
        #expect(
            schedule.output.contains("2026-01-06T08:00:00.000Z (Tue 2026-01-06 09:00) moved into the delivery window"), "\(schedule.output)"
        )
        // Due 20:05 UTC, no wifi for the half hour: delivered when the wait ends.
        #expect(schedule.output.contains("2026-01-05T20:35:00.000Z (Mon 2026-01-05 21:35) ideal delivery wait ended"), "\(schedule.output)")

        // Negative durations and relative times are values, not options (they were refused as
        // unknown short options).
        let back = try await pushmock(["clock", "advance", "-10m", "--json"])
        #expect(back.status == 0, "\(back.error)")
        #expect(back.output.contains("2026-01-06T07:55:00.000Z"), "\(back.output)")
        #expect(try await pushmock(["clock", "advance", "10m"]).status == 0)
        let relative = try await pushmock(["check", "schedule", "--config", "notifications.json", "--user", "ada", "--from", "-13h"])
        #expect(relative.status == 0, "\(relative.error)")
        #expect(relative.output.contains("2026-01-05T19:05:00.000Z … 2026-01-06T08:05:00.000Z"), "\(relative.output)")

        let export = try await pushmock(["user", "export", "--output", directory + "/users.json"])
        #expect(export.status == 0, "\(export.error)")
        let offline = try await run(
            ServeProcess.binary,
            [
                "check", "schedule", "--config", "notifications.json", "--user", "ada", "--from", "2026-01-05T19:00:00Z", "--until",
                "2026-01-06T12:00:00Z", "--users", "users.json", "--check-every", "5m",
            ], directory: directory)
        #expect(offline.status == 0, "\(offline.output)\(offline.error)")
        #expect(offline.output.contains("completeSetupReminder: 1 delivered, delivered"), "\(offline.output)")
        let json = try await pushmock([
            "check", "schedule", "--config", "notifications.json", "--user", "ada", "--from", "2026-01-05T19:00:00Z", "--json",
        ])
        #expect(json.status == 0, "\(json.error)")
        #expect(json.output.contains(#""reason" : "moved-into-window""#), "\(json.output)")

        let bad = try await pushmock(["check", "schedule", "--config", "bad.json", "--user", "ada", "--from", "now"])
        #expect(bad.status == 2)
        #expect(
            bad.error.contains("notifications.n.scheduleCondition: the function isTablet() is not one PushMock evaluates"), "\(bad.error)")
        let unknown = try await pushmock(["check", "schedule", "--config", "notifications.json", "--user", "zed", "--from", "now"])
        #expect(unknown.status == 2)
        #expect(unknown.error.contains("no user \"zed\""), "\(unknown.error)")
    }
}
