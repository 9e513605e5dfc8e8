import Foundation
import Testing

/// `pushmock recordings` and `pushmock expect` as a CI script uses them: a `pushmock serve`
/// process, `pushmock send` as the code under test, then checks against the gateway and
/// against the journal file, with the exit statuses CI acts on.
@Suite("pushmock recordings and expect (process)", .serialized)
struct ExpectCommandTests {
    static let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static let otherToken = "0a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a"
    static let lateToken = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

    struct Session {
        let server: ServeProcess

        var url: String { "http://127.0.0.1:\(server.cleartextPort)" }

        /// `pushmock send apns` with the served sample credentials.
        func send(token: String, title: String) async throws {
            let result = try await run(
                ServeProcess.binary,
                [
                    "send", "apns", "--ready-file", server.directory + "/ready.json", "--token", token,
                    "--title", title, "--body", "Tap to log it", "--progress", "never",
                ], directory: server.directory)
            try #require(result.status == 0, "pushmock send: \(result.error)")
        }

        /// `pushmock <arguments> --server <this gateway>`.
        func pushmock(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
            try await run(ServeProcess.binary, arguments + ["--server", url], directory: server.directory)
        }

        /// `pushmock <arguments> --journal <this gateway's journal>`.
        func offline(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
            try await run(ServeProcess.binary, arguments + ["--journal", server.journalPath], directory: server.directory)
        }
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    @Test("exactly one alert with this title: passes, fails with the nearest misses, JSON and JUnit; against the gateway and the journal")
    func expectExactlyOne() async throws {
        let session = Session(server: try await ServeProcess())
        defer { session.server.kill(); session.server.removeDirectory() }
        try await session.send(token: Self.token, title: "Time for your BPC-157")
        try await session.send(token: Self.token, title: "Time for your TB-500")

        let title = ["--token", Self.token, "--json-path", "$.aps.alert.title=Time for your BPC-157"]
        for offline in [false, true] {
            func check(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
                offline ? try await session.offline(arguments) : try await session.pushmock(arguments)
            }
            let met = try await check(["expect", "--count", "1"] + title)
            #expect(met.status == 0, "\(met.output)\(met.error)")
            #expect(met.output.contains("✓ expected exactly 1 exchange"))

            let wrong = try await check(["expect", "--token", Self.token, "--json-path", "$.aps.alert.title=Time for your BPC-158"])
            #expect(wrong.status == 1)
            #expect(wrong.output.contains("✗ expected exactly 1 exchange"))
            #expect(wrong.output.contains("nearest misses"))
            #expect(wrong.output.contains("expected Time for your BPC-158, got Time for your BPC-157"))

            let absent = try await check(["expect", "--token", Self.otherToken, "--none"])
            #expect(absent.status == 0, "\(absent.output)")
            let notAbsent = try await check(["expect", "--token", Self.token, "--none"])
            #expect(notAbsent.status == 1)

            let report = try json(try await check(["expect", "--token", Self.token, "--at-least", "3", "--json"]).output)
            #expect(report["passed"] as? Bool == false)
            let result = try #require((report["results"] as? [[String: Any]])?.first)
            #expect(result["matchedCount"] as? Int == 2)
        }

        // The directory does not exist yet: it is created, and the verdict is printed as well.
        let junitPath = session.server.directory + "/reports/push.xml"
        let failing = try await session.pushmock(["expect", "--name", "dose reminder", "--token", Self.otherToken, "--junit", junitPath])
        #expect(failing.status == 1)
        #expect(failing.output.contains("dose reminder"), "\(failing.output)")
        let junit = try String(contentsOfFile: junitPath, encoding: .utf8)
        #expect(junit.contains(#"<testsuites tests="1" failures="1">"#))
        #expect(junit.contains("dose reminder"))
    }

