import Foundation
import PushMockGateway
import PushMockSender
import Testing

/// `pushmock send` against a `pushmock serve` process, over TLS with the CA it wrote.
@Suite("pushmock send")
struct SendCommandTests {
    static let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static let otherToken = "0a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a"

    /// Runs `pushmock` with `arguments` in `directory`, with extra environment variables.
    @discardableResult
    func pushmock(
        _ arguments: [String],
        in directory: String,
        environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String, error: String) {
        try await run(ServeProcess.binary, arguments, directory: directory, environment: environment)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// POSTs JSON to the control API.
    func control(_ serve: ServeProcess, _ path: String, _ body: String) async throws {
        let curl = try #require(tool("curl"))
        let result = try await run(
            curl,
            [
                "-s", "-f", "-X", "POST", "-H", "content-type: application/json", "-d", body,
                "http://127.0.0.1:\(serve.cleartextPort)/_pushmock/\(path)",
            ])
        try #require(result.status == 0, "control API \(path): \(result.output)")
    }

    /// The journal's records, oldest first.
    func journal(_ serve: ServeProcess) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: serve.journalPath, encoding: .utf8)
        return try text.split(separator: "\n").map { try json(String($0)) }
    }

    /// NIOSSL's error read `handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581
    /// error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at
    /// /…/.build/checkouts/swift-nio-ssl/…/handshake.cc:320]))`.
    @Test("a server certificate the sender does not trust is named as such, without BoringSSL's numbers and paths")
    func untrustedCertificate() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        let result = try await pushmock(
            [
                "send", "apns", "--environment", "sandbox", "--url", "https://127.0.0.1:\(serve.tlsPort)",
                "--key", serve.directory + "/certs/apns-sample-key.p8", "--key-id", "PUSHMOCK01", "--team-id", "PUSHMOCK00",
                "--topic", "dev.pushmock.sample", "--token", "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0",
                "--alert", "hi", "--max-attempts", "1", "--progress", "never",
            ], in: serve.directory)
        #expect(result.status == 2, "\(result.output)\(result.error)")
        #expect(
            result.output.contains(
                "the server's TLS certificate could not be verified (expired, not valid yet, or not issued by a CA you trust: see --ca)"),
            "\(result.output)")
        #expect(!result.output.contains("BoringSSL") && !result.output.contains(".build/"), "\(result.output)")
    }

    @Test("send expo finds a gateway on free ports through its ready file (flag or PUSHMOCK_READY_FILE)")
    func expoReadyFile() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        let readyFile = serve.directory + "/ready.json"
        #expect(try LocalPushMock(readyFile: readyFile).expoBaseURL == serve.info.expoBaseURL)
        let byFlag = try await pushmock(
            ["send", "expo", "--ready-file", readyFile, "--token", "ExponentPushToken[rrrrrrrrrrrrrrrrrrrrrr]", "--title", "Hi", "--json"],
            in: serve.directory)
        #expect(byFlag.status == 0, "\(byFlag.output)\(byFlag.error)")
        #expect(try json(byFlag.output)["ok"] as? Int == 1, "\(byFlag.output)")
        let byEnvironment = try await pushmock(
            ["send", "expo", "--token", "ExponentPushToken[ssssssssssssssssssssss]", "--title", "Hi", "--json"], in: serve.directory,
            environment: ["PUSHMOCK_READY_FILE": readyFile])
        #expect(try json(byEnvironment.output)["ok"] as? Int == 1, "\(byEnvironment.output)\(byEnvironment.error)")
        let recorded = try journal(serve).filter { $0["platform"] as? String == "expo" }
        #expect(recorded.count == 2)

        // An outage is an answer: its error is listed, and nothing says the gateway is not there.
        try await control(serve, "faults/presets/outage", #"{"platform":"expo"}"#)
        let down = try await pushmock(
            [
                "send", "expo", "--ready-file", readyFile, "--token", "ExponentPushToken[rrrrrrrrrrrrrrrrrrrrrr]", "--title", "Hi",
                "--max-attempts", "1",
            ],
            in: serve.directory)
        #expect(down.status == 2)
        #expect(down.output.contains("  INTERNAL_SERVER_ERROR: "), "\(down.output)")
        #expect(!down.output.contains("No answer from the gateway"), "\(down.output)")
    }

    @Test("an unreadable --tokens-file is a usage error that points at send expo's help")
    func unreadableTokensFile() async throws {
        let directory = NSTemporaryDirectory()
        let missing = directory + "/pushmock-missing-\(UUID().uuidString).txt"
        let result = try await pushmock(["send", "expo", "--tokens-file", missing, "--title", "Hi"], in: directory)
        #expect(result.status == 64)
        #expect(
            result.error == "Error: cannot read --tokens-file \(missing): No such file or directory\nSee 'pushmock send expo --help'.\n")
    }

    /// Foundation's file errors printed as `Error Domain=NSCocoaErrorDomain Code=256 "(null)"
    /// UserInfo={…}` and Codable's as `Expected to decode Dictionary<String, Any>`.
    @Test(
        "files the CLI cannot use are named with the system's reason, not Foundation's or Codable's dump",
        arguments: [
            (
                ["provider-token", "--key", "/", "--key-id", "ABCDEFGHIJ", "--team-id", "ABCDEFGHIJ"], Int32(1),
                "Error: cannot read /: Is a directory\n"
            ),
            (
                ["serve", "--config", "array.json", "--port", "0", "--tls-port", "0"], Int32(64),
                "Error: array.json: expected an object, found an array\nSee 'pushmock serve --help'.\n"
            ),
            (["user", "add", "--file", "/"], Int32(64), "Error: cannot read /: Is a directory\nSee 'pushmock user add --help'.\n"),
            (
                ["fault", "add", "--file", "/nonexistent/rule.json"], Int32(64),
                "Error: cannot read /nonexistent/rule.json: No such file or directory\nSee 'pushmock fault add --help'.\n"
            ),
            (
                ["check", "policy", "--policy", "/", "--journal", "/dev/null"], Int32(2),
                "pushmock: /: cannot read the policy file: Is a directory\n"
            ),
            (
                ["expect", "--journal", "/dev/null", "--junit", "/"], Int32(2),
                "pushmock: cannot write /: it is a directory (--junit names the report file)\n"
            ),
            // Printed by the command itself, then an empty "Error: " line followed.
            (
                ["send", "apns", "--token", "00", "--alert", "hi"], Int32(64),
                "Error: no local mock found: certs/ca.pem does not exist (start `pushmock serve` here, or pass --certs-dir / --ready-file, or a real target with credentials)\nSee 'pushmock send apns --help'.\n"
            ),
        ])
    func unusableFiles(_ arguments: [String], _ status: Int32, _ message: String) async throws {
        let directory = NSTemporaryDirectory() + "pushmock-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("[]".utf8).write(to: URL(fileURLWithPath: directory + "/array.json"))
        let result = try await pushmock(arguments, in: directory)
        #expect(result.status == status, "\(result)")
        #expect(result.error == message)
    }

    /// `{}` as a ready file was taken for one naming nothing, and the send went to the default
    /// ports: perhaps to another developer's gateway.
    @Test(
        "a ready file that names no TLS listener is refused, for every sender", arguments: ["{}", "[]", "null", #"{"tls":{"port":"x"}}"#])
    func foreignReadyFile(contents: String) async throws {
        let directory = NSTemporaryDirectory() + "pushmock-ready-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let readyFile = directory + "/ready.json"
        try contents.write(toFile: readyFile, atomically: true, encoding: .utf8)
        for arguments in [
            ["send", "apns", "--ready-file", readyFile, "--token", "aa", "--alert", "x"],
            ["send", "expo", "--ready-file", readyFile, "--token", "ExponentPushToken[x]", "--title", "x"],
        ] {
            let result = try await pushmock(arguments, in: directory)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.error.contains("is not a ready file of `pushmock serve --ready-file`"), "\(result.error)")
            #expect(!result.output.contains("2197") && !result.output.contains("2198"), "\(result.output)")
        }
    }

    /// A file without recipients sent nothing and exited 0, as if everything had gone out.
    @Test("a recipients or tokens file without any is a usage error")
    func emptyRecipientFiles() async throws {
        let directory = NSTemporaryDirectory() + "pushmock-empty-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "token\n".write(toFile: directory + "/header-only.csv", atomically: true, encoding: .utf8)
        try "\n\n".write(toFile: directory + "/blank.jsonl", atomically: true, encoding: .utf8)
        try "\u{FEFF}\n".write(toFile: directory + "/tokens.txt", atomically: true, encoding: .utf8)
        for (arguments, message) in [
            (["send", "apns", "--recipients", directory + "/header-only.csv", "--alert", "x"], "no recipients in --recipients"),
            (["send", "fcm", "--recipients", directory + "/blank.jsonl", "--title", "x"], "no recipients in --recipients"),
            (["send", "expo", "--tokens-file", directory + "/tokens.txt", "--title", "x"], "no tokens in --tokens-file"),
        ] {
            let result = try await pushmock(arguments, in: directory)
            #expect(result.status == 64, "\(arguments): \(result.error)")
            #expect(result.error.contains(message), "\(result.error)")
        }
    }

    /// Seconds too large for a `Duration` in milliseconds once crashed the CLI while it built
    /// its connection configuration.
    @Test(
        "a timeout beyond 10000 years, or an APNs volume or score outside 0…1, is a usage error, not a crash or a null",
        arguments: [
            (["send", "apns", "--token", "aa", "--alert", "x", "--timeout", "1e300"], "--timeout must be"),
            (["send", "apns", "--token", "aa", "--alert", "x", "--duration", "1e300"], "--duration must be"),
            (
                ["send", "expo", "--token", "ExponentPushToken[x]", "--title", "x", "--receipt-timeout", "1e300"],
                "--receipt-timeout must be"
            ),
            (["send", "expo", "--token", "ExponentPushToken[x]", "--title", "x", "--receipt-interval", "0"], "--receipt-interval must be"),
            // NaN is no number of seconds (it was called "negative").
            (
                ["send", "apns", "--token", "aa", "--alert", "x", "--duration", "1", "--warmup", "nan"],
                "--warmup must be a number of seconds"
            ),
            (
                ["send", "expo", "--token", "ExponentPushToken[x]", "--title", "x", "--receipt-timeout", "nan"],
                "--receipt-timeout must be a number of seconds"
            ),
            (["send", "apns", "--token", "aa", "--alert", "x", "--duration", "1", "--warmup=-1"], "--warmup must not be negative"),
            // Apple's 0…1 values: `1e999` went out as null (JSON has no infinity), 5 as 5.
            (["send", "apns", "--token", "aa", "--alert", "x", "--relevance-score", "1e999"], "--relevance-score must be"),
            (["send", "apns", "--token", "aa", "--alert", "x", "--relevance-score", "nan"], "--relevance-score must be"),
            (["send", "apns", "--token", "aa", "--critical-sound", "a.caf", "--critical-volume", "5"], "--critical-volume must be"),
        ])
    func hugeTimeouts(arguments: [String], message: String) async throws {
        let result = try await pushmock(arguments, in: NSTemporaryDirectory())
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains("Error: \(message)"), "\(result.error)")
    }

    /// The first thing a new user meets when the gateway is not running: each command says
    /// the address, "connection refused" and what to do, not NIO's nested address list.
    @Test("no gateway running: send apns, send fcm, send expo and recordings say so in words")
    func noGatewayRunning() async throws {
        // A gateway's directory (certs, sample credentials) with no gateway, and a port that
        // refuses connections for as long as the test holds it.
        let serve = try await ServeProcess()
        defer { serve.removeDirectory() }
        #expect(await serve.stop().status == 0)
        let refusing = try SilentListener(listens: false)
        defer { withExtendedLifetime(refusing) {} }
        let tlsPort = refusing.port
        let cleartextPort = refusing.port
        let hint = "No answer from the gateway. Is `pushmock serve` running there?"

        let apns = try await pushmock(
            ["send", "apns", "--url", "https://127.0.0.1:\(tlsPort)", "--token", Self.token, "--alert", "Hi", "--max-attempts", "1"],
            in: serve.directory)
        #expect(apns.status == 2)
        #expect(
            apns.output.contains(
                "  failed \(Self.token): connect failed: cannot connect to https://127.0.0.1:\(tlsPort): connection refused (1 attempt)"),
            "\(apns.output)")
        #expect(apns.output.contains(hint), "\(apns.output)")

        // The sample service account, its token_uri on the gateway's (now closed) TLS port.
        var account = try json(String(contentsOfFile: serve.directory + "/certs/fcm-sample-service-account.json", encoding: .utf8))
        account["token_uri"] = "https://localhost:\(tlsPort)/token"
        let accountPath = serve.directory + "/closed-port-service-account.json"
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: accountPath))
        let fcm = try await pushmock(
            [
                "send", "fcm", "--url", "https://127.0.0.1:\(tlsPort)", "--service-account", accountPath, "--token", "abc:def",
                "--title", "Hi", "--max-attempts", "1",
            ],
            in: serve.directory)
        #expect(fcm.status == 2)
        #expect(fcm.output.contains("failed: connection refused"), "\(fcm.output)\(fcm.error)")
        #expect(fcm.output.contains(hint), "\(fcm.output)")

        let expo = try await pushmock(
            [
                "send", "expo", "--server", "http://127.0.0.1:\(cleartextPort)", "--token", "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]",
                "--title", "Hi", "--max-attempts", "1",
            ],
            in: serve.directory)
        #expect(expo.status == 2)
        #expect(
            expo.output.contains("  connectionFailed: cannot connect to http://127.0.0.1:\(cleartextPort): connection refused"),
            "\(expo.output)")

        let recordings = try await pushmock(["recordings", "--server", "http://127.0.0.1:\(cleartextPort)"], in: serve.directory)
        #expect(recordings.status != 0)
        #expect(
            recordings.error.contains(
                "cannot reach the gateway at http://127.0.0.1:\(cleartextPort): connection refused. Is `pushmock serve` running?"),
            "\(recordings.error)")

        for output in [apns.output, fcm.output, expo.output, recordings.error] {
            #expect(!output.contains("SingleConnectionFailure") && !output.contains("errno"), "\(output)")
        }
    }

    @Test(
        "one notification from flags (JSON summary, payload as built); zero configuration; credentials from the environment; FCM from flags"
    )
    func oneNotification() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        let result = try await pushmock(
            [
                "send", "apns", "--ready-file", serve.directory + "/ready.json", "--token", Self.token,
                "--title", "Dinner", "--body", "Time for your vitamins", "--sound", "default", "--badge", "2",
                "--custom", "link=myapp://dose/42", "--custom", #"ids=[1,2]"#, "--priority", "5", "--json",
            ],
            in: serve.directory
        )
        #expect(result.status == 0, "\(result.error)")
        // Not a terminal: no progress bar.
        #expect(result.error.isEmpty)
        let summary = try json(result.output)
        #expect(summary["platform"] as? String == "apns")
        #expect(summary["sent"] as? Int == 1)
        #expect(summary["accepted"] as? Int == 1)
        let record = try #require(try journal(serve).last)
        let request = try #require(record["request"] as? [String: Any])
        let body = try #require(request["body"] as? [String: Any])
        let aps = try #require(body["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: Any])?["title"] as? String == "Dinner")
        #expect(aps["badge"] as? Int == 2)
        #expect(body["link"] as? String == "myapp://dose/42")
        #expect(body["ids"] as? [Int] == [1, 2])
        let notification = try #require(record["notification"] as? [String: Any])
        #expect(notification["topic"] as? String == "dev.pushmock.sample")
        #expect(notification["priority"] as? Int == 5)

        // Zero configuration: certs/ of the serve directory and the gateway URL, nothing else.
        do {
            let zero = try await pushmock(
                ["send", "apns", "--url", "https://127.0.0.1:\(serve.tlsPort)", "--token", Self.token, "--alert", "Hi"],
                in: serve.directory
            )
            #expect(zero.status == 0, "\(zero.output) \(zero.error)")
            #expect(zero.output.contains("accepted    1"))
            #expect(zero.output.contains("(local mock)"))
            #expect(zero.output.contains("latency     p50"))
            // A directory without a mock: a clear error, usage exit status.
            let elsewhere = NSTemporaryDirectory()
            let missing = try await pushmock(["send", "apns", "--token", Self.token, "--alert", "Hi"], in: elsewhere)
            #expect(missing.status == 64)
            #expect(missing.error.contains("no local mock found"))
        }
        // Credentials from environment variables: the sample key as inline PEM.
        do {
            let pem = try String(contentsOfFile: serve.directory + "/certs/apns-sample-key.p8", encoding: .utf8)
            let fromEnvironment = try await pushmock(
                ["send", "apns", "--ready-file", serve.directory + "/ready.json", "--token", Self.token, "--alert", "Hi", "--quiet"],
                in: serve.directory,
                environment: [
                    "APNS_KEY": pem, "APNS_KEY_ID": "PUSHMOCK01", "APNS_TEAM_ID": "PUSHMOCK00", "APNS_TOPIC": "dev.pushmock.sample",
                ]
            )
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.error)")
            #expect(fromEnvironment.output.isEmpty)
            let missingTeam = try await pushmock(
                ["send", "apns", "--environment", "production", "--token", Self.token, "--alert", "Hi"],
                in: serve.directory,
                environment: ["APNS_KEY": pem, "APNS_KEY_ID": "PUSHMOCK01"]
            )
            #expect(missingTeam.status == 64)
            #expect(missingTeam.error.contains("--team-id"))
        }
        // A progress bar when asked for (on stderr; stdout keeps the summary).
        do {
            let drawn = try await pushmock(
                [
                    "send", "apns", "--ready-file", serve.directory + "/ready.json", "--token", Self.token, "--alert", "Hi", "--repeat",
                    "3", "--progress", "always", "--json",
                ],
                in: serve.directory
            )
            #expect(drawn.status == 0)
            #expect(drawn.error.contains("[##############################] 3/3  accepted 3"))
            #expect(try json(drawn.output)["sent"] as? Int == 3)
        }
        // FCM from flags to a topic; the human summary.
        do {
            let fcm = try await pushmock(
                [
                    "send", "fcm", "--ready-file", serve.directory + "/ready.json", "--topic", "news", "--title", "Hi", "--data",
                    "link=myapp://x",
                ],
                in: serve.directory
            )
            #expect(fcm.status == 0, "\(fcm.error)")
            #expect(fcm.output.contains("FCM "))
            #expect(fcm.output.contains("project pushmock-sample"))
            #expect(fcm.output.contains("accepted    1"))
        }
    }

    @Test("a CSV of recipients with a template: per-row data, rejections, invalid tokens with timestamps, exit 2; missing variables")
    func csvWithTemplate() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        try await control(
            serve, "apns/tokens",
            #"{"token":"\#(Self.otherToken)","bundleId":"dev.pushmock.sample","state":"unregistered","at":1700000000000}"#)
        let csv = "token,compound_name,dose\n\(Self.token),\"vitamin D, 1000 IU\",2\n\(Self.otherToken),zinc,1\nnot-a-token,iron,3\n"
        try csv.write(toFile: serve.directory + "/people.csv", atomically: true, encoding: .utf8)
        try
            #"{"aps":{"alert":{"title":"Reminder","body":"Time for your {{ compound_name }} ({{ dose }} × {{ unit | default: 'tablet' }})"}}}"#
            .write(toFile: serve.directory + "/reminder.json", atomically: true, encoding: .utf8)
        let result = try await pushmock(
            [
                "send", "apns", "--ready-file", serve.directory + "/ready.json", "--recipients", "people.csv",
                "--payload", "reminder.json", "--json", "--results", "results.jsonl",
            ],
            in: serve.directory
        )
        #expect(result.status == 2, "\(result.error)")
        let summary = try json(result.output)
        #expect(summary["sent"] as? Int == 3)
        #expect(summary["accepted"] as? Int == 1)
        #expect(summary["rejectedByReason"] as? [String: Int] == ["BadDeviceToken": 1])
        let invalid = try #require((summary["invalidTokens"] as? [[String: Any]])?.first)
        #expect(invalid["token"] as? String == Self.otherToken)
        #expect(invalid["reason"] as? String == "Unregistered")
        #expect(invalid["timestamp"] as? Int == 1_700_000_000_000)
        let problems = try #require(summary["problems"] as? [[String: Any]])
        #expect(problems.map { $0["recipient"] as? String } == ["not-a-token"])
        // Every result is in the results file, the accepted one with its apns-id.
        let lines = try String(contentsOfFile: serve.directory + "/results.jsonl", encoding: .utf8).split(separator: "\n").map {
            try json(String($0))
        }
        #expect(lines.count == 3)
        #expect(Set(lines.compactMap { $0["outcome"] as? String }) == ["accepted", "rejected", "invalid-token"])
        #expect(lines.first { $0["outcome"] as? String == "accepted" }?["id"] != nil)
        // The rendered payload of the first row.
        let accepted = try journal(serve).first { ($0["notification"] as? [String: Any])?["token"] as? String == Self.token }
        let body = ((accepted?["request"] as? [String: Any])?["body"] as? [String: Any])
        let alert = ((body?["aps"] as? [String: Any])?["alert"] as? [String: Any])
        #expect(alert?["body"] as? String == "Time for your vitamin D, 1000 IU (2 × tablet)")

        // A missing template variable stops the run before anything is sent, naming row and
        // variable.
        let recordsBefore = try journal(serve).count
        try "token,name\n\(Self.token),Ada\n\(Self.otherToken),\n".write(
            toFile: serve.directory + "/people2.csv", atomically: true, encoding: .utf8)
        let missing = try await pushmock(
            [
                "send", "apns", "--ready-file", serve.directory + "/ready.json", "--recipients", "people2.csv",
                "--payload-json", #"{"aps":{"alert":"Hi {{ name }}, time for your {{ compound_name }}"}}"#,
            ],
            in: serve.directory
        )
        #expect(missing.status == 64)
        #expect(missing.error.contains("line 2: template variable \"compound_name\" missing"))
        #expect(missing.error.contains("line 3: template variable \"compound_name\" missing"))
        let before = FileManager.default.fileExists(atPath: serve.journalPath) ? try journal(serve) : []
        #expect(before.count == recordsBefore)
    }

    @Test("retries show in the summary; --fail-on decides the exit status")
    func failOn() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        for (mode, expected) in [("any", Int32(2)), ("failed", 0), ("never", 0)] {
            try await control(serve, "faults", #"{"trigger":{"count":1},"action":{"type":"apns-error","reason":"ServiceUnavailable"}}"#)
            let result = try await pushmock(
                [
                    "send", "apns", "--ready-file", serve.directory + "/ready.json", "--token", Self.token, "--token", "bad",
                    "--alert", "Hi", "--fail-on", mode, "--json", "--concurrency", "1",
                ],
                in: serve.directory
            )
            #expect(result.status == expected, "\(mode): \(result.error)")
            let summary = try json(result.output)
            #expect(summary["accepted"] as? Int == 1)
            #expect(summary["rejected"] as? Int == 1)
            #expect(summary["retries"] as? Int == 1)
        }
    }

    @Test("FCM: JSON Lines with tokens, topics and conditions, a message template, validate_only")
    func fcmJSONLines() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        let registration =
            "dQw4w9WgXcQ:APA91bHqL2f0pM7v8Jk3nR5sT9uW1xY4zA6bC8dE0fG2hI4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hI6jK8lM0nO2"
        let lines = [
            #"{"token":"\#(registration)","name":"Ada","count":3}"#,
            #"{"topic":"news","name":"everyone","count":1}"#,
            #"{"condition":"'news' in topics && 'sports' in topics","data":{"name":"fans","count":2}}"#,
        ]
        try lines.joined(separator: "\n").write(toFile: serve.directory + "/devices.jsonl", atomically: true, encoding: .utf8)
        try #"{"notification":{"title":"Hi {{ name }}"},"data":{"count":"{{ count }}"},"android":{"priority":"high"}}"#
            .write(toFile: serve.directory + "/message.json", atomically: true, encoding: .utf8)
        let result = try await pushmock(
            [
                "send", "fcm", "--ready-file", serve.directory + "/ready.json", "--recipients", "devices.jsonl",
                "--message", "message.json", "--validate-only", "--json", "--results", "results.jsonl",
            ],
            in: serve.directory
        )
        // `"{{ count }}"` alone inserts the number 3, which FCM rejects in data (strings only):
        // the JSON value type is kept, and the gateway's answer is reported.
        let summary = try json(result.output)
        #expect(summary["sent"] as? Int == 3)
        #expect(summary["rejected"] as? Int == 3)
        #expect(result.status == 2)

        try #"{"notification":{"title":"Hi {{ name }}"},"data":{"count":"n={{ count }}"},"android":{"priority":"high"}}"#
            .write(toFile: serve.directory + "/message.json", atomically: true, encoding: .utf8)
        let fixed = try await pushmock(
            [
                "send", "fcm", "--ready-file", serve.directory + "/ready.json", "--recipients", "devices.jsonl",
                "--message", "message.json", "--validate-only", "--json", "--results", "results.jsonl",
            ],
            in: serve.directory
        )
        #expect(fixed.status == 0, "\(fixed.output) \(fixed.error)")
        let results = try String(contentsOfFile: serve.directory + "/results.jsonl", encoding: .utf8).split(separator: "\n").map {
            try json(String($0))
        }
        #expect(results.count == 3)
        #expect(results.allSatisfy { ($0["id"] as? String)?.hasSuffix("/messages/fake_message_id") == true })
        let bodies = try journal(serve).filter { $0["platform"] as? String == "fcm" }.suffix(3).compactMap {
            ($0["request"] as? [String: Any])?["body"] as? [String: Any]
        }
        #expect(bodies.allSatisfy { $0["validate_only"] as? Bool == true })
        let messages = bodies.compactMap { $0["message"] as? [String: Any] }
        #expect(
            Set(messages.compactMap { ($0["notification"] as? [String: Any])?["title"] as? String }) == [
                "Hi Ada", "Hi everyone", "Hi fans",
            ])
        #expect(messages.contains { $0["condition"] as? String == "'news' in topics && 'sports' in topics" })
        #expect(messages.contains { $0["topic"] as? String == "news" })
    }

    @Test("--connect-timeout: a server that accepts and never speaks HTTP/2 fails the notification as a connect timeout")
    func connectTimeout() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        let silent = try SilentListener()
        // The mock's credentials from its ready file, sent to a listener that never answers.
        let result = try await pushmock(
            [
                "send", "apns", "--ready-file", serve.directory + "/ready.json", "--url", "http://127.0.0.1:\(silent.port)",
                "--token", Self.token, "--alert", "x", "--connect-timeout", "0.5", "--max-attempts", "1", "--json",
            ],
            in: serve.directory
        )
        withExtendedLifetime(silent) {}
        #expect(result.status == 2, "\(result.error)")
        let summary = try json(result.output)
        #expect(summary["failed"] as? Int == 1)
        let problem = try #require((summary["problems"] as? [[String: Any]])?.first)
        #expect(problem["reason"] as? String == "connect failed")
        #expect(
            (problem["error"] as? String)?.contains("cannot connect to http://127.0.0.1:\(silent.port): timed out after 500 ms") == true,
            "\(problem)")
    }

    @Test(
        "unreadable credentials exit 1",
        arguments: [
            ["send", "apns", "--token", "00", "--alert", "x", "--key", "/nonexistent.p8", "--key-id", "K", "--team-id", "T"],
            ["send", "apns", "--token", "00", "--alert", "x", "--p12", "/nonexistent.p12", "--p12-password", "x"],
            ["send", "fcm", "--topic", "news", "--title", "x", "--service-account", "/nonexistent.json"],
        ])
    func credentialErrors(arguments: [String]) async throws {
        let result = try await pushmock(arguments, in: NSTemporaryDirectory())
        #expect(result.status == 1, "\(arguments): \(result.error)")
        #expect(result.error.hasPrefix("Error: "))
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["send", "apns", "--token", "00"],
            ["send", "apns", "--alert", "x"],
            ["send", "apns", "--token", "00", "--alert", "x", "--priority", "7"],
            ["send", "apns", "--token", "00", "--alert", "x", "--payload-json", "{}"],
            ["send", "fcm", "--title", "x"],
            ["send", "apns", "--token", "00", "--alert", "x", "--concurrency", "0"],
            ["send", "apns", "--token", "00", "--alert", "x", "--connect-timeout", "0"],
        ])
    func usage(arguments: [String]) async throws {
        let result = try await pushmock(arguments, in: NSTemporaryDirectory())
        #expect(result.status == 64, "\(arguments): \(result.error)")
    }
}
