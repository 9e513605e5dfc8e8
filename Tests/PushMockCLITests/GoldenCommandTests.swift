import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockTestSupport
import Testing

/// `pushmock golden verify|record` on journal files, run as the built binary: exit status
/// 0 match, 1 mismatch or missing, 2 usage or I/O error; text, `--json` and `--junit` output;
/// recording refused in CI unless `--force`.
@Suite("pushmock golden")
struct GoldenCommandTests {
    @Test("record writes the file; verify matches a second run whose volatile values all differ")
    func recordThenVerify() async throws {
        let directory = try TemporaryDirectory()
        let golden = directory.path + "/golden/dose.json"
        let first = try directory.journal("first.jsonl", JournalFixture.records(seed: 1, titles: ["One", "Two"]))
        let second = try directory.journal("second.jsonl", JournalFixture.records(seed: 2, titles: ["One", "Two"]))

        let record = try await runGolden(["record", golden, "--journal", first])
        #expect(record.status == 0, "\(record.error)")
        #expect(record.output.contains("Recorded golden file \(golden) (new, 2 notifications)"))
        let text = try String(contentsOfFile: golden, encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"format\": \"pushmock-golden\","))
        #expect(text.contains(#""path": "/3/device/<token-1>""#))

        let verify = try await runGolden(["verify", golden, "--journal", second])
        #expect(verify.status == 0, "\(verify.output)\(verify.error)")
        #expect(verify.output == "Golden file \(golden) matches (2 notifications).\n")

