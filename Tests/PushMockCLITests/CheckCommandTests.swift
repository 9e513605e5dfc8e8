import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import Testing

/// `pushmock check links|policy` as CI runs it: the built binary on a journal file (no gateway),
/// and once against a running `pushmock serve`.
@Suite("pushmock check (process)")
struct CheckCommandTests {
    static let loopExamples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/LoopHealth/pushmock").path
    static let token = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"

    static func time(_ iso: String) -> Int64 { ISO8601Milliseconds.parse(iso) ?? 0 }

    static func apns(_ sequence: UInt64, at iso: String, _ payload: String) -> ExchangeRecord {
        ExchangeRecord(
            sequence: sequence,
            timeMilliseconds: time(iso),
            platform: .apns,
            request: RequestInfo(
                method: "POST", path: "/3/device/\(token)", body: RecordedBody(capturing: Array(payload.utf8)), bodySize: payload.utf8.count
            ),
            notification: NotificationInfo(
                token: token, topic: "health.loop.app", pushType: "alert", priority: 10, messageID: "id-\(sequence)"),
            response: ResponseInfo(status: 200)
        )
    }

    static func fcm(_ sequence: UInt64, at iso: String, _ message: String) -> ExchangeRecord {
        let body = #"{"message":\#(message)}"#
        return ExchangeRecord(
            sequence: sequence,
            timeMilliseconds: time(iso),
            platform: .fcm,
            request: RequestInfo(
                method: "POST", path: "/v1/projects/loop-health/messages:send", body: RecordedBody(capturing: Array(body.utf8)),
                bodySize: body.utf8.count),
            notification: NotificationInfo(
                token: "fcm-token-1", messageID: "projects/loop-health/messages/\(sequence)", project: "loop-health",
                resolvedTokens: ["fcm-token-1"]),
            response: ResponseInfo(status: 200)
        )
    }

