import Foundation
import PushMockTestSupport
import Testing

/// `pushmock send` against servers that misbehave (an h2c server written with Python's `h2`):
/// each case hung the sender, crashed it, or waited its whole timeout and then named the wrong
/// cause.
@Suite("pushmock send against hostile servers")
struct SendHostileServerTests {
    static let server = #"""
        import json, socket, sys, threading, time
        import h2.config, h2.connection, h2.events, h2.exceptions
        mode = sys.argv[1]
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print(listener.getsockname()[1], flush=True)

        def answer(conn, stream, path):
            if mode == "never" or (mode == "token-never" and path == "/token"):
                return
            if mode == "escape-reason":
                body = json.dumps({"reason": "\u001b[2J\rBadDeviceToken\u202e" + "x" * 5000}).encode()
                conn.send_headers(stream, [(":status", "400"), ("content-length", str(len(body)))])
                conn.send_data(stream, body, end_stream=True)
                return
            if mode == "expo-corrupt-gzip" and path.endswith("/push/send"):
                conn.send_headers(stream, [(":status", "200"), ("content-encoding", "gzip"), ("content-length", "8")])
                conn.send_data(stream, b"not gzip", end_stream=True)
                return
            if mode == "expo-receipts-never" and path.endswith("/getReceipts"):
                return
            if mode.startswith("expo-"):
                if path.endswith("/push/send"):
                    body = json.dumps({"data": [{"status": "ok", "id": "ticket-1"}]}).encode()
                else:
                    body = json.dumps({"data": {"someone-elses-ticket": {"status": "ok"}}}).encode()
                conn.send_headers(stream, [(":status", "200"), ("content-length", str(len(body)))])
                conn.send_data(stream, body, end_stream=True)
                return
            if path == "/token":
                lifetime = {"token-lifetime": 9223372036854775807, "token-expired": -5}.get(mode, 3600)
                body = json.dumps({"access_token": "ya29.hostile", "expires_in": lifetime, "token_type": "Bearer"}).encode()
            elif mode == "no-status":
                conn.send_headers(stream, [("content-type", "application/json")], end_stream=True)
                return
            elif path.startswith("/v1/"):
                body = json.dumps({"name": "projects/p/messages/1"}).encode()
            else:
                body = b""
            conn.send_headers(stream, [(":status", "200"), ("content-length", str(len(body)))], end_stream=not body)
            if body:
                conn.send_data(stream, body, end_stream=True)