        // Recording an unchanged recording leaves the file alone and says so.
        let again = try await runGolden(["record", golden, "--journal", second])
        #expect(again.status == 0)
        #expect(again.output.contains("matches"))
    }

    @Test("a mismatch exits 1 with the path-aware list and a unified diff")
    func mismatch() async throws {
        let directory = try TemporaryDirectory()
        let golden = directory.path + "/dose.json"
        _ = try await runGolden([
            "record", golden, "--journal", try directory.journal("a.jsonl", JournalFixture.records(seed: 1, titles: ["One", "Two"])),
        ])
        let changed = try directory.journal("b.jsonl", JournalFixture.records(seed: 2, titles: ["One", "Zwei"]))

        let verify = try await runGolden(["verify", golden, "--journal", changed])
        #expect(verify.status == 1)
        #expect(verify.output.contains("Golden file \(golden) does not match the recording."))
        #expect(verify.output.contains(#"~ [1].payload.aps.alert.title: "Two" ≠ "Zwei""#))
        #expect(verify.output.contains(#"-            "title": "Two""#))
        #expect(verify.output.contains(#"+            "title": "Zwei""#))
        #expect(!verify.output.contains("\u{1B}["), "no colour when stdout is not a terminal")
        #expect(try String(contentsOfFile: golden, encoding: .utf8).contains(#""title": "Two""#), "verify never writes")
    }

    @Test("--json prints one object with status, differences and the diff; --junit writes a report")
    func jsonAndJUnit() async throws {
        let directory = try TemporaryDirectory()
        let golden = directory.path + "/dose.json"
        _ = try await runGolden([
            "record", golden, "--journal", try directory.journal("a.jsonl", JournalFixture.records(seed: 1, titles: ["One"])),
        ])
        let changed = try directory.journal("b.jsonl", JournalFixture.records(seed: 2, titles: ["Uno"]))
        let junit = directory.path + "/report.xml"

        let verify = try await runGolden(["verify", golden, "--journal", changed, "--json", "--junit", junit])
        #expect(verify.status == 1)
        let report = try JSONValue(parsing: verify.output)
        #expect(report["status"] == "mismatched")
        #expect(report["golden"]?.stringValue == golden)
        #expect(report["notifications"]?.intValue == 1)
        #expect(report["differences"]?[0]?["path"] == "[0].payload.aps.alert.title")
        #expect(report["differences"]?[0]?["expected"] == "One")
        #expect(report["differences"]?[0]?["actual"] == "Uno")
        #expect(report["diff"]?.stringValue?.contains("@@") == true)

        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuites tests="1" failures="1">"#))
        #expect(xml.contains(#"classname="pushmock.golden""#))

        let matching = try await runGolden([
            "verify", golden, "--journal", try directory.journal("c.jsonl", JournalFixture.records(seed: 3, titles: ["One"])), "--json",
        ])
        #expect(matching.status == 0)
        #expect(try JSONValue(parsing: matching.output)["status"] == "matched")
    }

    @Test("query flags choose the exchanges; --ignore and --redact change what is compared")
    func queryAndRules() async throws {
        let directory = try TemporaryDirectory()
        let golden = directory.path + "/dose.json"
        var fixture = JournalFixture(seed: 1)
        let records = fixture.records(titles: ["One"]) + fixture.records(titles: ["Other"], topic: "com.example.other")
        let journal = try directory.journal("a.jsonl", records)

        let record = try await runGolden(["record", golden, "--journal", journal, "--topic", "com.example.app", "--redact", "$.dose_id"])
        #expect(record.status == 0, "\(record.error)")
        let text = try String(contentsOfFile: golden, encoding: .utf8)
        #expect(!text.contains("Other"))
        #expect(text.contains(#""dose_id": "<redacted>""#))

        // Without the topic filter the second notification is an addition.
        let unfiltered = try await runGolden(["verify", golden, "--journal", journal, "--redact", "$.dose_id"])
        #expect(unfiltered.status == 1)
        #expect(unfiltered.output.contains("+ [1]: "))

        // The payload condition picks the same notification as the topic did.
        let byPayload = try await runGolden([
            "verify", golden, "--journal", journal, "--json-path", "$.aps.alert.title=One", "--redact", "$.dose_id",
        ])
        #expect(byPayload.status == 0, "\(byPayload.output)")
    }

    @Test("a missing golden file exits 1 and says how to create it")
    func missingFile() async throws {
        let directory = try TemporaryDirectory()
        let journal = try directory.journal("a.jsonl", JournalFixture.records(seed: 1, titles: ["One"]))
        let verify = try await runGolden(["verify", directory.path + "/absent.json", "--journal", journal])
        #expect(verify.status == 1)
        #expect(verify.output.contains("No golden file at \(directory.path)/absent.json."))
        #expect(verify.output.contains("pushmock golden record"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/absent.json"))
    }

    @Test("record is refused in CI (exit 2, how to re-record locally) unless --force")
    func refusedInCI() async throws {
        let directory = try TemporaryDirectory()
        let golden = directory.path + "/dose.json"
        let journal = try directory.journal("a.jsonl", JournalFixture.records(seed: 1, titles: ["One"]))

        let refused = try await runGolden(["record", golden, "--journal", journal], environment: ["CI": "true"])
        #expect(refused.status == 2)
        #expect(refused.error.contains("refusing to record \(golden) in a CI run (CI=true)"))
        #expect(refused.error.contains("Re-record locally"))
        #expect(!FileManager.default.fileExists(atPath: golden))

        let serviceVariable = try await runGolden(["record", golden, "--journal", journal], environment: ["GITHUB_ACTIONS": "true"])
        #expect(serviceVariable.status == 2)

        let forced = try await runGolden(["record", golden, "--journal", journal, "--force"], environment: ["CI": "true"])
        #expect(forced.status == 0, "\(forced.error)")
        #expect(FileManager.default.fileExists(atPath: golden))

        // verify runs in CI as usual.
        let verify = try await runGolden(["verify", golden, "--journal", journal], environment: ["CI": "true"])
        #expect(verify.status == 0)
    }

    @Test(
        "usage and I/O errors exit 2",
        arguments: [
            (["verify"], "Missing expected argument"),
            (["verify", "x.json", "--no-such-flag"], "Unknown option"),
            (["verify", "x.json", "--journal", "/nonexistent/journal.jsonl"], "cannot open /nonexistent/journal.jsonl: No such file"),
            // A directory opens, and was read as a journal without records: every check passed.
            (["verify", "x.json", "--journal", "/"], "cannot read /: Is a directory"),
            (["verify", "x.json", "--journal", "/dev/null", "--status", "two hundred"], "invalid query"),
            (["verify", "x.json", "--journal", "/dev/null", "--ignore", "aps.badge"], "invalid"),
            (["verify", "x.json", "--server", "http://127.0.0.1:1"], "cannot read recordings"),
        ] as [([String], String)]
    )
    func usageErrors(arguments: [String], message: String) async throws {
        let result = try await runGolden(arguments)
        #expect(result.status == 2, "\(result.output)\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("--server reads a running gateway's recordings; the same golden file verifies against its journal")
    func fromRunningGateway() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        let loop = packageRoot + "/Examples/LoopHealth/pushmock"
        let data = try String(contentsOfFile: loop + "/data/dose-reminder.json", encoding: .utf8)
        let send = try await run(
            ServeProcess.binary,
            [
                "send", "apns", "--ready-file", serve.directory + "/ready.json", "--token", String(repeating: "ab", count: 32),
                "--payload", loop + "/templates/dose-reminder.apns.json", "--vars", data, "--quiet",
            ],
            directory: serve.directory
        )
        #expect(send.status == 0, "\(send.error)")

        let golden = serve.directory + "/golden/dose.json"
        let server = "http://127.0.0.1:\(serve.cleartextPort)"
        let record = try await runGolden(["record", golden, "--server", server, "--platform", "apns"])
        #expect(record.status == 0, "\(record.error)")
        let text = try String(contentsOfFile: golden, encoding: .utf8)
        #expect(text.contains(#""title": "Time for your BPC-157""#))
        #expect(text.contains(#""deep_link": "loop://protocols/p-4821/log""#))

        let fromServer = try await runGolden(["verify", golden, "--server", server, "--platform", "apns"])
        #expect(fromServer.status == 0, "\(fromServer.output)\(fromServer.error)")
        let fromJournal = try await runGolden(["verify", golden, "--journal", serve.journalPath, "--platform", "apns"])
        #expect(fromJournal.status == 0, "\(fromJournal.output)\(fromJournal.error)")
    }

    @Test("an unreadable golden file is an I/O error (exit 2); record replaces it")
    func unreadableGolden() async throws {
        let directory = try TemporaryDirectory()
        let golden = directory.path + "/dose.json"
        try "<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> branch\n".write(toFile: golden, atomically: true, encoding: .utf8)
        let journal = try directory.journal("a.jsonl", JournalFixture.records(seed: 1, titles: ["One"]))

        let verify = try await runGolden(["verify", golden, "--journal", journal])
        #expect(verify.status == 2)
        #expect(verify.error.contains("merge-conflict markers"))

        let record = try await runGolden(["record", golden, "--journal", journal])
        #expect(record.status == 0)
        #expect(record.output.contains("Re-recorded unreadable golden file"))
    }
}

