import Foundation
import NIOCore
import NIOPosix
import PushMockCheckAPI
import PushMockControl
@_spi(Locking) import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockTesting
import PushMockToolkit
import PushMockTransport
import Testing

private let token = PushMockHarness.sampleDeviceToken

private let loopExamples = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Examples/LoopHealth/pushmock").path

private func linked(_ title: String, _ link: String?, extra: String = "") -> String {
    let member = link.map { #","deep_link":"\#($0)""# } ?? ""
    return #"{"aps":{"alert":{"title":"\#(title)"}\#(extra)}\#(member)}"#
}

@Suite("Checks over the REST API")
struct ChecksAPITests {
    /// A check reads up to the whole store and a schedule plays up to a million steps: both
    /// are computed off the event loop. On the wire: a health request sent once the gateway
    /// has read a long schedule request on the same HTTP/2 connection is answered first (it
    /// waited for the schedule while the schedule ran on the loop).
    @Test("a long check does not hold up the other streams of its connection")
    func longCheckOffTheEventLoop() async throws {
        let script = #"""
            import json, socket, sys
            import h2.config, h2.connection, h2.events
            host, port, body = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
            sock = socket.create_connection((host, port), timeout=300)
            conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
            conn.initiate_connection()
            conn.send_headers(1, [(":method", "POST"), (":scheme", "http"), (":authority", host),
                                  (":path", "/_pushmock/checks/schedule"), ("content-type", "application/json"),
                                  ("content-length", str(len(body)))])
            conn.send_data(1, body, end_stream=True)
            # The PING's ACK says the gateway has read the schedule request; the health request
            # then comes in a read cycle of its own.
            conn.ping(b"schedule")
            sock.sendall(conn.data_to_send())
            order, ended, acknowledged = [], set(), False
            def receive():
                data = sock.recv(65536)
                if not data:
                    raise SystemExit("the server closed the connection")
                global acknowledged
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.PingAckReceived):
                        acknowledged = True
                    if isinstance(event, h2.events.ResponseReceived):
                        order.append([event.stream_id, dict(event.headers)[":status"]])
                    if isinstance(event, h2.events.StreamEnded):
                        ended.add(event.stream_id)
                sock.sendall(conn.data_to_send())
            while not acknowledged:
                receive()
            conn.send_headers(3, [(":method", "GET"), (":scheme", "http"), (":authority", host), (":path", "/_pushmock/health")],
                              end_stream=True)
            sock.sendall(conn.data_to_send())
            while len(ended) < 2:
                receive()
            print(json.dumps(order))
            """#
        // A background check every second over three days, waiting forever for Wi-Fi.
        let body = #"""
            {"user": "ada", "from": 0, "until": "1970-01-04T00:00:00Z", "checkEvery": "1s",
             "users": {"users": [{"id": "ada"}], "events": [{"user": "ada", "name": "app_entered_background", "time": "1970-01-01T00:00:01Z", "sequence": 1}]},
             "config": {"notifications": {"r": {"title": "x",
               "deliveryTime": {"eventName": "app_entered_background", "eventOffsetSeconds": 1, "eventInstance": "latest"},
               "idealDeliveryConditions": {"condition": "has_wifi", "maxWaitTimeSeconds": -1}}}}}
            """#
        try await withPushMock { mock in
            let result = try await run(venvPython, ["-c", script, "127.0.0.1", String(mock.cleartextPort), body])
            try #require(result.status == 0, "\(result.output)\(result.error)")
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == #"[[3, "200"], [1, "200"]]"#)
        }
    }

    /// A read that carried a long poll (or an expectation with `within`) and a push on
    /// other streams answered all of them when the long poll ended: the push's answer waited
    /// up to five minutes although its record was committed at once.
    @Test(
        "a long poll or a waiting expectation does not hold up the streams read with it",
        arguments: [
            ("GET", "/_pushmock/recordings?token=nobody&count=1&wait=30s", ""),
            ("POST", "/_pushmock/expectations", #"{"query": {"token": "nobody"}, "count": {"atLeast": 1}, "within": "30s"}"#),
        ])
    func waitingRequestBesidePush(method: String, path: String, body: String) async throws {
        let script = #"""
            import json, socket, sys
            import h2.config, h2.connection, h2.events
            host, port, method, path, body = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5].encode()
            sock = socket.create_connection((host, port), timeout=300)
            conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
            conn.initiate_connection()
            def send(stream, method, path, body):
                headers = [(":method", method), (":scheme", "http"), (":authority", host), (":path", path)]
                if body:
                    conn.send_headers(stream, headers + [("content-type", "application/json"), ("content-length", str(len(body)))])
                    conn.send_data(stream, body, end_stream=True)
                else:
                    conn.send_headers(stream, headers, end_stream=True)
            push = json.dumps({"to": "ExponentPushToken[beside-a-long-poll]", "body": "hi"}).encode()
            send(1, method, path, body)
            send(3, "POST", "/--/api/v2/push/send", push)
            send(5, "GET", "/_pushmock/health", b"")
            # One write: the gateway reads all three requests in one read cycle.
            sock.sendall(conn.data_to_send())
            order, ended = [], set()
            while not {3, 5} <= ended:
                data = sock.recv(65536)
                if not data:
                    raise SystemExit("the server closed the connection")
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        order.append([event.stream_id, dict(event.headers)[":status"]])
                    if isinstance(event, h2.events.StreamEnded):
                        ended.add(event.stream_id)
                    if isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                sock.sendall(conn.data_to_send())
            print(json.dumps(order))
            """#
        try await withPushMock { mock in
            let result = try await run(venvPython, ["-c", script, "127.0.0.1", String(mock.cleartextPort), method, path, body])
            try #require(result.status == 0, "\(result.output)\(result.error)")
            // The waiting request (stream 1) is still open when the other two are answered.
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == #"[[3, "200"], [5, "200"]]"#)
        }
    }

    /// Checks ran on NIO's shared pool for blocking work: anything else of the process that
    /// filled it (another gateway's schedule, an app's file I/O in the same test run) held
    /// every check of every gateway. In a loaded full run a 60 s client timeout expired on a
    /// trivial check. Each gateway has threads of its own now: with the shared pool's every
    /// thread blocked, a check is answered (the threads are released only after the answer,
    /// or after 300 s, which fails the test).
    @Test("a check is answered while NIO's shared blocking pool is full")
    func checksOnTheGatewaysOwnThreads() async throws {
        final class Blockade: Sendable {
            let released = SanitizerVisibleMutex(false)
            let running = SanitizerVisibleMutex(0)
        }
        let blockade = Blockade()
        let threads = NIOSingletons.blockingPoolThreadCountSuggestion
        var blockers: [Task<Void, any Error>] = []
        for _ in 0..<threads {
            blockers.append(
                Task {
                    try await NIOThreadPool.singleton.runIfActive {
                        blockade.running.withLock { $0 += 1 }
                        while !blockade.released.withLock({ $0 }) { usleep(1000) }
                    }
                })
        }
        for _ in 0..<12_000 where blockade.running.withLock({ $0 }) < threads {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(blockade.running.withLock { $0 } == threads, "the shared pool's threads did not all start")
        let deadline = Task {
            try await Task.sleep(for: .seconds(300))
            blockade.released.withLock { $0 = true }
            return true
        }
        try await withPushMock { mock in
            let control = try mock.controlClient(timeout: .seconds(600))
            let answer = try await control.request(
                "POST", "checks/links",
                json: Array(#"{"routes":{"version":1,"scheme":"app","routes":[{"pattern":"/a","screen":"/a"}]}}"#.utf8))
            #expect(answer.status == 200, "\(answer.text)")
            await control.close()
        }
        deadline.cancel()
        let expired = (try? await deadline.value) ?? false
        blockade.released.withLock { $0 = true }
        #expect(!expired, "the check waited for NIO's shared pool")
        for blocker in blockers { try await blocker.value }
    }

    /// A client that hangs up (or a gateway that stops) cancels the task waiting for a check;
    /// the work on the pool thread learns it, so a million-step schedule need not hold the
    /// thread for seconds nobody waits for. The work here spins until told (at most 300 s,
    /// which fails the test).
    @Test("blocking work learns that the task waiting for it was cancelled")
    func blockingWorkCancelled() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let context = ControlAPIContext(
            state: GatewayState(recordings: RecordingStore(configuration: .init(capacity: 4)), journal: nil),
            files: ControlFileAccess(directories: []), blockingPool: pool)
        final class Started: Sendable { let flag = SanitizerVisibleMutex(false) }
        let started = Started()
        let waiting = Task {
            try await context.runBlocking { cancellation in
                started.flag.withLock { $0 = true }
                for _ in 0..<300_000 where !cancellation.isCancelled { usleep(1000) }
                return cancellation.isCancelled
            }
        }
        for _ in 0..<12_000 where !started.flag.withLock({ $0 }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        waiting.cancel()
        #expect(try await waiting.value, "the work was not told")
        try await pool.shutdownGracefully()
    }

    /// The checker stops at the first record after nobody waits, and nothing is encoded: a
    /// links check over 100,000 records that a client gave up on must not hold a thread for
    /// seconds. Here "nobody waits" flips after the checker has taken three records.
    @Test("a check whose client is gone stops at the next record and reports nothing")
    func checkerStopsWhenCancelled() throws {
        let records = (0..<10).map { ExchangeRecord(sequence: UInt64($0 + 1), platform: .apns) }
        final class Seen: Sendable { let count = SanitizerVisibleMutex(0) }
        let seen = Seen()
        #expect(throws: CancellationError.self) {
            try CheckControlAPI.checked(records, isCancelled: { seen.count.withLock { $0 } >= 3 }) { records in
                for _ in records { seen.count.withLock { $0 += 1 } }
                return "report"
            }
        }
        #expect(seen.count.withLock { $0 } == 3, "the checker went on after the client was gone")
        #expect(try CheckControlAPI.checked(records, isCancelled: { false }) { Array($0).count } == 10)
        #expect(throws: CancellationError.self) {
            try CheckControlAPI.checked(records, isCancelled: { true }) { _ in Issue.record("checked while cancelled") }
        }
    }

    @Test("since=-1h in a query item is an hour before the gateway's clock, for listings and checks alike")
    func relativeTimesOnTheGatewayClock() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: linked("Dose", "loop://settings"))))
            await connection.close()
            let control = try mock.controlClient()
            // Two hours pass on the gateway's (virtual) clock, none on this machine's.
            #expect(try await control.request("POST", "clock/advance", json: Array(#"{"by":"2h"}"#.utf8)).status == 200)

            for (since, expected) in [("-1h", 0), ("-3h", 1), ("now", 0)] {
                let listed = try await control.request("GET", "recordings", query: [("since", since)])
                #expect(listed.status == 200)
                #expect(try JSONValue(parsing: listed.body)["count"]?.intValue == expected, "since=\(since)")
                let checked = try await control.request(
                    "POST", "checks/links", query: [("since", since)],
                    json: Array(#"{"routes":{"version":1,"scheme":"loop","routes":[{"pattern":"/settings","screen":"/settings"}]}}"#.utf8))
                #expect(checked.status == 200, "\(checked.text)")
                #expect(try checked.decode(CheckOutcome<DeepLinkReport>.self).report.notifications.count == expected, "since=\(since)")
            }
            let bad = try await control.request("GET", "recordings", query: [("until", "25:00")])
            #expect(bad.status == 400)
            #expect(bad.errorMessage == "until=25:00: ISO 8601 (2026-11-21T10:00:00Z), milliseconds, now, -2h, +5m or 10:02")
            // Int64.min once reached the formatter, whose overflow took the gateway down.
            for path in ["recordings", "recordings/stream"] {
                let extreme = try await control.request("GET", path, query: [("since", "-9223372036854775808")])
                #expect(extreme.status == 400, "\(path)")
                #expect(
                    extreme.errorMessage
                        == "since=-9223372036854775808: a time must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z",
                    "\(path)")
            }
            #expect(try await control.request("GET", "recordings").status == 200)
            await control.close()
        }
    }

    @Test("POST /checks/links: 417 with the problems, 200 when the query leaves only good links; text and JUnit")
    func links() async throws {
        // The example files live under Examples/, outside the default checks directory.
        try await withPushMock(configure: { $0.checksDirectories = [loopExamples] }) { mock in
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: linked("Dose", "loop://protocols/p1/log"))))
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: linked("Settings", "loop://settings"))))
            expectAccepted(
                try await connection.send(
                    try mock.apnsRequest(payload: linked("Nothing", nil), headers: [("x-pushmock-namespace", "other")])))
            await connection.close()
            let control = try mock.controlClient()
            let body = Array(#"{"routesFile":"\#(loopExamples)/routes.json"}"#.utf8)

            let failed = try await control.request("POST", "checks/links", json: body)
            #expect(failed.status == 417, "\(failed.text)")
            let outcome = try failed.decode(CheckOutcome<DeepLinkReport>.self)
            #expect(!outcome.passed)
            #expect(outcome.report.notifications.count == 3)
            #expect(outcome.report.findings.map(\.problem.kind) == [.fallback, .noLink])
            #expect(outcome.report.findings.map(\.notification.sequence) == [2, 3])
            let resolved = outcome.report.notifications.first?.links.first?.match.resolution
            #expect(resolved?.screen == "/protocols/p1/log")
            #expect(resolved?.parameters == ["id": "p1"])

            // The same query language as GET /recordings, in the URL or in the body.
            let good = try await control.request(
                "POST", "checks/links", query: [("where", "$.deep_link=loop://protocols/p1/log")], json: body)
            #expect(good.status == 200, "\(good.text)")
            let namespaced = Array(#"{"routesFile":"\#(loopExamples)/routes.json","query":{"namespace":"other"}}"#.utf8)
            let other = try await control.request("POST", "checks/links", json: namespaced)
            #expect(try other.decode(CheckOutcome<DeepLinkReport>.self).report.findings.map(\.problem.kind) == [.noLink])

            let inline =
                #"{"routes":{"version":1,"scheme":"loop","routes":[{"pattern":"/settings","screen":"/settings"}]},"options":{"requireLink":false}}"#
            let text = try await control.request(
                "POST", "checks/links", query: [("format", "text"), ("where", "$.aps.alert.title=Settings")], json: Array(inline.utf8))
            #expect(text.status == 200)
            #expect(text.text.hasPrefix("Deep links: 1 notification, 1 link, 0 problems"), "\(text.text)")

            let junit = try await control.request("POST", "checks/links", query: [("format", "junit")], json: body)
            #expect(junit.status == 417)
            #expect(junit.text.contains(#"<testsuite name="pushmock" tests="3" failures="2""#), "\(junit.text)")

            #expect(try await control.request("POST", "checks/links", json: Array("{}".utf8)).status == 400)
            // A missing file under --checks-dir (the default: the working directory's Recordings/)
            // is a bad request; one outside is refused (CheckFilesAPITests).
            #expect(
                try await control.request("POST", "checks/links", json: Array(#"{"routesFile":"\#(loopExamples)/no-such.json"}"#.utf8))
                    .status == 400)
            #expect(
                try await control.request("POST", "checks/links", json: Array(#"{"routes":{"version":2,"routes":[]}}"#.utf8)).status == 400)
            #expect(try await control.request("POST", "checks/links", json: Array(#"{"routesFile":"x","colour":1}"#.utf8)).status == 400)
            #expect(try await control.request("POST", "checks/links", query: [("format", "yaml")], json: body).status == 400)
            #expect(
                try await control.request("POST", "checks/links", query: [("token", "x")], json: namespaced).status == 400, "query twice")
            #expect(try await control.request("GET", "checks/links").status == 405)
            #expect(try await control.request("POST", "checks/spelling", json: body).status == 404)
            await control.close()
        }
    }

    @Test("POST /checks/policy: quiet hours in the recipient's zone on the gateway's clock, exemptions, caps")
    func policy() async throws {
        // The example files live under Examples/, outside the default checks directory.
        try await withPushMock(configure: { $0.checksDirectories = [loopExamples] }) { mock in
            // Whatever the real time, give the device a zone in which it is now 23:xx.
            mock.clock.freeze()
            let utcHour = Int((mock.clock.now().millisecondsSince1970 / 3_600_000) % 24)
            let offset = ((23 - utcHour + 12) % 24 + 24) % 24 - 12
            let zone = (offset < 0 ? "-" : "+") + (abs(offset) < 10 ? "0" : "") + "\(abs(offset)):00"
            let policy = #"""
                {"version":1,
                 "types":[{"name":"marketing","match":{"path":"$.type","equals":"marketing"}}],
                 "timeZones":{"default":"+00:00","byRecipient":{"\#(token)":"\#(zone)"}},
                 "quietHours":[{"name":"night","start":"22:00","end":"08:00","exemptInterruptionLevels":["time-sensitive","critical"]}],
                 "frequencyCaps":[{"name":"marketing-weekly","types":["marketing"],"limit":1,"window":"7d"}]}
                """#
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: #"{"aps":{"alert":"Sale!"},"type":"marketing"}"#)))
            mock.clock.advance(by: .seconds(60))
            expectAccepted(
                try await connection.send(
                    try mock.apnsRequest(payload: #"{"aps":{"alert":"Dose now","interruption-level":"time-sensitive"}}"#)))
            mock.clock.advance(by: .seconds(60))
            expectAccepted(
                try await connection.send(
                    try mock.apnsRequest(
                        payload: #"{"aps":{"alert":"Sale again","interruption-level":"time-sensitive"},"type":"marketing"}"#)))
            await connection.close()

            let control = try mock.controlClient()
            let body: JSONValue = ["policy": try JSONValue(parsing: policy)]
            let answer = try await control.request("POST", "checks/policy", json: body.compactBytes)
            #expect(answer.status == 417, "\(answer.text)")
            let report = try answer.decode(CheckOutcome<PolicyReport>.self).report
            #expect(report.notificationCount == 3)
            #expect(report.violations.map(\.kind) == [.quietHours, .frequencyCap])
            let quiet = try #require(report.violations(.quietHours).first)
            #expect(quiet.notification.sequence == 1)
            #expect(quiet.notification.token == token)
            #expect(quiet.timeZone != nil)
            #expect(quiet.localTime?.contains("23:") == true, "\(quiet)")
            #expect(report.violations(.frequencyCap).first?.notification.sequence == 3)

            let onlyExempt = try await control.request(
                "POST", "checks/policy", query: [("where", "$.aps.alert=Dose now")], json: body.compactBytes)
            #expect(onlyExempt.status == 200, "\(onlyExempt.text)")

            let file = try await control.request(
                "POST", "checks/policy", query: [("format", "junit")], json: Array(#"{"policyFile":"\#(loopExamples)/policy.json"}"#.utf8))
            #expect([200, 417].contains(file.status))
            #expect(file.text.contains(#"name="quiet-hours night""#), "\(file.text)")
            #expect(
                try await control.request(
                    "POST", "checks/policy",
                    json: Array(#"{"policy":{"version":1,"quietHours":[{"name":"n","start":"25:00","end":"08:00"}]}}"#.utf8)
                ).status == 400)
            await control.close()
        }
    }

    /// A check's own `users` skipped what `POST /users` checks: an empty token or an unknown
    /// zone was judged against (schemathesis found `"tokens": [""]` accepted), and an event's
    /// `time` beyond year 9999 was ignored beside `timeMilliseconds`.
    @Test(
        "a check's own users and events are held to POST /users' rules",
        arguments: [
            (
                "checks/policy", #"{"policy":{"version":1},"users":{"users":[{"id":"u1","tokens":[""]}]}}"#,
                #"users: users[0] ("u1"): a token cannot be empty"#
            ),
            (
                "checks/policy", #"{"policy":{"version":1},"users":{"users":[{"id":"u1"},{"id":"u2","timeZone":"Mars/Olympus"}]}}"#,
                #"users: users[1] ("u2"): "Mars/Olympus" is not a time zone (use an IANA identifier such as Europe/Oslo, or an offset such as +02:00, at most 18 hours)"#
            ),
            (
                "checks/policy",
                #"{"policy":{"version":1},"users":{"users":[],"events":[{"user":"u1","name":"a","time":253402300800000,"timeMilliseconds":0}]}}"#,
                ".events[0].time: a time must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z"
            ),
            (
                "checks/schedule",
                #"{"config":{"notifications":{}},"user":"u1","from":0,"users":{"users":[{"id":"u1","timeZone":"+25:00:00"}]}}"#,
                #"users: users[0] ("u1"): "+25:00:00" is not a time zone (use an IANA identifier such as Europe/Oslo, or an offset such as +02:00, at most 18 hours)"#
            ),
            // Four digits passed the control API's own looser check; the policy checker could
            // not read them and judged the user in the policy's default zone.
            (
                "checks/policy", #"{"policy":{"version":1},"users":{"users":[{"id":"u1","timeZone":"+99:00"}]}}"#,
                #"users: users[0] ("u1"): "+99:00" is not a time zone (use an IANA identifier such as Europe/Oslo, or an offset such as +02:00, at most 18 hours)"#
            ),
            (
                "checks/policy", #"{"policy":{"version":1},"users":{"users":[{"id":"u1","timeZone":"-0575"}]}}"#,
                #"users: users[0] ("u1"): "-0575" is not a time zone (use an IANA identifier such as Europe/Oslo, or an offset such as +02:00, at most 18 hours)"#
            ),
            // A misspelt member was a directory of nobody (every check passed); a second user
            // with one id replaced the first without a word.
            (
                "checks/policy", #"{"policy":{"version":1},"users":{"user":[{"id":"u1"}]}}"#,
                #".user: unknown member "user" in a user directory (expected: users, events)"#
            ),
            (
                "checks/policy", #"{"policy":{"version":1},"users":{"users":[{"id":"u1"},{"id":"u1","tokens":["aa"]}]}}"#,
                #"users: users[1]: the id "u1" is used twice"#
            ),
        ])
    func checkUsersValidated(path: String, body: String, error: String) async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let answer = try await control.request("POST", path, json: Array(body.utf8))
            #expect(answer.status == 400, "\(answer.text)")
            #expect(try answer.decode([String: String].self)["error"]?.hasSuffix(error) == true, "\(answer.text)")
            await control.close()
        }
    }

    @Test("POST /expectations with a deep-link requirement; the near miss shows the resolved link")
    func expectationWithDeepLink() async throws {
        // The example files live under Examples/, outside the default checks directory.
        try await withPushMock(configure: { $0.checksDirectories = [loopExamples] }) { mock in
            expectAccepted(
                try await mock.sendOnNewConnection(try mock.apnsRequest(payload: linked("Time for BPC-157", "loop://protocols/p2/log"))))
            let control = try mock.controlClient()
            func expectation(_ id: String) -> [UInt8] {
                Array(
                    #"""
                    {"name":"dose","query":{"token":"\#(token)","payload":[{"path":"$.aps.alert.title","op":"=","value":"Time for BPC-157"}]},
                     "deepLink":{"routes":"\#(loopExamples)/routes.json","screen":"/protocols/{id}/log","parameters":{"id":"\#(id)"}}}
                    """#.utf8)
            }
            #expect(try await control.request("POST", "expectations", json: expectation("p2")).status == 200)
            let failed = try await control.request("POST", "expectations", json: expectation("p1"))
            #expect(failed.status == 417)
            let result = try JSONValue(parsing: failed.body)["results"]?[0]
            let mismatch = result?["nearestMisses"]?[0]?["mismatches"]?[0]
            #expect(mismatch?["condition"]?.stringValue == "deepLink")
            #expect(mismatch?["actual"]?.stringValue?.contains("-> /protocols/p2/log (route protocol; id=p2)") == true, "\(failed.text)")
            await control.close()

            // The same in Swift.
            let requirement = try DeepLinkRequirement(routesFile: loopExamples + "/routes.json", screen: "/protocols/p2/log")
            try await mock.expect(RecordingQuery(token: Glob(token)), deepLink: requirement)
            await #expect(throws: ExpectationFailure.self) {
                try await mock.expect(
                    RecordingQuery(token: Glob(token)),
                    deepLink: try DeepLinkRequirement(routesFile: loopExamples + "/routes.json", screen: "/labs/{id}"))
            }
            #expect(mock.checkLinks(try RouteTable(contentsOfFile: loopExamples + "/routes.json")).isClean)
        }
    }
}
