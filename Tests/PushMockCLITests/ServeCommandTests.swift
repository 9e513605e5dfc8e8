import Foundation
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockTestSupport
import Testing

/// `pushmock serve` as a process, driven by independent HTTP/2 clients: curl and nghttp
/// (both built on libnghttp2 + OpenSSL, not on our code).
@Suite("pushmock serve (process)", .serialized)
struct ServeCommandTests {
    static let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"

    static func providerToken(_ server: ServeProcess) async throws -> String {
        let result = try await run(ServeProcess.binary, ["provider-token", "--key", server.directory + "/certs/apns-sample-key.p8"])
        #expect(result.status == 0, "\(result.error)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("zero configuration: banner, ready file, certs with keys 0600, sample key")
    func zeroConfiguration() async throws {
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        #expect(server.info.tls != nil)
        #expect(server.info.cleartext != nil)
        #expect(server.info.apnsSampleKey?.keyId == "PUSHMOCK01")
        #expect(server.info.apnsSampleKey?.teamId == "PUSHMOCK00")
        #expect(server.info.apnsSampleKey?.topic == "dev.pushmock.sample")
        for (file, permissions) in [
            ("ca.pem", 0o644), ("ca-key.pem", 0o600), ("server.pem", 0o644), ("server-key.pem", 0o600), ("apns-sample-key.p8", 0o600),
        ] {
            let attributes = try FileManager.default.attributesOfItem(atPath: server.directory + "/certs/" + file)
            #expect((attributes[.posixPermissions] as? Int) == permissions, "\(file)")
        }
        // The server certificate names the real push hosts and loopback.
        if let openssl = tool("openssl") {
            let text = try await run(openssl, ["x509", "-noout", "-text", "-in", server.directory + "/certs/server.pem"]).output
            for name in [
                "DNS:localhost", "DNS:api.push.apple.com", "DNS:api.sandbox.push.apple.com", "DNS:api.development.push.apple.com",
                "DNS:fcm.googleapis.com", "DNS:oauth2.googleapis.com", "DNS:iid.googleapis.com", "DNS:exp.host", "IP Address:127.0.0.1",
                "IP Address:0:0:0:0:0:0:0:1",
            ] {
                #expect(text.contains(name), "SAN \(name)")
            }
        }
        let stopped = await server.stop()
        #expect(stopped.status == 0)
        #expect(stopped.output.contains("PushMock \(PushMockVersion.current) ready"))
        #expect(stopped.output.contains("CA certificate (trust this)"))
        #expect(stopped.output.contains("PUSHMOCK01"))
        // Expo backends change one setting, the SDK's base URL; the gateway says which.
        let cleartextURL = try #require(server.info.cleartext?.url)
        #expect(server.info.expoBaseURL == cleartextURL)
        let rows = stopped.output.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(rows.contains { $0.hasPrefix("  Expo push service:") && $0.contains(cleartextURL) }, "\(stopped.output)")
        // Every value starts in the same column, whichever label is the longest.
        let valueColumns = Set(
            rows.map { row -> Int? in
                guard let colon = row.firstRange(of: ": ") else { return nil }
                return row[colon.upperBound...].firstIndex { $0 != " " }.map { row.distance(from: row.startIndex, to: $0) }
            })
        #expect(rows.count >= 8 && valueColumns.count == 1, "\(stopped.output)")
    }

    @Test("a service-account file for a port the system picked goes with the gateway; one for a chosen port stays")
    func ephemeralServiceAccountFile() async throws {
        let picked = try await ServeProcess()
        defer { picked.removeDirectory() }
        let shared = picked.directory + "/certs/fcm-sample-service-account.json"
        let tlsPort = try #require(picked.info.tls?.port)
        let own = try #require(picked.info.fcmSampleServiceAccount?.path)
        #expect(own == picked.directory + "/certs/fcm-sample-service-account-\(tlsPort).json")
        #expect(FileManager.default.fileExists(atPath: own))
        #expect(await picked.stop().status == 0)
        #expect(!FileManager.default.fileExists(atPath: own), "the file of a port the system picked outlived its gateway")
        #expect(FileManager.default.fileExists(atPath: shared), "the shared file is kept")

        // A port the user chose: free now (the first gateway is gone), named on the command line.
        let chosen = try await ServeProcess(arguments: ["--tls-port", String(tlsPort)], directory: picked.directory)
        let path = try #require(chosen.info.fcmSampleServiceAccount?.path)
        #expect(path == own)
        #expect(await chosen.stop().status == 0)
        #expect(FileManager.default.fileExists(atPath: path), "the file of a chosen port is kept: a backend may name it")
    }

    /// A test process that crashes leaves its gateways running; the next one reaps them.
    @Test("a gateway whose test process is gone is reaped; one whose test process runs is not")
    func leftOverGatewaysAreReaped() async throws {
        // This process's own reaping (before its first gateway) is done before the orphan exists.
        _ = ServeProcess.orphansReaped
        let directory = NSTemporaryDirectory() + "pushmock-orphan-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Started by a shell that exits at once: the gateway outlives its parent, as after a crash.
        let quoted = [
            ServeProcess.binary, "serve", "--tls-port", "0", "--port", "0", "--certs-dir", directory + "/certs", "--journal",
            directory + "/journal.jsonl", "--ready-file", directory + "/ready.json", "--log-level", "warning",
        ].map { "'\($0)'" }.joined(separator: " ")
        #expect(try await run("/bin/sh", ["-c", quoted + " </dev/null >/dev/null 2>&1 &"]).status == 0)
        let deadline = ContinuousClock.now + .seconds(120)
        var orphan: Int32?
        while orphan == nil, ContinuousClock.now < deadline {
            if let data = FileManager.default.contents(atPath: directory + "/ready.json"),
                let info = try? JSONDecoder().decode(GatewayServerInfo.self, from: data)
            {
                orphan = info.pid
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let pid = try #require(orphan, "the orphan never became ready")
        // Running, not yet reaped (a zombie until its new parent collects it).
        func running() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
                return false
            }
            return !stat[stat.index(after: close)...].hasPrefix(" Z")
        }
        #expect(ServeProcess.isLeftOverGateway(pid))
        #expect(ServeProcess.reapOrphans() >= 1)
        while running(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!running())

        let child = try await ServeProcess()
        defer { child.removeDirectory() }
        #expect(!ServeProcess.isLeftOverGateway(child.process.pid), "a running test's own gateway")
        #expect(ServeProcess.reapOrphans() == 0)
        #expect(child.process.isRunning, "the reaper left the running test's gateway alone")
        #expect(await child.stop().status == 0)
    }

    @Test("certificates are reused on the next start")
    func reuseCertificates() async throws {
        let first = try await ServeProcess()
        defer { first.removeDirectory() }
        let ca = try String(contentsOfFile: first.caPath, encoding: .utf8)
        let key = try String(contentsOfFile: first.directory + "/certs/apns-sample-key.p8", encoding: .utf8)
        #expect(await first.stop().status == 0)
        let second = try await ServeProcess(directory: first.directory)
        #expect(try String(contentsOfFile: second.caPath, encoding: .utf8) == ca)
        #expect(try String(contentsOfFile: second.directory + "/certs/apns-sample-key.p8", encoding: .utf8) == key)
        #expect(await second.stop().status == 0)
    }

    @Test("curl --http2 over TLS with the printed CA: success and an error body")
    func curlHTTP2() async throws {
        let curl = try #require(tool("curl"), "curl is required (Debian package curl)")
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let jwt = try await Self.providerToken(server)
        let base = [
            "-s", "-i", "--http2", "--cacert", server.caPath, "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: dev.pushmock.sample",
        ]
        let ok = try await run(
            curl,
            base + [
                "-H", "apns-push-type: alert", "-d", #"{"aps":{"alert":"Hello"}}"#,
                "https://localhost:\(server.tlsPort)/3/device/\(Self.token)",
            ])
        #expect(ok.output.hasPrefix("HTTP/2 200"), "\(ok.output) \(ok.error)")
        #expect(ok.output.contains("apns-id: "))
        #expect(ok.output.contains("apns-unique-id: "))
        let bad = try await run(curl, base + ["-d", #"{"aps":{}}"#, "https://127.0.0.1:\(server.tlsPort)/3/device/nothex"])
        #expect(bad.output.hasPrefix("HTTP/2 400"))
        #expect(bad.output.hasSuffix(#"{"reason":"BadDeviceToken"}"#))
        // Production by authority: curl --connect-to keeps the real host name for TLS and :authority.
        let production = try await run(
            curl,
            base + [
                "--connect-to", "api.push.apple.com:443:127.0.0.1:\(server.tlsPort)",
                "-d", #"{"aps":{}}"#, "https://api.push.apple.com/3/device/\(Self.token)",
            ])
        #expect(production.output.hasPrefix("HTTP/2 200"), "\(production.output) \(production.error)")
        #expect(!production.output.contains("apns-unique-id"))
        #expect(await server.stop().status == 0)
        let lines = try String(contentsOfFile: server.journalPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.last?.contains(#""environment":"production""#) == true)
    }

    @Test("nghttp over TLS and h2c")
    func nghttp() async throws {
        let nghttp = try #require(tool("nghttp"), "nghttp is required (Debian package nghttp2-client)")
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let jwt = try await Self.providerToken(server)
        let payload = server.directory + "/payload.json"
        try #"{"aps":{"alert":{"title":"Hi","body":"there"}}}"#.write(toFile: payload, atomically: true, encoding: .utf8)
        for url in ["https://127.0.0.1:\(server.tlsPort)", "http://127.0.0.1:\(server.cleartextPort)"] {
            let result = try await run(
                nghttp,
                [
                    "-v", "-d", payload,
                    "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: dev.pushmock.sample", "-H", "apns-push-type: alert",
                    "\(url)/3/device/\(Self.token)",
                ])
            #expect(result.status == 0, "\(url): \(result.error)")
            #expect(result.output.contains(":status: 200"), "\(url): \(result.output)")
            #expect(result.output.contains("SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1000"))
            let bad = try await run(nghttp, ["-d", payload, "-H", "apns-topic: dev.pushmock.sample", "\(url)/3/device/\(Self.token)"])
            #expect(bad.output.contains(#"{"reason":"MissingProviderToken"}"#), "\(url): \(bad.output)")
        }
        #expect(await server.stop().status == 0)
        let records = try String(contentsOfFile: server.journalPath, encoding: .utf8).split(separator: "\n")
            .map { try ExchangeRecord.decode(jsonLine: Array($0.utf8)) }
        #expect(records.map(\.connection.transport) == ["h2", "h2", "h2c", "h2c"])
        #expect(records.first?.request.body.jsonValue?["aps"]?["alert"]?["title"]?.stringValue == "Hi")
    }

    @Test("SIGINT and SIGTERM drain and exit 0", arguments: [SIGINT, SIGTERM])
    func signals(signal: Int32) async throws {
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let stopped = await server.stop(signal: signal)
        #expect(stopped.status == 0, "\(stopped.output)")
    }

    @Test("kill -9 loses no acknowledged exchange")
    func killNine() async throws {
        let curl = try #require(tool("curl"))
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let jwt = try await Self.providerToken(server)
        // Fifty transfers in parallel (-Z), multiplexed over HTTP/2; options repeat per transfer.
        var arguments = ["-Z"]
        for index in 0..<50 {
            arguments += [
                "-s", "--http2", "--cacert", server.caPath, "-o", "/dev/null", "-w", "%{http_code}\n",
                "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: dev.pushmock.sample",
                "-d", #"{"aps":{"alert":"\#(index)"}}"#, "https://localhost:\(server.tlsPort)/3/device/\(Self.token)",
            ]
            if index < 49 { arguments.append("--next") }
        }
        let result = try await run(curl, arguments)
        let acknowledged = result.output.split(separator: "\n").filter { $0 == "200" }.count
        #expect(acknowledged == 50, "\(result.output)")
        _ = await server.stop(signal: SIGKILL)
        let lines = try String(contentsOfFile: server.journalPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == acknowledged)
    }

    @Test("a configuration file registers keys and tokens; unknown keys are rejected")
    func configurationFile() async throws {
        let curl = try #require(tool("curl"))
        let directory = NSTemporaryDirectory() + "pushmock-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/pushmock.json"
        try """
        {"apns": {
          "options": {"rejectUnknownTokens": true},
          "tokens": [
            {"token": "\(Self.token)", "bundleId": "dev.pushmock.sample"},
            {"token": "\(String(repeating: "ab", count: 32))", "bundleId": "dev.pushmock.sample", "state": "unregistered", "at": 1700000000000}
          ]
        }}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let server = try await ServeProcess(arguments: ["--config", config], directory: directory)
        let jwt = try await Self.providerToken(server)
        func status(_ token: String) async throws -> String {
            try await run(
                curl,
                [
                    "-s", "--http2", "--cacert", server.caPath, "-H", "authorization: bearer \(jwt)", "-H",
                    "apns-topic: dev.pushmock.sample",
                    "-d", "{}", "https://localhost:\(server.tlsPort)/3/device/\(token)",
                ]
            ).output
        }
        #expect(try await status(Self.token) == "")
        #expect(try await status(String(repeating: "ab", count: 32)) == #"{"reason":"Unregistered","timestamp":1700000000000}"#)
        #expect(try await status(String(repeating: "cd", count: 32)) == #"{"reason":"BadDeviceToken"}"#)
        #expect(await server.stop().status == 0)

        try #"{"apns": {"tokenz": []}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let rejected = try await run(
            ServeProcess.binary, ["serve", "--config", config, "--tls-port", "0", "--port", "0", "--certs-dir", directory + "/certs"])
        #expect(rejected.status == 64)
        #expect(rejected.error.contains(#"unknown key "tokenz""#), "\(rejected.error)")
        // The way out names `serve`, not the root command's usage.
        #expect(
            rejected.error.contains("See 'pushmock serve --help'.") && !rejected.error.contains("Usage: pushmock <subcommand>"),
            "\(rejected.error)")
    }

    @Test("limits from the configuration file and --limit: the command line wins, /info lists them, a 507 names the limit")
    func limits() async throws {
        let curl = try #require(tool("curl"))
        let directory = NSTemporaryDirectory() + "pushmock-limits-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/pushmock.json"
        try #"{"limits": {"users": 5, "webhooks": 7}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let server = try await ServeProcess(
            arguments: ["--config", config, "--limit", "users=2", "--limit", "simulatedDevices=500000"], directory: directory)
        let base = "http://127.0.0.1:\(server.cleartextPort)/_pushmock"
        let info = try JSONValue(parsing: Array(try await run(curl, ["-s", base + "/info"]).output.utf8))
        let limits = try #require(info["limits"]?.objectValue)
        #expect(limits.count == CapacityLimit.allCases.count)
        #expect(limits["users"]?.intValue == 2)
        #expect(limits["webhooks"]?.intValue == 7)
        #expect(limits["simulatedDevices"]?.intValue == 500_000)
        #expect(limits["apnsDeviceTokens"]?.intValue == RegistryLimits.defaults.apnsDeviceTokens)
        for id in ["ada", "grace"] {
            let added = try await run(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-d", #"{"id":"\#(id)"}"#, base + "/users"])
            #expect(added.output == "201")
        }
        let full = try await run(curl, ["-s", "-w", "\n%{http_code}", "-d", #"{"id":"linus"}"#, base + "/users"])
        #expect(full.output.hasSuffix("\n507"), "\(full.output)")
        #expect(full.output.contains(#""limitName":"users""#), "\(full.output)")
        #expect(full.output.contains("pushmock serve --limit users=COUNT"), "\(full.output)")
        #expect(await server.stop().status == 0)

        for (argument, message) in [
            ("users", "a limit is NAME=COUNT"), ("usres=3", #"no limit is called "usres""#), ("users=0", "must be 1 to 1000000000"),
        ] {
            let rejected = try await run(ServeProcess.binary, ["serve", "--limit", argument, "--tls-port", "0", "--port", "0"])
            #expect(rejected.status == 64, "--limit \(argument)")
            #expect(rejected.error.contains("--limit: ") && rejected.error.contains(message), "\(rejected.error)")
        }
    }

    @Test("bad command lines are usage errors")
    func usageErrors() async throws {
        let conflicting = try await run(ServeProcess.binary, ["serve", "--no-tls", "--no-cleartext"])
        #expect(conflicting.status == 64)
        #expect(conflicting.error.contains("leave nothing to listen on"))
        let certWithoutKey = try await run(ServeProcess.binary, ["serve", "--cert", "x.pem"])
        #expect(certWithoutKey.status == 64)
        let badEnvironment = try await run(ServeProcess.binary, ["serve", "--environment", "staging"])
        #expect(badEnvironment.status == 64)
        for value in ["soon", "0s", "500ms", "8d"] {
            let badReturn = try await run(ServeProcess.binary, ["serve", "--return-memory-after", value])
            #expect(badReturn.status == 64, "--return-memory-after \(value)")
            #expect(badReturn.error.contains("--return-memory-after is a duration from 1s to 7d"), "\(badReturn.error)")
        }
        // Each of these once started a gateway: `--threads 100000` died of EMFILE inside NIO,
        // the others ran with a value other than the one given (1 record) or none usable (no
        // stream could ever open).
        for (arguments, message) in [
            (["--threads", "0"], "--threads: event-loop threads must be 1 to 1024, not 0"),
            (["--threads", "100000"], "--threads: event-loop threads must be 1 to 1024, not 100000"),
            (["--memory-capacity=-1"], "--memory-capacity must be at least 1"),
            (["--memory-capacity", "0"], "--memory-capacity must be at least 1"),
            (["--max-concurrent-streams", "0"], "--max-concurrent-streams must be at least 1"),
        ] {
            // `timeout`: a gateway that starts anyway fails the test instead of hanging it.
            let refused = try await run(
                "/usr/bin/timeout", ["60", ServeProcess.binary, "serve", "--port", "0", "--tls-port", "0"] + arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.output)")
            #expect(refused.error.contains(message), "\(refused.error)")
        }
        // Within 1…1024 the descriptor limit decides: 1000 loops need 3000 descriptors.
        let prlimit = try #require(tool("prlimit"), "prlimit is required (Debian package util-linux)")
        let lowered = try await run(
            prlimit,
            ["--nofile=512", "/usr/bin/timeout", "60", ServeProcess.binary, "serve", "--port", "0", "--tls-port", "0", "--threads", "1000"])
        #expect(lowered.status == 64)
        #expect(
            lowered.error.contains("1000 event-loop threads need 3000 file descriptors; this process may open 512 (ulimit -n)"),
            "\(lowered.error)")
    }

    @Test("--return-memory-after: a quiet gateway gives free heap memory back once per burst (glibc)")
    func returnsMemoryWhenQuiet() async throws {
        let curl = try #require(tool("curl"), "curl is required (Debian package curl)")
        let server = try await ServeProcess(arguments: ["--return-memory-after", "1s"])
        defer { server.removeDirectory() }
        let jwt = try await Self.providerToken(server)
        /// The value of `pushmock_memory_returns_total` in the text of `/metrics`.
        func returns() async throws -> Int? {
            let metrics = try await run(curl, ["-s", "--max-time", "120", "http://127.0.0.1:\(server.cleartextPort)/metrics"])
            let line = metrics.output.split(separator: "\n").first { $0.hasPrefix("pushmock_memory_returns_total ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        #expect(try await returns() == 0)
        let sent = try await run(
            curl,
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge", "--max-time", "120",
                "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: dev.pushmock.sample", "-d", #"{"aps":{"alert":"Hello"}}"#,
                "http://127.0.0.1:\(server.cleartextPort)/3/device/\(Self.token)",
            ])
        #expect(sent.output == "200", "\(sent.output) \(sent.error)")
        let deadline = ContinuousClock.now + .seconds(120)
        var seen = try await returns()
        while seen != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            seen = try await returns()
        }
        #expect(seen == 1)
        #expect(await server.stop().status == 0)
    }
}
