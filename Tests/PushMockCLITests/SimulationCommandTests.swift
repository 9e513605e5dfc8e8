import Foundation
import PushMockCore
import PushMockJSON
import Testing

/// The [simulation] stories, run the way QA and CI run them: `pushmock serve` as a process with
/// a frozen clock, `pushmock clock|token|device|fault` to script it, curl and nghttp to send.
@Suite("Simulation from the command line (process)", .serialized)
struct SimulationCommandTests {
    static let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    /// 2026-11-21T09:58:00Z: the frozen clock's start.
    static let start = Timestamp(millisecondsSince1970: 1_795_255_080_000)

    /// A frozen gateway and helpers bound to it.
    struct Session {
        let server: ServeProcess
        let jwt: String

        init() async throws {
            server = try await ServeProcess(arguments: ["--clock-start", SimulationCommandTests.start.description, "--freeze-clock"])
            let minted = try await run(
                ServeProcess.binary,
                [
                    "provider-token", "--key", server.directory + "/certs/apns-sample-key.p8",
                    "--issued-at", String(SimulationCommandTests.start.secondsSince1970),
                ])
            jwt = minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// `pushmock <arguments> --server …`, in UTC so `10:02` means 10:02Z.
        @discardableResult
        func pushmock(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
            let result = try await run(
                ServeProcess.binary,
                arguments + ["--server", "http://127.0.0.1:\(server.cleartextPort)"],
                environment: ["TZ": "UTC"]
            )
            #expect(result.status == 0, "pushmock \(arguments.joined(separator: " ")): \(result.error)")
            return result
        }

        /// Sends one APNs notification with curl over h2c; returns status and body.
        func send(
            token: String = SimulationCommandTests.token,
            headers: [String] = [],
            payload: String = #"{"aps":{"alert":"Hi"}}"#,
            maxTime: String = "120"
        ) async throws -> (status: Int, body: String, exit: Int32) {
            let curl = try #require(tool("curl"), "curl is required (Debian package curl)")
            var arguments = ["-s", "--http2-prior-knowledge", "--max-time", maxTime, "-w", "\n%{http_code}"]
            for header in ["authorization: bearer \(jwt)", "apns-topic: dev.pushmock.sample"] + headers {
                arguments += ["-H", header]
            }
            arguments += ["-d", payload, "http://127.0.0.1:\(server.cleartextPort)/3/device/\(token)"]
            let result = try await run(curl, arguments)
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"), result.status)
        }

        func json(_ arguments: [String]) async throws -> JSONValue {
            try JSONValue(parsing: try await pushmock(arguments + ["--json"]).output)
        }
    }

    /// `--probability nan` reached the JSON encoder and printed an `EncodingError`; 2 went to
    /// the gateway for a 400. Both are the command line's mistakes: exit 64 before any request.
    @Test(
        "fault shares outside 0…1 are usage errors",
        arguments: [
            (["fault", "add", "--reset", "--probability", "nan"], "--probability must be from 0 to 1, not nan"),
            (["fault", "add", "--reset", "--probability", "2"], "--probability must be from 0 to 1, not 2.0"),
            (["fault", "add", "--reset", "--token-fraction", "1.5"], "--token-fraction must be from 0 to 1, not 1.5"),
            (["fault", "preset", "flaky-network", "--probability", "inf"], "--probability must be from 0 to 1, not inf"),
            (["fault", "preset", "device-token-expiry", "--fraction", "nan"], "--fraction must be from 0 to 1, not nan"),
        ])
    func faultShares(arguments: [String], message: String) async throws {
        // No gateway listens there: a command that got past validation would fail to connect.
        let result = try await run(ServeProcess.binary, arguments + ["--server", "http://127.0.0.1:9"])
        #expect(result.status == 64, "\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test("QA marks a token uninstalled at 10:02; the next send gets 410 Unregistered with that timestamp")
    func uninstalledAtTen() async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        try await session.pushmock(["token", "unregister", Self.token, "--at", "10:02"])
        #expect(try await session.send().status == 200, "09:58: still installed")
        try await session.pushmock(["clock", "set", "10:05"])
        let gone = try await session.send()
        #expect(gone.status == 410)
        let body = try JSONValue(parsing: gone.body)
        #expect(body["reason"]?.stringValue == "Unregistered")
        #expect(body["timestamp"]?.int64Value == Self.start.millisecondsSince1970 + 4 * 60_000, "10:02 in milliseconds")
        let shown = try await session.json(["token", "show", Self.token])
        #expect(shown["state"]?.stringValue == "unregistered")
        #expect(await session.server.stop().status == 0)
    }