// MARK: Support

/// The package directory (three levels above this file).
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// Runs `pushmock golden …` with exactly `environment` (plus PATH and HOME), so the test's own
/// environment — a CI run, a PUSHMOCK_RECORD_GOLDEN — cannot change the outcome.
private func runGolden(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
    status: Int32, output: String, error: String
) {
    try await offloaded { try runGoldenBlocking(arguments, environment: environment) }
}

private func runGoldenBlocking(_ arguments: [String], environment: [String: String]) throws -> (
    status: Int32, output: String, error: String
) {
    var variables = environment
    let inherited = ProcessInfo.processInfo.environment
    for name in ["PATH", "HOME"] { variables[name] = variables[name] ?? inherited[name] }
    // Only these variables: the golden record mode must not leak in from the test's environment.
    return try ChildProcess.runBlocking(ServeProcess.binary, ["golden"] + arguments, environment: variables, inheritEnvironment: false)
}

/// A temporary directory removed when the test's value goes away.
private final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "pushmock-golden-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `records` as a JSON Lines journal and returns its path.
    func journal(_ name: String, _ records: [ExchangeRecord]) throws -> String {
        var bytes: [UInt8] = []
        for record in records {
            bytes += record.jsonLine
            bytes.append(UInt8(ascii: "\n"))
        }
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// Accepted APNs alerts whose volatile values (token, apns-id, receive time, expiration,
/// sequence, connection) depend on the seed, as two runs of the same scenario would differ.
private struct JournalFixture {
    var seed: UInt64
    var sequence: UInt64 = 0
    var time: Int64

    init(seed: UInt64) {
        self.seed = seed
        time = 1_795_304_400_000 + Int64(seed) * 86_400_000
    }

    static func records(seed: UInt64, titles: [String]) -> [ExchangeRecord] {
        var fixture = JournalFixture(seed: seed)
        return fixture.records(titles: titles)
    }

    mutating func records(titles: [String], topic: String = "com.example.app") -> [ExchangeRecord] {
        titles.map { title in
            sequence += 1
            time += 1_500
            let token = String(repeating: String(seed % 10), count: 60) + String(format: "%04d", sequence)
            let apnsID = String(format: "%08X-0000-4000-8000-%012llX", UInt32(seed), sequence)
            let payload: JSONValue = [
                "aps": ["alert": ["title": .string(title), "body": "Take 250 mcg"], "sound": "default"],
                "dose_id": .string("d-\(sequence)"),
            ]
            let headers: HTTPHeaderList = [
                HeaderField("apns-topic", topic),
                HeaderField("apns-push-type", "alert"),
                HeaderField("apns-expiration", String(time / 1000 + 3600)),
            ]
            return ExchangeRecord(
                sequence: sequence,
                timeMilliseconds: time,
                platform: .apns,
                connection: ConnectionInfo(
                    id: seed * 100 + sequence, transport: "h2", tls: true, alpn: "h2", remoteAddress: "127.0.0.1:5\(seed)"),
                streamID: Int32(sequence) * 2 + 1,
                environment: "sandbox",
                request: RequestInfo(
                    method: "POST",
                    path: "/3/device/" + token,
                    authority: "localhost:2197",
                    scheme: "https",
                    headers: headers,
                    body: .json(payload.compactBytes),
                    bodySize: payload.compactBytes.count
                ),
                notification: NotificationInfo(token: token, topic: topic, pushType: "alert", messageID: apnsID),
                response: ResponseInfo(status: 200, headers: [HeaderField("apns-id", apnsID)]),
                latencyMicroseconds: Int64(seed) * 10
            )
        }
    }
}
