import Foundation
import PushMockControl
import PushMockCore
import PushMockJSON
import PushMockTestSupport
import PushMockTesting
import PushMockTransport
import Synchronization
import Testing

@testable import PushMockGateway

/// The web inbox's server side (docs/inbox.md): the page at `/` of the cleartext listener only,
/// its files as committed under Sources/PushMockGateway/Inbox/Web/, the event stream over every transport (driven by curl),
/// and notification categories. The page itself is driven in a real browser by
/// `InboxBrowserTests` (PushMockCLITests).
@Suite("Web inbox")
struct InboxTests {
    @Test("/ is the inbox on the cleartext listener; on TLS, and for other methods and paths, APNs's BadPath")
    func routing() async throws {
        try await withPushMock { mock in
            let cleartext = try await mock.connect(tls: false)
            let page = try await cleartext.send(HTTPRequestMessage(method: "GET", path: "/"))
            #expect(page.status == 200)
            #expect(page.header("content-type") == "text/html; charset=utf-8")
            #expect(String(decoding: page.body, as: UTF8.self).contains("<title>PushMock inbox</title>"))
            // No other page may frame it (clickjacking: its buttons clear recordings).
            #expect(page.header("content-security-policy")?.contains("frame-ancestors 'none'") == true)
            #expect(page.header("x-frame-options") == "DENY")
            let script = try await cleartext.send(HTTPRequestMessage(method: "GET", path: "/inbox/inbox.js"))
            #expect(script.status == 200)
            #expect(script.header("content-type") == "text/javascript; charset=utf-8")
            let filtered = try await cleartext.send(HTTPRequestMessage(method: "GET", path: "/?platform=apns&token=ab*"))
            #expect(filtered.status == 200)
            #expect(mock.recordings.count == 0, "the inbox's own requests are not recorded")

            expectAPNsError(try await cleartext.send(HTTPRequestMessage(method: "POST", path: "/")), status: 404, reason: "BadPath")
            expectAPNsError(
                try await cleartext.send(HTTPRequestMessage(method: "GET", path: "/inbox/missing.js")), status: 404, reason: "BadPath")
            await cleartext.close()

            let tls = try await mock.connect()
            expectAPNsError(try await tls.send(HTTPRequestMessage(method: "GET", path: "/")), status: 404, reason: "BadPath")
            await tls.close()
            #expect(mock.recordings.count == 3)
            #expect(mock.info.inbox == "http://127.0.0.1:\(mock.cleartextPort)/")
        }
    }

    @Test("with the inbox off, / is BadPath on the cleartext listener too")
    func disabled() async throws {
        try await withPushMock(configure: { $0.inbox.enabled = false }) { mock in
            let cleartext = try await mock.connect(tls: false)
            expectAPNsError(try await cleartext.send(HTTPRequestMessage(method: "GET", path: "/")), status: 404, reason: "BadPath")
            await cleartext.close()
            #expect(mock.info.inbox == nil)
        }
    }

    @Test("--inbox-port: an extra cleartext listener serving the page")
    func extraPort() async throws {
        try await withPushMock(configure: { $0.inbox.port = 0 }) { mock in
            let listener = try #require(mock.info.inboxListener)
            #expect(mock.info.inbox == "\(listener.url)/")
            let fetched = try await run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(listener.url)/"])
            #expect(fetched.output == "200")
        }
    }

