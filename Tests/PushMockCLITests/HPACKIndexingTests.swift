import Foundation
import PushMockAuth
import PushMockCore
import PushMockSender
import PushMockTestSupport
import Testing

/// How `pushmock serve` HPACK-encodes the response headers whose values are new in every
/// response (`apns-id`, `apns-unique-id`), seen by an independent decoder: the `h2` and `hpack`
/// packages from PyPI (installed by `scripts/test` into `.build/python-venv`).
@Suite("HPACK indexing of per-response headers (process, Python h2)", .serialized)
struct HPACKIndexingTests {
    /// The interpreter with `h2` (`PUSHMOCK_ABUSE_PYTHON` overrides it, as for the abuse tests).
    static var python: String { virtualEnvironmentPython(override: "PUSHMOCK_ABUSE_PYTHON") }

    /// Sends `count` APNs requests, one after another, on each of two connections and prints,
    /// per response, its fields (with whether each was a never-indexed literal) and how many
    /// entries the client's HPACK dynamic table holds afterwards.
    static let script = #"""
        import json, socket, sys
        import h2.config, h2.connection, h2.events

        host, port, token, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])

        def connection_run():
            sock = socket.create_connection((host, port), timeout=60)
            conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
            conn.initiate_connection()
            sock.sendall(conn.data_to_send())
            responses = []
            for index in range(count):
                stream = conn.get_next_available_stream_id()
                body = b'{"aps":{"alert":"hi"}}'
                extra = [("apns-id", "3f7c2a9e-0b6d-4c1e-9a57-2d8e41f0c6b%d" % index)] if index % 2 else []
                conn.send_headers(stream, [
                    (":method", "POST"), (":scheme", "http"), (":authority", host), (":path", "/3/device/" + token),
                    ("apns-topic", "dev.pushmock.sample"), ("apns-push-type", "alert"),
                    ("content-length", str(len(body)))] + extra)
                conn.send_data(stream, body, end_stream=True)
                sock.sendall(conn.data_to_send())
                fields, ended = None, False
                while not ended:
                    data = sock.recv(65536)
                    if not data:
                        raise SystemExit("the server closed the connection")
                    for event in conn.receive_data(data):
                        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                            fields = [[name, value, type(field).__name__ == "NeverIndexedHeaderTuple"]
                                      for field in event.headers for (name, value) in [field]]
                        if isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                            ended = True
                    sock.sendall(conn.data_to_send())
                responses.append({"fields": fields, "tableEntries": len(conn.decoder.header_table.dynamic_entries)})
            sock.close()
            return responses

        print(json.dumps([connection_run(), connection_run()]))
        """#

    struct Response: Decodable {
        let fields: [[Field]]
        let tableEntries: Int

        enum Field: Decodable {
            case text(String)
            case flag(Bool)

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let flag = try? container.decode(Bool.self) {
                    self = .flag(flag)
                } else {
                    self = .text(try container.decode(String.self))
                }
            }

            var text: String? { if case .text(let text) = self { text } else { nil } }
            var flag: Bool? { if case .flag(let flag) = self { flag } else { nil } }
        }

        func field(_ name: String) -> (value: String, neverIndexed: Bool)? {
            for field in fields where field.count == 3 && field[0].text == name {
                return (field[1].text ?? "", field[2].flag ?? false)
            }
            return nil
        }
    }

    @Test(
        "apns-id and apns-unique-id: indexed once per connection, never-indexed literals after, the client's table stays put")
    func perResponseHeadersDoNotChurnTheTable() async throws {
        let probe = try await run(Self.python, ["-c", "import h2, hpack"])
        try #require(probe.status == 0, "h2 and hpack are required in \(Self.python) (scripts/test installs them): \(probe.error)")
        let server = try await ServeProcess(arguments: ["--auth", "none"])
        defer { server.removeDirectory() }
        let scriptPath = server.directory + "/hpack_indexing.py"
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let token = String(repeating: "ab", count: 32)
        let count = 6
        let result = try await run(Self.python, [scriptPath, "127.0.0.1", String(server.cleartextPort), token, String(count)])
        try #require(result.status == 0, "\(result.output)\(result.error)")
        let connections = try JSONDecoder().decode([[Response]].self, from: Data(result.output.utf8))
        try #require(connections.count == 2 && connections.allSatisfy { $0.count == count })

        var seenIDs = Set<String>()
        for responses in connections {
            for (index, response) in responses.enumerated() {
                #expect(response.field(":status")?.value == "200")
                let id = try #require(response.field("apns-id"), "response \(index): \(response.fields)")
                let unique = try #require(response.field("apns-unique-id"), "response \(index): \(response.fields)")
                if index % 2 == 1 {
                    #expect(id.value == "3f7c2a9e-0b6d-4c1e-9a57-2d8e41f0c6b\(index)", "a sent apns-id is echoed")
                }
                #expect(seenIDs.insert(unique.value).inserted, "apns-unique-id repeated: \(unique.value)")
                // The first of each on a connection goes into the table (so later ones can name
                // it by index); every later one is a never-indexed literal.
                #expect(id.neverIndexed == (index > 0), "response \(index) apns-id")
                #expect(unique.neverIndexed == (index > 0), "response \(index) apns-unique-id")
                #expect(response.field(":status")?.neverIndexed == false)
            }
            // Two entries from the first response, none added after it.
            #expect(responses.map(\.tableEntries) == Array(repeating: 2, count: count))
        }
    }

    /// A cleartext HTTP/2 server (Python `h2`) that answers `count` requests with 200 and then
    /// prints, per request, the `apns-id` it carried (with whether it was a never-indexed
    /// literal) and how many entries the server's HPACK decoder table held afterwards. It
    /// writes its port to the file named by its second argument first (through a temporary
    /// name, so the file is never seen half-written).
    static let serverScript = #"""
        import json, os, socket, sys
        import h2.config, h2.connection, h2.events

        count, port_file = int(sys.argv[1]), sys.argv[2]
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        listener.settimeout(120)
        with open(port_file + ".tmp", "w") as f:
            f.write(str(listener.getsockname()[1]))
        os.rename(port_file + ".tmp", port_file)
        sock, _ = listener.accept()
        sock.settimeout(120)
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        requests = []
        while len(requests) < count:
            data = sock.recv(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    ids = [[value, type(field).__name__ == "NeverIndexedHeaderTuple"]
                           for field in event.headers for (name, value) in [field] if name == "apns-id"]
                    requests.append({"apnsID": ids, "tableEntries": len(conn.decoder.header_table.dynamic_entries)})
                    conn.send_headers(event.stream_id, [(":status", "200"), ("apns-id", ids[0][0] if ids else "none")], end_stream=True)
                elif isinstance(event, h2.events.DataReceived):
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            sock.sendall(conn.data_to_send())
        print(json.dumps(requests), flush=True)
        """#

    struct ReceivedRequest: Decodable {
        let apnsID: [[HPACKIndexingTests.Response.Field]]
        let tableEntries: Int
    }

    @Test("the sender's apns-id: indexed once per connection, never-indexed literals after, the server's table stays put")
    func perRequestAPNsIDsDoNotChurnTheTable() async throws {
        let probe = try await run(Self.python, ["-c", "import h2, hpack"])
        try #require(probe.status == 0, "h2 and hpack are required in \(Self.python) (scripts/test installs them): \(probe.error)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hpack-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scriptPath = directory.appendingPathComponent("h2_server.py").path
        try Self.serverScript.write(toFile: scriptPath, atomically: true, encoding: .utf8)

        let count = 6
        let portFile = directory.appendingPathComponent("port").path
        // ChildProcess, not Foundation's Process (see ChildProcess), and nothing here blocks a
        // cooperative thread: the port comes through a file, the report is read off the pool.
        let server = try ChildProcess.spawn(Self.python, [scriptPath, String(count), portFile], output: .capture)
        defer { if server.isRunning { server.terminate(SIGKILL) } }
        var port: Int?
        let deadline = ContinuousClock.now + .seconds(120)
        while port == nil, server.isRunning, ContinuousClock.now < deadline {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let reading = Task { try await offloaded { server.readOutput() } }
        guard let port else {
            server.terminate(SIGKILL)
            let output = try await reading.value
            Issue.record("the Python server did not start: \(String(decoding: output.error, as: UTF8.self))")
            return
        }

        let configuration = APNsSenderConfiguration(
            server: try .custom(url: "http://127.0.0.1:\(port)"),
            authentication: .token(.generate(keyID: "KEY0000001", teamID: "TEAM000001")),
            defaultTopic: "com.example",
            connection: ConnectionConfiguration(maximumConnections: 1)
        )
        let ids = (0..<count).map { index in index == 2 ? nil : "3f7c2a9e-0b6d-4c1e-9a57-2d8e41f0c6b\(index)" }
        try await withAPNsSender(configuration: configuration) { sender in
            // One after another, so the server sees them in this order on one connection.
            for id in ids {
                let result = await sender.send(
                    APNsNotification(
                        deviceToken: String(repeating: "ab", count: 32), payload: APNsPayload(alert: .init(title: "Hi", body: "HPACK")),
                        apnsID: id))
                #expect(result.outcome.isAccepted, "\(result)")
            }
        }
        let (report, errors) = try await reading.value
        let status = try await offloaded { server.wait() }
        #expect(status == 0, "\(String(decoding: errors, as: UTF8.self))")
        let requests = try JSONDecoder().decode([ReceivedRequest].self, from: Data(report))
        try #require(requests.count == count, "\(String(decoding: report, as: UTF8.self))")
        var tableAfterFirst: Int?
        for (index, request) in requests.enumerated() {
            guard let id = ids[index] else {
                #expect(request.apnsID.isEmpty, "request \(index) sent no apns-id")
                continue
            }
            let field = try #require(request.apnsID.first, "request \(index)")
            #expect(field.first?.text == id)
            // The first on the connection goes into the table (so later ones name it by
            // index); every later one is a never-indexed literal.
            #expect(field.last?.flag == (index > 0), "request \(index) apns-id")
            if index == 0 {
                tableAfterFirst = request.tableEntries
            } else {
                #expect(request.tableEntries == tableAfterFirst, "request \(index) added to the server's table")
            }
        }
    }
}