    /// A journal: a good dose reminder, a marketing push at 23:30 Berlin time whose link only
    /// reaches the fallback, and an FCM lab result with its link in `data`.
    static func writeJournal(in directory: String) throws -> String {
        let records = [
            apns(
                1, at: "2026-03-28T12:00:00Z",
                #"{"aps":{"alert":{"title":"Time for BPC-157"}},"type":"dose_reminder","deep_link":"loop://protocols/p1/log"}"#),
            apns(2, at: "2026-03-28T22:30:00Z", #"{"aps":{"alert":{"title":"20% off"}},"type":"marketing","deep_link":"loop://settings"}"#),
            fcm(
                3, at: "2026-03-28T13:00:00Z",
                #"{"token":"fcm-token-1","notification":{"title":"Lab results ready"},"data":{"type":"lab_results","deep_link":"loop://labs/L1"}}"#
            ),
        ]
        let path = directory + "/journal.jsonl"
        var bytes: [UInt8] = []
        for record in records {
            bytes += record.jsonLine
            if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "pushmock-check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("check links on a journal: exit 1 with the problem, 0 when the query leaves good links, JSON and JUnit")
    func links() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Self.writeJournal(in: directory)
        let routes = Self.loopExamples + "/routes.json"

        let failed = try await run(ServeProcess.binary, ["check", "links", "--routes", routes, "--journal", journal])
        #expect(failed.status == 1, "\(failed.output)\(failed.error)")
        #expect(failed.output.hasPrefix("Deep links: 3 notifications, 3 links, 1 problem (1 fallback)"), "\(failed.output)")
        #expect(failed.output.contains("#2"))
        #expect(failed.output.contains("loop://settings"))

        let fcmOnly = try await run(
            ServeProcess.binary, ["check", "links", "--routes", routes, "--journal", journal, "--platform", "fcm", "--verbose"])
        #expect(fcmOnly.status == 0, "\(fcmOnly.output)\(fcmOnly.error)")
        #expect(fcmOnly.output.contains("$.message.data.deep_link: loop://labs/L1 -> /labs/L1"), "\(fcmOnly.output)")

        let allowed = try await run(ServeProcess.binary, ["check", "links", "--routes", routes, "--journal", journal, "--allow-fallback"])
        #expect(allowed.status == 0, "\(allowed.output)")

        // The report's directory is created; `-` sends the report alone to standard output.
        let junitPath = directory + "/reports/junit/links.xml"
        let json = try await run(
            ServeProcess.binary, ["check", "links", "--routes", routes, "--journal", journal, "--json", "--junit", junitPath])
        #expect(json.status == 1)
        let outcome = try JSONValue(parsing: json.output)
        #expect(outcome["passed"]?.boolValue == false)
        #expect(outcome["report"]?["problemCount"]?.intValue == 1)
        let xml = try String(contentsOfFile: junitPath, encoding: .utf8)
        #expect(xml.contains(#"tests="3" failures="1""#), "\(xml)")
        let toStandardOutput = try await run(
            ServeProcess.binary, ["check", "links", "--routes", routes, "--journal", journal, "--junit", "-"], directory: directory)
        #expect(toStandardOutput.status == 1)
        #expect(toStandardOutput.output == xml, "\(toStandardOutput.output)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/-"))
    }

    @Test("check policy on a journal: the quiet-hours violation names the notification and the rule")
    func policy() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Self.writeJournal(in: directory)
        let result = try await run(
            ServeProcess.binary, ["check", "policy", "--policy", Self.loopExamples + "/policy.json", "--journal", journal])
        #expect(result.status == 1, "\(result.output)\(result.error)")
        // A Saturday-night marketing push: quiet hours, and outside the weekday marketing window.
        #expect(result.output.contains("2 violations in 3 notifications (1 quiet-hours, 1 delivery-window)"), "\(result.output)")
        #expect(result.output.contains("#2 2026-03-28T22:30:00.000Z"), "\(result.output)")
        #expect(result.output.contains(#"quiet-hours "night""#), "\(result.output)")
        let daytime = try await run(
            ServeProcess.binary,
            ["check", "policy", "--policy", Self.loopExamples + "/policy.json", "--journal", journal, "--until", "2026-03-28T20:00:00Z"])
        #expect(daytime.status == 0, "\(daytime.output)\(daytime.error)")
    }

    @Test(
        "unusable input exits 2",
        arguments: [
            ["check", "links", "--journal", "/no/such/journal.jsonl"],
            ["check", "links", "--routes", "/no/such/routes.json", "--journal", "JOURNAL"],
            ["check", "links", "--routes", "ROUTES", "--journal", "/no/such/journal.jsonl"],
            ["check", "links", "--routes", "ROUTES", "--journal", "JOURNAL", "--status", "fine"],
            ["check", "policy", "--policy", "ROUTES", "--journal", "JOURNAL"],
            ["check", "links", "--routes", "ROUTES", "--server", "http://127.0.0.1:1"],
        ]
    )
    func usage(arguments: [String]) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try Self.writeJournal(in: directory)
        let resolved = arguments.map { $0 == "JOURNAL" ? journal : $0 == "ROUTES" ? Self.loopExamples + "/routes.json" : $0 }
        let result = try await run(ServeProcess.binary, resolved)
        #expect(result.status == 2, "\(result.output)\(result.error)")
        #expect(result.error.hasPrefix("pushmock: "), "\(result.error)")
    }

    @Test("check links and policy against a running gateway")
    func server() async throws {
        let server = try await ServeProcess()
        defer {
            server.kill()
            server.removeDirectory()
        }
        let address = "http://127.0.0.1:\(server.cleartextPort)"
        let links = try await run(
            ServeProcess.binary, ["check", "links", "--routes", Self.loopExamples + "/routes.json", "--server", address])
        #expect(links.status == 0, "\(links.output)\(links.error)")
        #expect(links.output.hasPrefix("Deep links: 0 notifications"), "\(links.output)")
        let policy = try await run(
            ServeProcess.binary, ["check", "policy", "--policy", Self.loopExamples + "/policy.json", "--server", address, "--json"])
        #expect(policy.status == 0, "\(policy.output)\(policy.error)")
        #expect(try JSONValue(parsing: policy.output)["passed"]?.boolValue == true)
    }

    @Test("serve --checks-dir: routesFile under it is read, the default is the working directory's Recordings/, anything else is 403")
    func checksDirectories() async throws {
        let curl = try #require(tool("curl"), "curl is required (Debian package curl)")
        let allowed = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: allowed) }
        try FileManager.default.copyItem(atPath: Self.loopExamples + "/routes.json", toPath: allowed + "/routes.json")

        func post(_ server: ServeProcess, routesFile: String) async throws -> (status: Int, body: String) {
            let result = try await run(
                curl,
                [
                    "-s", "--http1.1", "-o", "-", "-w", "\n%{http_code}", "-H", "content-type: application/json",
                    "--data", #"{"routesFile":"\#(routesFile)"}"#, "http://127.0.0.1:\(server.cleartextPort)/_pushmock/checks/links",
                ])
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }

        let configured = try await ServeProcess(arguments: ["--checks-dir", allowed])
        defer { configured.kill(); configured.removeDirectory() }
        #expect(try await post(configured, routesFile: allowed + "/routes.json").status == 200)
        let refused = try await post(configured, routesFile: Self.loopExamples + "/routes.json")
        #expect(refused.status == 403, "\(refused.body)")
        #expect(refused.body.contains("--checks-dir"), "\(refused.body)")

        // Without the flag: <working directory>/Recordings, relative paths from there too.
        let byDefault = try await ServeProcess()
        defer { byDefault.kill(); byDefault.removeDirectory() }
        try FileManager.default.createDirectory(atPath: byDefault.directory + "/Recordings", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: allowed + "/routes.json", toPath: byDefault.directory + "/Recordings/routes.json")
        #expect(try await post(byDefault, routesFile: "Recordings/routes.json").status == 200)
        #expect(try await post(byDefault, routesFile: "Recordings/../Recordings/routes.json").status == 200)
        #expect(try await post(byDefault, routesFile: allowed + "/routes.json").status == 403)
    }
}
