import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockSimulation
import PushMockTestSupport
import PushMockTesting
import PushMockTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

private let deviceToken = PushMockHarness.sampleDeviceToken

/// Waits (polling) until `condition` holds or the deadline passes; generous on purpose.
private func eventually(within deadline: Duration = .seconds(120), _ condition: () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + deadline
    while clock.now < end {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// The stage order every endpoint shares: faults decide before anything changes state.
@Suite("Request pipeline")
struct PipelineTests {
    /// One injected fault of each effect: an error answer and no answer at all.
    static let apnsFaults: [FaultAction] = [.apnsError(reason: "InternalServerError"), .reset(.refusedStream), .close]
    static let fcmFaults: [FaultAction] = [.fcmError(code: "UNAVAILABLE"), .reset(.refusedStream), .goAway(reason: "Shutdown")]

    @Test("APNs: an injected fault before a lifecycle limit consumes no send and delivers nothing", arguments: apnsFaults)
    func apnsFaultBeforeLifecycle(action: FaultAction) async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            _ = try await control.call(
                "PATCH", "apns/tokens/\(deviceToken)", json: Array(#"{"expireAfterSends":2,"expireAs":"unregistered"}"#.utf8))
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: action))

            // The next request fails as scripted, whatever form the failure takes.
            let injected = try? await mock.sendOnNewConnection(try mock.apnsRequest())
            #expect(injected?.status != 200)
            // Then the token still has both of its sends.
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            expectAPNsError(try await mock.sendOnNewConnection(try mock.apnsRequest()), status: 410, reason: "Unregistered")

            let record = try JSONValue(parsing: try await control.call("GET", "apns/tokens/\(deviceToken)").body)
            #expect(record["sends"]?.intValue == 2, "the injected failure used up no send")
            let records = mock.recordings.records(newestFirst: false)
            #expect(records.count == 4)
            #expect(
                records.first?.annotations["fault"]?.contains(action.description) == true, "the recording says the failure was injected")
            #expect(records.first?.notification?.lint.isEmpty ?? true)
            let device = try JSONValue(parsing: try await control.call("GET", "devices/apns/\(deviceToken)").body)
            #expect(device["counts"]?["delivered"]?.intValue == 2, "only the two accepted pushes reached the device: \(device)")
            await control.close()
        }
    }

    @Test("FCM: an injected fault before a lifecycle limit consumes no send and delivers nothing", arguments: fcmFaults)
    func fcmFaultBeforeLifecycle(action: FaultAction) async throws {
        try await withPushMock { mock in
            let registration = PushMockHarness.sampleRegistrationToken
            let control = try mock.controlClient()
            _ = try await control.call("PATCH", "fcm/tokens/\(registration)", json: Array(#"{"expireAfterSends":2}"#.utf8))
            let accessToken = try await {
                let connection = try await mock.connect()
                defer { Task { await connection.close() } }
                return try await mock.fetchAccessToken(over: connection)
            }()
            try mock.addFault(FaultRule(match: FaultMatch(platform: .fcm), trigger: FaultTrigger(count: 1), action: action))
            let body = #"{"message":{"token":"\#(registration)","notification":{"title":"Dose due"}}}"#

            let injected = try? await mock.sendOnNewConnection(mock.fcmSend(body, accessToken: accessToken))
            #expect(injected?.status != 200)
            #expect(try await mock.sendOnNewConnection(mock.fcmSend(body, accessToken: accessToken)).status == 200)
            #expect(try await mock.sendOnNewConnection(mock.fcmSend(body, accessToken: accessToken)).status == 200)
            let gone = try await mock.sendOnNewConnection(mock.fcmSend(body, accessToken: accessToken))
            #expect(gone.status == 404)
            #expect(gone.googleError?.errorCode == "UNREGISTERED")

            let record = try JSONValue(parsing: try await control.call("GET", "fcm/tokens/\(registration)").body)
            #expect(record["sends"]?.intValue == 2, "the injected failure used up no send")
            let sends = mock.recordings.records(newestFirst: false).filter { $0.platform == .fcm }
            #expect(sends.first?.annotations["fault"] != nil, "the recording says the failure was injected")
            let device = try JSONValue(parsing: try await control.call("GET", "devices/fcm/\(registration)").body)
            #expect(device["counts"]?["delivered"]?.intValue == 2, "only the two accepted messages reached the device: \(device)")
            await control.close()
        }
    }

    @Test("OAuth and IID answer an injected error without issuing or subscribing")
    func googleFaultsChangeNothing() async throws {
        try await withPushMock { mock in
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .oauthError(error: "internal_failure")))
            let connection = try await mock.connect()
            await #expect(throws: (any Error).self) { _ = try await mock.fetchAccessToken(over: connection) }
            #expect(mock.state.accessTokens.count == 0, "no access token was issued")
            await connection.close()
        }
    }

    @Test("a long poll whose connection closes releases its waiter")
    func longPollCancelled() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let poll = Task {
                try await connection.send(HTTPRequestMessage(method: "GET", path: "/_pushmock/recordings?wait=300s&token=ffff*"))
            }
            #expect(try await eventually { mock.state.recordings.pendingWaiterCount == 1 }, "the long poll is waiting")
            await connection.close()
            #expect(try await eventually { mock.state.recordings.pendingWaiterCount == 0 }, "closing the connection ended the wait")
            _ = await poll.result
        }
    }

    /// A poll for three matches answered with one: it counted two matches that
    /// `DELETE /recordings` had removed while it waited. The same held for expectations.
    @Test("a long poll counts again what is left after a clear: cleared matches no longer exist")
    func longPollAcrossClear() async throws {
        try await withPushMock { mock in
            func push(_ title: String, over connection: HTTP2ClientConnection) async throws {
                let body = #"{"to":"ExponentPushToken[wait-across-a-clear]","title":"\#(title)"}"#
                var headers = HTTPHeaderList()
                headers.append(name: "content-type", value: "application/json")
                let response = try await connection.send(
                    HTTPRequestMessage(method: "POST", path: "/--/api/v2/push/send", headers: headers, body: Array(body.utf8)))
                #expect(response.status == 200)
            }
            let pushes = try await mock.connect()
            let polling = try await mock.connect()
            try await push("before 1", over: pushes)
            try await push("before 2", over: pushes)
            let poll = Task {
                try await polling.send(HTTPRequestMessage(method: "GET", path: "/_pushmock/recordings?platform=expo&count=3&wait=120s"))
            }
            #expect(try await eventually { mock.state.recordings.pendingWaiterCount == 1 }, "the long poll is waiting")
            let cleared = try await pushes.send(HTTPRequestMessage(method: "DELETE", path: "/_pushmock/recordings"))
            #expect(cleared.status == 200)
            for title in ["after 1", "after 2", "after 3"] {
                try await push(title, over: pushes)
            }
            let answer = try await poll.value
            let titles = try JSONValue(parsing: answer.body)["records"]?.arrayValue?.compactMap {
                $0["request"]?["body"]?["title"]?.stringValue
            }
            #expect(titles?.sorted() == ["after 1", "after 2", "after 3"], "\(String(decoding: answer.body, as: UTF8.self))")
            await pushes.close()
            await polling.close()
        }
    }

    /// Requests read together take effect in order: the devices got a read's pushes only when
    /// the whole read was committed, after the control requests read with them. A push to an
    /// online device, read with "advance 1h" and "go offline", was stored, with a timeline
    /// that went back in time.
    @Test("a push read together with a clock advance and 'device offline' reaches the device before them")
    func pushThenControlInOneRead() async throws {
        let script = #"""
            import json, socket, sys
            import h2.config, h2.connection, h2.events
            port, requests = int(sys.argv[1]), json.loads(sys.argv[2])
            sock = socket.create_connection(("127.0.0.1", port), timeout=120)
            conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
            conn.initiate_connection()
            for index, request in enumerate(requests):
                body = request["body"].encode()
                headers = [(":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", request["path"])]
                headers += [tuple(field) for field in request["headers"]] + [("content-length", str(len(body)))]
                conn.send_headers(1 + 2 * index, headers)
                conn.send_data(1 + 2 * index, body, end_stream=True)
            sock.sendall(conn.data_to_send())
            statuses, ended = {}, set()
            while len(ended) < len(requests):
                data = sock.recv(65536)
                if not data:
                    raise SystemExit("the server closed the connection")
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        statuses[event.stream_id] = dict(event.headers)[":status"]
                    if isinstance(event, h2.events.StreamEnded):
                        ended.add(event.stream_id)
                    if isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                sock.sendall(conn.data_to_send())
            print(json.dumps([statuses[key] for key in sorted(statuses)]))
            """#
        try await withPushMock { mock in
            let token = PushMockHarness.sampleDeviceToken
            let connection = try await mock.connect()
            func control(_ path: String, _ body: String) async throws {
                var headers = HTTPHeaderList()
                headers.append(name: "content-type", value: "application/json")
                let response = try await connection.send(
                    HTTPRequestMessage(method: "POST", path: "/_pushmock/" + path, headers: headers, body: Array(body.utf8)))
                #expect(response.status == 200, "\(path): \(String(decoding: response.body, as: UTF8.self))")
            }
            try await control("clock/freeze", #"{"at": "2030-01-01T10:00:00Z"}"#)
            try await control("devices/apns/\(token)", #"{"connectivity": "online"}"#)
            let push = try mock.apnsRequest(token: token, providerToken: .some(try mock.providerToken()))
            var pushHeaders: [[String]] = []
            for index in 0..<push.headers.count {
                pushHeaders.append([push.headers.name(at: index), push.headers.value(at: index)])
            }
            let json: [[String: Any]] = [
                ["path": push.path, "headers": pushHeaders, "body": String(decoding: push.body, as: UTF8.self)],
                ["path": "/_pushmock/clock/advance", "headers": [["content-type", "application/json"]], "body": #"{"by": "1h"}"#],
                [
                    "path": "/_pushmock/devices/apns/\(token)", "headers": [["content-type", "application/json"]],
                    "body": #"{"connectivity": "offline"}"#,
                ],
            ]
            let requests = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
            let result = try await run(venvPython, ["-c", script, String(mock.cleartextPort), requests])
            try #require(result.status == 0, "\(result.output)\(result.error)")
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == #"["200", "200", "200"]"#)
            let device = try await connection.send(HTTPRequestMessage(method: "GET", path: "/_pushmock/devices/apns/\(token)"))
            let answer = try JSONValue(parsing: device.body)
            let notification = answer["notifications"]?.arrayValue?.first
            #expect(notification?["status"]?.stringValue == "delivered", "\(String(decoding: device.body, as: UTF8.self))")
            #expect(notification?["statusAt"]?.stringValue == "2030-01-01T10:00:00.000Z")
            let times = answer["timeline"]?.arrayValue?.compactMap { $0["at"]?.stringValue } ?? []
            #expect(!times.isEmpty && times == times.sorted(), "\(times)")
            await connection.close()
        }
    }

    @Test("HTTP/1.1: a long poll whose client hangs up releases its waiter")
    func longPollCancelledOverHTTP1() async throws {
        try await withPushMock { mock in
            let port = mock.cleartextPort
            let process = try ChildProcess.spawn(
                "/usr/bin/curl", ["-s", "--http1.1", "http://127.0.0.1:\(port)/_pushmock/recordings?wait=300s&token=ffff*"],
                output: .discard)
            #expect(try await eventually { mock.state.recordings.pendingWaiterCount == 1 }, "the long poll is waiting")
            // The client dies without a word, as a CI job's curl does when the job is cancelled.
            process.terminate(SIGKILL)
            process.wait()
            #expect(
                try await eventually { mock.state.recordings.pendingWaiterCount == 0 },
                "the hang-up ended the wait (\(mock.state.recordings.pendingWaiterCount) waiting)")
        }
    }
}