        def serve(sock):
            config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8",
                                               validate_outbound_headers=False, normalize_outbound_headers=False)
            conn = h2.connection.H2Connection(config=config)
            conn.initiate_connection()
            if mode == "goaway-at-start":
                conn.close_connection(last_stream_id=0)
                sock.sendall(conn.data_to_send())
                time.sleep(1)
                sock.close()
                return
            sock.sendall(conn.data_to_send())
            paths = {}
            try:
                while True:
                    data = sock.recv(65536)
                    if not data:
                        return
                    for event in conn.receive_data(data):
                        if isinstance(event, h2.events.RequestReceived):
                            paths[event.stream_id] = dict(event.headers)[":path"]
                        elif isinstance(event, h2.events.StreamEnded):
                            answer(conn, event.stream_id, paths.get(event.stream_id, ""))
                    sock.sendall(conn.data_to_send())
            except (OSError, h2.exceptions.ProtocolError):
                sock.close()

        while True:
            client, _ = listener.accept()
            threading.Thread(target=serve, args=(client,), daemon=True).start()
        """#

    /// Starts the hostile server in `mode`, runs `pushmock send` against it (bounded by
    /// `timeout(1)`, so a hang fails the test instead of holding the run), and stops it.
    func send(
        mode: String, platform: String, _ arguments: [String]
    ) async throws -> (status: Int32, output: String, error: String) {
        let directory = NSTemporaryDirectory() + "pushmock-hostile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let portFile = directory + "/port"
        let server = try ChildProcess.spawn(ExpoPythonSDKTests.python, ["-c", Self.server, mode], output: .file(portFile))
        defer {
            server.terminate(SIGKILL)
            _ = server.wait()
        }
        var port = ""
        for _ in 0..<1200 where port.isEmpty {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if port.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(!port.isEmpty, "the hostile server did not start")
        let url = "http://127.0.0.1:\(port)"
        let credentials: [String]
        if platform == "expo" {
            return try await run(
                "/usr/bin/timeout",
                [
                    "120", ServeProcess.binary, "send", "expo", "--server", url, "--token", "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]",
                    "--title", "hi",
                ]
                    + arguments,
                directory: directory)
        }
        if platform == "apns" {
            let key = directory + "/key.p8"
            _ = try await run("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key])
            credentials = [
                "--environment", "sandbox", "--key", key, "--key-id", "ABC123DEFG", "--team-id", "TEAM123456", "--topic", "com.example",
                "--token", "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0", "--alert", "hi",
            ]
        } else {
            let key = directory + "/rsa.pem"
            _ = try await run("/usr/bin/openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key])
            let account: [String: String] = [
                "type": "service_account", "project_id": "p", "private_key_id": "k1", "client_id": "1",
                "private_key": try String(contentsOfFile: key, encoding: .utf8),
                "client_email": "sender@p.iam.gserviceaccount.com", "token_uri": url + "/token",
            ]
            try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: directory + "/account.json"))
            credentials = [
                "--environment", "production", "--service-account", directory + "/account.json", "--token", "fcm-token", "--title", "hi",
            ]
        }
        return try await run(
            "/usr/bin/timeout",
            ["120", ServeProcess.binary, "send", platform, "--url", url, "--progress", "never"] + credentials + arguments,
            directory: directory)
    }

    /// GOAWAY came with the server's first frames, before the sender listened for it: the
    /// connection was dropped and the next one opened at once, forever (400 in 20 s), and no
    /// attempt was ever counted, so neither --max-attempts nor --timeout ended it.
    @Test("GOAWAY right after SETTINGS is a failed connect that spends attempts")
    func goAwayAtStart() async throws {
        let result = try await send(mode: "goaway-at-start", platform: "apns", ["--max-attempts", "2", "--timeout", "2"])
        #expect(result.status == 2, "\(result)")
        #expect(result.output.contains("connection going away (NO_ERROR, last stream 0) (2 attempts)"), "\(result.output)")
    }

    /// With every stream of the only connection timed out at once, the retries were queued for
    /// a driver that was full when it last took work, so nobody took them: the send waited for
    /// the keep-alive PING, an hour.
    @Test("a server that never answers: the retry after a timeout is sent, and the send ends")
    func retryAfterTimeouts() async throws {
        let result = try await send(mode: "never", platform: "apns", ["--max-attempts", "2", "--timeout", "1", "--concurrency", "1"])
        #expect(result.status == 2, "\(result)")
        #expect(result.output.contains("timeout: no response within 1.0 seconds (2 attempts)"), "\(result.output)")
    }

    /// libnghttp2 resets a stream whose response has no `:status`; the close was noticed only
    /// at the next read, which a silent server never causes: each attempt waited its whole
    /// timeout (here 120 s, which `timeout(1)` would end) and was then called a timeout.
    @Test("a response libnghttp2 refuses fails its request at once, not at the timeout")
    func malformedResponse() async throws {
        let result = try await send(mode: "no-status", platform: "apns", ["--max-attempts", "2", "--timeout", "120"])
        #expect(result.status == 2, "\(result)")
        #expect(
            result.output.contains(
                "malformed response (PROTOCOL_ERROR): stream reset by this client (PROTOCOL_ERROR): the server's response broke HTTP/2's rules"
            ),
            "\(result.output)")
        #expect(!result.output.contains("timeout"), "\(result.output)")
    }

    /// `expires_in` of 2^63 − 1 overflowed the token's expiry time: a Swift runtime trap.
    @Test("an OAuth token with an absurd lifetime is used, not a crash")
    func absurdTokenLifetime() async throws {
        let result = try await send(mode: "token-lifetime", platform: "fcm", [])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("accepted    1"), "\(result.output)")
    }

    /// A token that expires at once was fetched three times and then reported as "no access
    /// token could be obtained".
    @Test("an OAuth token that expires at once is reported as such")
    func expiredToken() async throws {
        let result = try await send(mode: "token-expired", platform: "fcm", [])
        #expect(result.status == 2, "\(result)")
        #expect(result.output.contains("issued a token that expires at once (expires_in -5 s)"), "\(result.output)")
    }

    /// The token request had no deadline: a token endpoint that never answered held the send
    /// forever, whatever --timeout said.
    @Test("a token endpoint that never answers fails the send after --timeout")
    func silentTokenEndpoint() async throws {
        let result = try await send(mode: "token-never", platform: "fcm", ["--timeout", "1", "--max-attempts", "2"])
        #expect(result.status == 2, "\(result)")
        #expect(result.output.contains("/token did not answer within 1s"), "\(result.output)")
    }

    /// Receipts for ids nobody asked for were counted as ok: a send whose receipt never came
    /// exited 0. A getReceipts that never answered held the poll for the whole request timeout,
    /// whatever --receipt-timeout said.
    @Test(
        "Expo receipts: those for tickets not asked about are ignored, a request never outlives --receipt-timeout",
        arguments: [
            ("expo-receipts", ["--receipt-interval", "1"]),
            ("expo-receipts-never", ["--timeout", "3000"]),
        ])
    func missingReceipts(mode: String, extra: [String]) async throws {
        let result = try await send(mode: mode, platform: "expo", ["--receipts", "--receipt-timeout", "2"] + extra)
        #expect(result.status == 2, "\(result)")
        #expect(result.output.contains("receipts: 0 receipts, 0 ok, 1 missing"), "\(result.output)")
    }

    /// A 200 whose gzip body could not be read was taken for a lost connection and sent again:
    /// the batch the service had accepted was delivered twice (three times by default).
    @Test("an Expo 200 whose body cannot be read is not sent again")
    func unreadableAcceptedBatch() async throws {
        let result = try await send(mode: "expo-corrupt-gzip", platform: "expo", [])
        #expect(result.status == 2, "\(result)")
        // Taken for a lost connection it was sent three times (2 retries). A retry after a
        // real transport fault before the answer (seen once on a loaded machine) is fair.
        #expect(!result.output.contains("(2 retries)"), "\(result.output)")
        #expect(result.output.contains("UNREADABLE_RESPONSE 1"), "\(result.output)")
    }

    /// A server's reason went to the terminal as sent: escape sequences could clear the screen
    /// or forge lines, and a long one was printed in full, twice.
    @Test("a server's reason is printed with its control characters escaped and its length cut")
    func escapedReason() async throws {
        let result = try await send(mode: "escape-reason", platform: "apns", ["--max-attempts", "1"])
        #expect(result.status == 2, "\(result)")
        #expect(!result.output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x0D || $0.value == 0x202E }, "\(result.output)")
        #expect(result.output.contains("\\u{1B}[2J\\u{D}BadDeviceToken\\u{202E}xxx"), "\(result.output)")
        #expect(result.output.contains("more characters)"))
        #expect(result.output.utf8.count < 5000, "\(result.output.utf8.count) bytes")
    }

    /// `send expo` had no --timeout: a silent server cost about 92 s.
    @Test("Expo: --timeout bounds each request")
    func expoTimeout() async throws {
        let sent = try await send(mode: "never", platform: "expo", ["--timeout", "1", "--max-attempts", "1"])
        #expect(sent.status == 2, "\(sent)")
        #expect(sent.output.contains("no answer within"), "\(sent.output)")
    }
}
