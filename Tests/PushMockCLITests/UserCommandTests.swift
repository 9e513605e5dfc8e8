import Foundation
import PushMockJSON
import Testing

/// `pushmock user …`, `check policy --users` and `check contracts` against `pushmock serve`
/// started as a process with users in its config file.
@Suite("pushmock user and the stories checks (process)", .serialized)
struct UserCommandTests {
    static let ada = String(repeating: "a1", count: 32)
    static let bob = String(repeating: "b2", count: 32)

    static let policy = #"""
        {"version": 1,
         "types": [{"name": "promo", "match": {"path": "$.aps.alert.title", "equals": "Sale"}},
                   {"name": "setup", "match": {"path": "$.aps.alert.title", "equals": "Finish setup"}}],
         "eventRules": [{"name": "setup-after-background", "types": ["setup"],
                         "deliveryTime": {"eventName": "app_entered_background", "eventOffsetSeconds": 600}}]}
        """#

    static let contracts = #"""
        {"version": 1, "typeField": "kind", "data": ["$.aps.alert"],
         "contracts": [{"name": "alert", "schema": {"type": "object", "required": ["title", "body"],
                                                      "properties": {"title": {"type": "string", "maxLength": 5}}}}]}
        """#

    @Test("users from the config file and the CLI; events; opt-outs and event rules caught; export for journal checks")
    func usersAndPolicy() async throws {
        let directory = NSTemporaryDirectory() + "pushmock-users-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/config.json"
        try Data(#"{"users": [{"id": "ada", "timeZone": "Europe/Oslo", "tokens": ["\#(Self.ada)"]}]}"#.utf8).write(
            to: URL(fileURLWithPath: config))
        try Data(Self.policy.utf8).write(to: URL(fileURLWithPath: directory + "/policy.json"))
        try Data(Self.contracts.utf8).write(to: URL(fileURLWithPath: directory + "/contracts.json"))
        // A fixed noon in New York: bob's quiet hours (21:00–07:00 there) must not depend on
        // when the test runs (it failed between 02:00 and 12:00 UTC).
        let server = try await ServeProcess(
            arguments: ["--config", config, "--clock-start", "2026-06-15T16:00:00Z"], directory: directory)
        defer { server.kill() }
        let url = "http://127.0.0.1:\(server.cleartextPort)"
        func pushmock(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
            try await run(ServeProcess.binary, arguments + ["--server", url], directory: directory)
        }
        func send(_ token: String, _ title: String) async throws {
            let result = try await run(
                ServeProcess.binary,
                [
                    "send", "apns", "--ready-file", directory + "/ready.json", "--token", token, "--title", title, "--body", "x",
                    "--progress", "never",
                ], directory: directory)
            try #require(result.status == 0, "pushmock send: \(result.output)\(result.error)")
        }

        let added = try await pushmock([
            "user", "add", "bob", "--tz", "America/New_York", "--locale", "en-US", "--token", Self.bob, "--opt-out-type", "promo",
            "--quiet", "21:00-07:00", "--cap", "2/day=promo",
        ])
        #expect(added.status == 0, "\(added.output)\(added.error)")
        #expect(added.output.contains("bob  America/New_York  en-US  1 token"), "\(added.output)")
        let bad = try await pushmock(["user", "add", "carl", "--tz", "Nowhere/Atlantis"])
        #expect(bad.status != 0)
        #expect(bad.error.contains("not a time zone"), "\(bad.error)")

        let event = try await pushmock(["user", "event", "ada", "app_entered_background", "--property", "screen=home"])
        #expect(event.status == 0, "\(event.output)\(event.error)")
        #expect(event.output.contains("ada: app_entered_background #1"), "\(event.output)")
        let list = try await pushmock(["user", "list"])
        #expect(list.output.contains("ada  Europe/Oslo  1 token  1 event"), "\(list.output)")
        #expect(list.output.contains("bob  America/New_York"), "\(list.output)")

        try await send(Self.bob, "Sale")  // opted out
        try await send(Self.ada, "Finish setup")  // right after the event: too early
        try await send(Self.ada, "Hello")  // fine

        let checked = try await pushmock(["check", "policy", "--policy", directory + "/policy.json", "--json"])
        #expect(checked.status == 1, "\(checked.output)\(checked.error)")
        let violations = try #require(try JSONValue(parsing: checked.output)["report"]?["violations"]?.arrayValue)
        #expect(violations.map { $0["kind"]?.stringValue } == ["opted-out", "event-timing"], "\(checked.output)")
        #expect(violations.last?["event"]?["name"] == "app_entered_background")

        // The same verdict on the journal, given the exported users and events.
        let export = try await pushmock(["user", "export", "--output", directory + "/users.json"])
        #expect(export.status == 0, "\(export.error)")
        let offline = try await run(
            ServeProcess.binary,
            [
                "check", "policy", "--policy", directory + "/policy.json", "--journal", directory + "/journal.jsonl", "--users",
                directory + "/users.json",
            ], directory: directory)
        #expect(offline.status == 1, "\(offline.output)\(offline.error)")
        #expect(offline.output.contains("(1 opted-out, 1 event-timing)"), "\(offline.output)")
        // Without the users the journal alone cannot know who opted out.
        let bare = try await run(
            ServeProcess.binary, ["check", "policy", "--policy", directory + "/policy.json", "--journal", directory + "/journal.jsonl"],
            directory: directory)
        #expect(!bare.output.contains("opted-out"), "\(bare.output)")
        // A users file is held to `user add`'s rules: an unknown zone is not judged against.
        try #"{"users":[{"id":"carl","timeZone":"Nowhere/Atlantis","tokens":["ab"]}]}"#.write(
            toFile: directory + "/bad-users.json", atomically: true, encoding: .utf8)
        let badUsers = try await run(
            ServeProcess.binary,
            [
                "check", "policy", "--policy", directory + "/policy.json", "--journal", directory + "/journal.jsonl", "--users",
                directory + "/bad-users.json",
            ], directory: directory)
        #expect(badUsers.status != 0 && badUsers.status != 1, "\(badUsers.output)\(badUsers.error)")
        #expect(badUsers.error.contains(#"users[0] ("carl"): "Nowhere/Atlantis" is not a time zone"#), "\(badUsers.error)")

        let contracts = try await pushmock(["check", "contracts", "--contracts", directory + "/contracts.json"])
        #expect(contracts.status == 1, "\(contracts.output)\(contracts.error)")
        #expect(contracts.output.contains("1 violation in 3 notifications"), "\(contracts.output)")
        #expect(contracts.output.contains("alert /title"), "\(contracts.output)")

        let removed = try await pushmock(["user", "remove", "--all"])
        #expect(removed.status == 0)
        #expect(try await pushmock(["user", "list"]).output.contains("no users"))
    }
}