    @Test("--within waits for an asynchronous sender; --file judges many expectations and an order")
    func waitingAndFiles() async throws {
        let session = Session(server: try await ServeProcess())
        defer { session.server.kill(); session.server.removeDirectory() }
        try await session.send(token: Self.token, title: "Supplies running low")

        let (url, directory) = (session.url, session.server.directory)
        async let waiting = run(
            ServeProcess.binary, ["expect", "--token", Self.lateToken, "--within", "120s", "--server", url], directory: directory)
        try await Task.sleep(for: .milliseconds(500))
        try await session.send(token: Self.lateToken, title: "Lab results ready")
        let waited = try await waiting
        #expect(waited.status == 0, "\(waited.output)\(waited.error)")

        let file = session.server.directory + "/expectations.json"
        try Data(
            #"""
            {"expectations": [
               {"name": "supplies", "query": {"token": "\#(Self.token)", "payload": [{"path": "$.aps.alert.title", "op": "=", "value": "Supplies running low"}]}},
               {"name": "nothing else", "query": {"token": "\#(Self.otherToken)"}, "count": 0}
             ],
             "order": [{"name": "supplies before labs", "steps": [{"token": "\#(Self.token)"}, {"token": "\#(Self.lateToken)"}]}]}
            """#.utf8
        ).write(to: URL(fileURLWithPath: file))
        let batch = try await session.pushmock(["expect", "--file", file])
        #expect(batch.status == 0, "\(batch.output)")
        #expect(batch.output.contains("3 of 3 expectations met"))
        let offline = try await session.offline(["expect", "--file", file])
        #expect(offline.status == 0, "\(offline.output)")
    }

    @Test("recordings: list with the query flags, paging, show, clear by namespace")
    func recordings() async throws {
        let session = Session(server: try await ServeProcess())
        defer { session.server.kill(); session.server.removeDirectory() }
        for title in ["One", "Two", "Three"] { try await session.send(token: Self.token, title: title) }

        let listed = try await session.pushmock(["recordings", "--json-path", "$.aps.alert.title~T*"])
        #expect(listed.status == 0)
        let lines = listed.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("\"Three\"") == true, "newest first")

        let page = try json(try await session.pushmock(["recordings", "--limit", "2", "--order", "oldest", "--json"]).output)
        #expect(page["count"] as? Int == 2)
        #expect(page["next"] as? Int == 2)

        let journalPage = try json(try await session.offline(["recordings", "--token", Self.token, "--json"]).output)
        #expect(journalPage["count"] as? Int == 3)

        // Free text, any case, answered by the gateway and from the journal alike.
        let searched = try json(try await session.pushmock(["recordings", "--text", "tHREE", "--json"]).output)
        #expect(searched["count"] as? Int == 1)
        let searchedOffline = try json(try await session.offline(["recordings", "--text", "two", "--json"]).output)
        #expect(searchedOffline["count"] as? Int == 1)
        #expect(try await session.pushmock(["expect", "--text", "one", "--count", "1"]).status == 0)

        let shown = try json(try await session.pushmock(["recordings", "show", "1"]).output)
        #expect(shown["seq"] as? Int == 1)

        let cleared = try await session.pushmock(["recordings", "clear", "--namespace", "dev.pushmock.sample"])
        #expect(cleared.output.contains("cleared 3"))
        #expect(try await session.pushmock(["expect", "--none"]).status == 0)
    }

    @Test("--since -1h means an hour before the gateway's clock (virtual here), or this machine's with --journal")
    func relativeSince() async throws {
        let session = Session(server: try await ServeProcess())
        defer { session.server.kill(); session.server.removeDirectory() }
        try await session.send(token: Self.token, title: "Two hours ago")
        // The gateway's clock moves two hours ahead of this machine's: on the gateway's clock the
        // push is two hours old; on this machine's it is seconds old.
        #expect(try await session.pushmock(["clock", "advance", "2h"]).status == 0)

        let lastHour = try json(try await session.pushmock(["recordings", "--since", "-1h", "--json"]).output)
        #expect(lastHour["count"] as? Int == 0)
        let lastThreeHours = try json(try await session.pushmock(["recordings", "--since", "-3h", "--json"]).output)
        #expect(lastThreeHours["count"] as? Int == 1)
        let untilNow = try json(try await session.pushmock(["recordings", "--until", "now", "--json"]).output)
        #expect(untilNow["count"] as? Int == 1)

        // expect builds its query here and sends it as JSON: it must read the gateway's clock too.
        let none = try await session.pushmock(["expect", "--since", "-1h", "--none"])
        #expect(none.status == 0, "\(none.output)\(none.error)")
        let one = try await session.pushmock(["expect", "--since", "-3h", "--count", "1"])
        #expect(one.status == 0, "\(one.output)\(one.error)")

        let offline = try json(try await session.offline(["recordings", "--since", "-1h", "--json"]).output)
        #expect(offline["count"] as? Int == 1, "the journal is read against this machine's clock")

        let bad = try await session.pushmock(["recordings", "--since", "yesterday"])
        #expect(bad.status == 64)
        #expect(
            bad.error.contains("since=yesterday: ISO 8601 (2026-11-21T10:00:00Z), milliseconds, now, -2h, +5m or 10:02"), "\(bad.error)")
    }

    @Test("the REST API as any language uses it: curl over HTTP/1.1, 200 or 417, text and JUnit")
    func restWithCurl() async throws {
        let session = Session(server: try await ServeProcess())
        defer { session.server.kill(); session.server.removeDirectory() }
        try await session.send(token: Self.token, title: "Time for your BPC-157")
        let curl = try #require(tool("curl"), "curl is required (Debian package curl)")
        func post(_ body: String, format: String) async throws -> (status: Int, body: String) {
            let result = try await run(
                curl,
                [
                    "-s", "--http1.1", "-w", "\n%{http_code}", "-X", "POST", "-H", "content-type: application/json",
                    "-d", body, "\(session.url)/_pushmock/expectations?format=\(format)",
                ])
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }
        let met = try await post(
            #"{"query":{"token":"\#(Self.token)","payload":[{"path":"$.aps.alert.title","op":"=","value":"Time for your BPC-157"}]},"count":1}"#,
            format: "text")
        #expect(met.status == 200)
        #expect(met.body.hasPrefix("✓"))
        let unmet = try await post(
            #"{"name":"dose reminder","query":{"token":"\#(Self.token)","payload":[{"path":"$.aps.alert.title","op":"=","value":"Time for your TB-500"}]}}"#,
            format: "junit")
        #expect(unmet.status == 417)
        #expect(unmet.body.contains(#"<testcase name="dose reminder""#))
        #expect(unmet.body.contains("got Time for your BPC-157"))
        let listed = try await run(
            curl, ["-s", "--http1.1", "\(session.url)/_pushmock/recordings?token=\(Self.token)&where=%24.aps.alert.title~Time*"])
        #expect(try json(listed.output)["count"] as? Int == 1)
    }

    @Test("exactly one alert with this title whose deep link opens /protocols/p1/log (route table)")
    func deepLink() async throws {
        let session = Session(server: try await ServeProcess())
        defer { session.server.kill(); session.server.removeDirectory() }
        let payload = #"{"aps":{"alert":{"title":"Time for your BPC-157"}},"deep_link":"loop://protocols/p2/log"}"#
        let sent = try await run(
            ServeProcess.binary,
            [
                "send", "apns", "--ready-file", session.server.directory + "/ready.json", "--token", Self.token,
                "--payload-json", payload, "--progress", "never",
            ], directory: session.server.directory)
        try #require(sent.status == 0, "\(sent.error)")
        let routes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/LoopHealth/pushmock/routes.json").path
        let title = ["expect", "--token", Self.token, "--json-path", "$.aps.alert.title=Time for your BPC-157", "--routes", routes]
        for check in [session.pushmock, session.offline] as [([String]) async throws -> (status: Int32, output: String, error: String)] {
            let wrong = try await check(title + ["--opens", "/protocols/p1/log"])
            #expect(wrong.status == 1)
            #expect(wrong.output.contains("deepLink: expected opens /protocols/p1/log"), "\(wrong.output)")
            #expect(wrong.output.contains("-> /protocols/p2/log"), "\(wrong.output)")
            let right = try await check(title + ["--opens", "/protocols/{id}/log", "--link-parameter", "id=p2"])
            #expect(right.status == 0, "\(right.output)")
        }
        #expect(try await session.pushmock(["expect", "--opens", "/x"]).status == 2)
    }

    @Test("exit statuses: 2 when the check cannot run, bad flags included (64 for recordings, which is no check)")
    func exitStatuses() async throws {
        #expect(try await run(ServeProcess.binary, ["expect", "--server", "http://127.0.0.1:1"]).status == 2)
        #expect(try await run(ServeProcess.binary, ["expect", "--journal", "/nonexistent/journal.jsonl"]).status == 2)
        // A directory opens but cannot be read: it was taken for a journal without records, and
        // `--none` passed.
        let directory = try await run(ServeProcess.binary, ["expect", "--journal", "/", "--none"])
        #expect(directory.status == 2)
        #expect(directory.error == "pushmock: cannot read /: Is a directory (errno 21)\n")
        // A file's `within` is held to `--within`'s five minutes against a journal too (it
        // waited the whole million hours), and a misspelt member is no default left in force.
        let folder = NSTemporaryDirectory() + "pushmock-expect-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (body, message) in [
            (#"{"query":{"platform":"apns"},"within":"1000000h"}"#, "within is at most 300s"),
            (#"{"query":{"platfrm":"apns"},"count":{"atLeast":1}}"#, #"unknown member "platfrm" in a query"#),
        ] {
            try body.write(toFile: folder + "/e.json", atomically: true, encoding: .utf8)
            let judged = try await run(ServeProcess.binary, ["expect", "--file", folder + "/e.json", "--journal", "/dev/null"])
            #expect(judged.status == 2, "\(body)")
            #expect(judged.error.contains(message), "\(judged.error)")
        }
        #expect(try await run(ServeProcess.binary, ["expect", "--count", "1", "--none"]).status == 2)
        #expect(try await run(ServeProcess.binary, ["expect", "--json-path", "$.[bad"]).status == 2)
        #expect(try await run(ServeProcess.binary, ["expect", "--no-such-flag"]).status == 2)
        #expect(try await run(ServeProcess.binary, ["expect", "--help"]).status == 0)
        #expect(try await run(ServeProcess.binary, ["recordings", "--order", "sideways"]).status == 64)
    }
}