    @Test("the compiled-in files are the ones under Inbox/Web/ (rerun scripts/generate-inbox-assets after editing them)")
    func assetsAreCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent("Sources/PushMockGateway/Inbox/Web")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(files == InboxAssets.names.sorted())
        for name in files {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let compiled = try #require(InboxAssets.asset(named: name))
            #expect(String(decoding: compiled.bytes, as: UTF8.self) == text.trimmingTrailingNewlines, "\(name)")
        }
    }

    /// How curl reaches the event stream.
    struct StreamTransport: CustomTestStringConvertible, Sendable {
        let name: String
        let tls: Bool
        let curlArguments: [String]
        var testDescription: String { name }
    }

    static let transports = [
        StreamTransport(name: "HTTP/1.1 (chunked)", tls: false, curlArguments: ["--http1.1"]),
        StreamTransport(name: "h2c (DATA frames)", tls: false, curlArguments: ["--http2-prior-knowledge"]),
        StreamTransport(name: "h2 over TLS", tls: true, curlArguments: ["--http2", "-k"]),
    ]

    @Test("GET /_pushmock/recordings/stream sends each new matching record; the client leaving ends its producer", arguments: transports)
    func eventStream(_ transport: StreamTransport) async throws {
        try await withPushMock { mock in
            let base = transport.tls ? "https://127.0.0.1:\(mock.tlsPort)" : "http://127.0.0.1:\(mock.cleartextPort)"
            let client = try StreamingCurl(transport.curlArguments + ["\(base)/_pushmock/recordings/stream?status=200"])
            defer { client.terminate() }
            try await waitUntil("the stream opened") { client.output.contains(": pushmock recordings") }

            // A 404 (not matching status=200) and then an accepted push.
            _ = try await mock.sendOnNewConnection(HTTPRequestMessage(method: "GET", path: "/favicon.ico"))
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            try await waitUntil("the push arrived as an event") {
                client.output.contains("id: 2\nevent: record\ndata: {\"v\":1,\"seq\":2,")
            }
            #expect(!client.output.contains("id: 1\n"), "the query filtered out the 404")
            try await waitUntil("the producer waits for the next record (\(mock.recordings.pendingWaiterCount) waiting)") {
                mock.recordings.pendingWaiterCount == 1
            }

            await client.stop()
            try await waitUntil("the producer ended with the connection") { mock.recordings.pendingWaiterCount == 0 }
        }
    }

    @Test("a graceful shutdown ends open event streams cleanly (no partial response)", arguments: transports.filter { !$0.tls })
    func shutdownEndsStreams(_ transport: StreamTransport) async throws {
        var client: StreamingCurl?
        try await withPushMock { mock in
            let curl = try StreamingCurl(transport.curlArguments + ["http://127.0.0.1:\(mock.cleartextPort)/_pushmock/recordings/stream"])
            client = curl
            try await waitUntil("the stream opened") { curl.output.contains(": pushmock recordings") }
        }
        let curl = try #require(client)
        defer { curl.terminate() }
        let status = await curl.exitStatus()
        // curl exits 0 when the response ended properly (last chunk / END_STREAM); 18 or 56 when
        // the connection was cut in the middle of it, as a forced close after the grace period does.
        #expect(status == 0, "curl exit status \(String(describing: status))")
    }

    /// schemathesis found it: `after` at the largest sequence number wrapped the next one to
    /// 0, which counts as reached at once, so the producer spun without waiting and the
    /// gateway's memory grew by tens of megabytes a second while the client stayed.
    @Test("a stream after the largest sequence number waits like any other", arguments: ["18446744073709551615", "18446744073709551614"])
    func streamAfterTheLast(after: String) async throws {
        try await withPushMock { mock in
            let client = try StreamingCurl(
                ["--http2-prior-knowledge", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/recordings/stream?after=\(after)"])
            defer { client.terminate() }
            try await waitUntil("the stream opened") { client.output.contains(": pushmock recordings") }
            try await waitUntil("the producer waits (\(mock.recordings.pendingWaiterCount) waiting)") {
                mock.recordings.pendingWaiterCount == 1
            }
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            try await waitUntil("the producer waits again after the append") { mock.recordings.pendingWaiterCount == 1 }
            #expect(!client.output.contains("event: record"), "nothing comes after the last sequence number")
            await client.stop()
            try await waitUntil("the producer ended with the connection") { mock.recordings.pendingWaiterCount == 0 }
        }
    }

    /// EventSource resends the last id it got when it reconnects; the stream started at the
    /// newest record instead, and what came while the client was away was lost.
    @Test("a reconnecting EventSource's Last-Event-ID is where the stream goes on")
    func lastEventID() async throws {
        try await withPushMock { mock in
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            let client = try StreamingCurl(
                ["--http1.1", "-H", "Last-Event-ID: 1", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/recordings/stream"])
            defer { client.terminate() }
            try await waitUntil("the record after the last event seen came") { client.output.contains("id: 2\nevent: record\n") }
            #expect(!client.output.contains("id: 1\n"))
            await client.stop()
        }
    }

    /// A clear (another tab, the CLI, a test's reset) removed what an open inbox showed, and
    /// records not yet streamed, without a word: the page kept showing them.
    @Test("a clear is streamed as a `cleared` event, then records go on")
    func clearedEvent() async throws {
        try await withPushMock { mock in
            let client = try StreamingCurl(["--http1.1", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/recordings/stream"])
            defer { client.terminate() }
            try await waitUntil("the stream opened") { client.output.contains(": pushmock recordings") }
            try await waitUntil("the producer waits") { mock.recordings.pendingWaiterCount == 1 }
            let cleared = try await mock.sendOnNewConnection(HTTPRequestMessage(method: "DELETE", path: "/_pushmock/recordings"))
            #expect(cleared.status == 200)
            try await waitUntil("the clear was told") { client.output.contains("event: cleared\ndata: {}\n\n") }
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            try await waitUntil("the next record came") { client.output.contains("id: 1\nevent: record\n") }
            #expect(client.output.components(separatedBy: "event: cleared").count == 2, "one clear, told once")
            await client.stop()
        }
    }

    /// Streams whose clients never read each hold up to a megabyte: hundreds grew the gateway
    /// by a gigabyte.
    @Test("at most 128 event streams are open at once; a closed one frees its slot")
    func eventStreamSlots() async throws {
        let slots = EventStreamSlots()
        for _ in 0..<EventStreamSlots.maximum { #expect(slots.take()) }
        #expect(!slots.take())
        slots.give()
        #expect(slots.take())
        try await withPushMock { mock in
            for _ in 0..<EventStreamSlots.maximum { #expect(mock.state.eventStreamSlots.take()) }
            let refused = try await ControlAPITests.curl(mock, "GET", "/_pushmock/recordings/stream")
            #expect(refused.status == 503)
            #expect(refused.json?["error"]?.stringValue == "at most 128 event streams may be open at once; close one")
            mock.state.eventStreamSlots.give()
            let client = try StreamingCurl(["--http1.1", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/recordings/stream"])
            defer { client.terminate() }
            try await waitUntil("a stream opens in the freed slot") { client.output.contains(": pushmock recordings") }
            await client.stop()
            // The client's leaving gives the slot back.
            try await waitUntil("the slot is free again") {
                let free = mock.state.eventStreamSlots.take()
                if free { mock.state.eventStreamSlots.give() }
                return free
            }
        }
    }

    @Test("the event stream rejects what GET /recordings rejects")
    func eventStreamErrors() async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let unknown = try await control.request("GET", "recordings/stream", query: [("colour", "red")])
            #expect(unknown.status == 400)
            let badStatus = try await control.request("GET", "recordings/stream", query: [("status", "abc")])
            #expect(badStatus.status == 400)
            await control.close()
        }
    }

    @Test("categories: declare one or many, list, remove; the configuration file declares them too")
    func categories() async throws {
        try await withPushMock(configure: {
            $0.inbox.categories = [NotificationCategoryDefinition(id: "LAB_RESULTS", actions: [.init(id: "view", title: "View")])]
        }) { mock in
            let control = try mock.controlClient()
            let declared = try await control.request(
                "POST", "categories",
                json: Array(
                    #"[{"id":"DOSE_REMINDER","app":"dev.pushmock.sample","actions":[{"id":"log_dose","title":"Log dose","foreground":true}]},{"id":"CHAT","actions":[]}]"#
                        .utf8))
            #expect(declared.status == 201)
            let listed = try await control.request("GET", "categories", json: [])
            let ids = try JSONValue(parsing: Array(listed.text.utf8))["categories"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(ids == ["CHAT", "DOSE_REMINDER", "LAB_RESULTS"])
            #expect(try await control.request("DELETE", "categories/CHAT", json: []).status == 200)
            #expect(try await control.request("DELETE", "categories/CHAT", json: []).status == 404)
            #expect(try await control.request("POST", "categories", json: Array(#"{"actions":[]}"#.utf8)).status == 400)
            #expect(try await control.request("DELETE", "categories", json: []).text == #"{"removed":2}"#)
            await control.close()
        }
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}

/// Polls `condition` every 20 ms for up to 2 minutes (generous: under ThreadSanitizer with the
/// CPUs oversubscribed, 30 s was not enough for an event to reach curl).
func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(120)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting until \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// `curl -sN` reading an endless response, its output collected as it arrives (in a file, read
/// on demand). Used from one test task only.
final class StreamingCurl {
    private let process: ChildProcess
    private let outputPath = NSTemporaryDirectory() + "pushmock-stream-\(UUID().uuidString)"

    init(_ arguments: [String]) throws {
        // posix_spawn, not Foundation's Process (see ChildProcess).
        process = try ChildProcess.spawn("/usr/bin/curl", ["-sN", "--max-time", "600", "-o", outputPath] + arguments, output: .discard)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: outputPath)
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Waits (up to 2 minutes) for curl to exit by itself; its exit status, or `nil` if it did not.
    func exitStatus() async -> Int32? {
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.isRunning ? nil : process.wait()
    }

    /// Kills curl (the kernel then closes its connection); does not wait.
    func terminate() {
        if process.isRunning { process.terminate(SIGKILL) }
    }

    /// Ends curl and waits for it to exit, without blocking a thread.
    func stop() async {
        terminate()
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if !process.isRunning { process.wait() }
    }
}
