import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockTesting
import PushMockTransport
import Testing

@Suite("HTTP/2 and listener behaviour")
struct HTTP2BehaviourTests {
    @Test("SETTINGS advertise APNs' MAX_CONCURRENT_STREAMS (1000 by default, configurable)", arguments: [nil, 500] as [UInt32?])
    func maxConcurrentStreams(configured: UInt32?) async throws {
        try await withPushMock(configure: { if let configured { $0.apns.maxConcurrentStreams = configured } }) { mock in
            let connection = try await mock.connect()
            try await connection.waitForRemoteSettings()
            #expect(try await connection.remoteMaxConcurrentStreams == configured ?? 1000)
            await connection.close()
        }
    }

    @Test("one stream until the first authenticated request, when enabled")
    func oneStreamUntilAuthenticated() async throws {
        try await withPushMock(configure: { $0.apns.oneStreamUntilAuthenticated = true }) { mock in
            let connection = try await mock.connect()
            try await connection.waitForRemoteSettings()
            #expect(try await connection.remoteMaxConcurrentStreams == 1)
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: .none)), status: 403, reason: "MissingProviderToken")
            #expect(try await connection.remoteMaxConcurrentStreams == 1)
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            // The SETTINGS frame went out before the response.
            #expect(try await connection.remoteMaxConcurrentStreams == 1000)
            await connection.close()
        }
    }

    @Test("streams drop to 1 after a rejection and come back after the next accepted push, when enabled")
    func throttleAfterRejection() async throws {
        try await withPushMock(configure: { $0.apns.throttleStreamsAfterRejection = true }) { mock in
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            #expect(try await connection.remoteMaxConcurrentStreams == 1000)
            _ = try await connection.send(try mock.apnsRequest(payload: ""))
            #expect(try await connection.remoteMaxConcurrentStreams == 1)
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            #expect(try await connection.remoteMaxConcurrentStreams == 1000)
            // 410 is not an error condition for this purpose.
            mock.state.devices.register(
                APNsDeviceRecord(
                    token: APNsDeviceToken(PushMockHarness.sampleDeviceToken), bundleID: mock.topic,
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 0)))
            )
            #expect(try await connection.send(try mock.apnsRequest()).status == 410)
            #expect(try await connection.remoteMaxConcurrentStreams == 1000)
            await connection.close()
        }
    }

    @Test("TLS clients that send the HTTP/2 preface without ALPN are served")
    func noALPN() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect(alpn: [])
            #expect(connection.negotiatedProtocol == nil)
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.connection.transport == "h2")
            #expect(record.connection.tls)
            #expect(record.connection.alpn == nil)
            await connection.close()
        }
    }

    @Test("ALPN h2 is negotiated and recorded")
    func alpnH2() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect(alpn: ["h2", "http/1.1"])
            #expect(connection.negotiatedProtocol == "h2")
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            #expect(mock.recordings.records(limit: 1).first?.connection.alpn == "h2")
            await connection.close()
        }
    }

    @Test("the cleartext listener speaks h2c with prior knowledge")
    func h2c() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect(tls: false)
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.connection.transport == "h2c")
            #expect(!record.connection.tls)
            await connection.close()
        }
    }

    @Test("HTTP/1.1 is served on both listeners", arguments: [true, false])
    func http11(tls: Bool) async throws {
        try await withPushMock { mock in
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let caPath = directory + "/ca.pem"
            try (mock.credentials.certificateAuthorityPEM ?? "").write(toFile: caPath, atomically: true, encoding: .utf8)
            let url =
                tls
                ? "https://localhost:\(mock.tlsPort)/3/device/\(PushMockHarness.sampleDeviceToken)"
                : "http://127.0.0.1:\(mock.cleartextPort)/3/device/\(PushMockHarness.sampleDeviceToken)"
            let result = try await run(
                "/usr/bin/curl",
                [
                    "-s", "-i", "--http1.1", "--cacert", caPath,
                    "-H", "authorization: bearer \(try mock.providerToken())",
                    "-H", "apns-topic: \(mock.topic)",
                    "-d", #"{"aps":{"alert":"hi"}}"#, url,
                ])
            #expect(result.output.hasPrefix("HTTP/1.1 200"), "\(result.output)\(result.error)")
            #expect(result.output.lowercased().contains("apns-id: "))
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.connection.transport == "http/1.1")
            #expect(record.connection.tls == tls)
        }
    }

    /// RFC 9110 §10.1.1. Without the interim answer curl waited a second before sending the
    /// body (here its wait is 120 s, so a missing answer shows in its output, not in time).
    @Test("HTTP/1.1 Expect: 100-continue gets 100 Continue, then the answer")
    func expectContinue() async throws {
        try await withPushMock { mock in
            let body = #"{"to":"ExponentPushToken[abcdefghijklmnopqrstuv]","title":""# + String(repeating: "x", count: 2000) + #""}"#
            let result = try await run(
                "/usr/bin/curl",
                [
                    "-s", "-v", "--http1.1", "--expect100-timeout", "120", "-H", "expect: 100-continue",
                    "-H", "content-type: application/json", "-d", body, "-o", "/dev/null", "-w", "%{http_code}",
                    "http://127.0.0.1:\(mock.cleartextPort)/--/api/v2/push/send",
                ])
            #expect(result.output == "200", "\(result.error)")
            #expect(result.error.contains("< HTTP/1.1 100 Continue"), "\(result.error)")
            #expect(mock.recordings.records { $0.platform == .expo }.count == 1)
        }
    }

    /// A body announced beyond the stored-body limit got `100 Continue`, and then the whole
    /// upload was read before the 413.
    @Test("HTTP/1.1 Expect: 100-continue with a body over the limit is answered 413 at once, and recorded")
    func expectContinueTooLarge() async throws {
        try await withPushMock { mock in
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let body = #"{"to":"ExponentPushToken[abcdefghijklmnopqrstuv]","title":""# + String(repeating: "x", count: 3 << 20) + #""}"#
            try Data(body.utf8).write(to: URL(fileURLWithPath: directory + "/body.json"))
            let result = try await run(
                "/usr/bin/curl",
                [
                    "-s", "-v", "--http1.1", "--expect100-timeout", "120", "-H", "expect: 100-continue",
                    "-H", "content-type: application/json", "--data-binary", "@" + directory + "/body.json", "-o", "/dev/null",
                    "-w", "%{http_code} %{size_upload}", "http://127.0.0.1:\(mock.cleartextPort)/--/api/v2/push/send",
                ])
            #expect(result.output == "413 0", "\(result.error)")
            #expect(!result.error.contains("100 Continue"), "\(result.error)")
            let records = mock.recordings.records { $0.platform == .expo }
            #expect(records.map(\.response.status) == [413])
        }
    }

    /// NIOHTTP1 reads nothing more after a request it takes for an upgrade
    /// (apple/swift-nio#2570): `curl --http2 http://a http://b` (an h2c upgrade offer) waited
    /// forever for its second answer, and Java's HttpClient timed out on its second send.
    @Test("HTTP/1.1: after an h2c upgrade offer the connection closes cleanly, so the next request is answered on a new one")
    func upgradeOfferThenNextRequest() async throws {
        try await withPushMock { mock in
            let base = "http://127.0.0.1:\(mock.cleartextPort)"
            let result = try await run(
                "/usr/bin/curl",
                [
                    "-s", "-S", "--http2", "--max-time", "120", "-w", " %{http_code}\n", base + "/_pushmock/health",
                    base + "/_pushmock/health",
                ])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.components(separatedBy: " 200\n").count == 3, "\(result.output)")
        }
    }

    /// RFC 9112 §3.2.2: `curl -x` (any HTTP proxy setting) sends the absolute form. It was
    /// routed as an unknown APNs path (404 BadPath).
    @Test("HTTP/1.1: an absolute-form request target is routed by its path, its authority taken as the host")
    func absoluteFormTarget() async throws {
        try await withPushMock { mock in
            let result = try await run(
                "/usr/bin/curl",
                [
                    "-s", "-S", "--max-time", "120", "-x", "http://127.0.0.1:\(mock.cleartextPort)", "-H", "content-type: application/json",
                    "-d", #"{"to":"ExponentPushToken[absolute-form-target]","body":"hi"}"#, "-w", " %{http_code}",
                    "http://exp.host/--/api/v2/push/send",
                ])
            #expect(result.output.hasSuffix(" 200"), "\(result.output)\(result.error)")
            #expect(result.output.contains(#""status":"ok""#), "\(result.output)")
            let records = mock.recordings.records { $0.platform == .expo }
            #expect(records.count == 1)
            #expect(records.first?.request.path == "/--/api/v2/push/send")
            #expect(records.first?.request.authority == "exp.host")
        }
    }

    /// Requests pipelined behind one whose answer is not ready yet (a long poll here; the
    /// journal's fsync or a latency fault did the same): a malformed one, an oversized head,
    /// or one too many, was answered (400, 431) or the connection closed at once — in place
    /// of the earlier answers, although those requests were recorded. RFC 9112 also has a
    /// request without exactly one Host refused (§3.2), and an unknown transfer coding (§6.1;
    /// `gzip, chunked` was read as if the body were plain).
    @Test(
        "HTTP/1.1: a request that ends the connection is refused only after the answers to the requests before it",
        arguments: [
            ("malformed", ["200", "200", "400"]),
            ("oversized", ["200", "200", "431"]),
            ("no host", ["200", "200", "400"]),
            ("two hosts", ["200", "200", "400"]),
            ("gzip transfer coding", ["200", "200", "501"]),
            ("too many", ["200"] + Array(repeating: "200", count: 64) + ["503"]),
        ])
    func refusalAfterEarlierAnswers(_ kind: String, _ statuses: [String]) async throws {
        let script = #"""
            import json, re, socket, sys
            port, kind = int(sys.argv[1]), sys.argv[2]
            poll = b"GET /_pushmock/recordings?token=nobody&count=1&wait=1s HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"
            push = json.dumps({"to": "ExponentPushToken[pipelined-behind-a-poll]", "body": "hi"}).encode()
            expo = (b"POST /--/api/v2/push/send HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                    b"content-length: " + str(len(push)).encode() + b"\r\n\r\n" + push)
            health = b"GET /_pushmock/health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"
            if kind == "malformed":
                data = poll + expo + b"GET / HTTP/1.1\r\nbad header line\r\n\r\n"
            elif kind == "oversized":
                data = poll + expo + b"GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: " + b"a" * 9000 + b"\r\n\r\n"
            elif kind == "no host":
                data = poll + expo + b"GET /_pushmock/health HTTP/1.1\r\n\r\n"
            elif kind == "two hosts":
                data = poll + expo + b"GET /_pushmock/health HTTP/1.1\r\nhost: 127.0.0.1\r\nhost: example.com\r\n\r\n"
            elif kind == "gzip transfer coding":
                data = poll + expo + (b"POST /--/api/v2/push/send HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                                      b"transfer-encoding: gzip, chunked\r\n\r\n" + hex(len(push))[2:].encode() + b"\r\n" + push + b"\r\n0\r\n\r\n")
            else:
                data = poll + health * 65
            sock = socket.create_connection(("127.0.0.1", port), timeout=120)
            sock.sendall(data)
            received = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
            statuses = [status.decode() for status in re.findall(rb"HTTP/1\.1 (\d{3}) ", received)]
            print(json.dumps(statuses))
            """#
        try await withPushMock { mock in
            let result = try await run(venvPython, ["-c", script, String(mock.cleartextPort), kind])
            try #require(result.status == 0, "\(result.output)\(result.error)")
            let expected = String(data: try JSONSerialization.data(withJSONObject: statuses), encoding: .utf8)!
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == expected.replacingOccurrences(of: ",", with: ", "))
            if kind != "too many" {
                #expect(mock.recordings.records { $0.platform == .expo }.count == 1)
            }
        }
    }

    /// The server-wide cap on held request bodies was HTTP/2's only: 400 HTTP/1.1
    /// connections, each part way through a 1 MiB body, held 429 MiB.
    @Test("HTTP/1.1 bodies count against the server-wide body budget: beyond it 503, and the budget is given back")
    func http1BodyBudget() async throws {
        let script = #"""
            import json, re, select, socket, sys
            port = int(sys.argv[1])
            head = (b"POST /--/api/v2/push/send HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                    b"content-length: 1048576\r\n\r\n")
            def partial():
                sock = socket.create_connection(("127.0.0.1", port), timeout=120)
                try:
                    sock.sendall(head + b" " * 700000)
                except OSError:
                    pass  # refused while sending: its answer is read below
                return sock
            def status(sock):
                received = b""
                while b"\r\n\r\n" not in received:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                found = re.match(rb"HTTP/1\.1 (\d{3}) ", received)
                return found.group(1).decode() if found else "closed"
            held = [partial(), partial(), partial()]
            # One of the three went past the budget (2 MiB here) part way through its body:
            # whichever the gateway read last, which need not be the last one sent.
            readable, _, _ = select.select(held, [], [], 120)
            statuses = [status(sock) for sock in readable]
            for sock in held:
                sock.close()
            # Once they are gone their share is given back: a whole request fits again.
            body = json.dumps({"to": "ExponentPushToken[after-the-budget]", "body": "x" * 700000}).encode()
            fourth = socket.create_connection(("127.0.0.1", port), timeout=120)
            fourth.sendall(b"POST /--/api/v2/push/send HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                           b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            statuses.append(status(fourth))
            print(json.dumps(statuses))
            """#
        try await withPushMock(configure: { $0.connectionLimits.maximumBufferedBodyBytes = 2 << 20 }) { mock in
            let result = try await run(venvPython, ["-c", script, String(mock.cleartextPort)])
            try #require(result.status == 0, "\(result.output)\(result.error)")
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == #"["503", "200"]"#)
        }
    }

    /// HEAD on every kind of endpoint, in every protocol curl speaks to the gateway.
    static let headCases: [(protocolFlag: String, tls: Bool, path: String, status: Int)] = {
        let device = "/3/device/\(PushMockHarness.sampleDeviceToken)"
        var cases: [(String, Bool, String, Int)] = []
        for (flag, tls) in [("--http2", true), ("--http1.1", true), ("--http2-prior-knowledge", false), ("--http1.1", false)] {
            cases.append((flag, tls, device, 405))
            cases.append((flag, tls, "/token", 405))
        }
        return cases
    }()

    @Test("HEAD is answered with headers only: curl --head reads a clean 405", arguments: 0..<headCases.count)
    func headWithCurl(index: Int) async throws {
        let (flag, tls, path, status) = Self.headCases[index]
        try await withPushMock { mock in
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let caPath = directory + "/ca.pem"
            try (mock.credentials.certificateAuthorityPEM ?? "").write(toFile: caPath, atomically: true, encoding: .utf8)
            let base = tls ? "https://localhost:\(mock.tlsPort)" : "http://127.0.0.1:\(mock.cleartextPort)"
            let result = try await run(
                "/usr/bin/curl",
                [
                    "-s", "-S", "--head", flag, "--cacert", caPath, "--max-time", "120",
                    "-w", "\n%{http_code} %{size_download}", base + path,
                ])
            // curl fails (exit 8 or 16 and "weird server reply" / protocol error) on a body after HEAD.
            #expect(result.status == 0, "\(flag) \(path): \(result.error)")
            #expect(result.output.hasSuffix("\n\(status) 0"), "\(flag) \(path): \(result.output)")
            #expect(result.output.lowercased().contains("content-type: application/json"), "\(result.output)")
        }
    }

    @Test("HEAD over h2c: nghttp sees HEADERS with END_STREAM and no DATA")
    func headWithNghttp() async throws {
        try await withPushMock { mock in
            let url = "http://127.0.0.1:\(mock.cleartextPort)/3/device/\(PushMockHarness.sampleDeviceToken)"
            let result = try await run("/usr/bin/nghttp", ["-v", "-n", "-t", "120", "-H", ":method: HEAD", url])
            #expect(result.status == 0, "\(result.output)\(result.error)")
            let frames = result.output
            #expect(frames.contains(":status: 405"), "\(frames)")
            #expect(frames.contains("recv HEADERS frame <length="), "\(frames)")
            #expect(frames.contains("; END_STREAM | END_HEADERS"), "\(frames)")
            #expect(!frames.contains("recv DATA frame"), "\(frames)")
            #expect(!frames.contains("RST_STREAM"), "\(frames)")
            // The same request with GET still gets its body.
            let get = try await run("/usr/bin/nghttp", ["-v", "-n", "-t", "120", url])
            #expect(get.output.contains("recv DATA frame"), "\(get.output)")
        }
    }

    @Test("thousands of multiplexed streams on one connection all get answers")
    func manyStreams() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let request = try mock.apnsRequest()
            let statuses = try await withThrowingTaskGroup(of: Int.self, returning: [Int].self) { group in
                for _ in 0..<3000 {
                    group.addTask { try await connection.send(request).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == 3000)
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(mock.recordings.count == 3000)
            let records = mock.recordings.records(newestFirst: false)
            #expect(Set(records.map(\.sequence)).count == 3000)
            #expect(Set(records.compactMap(\.notification?.messageID)).count == 3000)
            await connection.close()
        }
    }

    @Test("graceful shutdown answers the requests in flight, then closes with GOAWAY {\"reason\":\"Shutdown\"}")
    func gracefulShutdown() async throws {
        let credentials = try GatewayCredentials.ephemeral()
        var configuration = GatewayConfiguration.testing(credentials: credentials)
        configuration.shutdownGracePeriod = .seconds(2)
        let server = try PushMockServer(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let info = try await server.waitUntilReady()
            let connection = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: info.cleartext!.port))
            var headers = HTTPHeaderList()
            headers.append(name: "apns-topic", value: credentials.sampleAPNsKey!.topic)
            headers.append(
                name: "authorization",
                value:
                    "bearer \(try credentials.sampleAPNsKey!.signingKey.makeProviderToken(issuedAt: Int64(Date().timeIntervalSince1970)))"
            )
            let request = HTTPRequestMessage(
                method: "POST",
                path: "/3/device/\(PushMockHarness.sampleDeviceToken)",
                headers: headers,
                body: Array("{}".utf8)
            )
            #expect(try await connection.send(request).status == 200)
            server.triggerGracefulShutdown()
            try await group.waitForAll()
            await connection.closeFuture()
            let goAway = try await connection.receivedGoAway
            #expect(goAway?.errorCode == HTTP2ErrorCode.noError)
            #expect(goAway?.lastStreamID == 1)
            #expect(goAway.map { String(decoding: $0.debugData, as: UTF8.self) } == #"{"reason":"Shutdown"}"#)
            // The listener is gone.
            await #expect(throws: (any Error).self) {
                _ = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: info.cleartext!.port))
            }
        }
    }

    @Test("a port in use is a clear start error")
    func portInUse() async throws {
        try await withPushMock { mock in
            let credentials = try GatewayCredentials.ephemeral()
            var configuration = GatewayConfiguration.testing(credentials: credentials)
            configuration.cleartextPort = mock.cleartextPort
            let second = try PushMockServer(configuration: configuration)
            await #expect(throws: GatewayStartError.self) {
                try await second.run()
            }
            await #expect(throws: GatewayStartError.self) {
                _ = try await second.waitUntilReady()
            }
        }
    }
}
