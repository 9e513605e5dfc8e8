import Foundation
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockTesting
import PushMockTransport
import Testing

/// Hostile numbers, oversized requests and cross-origin calls against the real gateway over
/// real sockets (curl, HTTP/1.1): each is refused with its documented status and the gateway
/// keeps answering (docs/SECURITY.md).
@Suite("Hardening: input ranges, sizes and control-API access")
struct HardeningLimitsTests {
    @Test("handshake timeout defaults: 10 s for serve, 2 minutes for a test's own gateway")
    func handshakeTimeouts() throws {
        #expect(ConnectionLimits.defaults.handshakeTimeout == .seconds(10))
        #expect(GatewayConfiguration().connectionLimits.handshakeTimeout == .seconds(10))
        // A busy test process (ThreadSanitizer, many gateways) took longer than 10 s.
        let testing = GatewayConfiguration.testing(credentials: try .ephemeral())
        #expect(testing.connectionLimits.handshakeTimeout == .seconds(120))
    }

    /// A control request that used to trap (or arm a trap for the next push).
    struct HostileInput: CustomTestStringConvertible, Sendable {
        var name: String
        var method = "POST"
        var path: String
        var body: String?
        var testDescription: String { name }
    }

    static let hostileInputs: [HostileInput] = [
        .init(name: "clock/advance by 1e16 s", path: "/_pushmock/clock/advance", body: #"{"by":1e16}"#),
        .init(name: "clock/advance by 1e14 days", path: "/_pushmock/clock/advance", body: #"{"by":"100000000000000d"}"#),
        // Found by scripts/fuzz (control-api target): a decimal far beyond Int64 with a fraction.
        .init(name: "clock/advance by 1.3e22 s (fuzz)", path: "/_pushmock/clock/advance", body: #"{"by":13333333333333333333333.5}"#),
        .init(name: "clock/set Int64.min", path: "/_pushmock/clock/set", body: #"{"to":-9223372036854775808}"#),
        .init(name: "clock/set Int64.max", path: "/_pushmock/clock/set", body: #"{"to":9223372036854775807}"#),
        .init(name: "clock/freeze at 1e300", path: "/_pushmock/clock/freeze", body: #"{"at":1e300}"#),
        .init(
            name: "fault forSeconds 1e300", path: "/_pushmock/faults",
            body: #"{"action":{"type":"apns-error","reason":"BadDeviceToken"},"trigger":{"forSeconds":1e300}}"#),
        .init(
            name: "fault startsInSeconds 1e300", path: "/_pushmock/faults",
            body: #"{"action":{"type":"apns-error","reason":"BadDeviceToken"},"trigger":{"startsInSeconds":1e300}}"#),
        .init(
            name: "fault from Int64.max", path: "/_pushmock/faults",
            body: #"{"action":{"type":"apns-error","reason":"BadDeviceToken"},"trigger":{"from":9223372036854775807,"forSeconds":1}}"#),
        .init(
            name: "fault rate perSeconds 1e300", path: "/_pushmock/faults",
            body: #"{"action":{"type":"apns-error","reason":"TooManyRequests"},"trigger":{"rate":{"limit":1,"perSeconds":1e300}}}"#),
        .init(name: "latency fixedMs 1e300", path: "/_pushmock/faults", body: #"{"action":{"type":"pass"},"latency":{"fixedMs":1e300}}"#),
        .init(
            name: "latency exponential mean 1e300", path: "/_pushmock/faults",
            body: #"{"action":{"type":"pass"},"latency":{"exponentialMs":{"mean":1e300}}}"#),
        .init(name: "preset outage forSeconds 1e300", path: "/_pushmock/faults/presets/outage", body: #"{"forSeconds":1e300}"#),
        .init(name: "preset slow-network meanMs 1e300", path: "/_pushmock/faults/presets/slow-network", body: #"{"meanMs":1e300}"#),
        .init(name: "preset throttling perSeconds 1e300", path: "/_pushmock/faults/presets/throttling", body: #"{"perSeconds":1e300}"#),
        .init(name: "recordings wait=1e300", method: "GET", path: "/_pushmock/recordings?wait=1e300"),
        .init(name: "recordings wait=-5s", method: "GET", path: "/_pushmock/recordings?wait=-5s"),
        // Deep nesting overflowed the stack of a recursive parser (found by probing, not numbers).
        .init(
            name: "schedule check with a condition 3,000 parentheses deep", path: "/_pushmock/checks/schedule",
            body:
                #"{"config":{"notifications":{"n":{"title":"t","body":"b","deliveryTime":{"eventName":"e","eventOffsetSeconds":60},"scheduleCondition":""#
                + String(repeating: "(", count: 3000) + "true" + String(repeating: ")", count: 3000)
                + #""}}},"user":"nobody","from":"2026-01-05T08:00:00Z","until":"2026-01-07T08:00:00Z"}"#),
        .init(
            name: "contract with a pattern 2,000 groups deep", method: "PUT", path: "/_pushmock/contracts",
            body: #"{"version":1,"contracts":[{"name":"a","schema":{"properties":{"link":{"pattern":""#
                + String(repeating: "(?:", count: 2000) + "a" + String(repeating: ")", count: 2000) + #""}}}}]}"#),
    ]

    @Test("numbers out of range and nesting too deep get 400 and the gateway keeps answering", arguments: hostileInputs)
    func outOfRangeNumbers(_ input: HostileInput) async throws {
        try await withPushMock { mock in
            let answer = try await ControlAPITests.curl(mock, input.method, input.path, body: input.body)
            #expect(answer.status == 400, "\(input.name): \(String(describing: answer.json))")
            // The next push is where an armed trap would fire.
            let connection = try await mock.connect()
            let push = try await connection.send(try mock.apnsRequest())
            #expect(push.status == 200)
            await connection.close()
            let health = try await ControlAPITests.curl(mock, "GET", "/_pushmock/health")
            #expect(health.status == 200)
        }
    }

    /// NIO traps inside the new thread when it cannot create a loop's descriptors: the
    /// gateway refuses such a count before it creates anything.
    @Test("a gateway asked for event-loop threads outside 1 to 1024 does not start", arguments: [0, -1, 1025, 100_000])
    func eventLoopThreadsOutOfRange(threads: Int) async throws {
        do {
            _ = try await withPushMock(configure: { $0.eventLoopThreads = threads }) { _ in
                Issue.record("a gateway with \(threads) event-loop threads started")
            }
        } catch {
            #expect("\(error)".contains("event-loop threads must be 1 to 1024, not \(threads)"), "\(error)")
        }
    }

    @Test("the largest documented values are accepted")
    func edgesAccepted() async throws {
        try await withPushMock { mock in
            let set = try await ControlAPITests.curl(mock, "POST", "/_pushmock/clock/set", body: #"{"to":"9999-12-31T00:00:00Z"}"#)
            #expect(set.status == 200)
            let back = try await ControlAPITests.curl(mock, "POST", "/_pushmock/clock/advance", body: #"{"by":"-3650d"}"#)
            #expect(back.status == 200)
            let fault = try await ControlAPITests.curl(
                mock, "POST", "/_pushmock/faults", body: #"{"action":{"type":"pass"},"latency":{"fixedMs":3600000}}"#)
            #expect(fault.status == 200 || fault.status == 201)
        }
    }

    @Test("an FCM body over the stored limit is refused, not parsed from its prefix")
    func oversizedFCMBody() async throws {
        try await withPushMock { mock in
            // A valid message followed by padding past 1 MiB: the prefix alone would parse.
            let padding = String(repeating: " ", count: 1 << 20)
            let body = #"{"message":{"token":"abc","data":{"k":"v"}}}"# + padding
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-big-\(UUID().uuidString).json")
            try Data(body.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try await run(
                "/usr/bin/curl",
                [
                    "-s", "-o", "-", "-w", "\n%{http_code}", "--http1.1", "-H", "content-type: application/json",
                    "--data-binary", "@\(file.path)", "http://127.0.0.1:\(mock.cleartextPort)/v1/projects/demo/messages:send",
                ]
            )
            let lines = result.output.split(separator: "\n")
            #expect(lines.last == "400")
            #expect(result.output.contains("Request payload size exceeds the limit"))
            let control = try await run(
                "/usr/bin/curl",
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http1.1", "-H", "content-type: application/json",
                    "--data-binary", "@\(file.path)", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/faults",
                ]
            )
            #expect(control.output == "413")
        }
    }

    @Test("oversized header lists get 431 on HTTP/1.1 and HTTP/2, and the gateway keeps answering")
    func oversizedHeaders() async throws {
        try await withPushMock { mock in
            let big = "x-big: " + String(repeating: "a", count: 60_000)
            for version in ["--http1.1", "--http2-prior-knowledge"] {
                let result = try await run(
                    "/usr/bin/curl",
                    [
                        "-s", "-o", "/dev/null", "-w", "%{http_code}", version, "-H", big,
                        "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/health",
                    ]
                )
                #expect(result.output == "431", "\(version)")
            }
            let health = try await ControlAPITests.curl(mock, "GET", "/_pushmock/health")
            #expect(health.status == 200)
        }
    }

    @Test("cross-origin, rebinding and simple-request CSRF are refused; same origin passes")
    func controlAccess() async throws {
        try await withPushMock { mock in
            let url = "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/clock/freeze"
            func status(_ headers: [String]) async throws -> String {
                var arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--http1.1", "-X", "POST"]
                for header in headers { arguments += ["-H", header] }
                arguments.append(url)
                return try await run("/usr/bin/curl", arguments).output
            }
            do {
                let got = try await status(["origin: https://evil.example"])
                #expect(got == "403")
            }
            do {
                let got = try await status(["origin: null"])
                #expect(got == "403")
            }
            do {
                let got = try await status(["sec-fetch-site: cross-site"])
                #expect(got == "403")
            }
            do {
                let got = try await status(["host: attacker.example:\(mock.cleartextPort)"])
                #expect(got == "403")
            }
            do {
                let got = try await status(["content-type: text/plain"])
                #expect(got == "415")
            }
            do {
                let got = try await status(["origin: http://127.0.0.1:\(mock.cleartextPort)", "content-type: application/json"])
                #expect(got == "200")
            }
            do {
                let got = try await status(["host: localhost:\(mock.cleartextPort)"])
                #expect(got == "200")
            }
        }
    }

    @Test("credential-bearing headers are withheld from records like authorization")
    func credentialHeadersWithheld() async throws {
        try await withPushMock { mock in
            var request = try mock.apnsRequest()
            let secrets = [
                ("cookie", "session=cookie-secret"), ("proxy-authorization", "Basic proxy-secret"),
                ("x-api-key", "api-key-secret"), ("x-goog-api-key", "goog-secret"),
            ]
            for (name, value) in secrets {
                request.headers.append(name: name, value: value)
            }
            let connection = try await mock.connect()
            let answer = try await connection.send(request)
            #expect(answer.status == 200)
            await connection.close()
            let listing = try await run(
                "/usr/bin/curl", ["-s", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/recordings?limit=5"])
            #expect(listing.output.contains("[withheld]"))
            for (name, value) in secrets {
                #expect(!listing.output.contains(value), "\(name) was recorded verbatim")
            }
        }
    }

    @Test("headers repeated on one connection are recorded as sent each time; a changed list is redacted afresh")
    func repeatedHeadersOnOneConnection() async throws {
        try await withPushMock { mock in
            let first = try mock.apnsRequest(headers: [("cookie", "session=one"), ("x-trace", "1")])
            let second = try mock.apnsRequest(headers: [("cookie", "session=two"), ("x-trace", "2")])
            let connection = try await mock.connect()
            for request in [first, first, second, first] {
                #expect(try await connection.send(request).status == 200)
            }
            await connection.close()
            let records = mock.recordings.records(newestFirst: false)
            try #require(records.count == 4)
            let fields = records.map { record in record.request.headers.map { "\($0.name)=\($0.value)" } }
            for (index, trace) in ["1", "1", "2", "1"].enumerated() {
                #expect(fields[index].count == 5)
                #expect(fields[index].contains("x-trace=\(trace)"), "record \(index)")
                #expect(fields[index].contains("cookie=[withheld]"), "record \(index)")
                #expect(!fields[index].contains { $0.contains("session=") }, "record \(index) kept a cookie")
                #expect(fields[index].first?.hasPrefix("authorization=") == true)
                #expect(fields[index].first?.contains("signature withheld") == true)
            }
            #expect(fields[0] == fields[1])
            #expect(fields[0] == fields[3])
        }
    }

    @Test("with a control token, requests need it as a bearer token or the inbox cookie")
    func controlToken() async throws {
        try await withPushMock(configure: { $0.controlAccess.token = "s3cret" }) { mock in
            let url = "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/clock"
            func status(_ headers: [String]) async throws -> String {
                var arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--http1.1"]
                for header in headers { arguments += ["-H", header] }
                arguments.append(url)
                return try await run("/usr/bin/curl", arguments).output
            }
            let none = try await status([])
            #expect(none == "401")
            let wrong = try await status(["authorization: Bearer nope"])
            #expect(wrong == "401")
            let bearer = try await status(["authorization: Bearer s3cret"])
            #expect(bearer == "200")
            let cookie = try await status(["cookie: theme=dark; pushmock-control-token=s3cret"])
            #expect(cookie == "200")
        }
    }

    @Test(
        "configuration files with out-of-range numbers are refused, not trapped on",
        arguments: [
            #"{"apns":{"options":{"providerTokenLifetimeSeconds":9223372036854775807}}}"#,
            #"{"apns":{"options":{"providerTokenUpdateIntervalSeconds":-1}}}"#,
            #"{"fcm":{"options":{"accessTokenLifetimeSeconds":9223372036854775807}}}"#,
            #"{"fcm":{"options":{"assertionClockSkewSeconds":1000000000000000}}}"#,
            #"{"clock":{"start":9223372036854775807}}"#,
            #"{"expo":{"options":{"receiptLifetimeSeconds":9223372036854775807}}}"#,
            #"{"expo":{"options":{"maximumReceipts":0}}}"#,
        ]
    )
    func configurationRanges(_ text: String) throws {
        let path = NSTemporaryDirectory() + "pushmock-config-\(UUID().uuidString).json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: (any Error).self) { try ConfigurationFile.load(path: path) }
    }

    @Test("configuration numbers inside their ranges load")
    func configurationInRange() throws {
        let text = #"""
            {"apns":{"options":{"providerTokenLifetimeSeconds":3600,"providerTokenUpdateIntervalSeconds":1200}},
             "fcm":{"options":{"accessTokenLifetimeSeconds":3600,"assertionClockSkewSeconds":300,"authentication":"none",
                               "topicSubscriptionFieldNames":"snake_case"}},
             "expo":{"options":{"receiptLifetimeSeconds":86400,"receiptDelayMilliseconds":10,"maximumReceipts":5,"authentication":"none"}},
             "clock":{"start":"2026-11-21T10:00:00Z"}}
            """#
        let path = NSTemporaryDirectory() + "pushmock-config-\(UUID().uuidString).json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try ConfigurationFile.load(path: path)
        var configuration = GatewayConfiguration()
        file.apply(to: &configuration)
        #expect(configuration.apns.providerTokenLifetime == .seconds(3600))
        #expect(configuration.fcm.accessTokenLifetime == .seconds(3600))
        // Read, not only allowed: `authentication` was a known key that nothing decoded.
        #expect(configuration.fcm.authentication == .none)
        #expect(configuration.fcm.topicSubscriptionFieldNames == .snakeCase)
        #expect(configuration.expo.maximumReceipts == 5)
        #expect(configuration.expo.authentication == .none)
    }

    @Test("at most 1000 fault rules are active")
    func faultRuleCap() async throws {
        try await withPushMock { mock in
            let rule = #"{"action":{"type":"apns-error","reason":"BadDeviceToken"},"match":{"token":"nobody"}}"#
            let many = "[" + Array(repeating: rule, count: 1000).joined(separator: ",") + "]"
            let added = try await ControlAPITests.curl(mock, "POST", "/_pushmock/faults", body: many)
            #expect(added.status == 200 || added.status == 201)
            let over = try await ControlAPITests.curl(mock, "POST", "/_pushmock/faults", body: rule)
            #expect(over.status == 507)
            #expect(over.json?["error"]?.stringValue?.contains("at most 1000") == true)
            #expect(over.json?["registry"]?.stringValue == "fault rules")
        }
    }
}