    @Test("CI replays: APNs is down for 2 minutes, then throttles")
    func outageThenThrottling() async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        try await session.pushmock(["fault", "preset", "outage", "--for", "2m", "--platform", "apns"])
        try await session.pushmock([
            "fault", "preset", "throttling", "--starts-in", "2m", "--limit", "2", "--per", "1s", "--platform", "apns",
        ])
        let down = try await session.send()
        #expect(down.status == 503)
        #expect(down.body == #"{"reason":"ServiceUnavailable"}"#)
        try await session.pushmock(["clock", "advance", "119s"])
        #expect(try await session.send().status == 503, "still inside the two minutes")
        try await session.pushmock(["clock", "advance", "1s"])
        var statuses: [Int] = []
        for _ in 1...3 { statuses.append(try await session.send().status) }
        #expect(statuses == [200, 200, 429], "two per second per token, then TooManyRequests")
        try await session.pushmock(["clock", "advance", "1s"])
        #expect(try await session.send().status == 200, "a new second, a new allowance")
        let rules = try await session.json(["fault", "list"]).arrayValue ?? []
        #expect(rules.map { $0["fired"]?.intValue } == [2, 1])
        try await session.pushmock(["fault", "clear"])
        #expect(try await session.json(["fault", "list"]).arrayValue?.isEmpty == true)
        #expect(await session.server.stop().status == 0)
    }

    @Test(
        "a developer takes a device offline, sends five with one collapse id, advances the clock, brings it back",
        arguments: [(advance: "5m", shows: true), (advance: "15m", shows: false)])
    func offlineCollapse(advance: String, shows: Bool) async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        try await session.pushmock(["device", "offline", Self.token])
        let expiration = Self.start.secondsSince1970 + 600
        let ids = (1...5).map { String(format: "3C8F2A4E-0000-4000-8000-00000000000%d", $0) }
        for (index, id) in ids.enumerated() {
            let sent = try await session.send(
                headers: ["apns-id: \(id)", "apns-collapse-id: score", "apns-expiration: \(expiration)"],
                payload: #"{"aps":{"alert":{"title":"Score \#(index + 1)"}}}"#
            )
            #expect(sent.status == 200)
        }
        try await session.pushmock(["clock", "advance", advance])
        try await session.pushmock(["device", "online", Self.token])
        let device = try await session.json(["device", "show", Self.token])
        let showing = device["showing"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let notifications = device["notifications"]?.arrayValue ?? []
        let statuses = notifications.compactMap { $0["status"]?.stringValue }
        if shows {
            #expect(showing == [ids[4]])
            #expect(statuses == ["collapsed", "collapsed", "collapsed", "collapsed", "delivered"])
            #expect(notifications.last?["title"]?.stringValue == "Score 5")
        } else {
            #expect(showing.isEmpty)
            #expect(statuses == ["collapsed", "collapsed", "collapsed", "collapsed", "expired"])
            let expired = device["timeline"]?.arrayValue?.first { $0["event"]?.stringValue == "expired" }
            #expect(expired?["at"]?.stringValue == "2026-11-21T10:08:00.000Z", "at its apns-expiration, not when looked at")
        }
        let text = try await session.pushmock(["device", "show", Self.token]).output
        #expect(text.contains(shows ? "Score 5" : "showing: nothing"), "\(text)")
        #expect(await session.server.stop().status == 0)
    }

    @Test("token lifecycle from the CLI: expire after N sends, rotate, wrong environment")
    func tokenLifecycle() async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        let short = "aabbccddeeff00112233"
        try await session.pushmock(["token", "expire", short, "--after-sends", "2"])
        var statuses: [(status: Int, body: String, exit: Int32)] = []
        for _ in 1...3 { statuses.append(try await session.send(token: short)) }
        #expect(statuses.map(\.status) == [200, 200, 410])
        #expect(statuses.last?.body.contains("ExpiredToken") == true)

        let rotated = try await session.pushmock(["token", "rotate", Self.token]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(rotated.count == 64 && rotated != Self.token)
        #expect(try await session.send(token: Self.token).body.contains("Unregistered"))
        #expect(try await session.send(token: rotated).status == 200)

        let production = "0102030405060708090a0b0c0d0e0f10"
        try await session.pushmock(["token", "add", production, "--app", "dev.pushmock.sample", "--environment", "production"])
        let wrong = try await session.send(token: production)
        #expect(wrong.status == 400)
        #expect(wrong.body == #"{"reason":"BadDeviceToken"}"#, "a production token sent to the sandbox")
        #expect(await session.server.stop().status == 0)
    }

    /// curl's exit codes: 92 HTTP/2 stream error, 16 HTTP/2 framing layer (GOAWAY), 18/52/56
    /// connection closed (EOF or reset, depending on what was still unread), 28 timeout.
    @Test(
        "connection faults as curl sees them",
        arguments: [
            (["--reset"], [Int32(92)]), (["--goaway", "Shutdown"], [16]), (["--close"], [18, 52, 56]), (["--hang"], [28]),
        ] as [([String], [Int32])])
    func curlSeesConnectionFaults(fault: [String], curlExits: [Int32]) async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        try await session.pushmock(["fault", "add", "--platform", "apns", "--next", "1"] + fault)
        // A hung request only ends with the client's timeout: short, but long enough for curl to
        // start and send on a loaded machine (a request that never arrived leaves the rule armed).
        let faulted = try await session.send(maxTime: fault == ["--hang"] ? "3" : "120")
        #expect(curlExits.contains(faulted.exit), "curl exit \(faulted.exit) for \(fault)")
        #expect(faulted.status == 0)
        #expect(try await session.json(["fault", "list"]).arrayValue?.first?["fired"]?.intValue == 1, "the rule fired")
        #expect(try await session.send().status == 200, "only the next one")
        #expect(await session.server.stop().status == 0)
    }

    /// `--expo-error` answers the whole request with Expo's request error (its status, its
    /// `Retry-After`); `--expo-ticket-error` takes no `--status`: Expo answers tickets with 200.
    @Test("fault add --expo-error: a request error with its status and Retry-After, then normal answers")
    func expoRequestError() async throws {
        let session = try await Session()
        defer { session.server.removeDirectory() }
        try await session.pushmock([
            "fault", "add", "--platform", "expo", "--expo-error", "TOO_MANY_REQUESTS", "--retry-after", "5", "--message", "Slow down",
            "--next", "1",
        ])
        let curl = try #require(tool("curl"), "curl is required (Debian package curl)")
        let send = [
            "-s", "-i", "-H", "content-type: application/json", "-d", #"{"to":"ExponentPushToken[cliexpocliexpocliexpo]","title":"Hi"}"#,
            "http://127.0.0.1:\(session.server.cleartextPort)/--/api/v2/push/send",
        ]
        let limited = try await run(curl, send).output
        #expect(limited.hasPrefix("HTTP/1.1 429"), "\(limited)")
        #expect(limited.lowercased().contains("retry-after: 5"), "\(limited)")
        #expect(limited.contains(#""code":"TOO_MANY_REQUESTS""#) && limited.contains(#""message":"Slow down""#), "\(limited)")
        let next = try await run(curl, send).output
        #expect(next.hasPrefix("HTTP/1.1 200") && next.contains(#""status":"ok""#), "\(next)")

        let refused = try await run(
            ServeProcess.binary,
            [
                "fault", "add", "--platform", "expo", "--expo-ticket-error", "DeviceNotRegistered", "--status", "500", "--server",
                "http://127.0.0.1:\(session.server.cleartextPort)",
            ])
        #expect(refused.status == 64, "\(refused.error)")
        #expect(refused.error.contains("--expo-ticket-error answers HTTP 200 with error tickets; drop --status"), "\(refused.error)")
        #expect(await session.server.stop().status == 0)
    }

    @Test("connection faults as nghttp sees them: RST_STREAM, GOAWAY with its JSON reason, SETTINGS")
    func nghttpSeesConnectionFaults() async throws {
        let nghttp = try #require(tool("nghttp"), "nghttp is required (Debian package nghttp2-client)")
        let session = try await Session()
        defer { session.server.removeDirectory() }
        let payload = session.server.directory + "/payload.json"
        try #"{"aps":{"alert":"Hi"}}"#.write(toFile: payload, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--reset"], "(error_code=INTERNAL_ERROR(0x02))"),
            (["--goaway", "Shutdown"], #"opaque_data(21)=[{"reason":"Shutdown"}]"#),
            (["--max-streams", "1"], "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1]"),
        ]
        for (fault, expected) in cases {
            try await session.pushmock(["fault", "add", "--platform", "apns", "--next", "1"] + fault)
            let result = try await run(
                nghttp,
                [
                    "-v", "-d", payload, "-H", "authorization: bearer \(session.jwt)", "-H", "apns-topic: dev.pushmock.sample",
                    "http://127.0.0.1:\(session.server.cleartextPort)/3/device/\(Self.token)",
                ])
            #expect(result.output.contains(expected), "\(fault): \(result.output)")
        }
        #expect(await session.server.stop().status == 0)
    }
}
