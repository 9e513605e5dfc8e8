import Foundation
import NIOCore
import NIOPosix
@_spi(Locking) import PushMockCore
import Testing

@testable import PushMockTransport

/// Answers `/stream` with a streamed body the test feeds (and whose end it observes), anything
/// else with a plain 200.
final class StreamingResponder: HTTPConnectionResponder, Sendable {
    let continuation: SanitizerVisibleMutex<AsyncStream<[UInt8]>.Continuation?> = SanitizerVisibleMutex(nil)
    let terminated = SanitizerVisibleMutex(false)

    func respond(to requests: consuming [HTTPRequestMessage]) -> HTTPReplyBatch {
        .immediate(
            requests.map { request in
                guard request.path == "/stream" else { return .respond(HTTPResponseMessage(status: 200)) }
                let (body, continuation) = AsyncStream<[UInt8]>.makeStream()
                continuation.onTermination = { [self] _ in self.terminated.withLock { $0 = true } }
                self.continuation.withLock { $0 = continuation }
                continuation.yield(Array("hello ".utf8))
                var headers = HTTPHeaderList()
                headers.append(name: "content-type", value: "text/event-stream")
                return HTTPReply(.stream(HTTPStreamingResponse(status: 200, headers: headers, body: body)))
            })
    }

    func connectionClosed() {}
}

@Suite("HTTP/2 streamed responses")
struct HTTP2StreamingTests {
    @Test("a streamed body defers between chunks and ends with END_STREAM; nothing is held afterwards")
    func sessionLevel() throws {
        let client = try NGHTTP2Session(role: .client, maximumStoredBodyBytes: 1 << 16)
        let server = try NGHTTP2Session(role: .server, maximumStoredBodyBytes: 1 << 16)
        try client.submitSettings([])
        try server.submitSettings([])
        _ = try client.submitRequest(method: "GET", path: "/s", scheme: "http", authority: "a", headers: HTTPHeaderList(), body: [])
        _ = try client.submitRequest(method: "HEAD", path: "/h", scheme: "http", authority: "a", headers: HTTPHeaderList(), body: [])
        try exchange(from: client, to: server)
        #expect(server.completed == [1, 3])
        for streamID in server.completed { _ = server.takeRequest(streamID: streamID) }
        server.completed.removeAll()

        #expect(try server.submitStreamingResponse(streamID: 1, status: 200, headers: HTTPHeaderList()))
        #expect(try !server.submitStreamingResponse(streamID: 3, status: 200, headers: HTTPHeaderList()), "HEAD: head only")
        try exchange(from: server, to: client)
        #expect(client.inbound[1]?.status == 200)
        #expect(client.inbound[1]?.isComplete == false, "the provider deferred: the stream stays open")
        #expect(client.inbound[3]?.isComplete == true)

        #expect(try server.appendToStreamedBody(streamID: 1, Array("one ".utf8)) == 4)
        try exchange(from: server, to: client)
        #expect(client.inbound[1]?.body == Array("one ".utf8))
        #expect(try server.appendToStreamedBody(streamID: 1, Array("two".utf8)) == 3)
        try server.finishStreamedBody(streamID: 1)
        try exchange(from: server, to: client)
        #expect(client.inbound[1]?.body == Array("one two".utf8))
        #expect(client.inbound[1]?.isComplete == true)
        #expect(try server.appendToStreamedBody(streamID: 1, [1]) == nil, "the stream is gone")
        #expect(server.bookkeeping.outboundBodies == 0)
        #expect(server.bookkeeping.inboundStreams == 0)
    }

    /// How one run of ``resetEndsProducer()``'s scenario ended.
    enum ResetScenarioOutcome {
        /// Checked to the end (whatever the checks recorded).
        case completed
        /// The connection closed before the server answered `/stream`: what was known then.
        case connectionLostBeforeAnswer(String)
    }

    @Test("RST_STREAM from the client ends the producer; the connection goes on; nothing is held at the end")
    func resetEndsProducer() async throws {
        // In two of nine clean-clone runs of .ci/run on 2026-11-30 (never alone, never in a
        // plain rerun of the suite), the connection closed while it waited, idle, for this
        // test's request: the server never saw /stream, no GOAWAY came, the server saw the
        // close. Neither side's handler had a reason to close it; the cause is not known. The
        // scenario then reports all it knows as a known issue and runs again on a new
        // connection: the behaviour under test is checked either way.
        for _ in 1...3 {
            switch try await Self.resetScenario() {
            case .completed:
                return
            case .connectionLostBeforeAnswer(let report):
                withKnownIssue("the connection closed before the server answered /stream (cause unknown)", isIntermittent: true) {
                    Issue.record(Comment(rawValue: report))
                }
            }
        }
        Issue.record("three connections in a row closed before the server answered /stream")
    }

    static func resetScenario() async throws -> ResetScenarioOutcome {
        let responder = StreamingResponder()
        let observations = BookkeepingObservations()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        BookkeepingProbe(.beforeHandler, observations),
                        HTTP2ServerHandler(configuration: HTTP2ServerConfiguration(), responder: responder),
                        BookkeepingProbe(.afterHandler, observations),
                    ])
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))

        // Our client waits for END_STREAM, which a stream never sends: cancelling it resets the stream.
        let waiting = Task { try await client.send(HTTPRequestMessage(method: "GET", path: "/stream")) }
        // What the connection looked like, for a message.
        func connectionState() async -> String {
            let goAway = try? await client.receivedGoAway
            let (cycles, final, errors) = observations.values.withLock { ($0.readCycles, $0.final, $0.errors) }
            return "client active: \(client.isActive), GOAWAY received: \(String(describing: goAway)), "
                + "server read cycles: \(cycles), server saw the close: \(final != nil), errors on the server's pipeline: \(errors)"
        }
        // Generous: alone this takes about a second, but in the full parallel run it shares two
        // CPUs, NIO's singleton loops and the cooperative pool with a thousand tests (among them
        // h2load's million streams and the socket fuzzer), and took 58–82 s in CI; once, more
        // than the 120 s it had (a clean-clone run of .ci/run, 2026-11-30 15:44 UTC).
        let deadline = ContinuousClock.now + .seconds(300)
        while responder.continuation.withLock({ $0 == nil }), client.isActive, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard responder.continuation.withLock({ $0 != nil }) else {
            let state = await connectionState()
            // Closing fails the request if it is still waiting (its task may not even have run).
            waiting.cancel()
            await client.close()
            let report = "the server never answered /stream; the request ended with \(await waiting.result); \(state)"
            try await server.close()
            if state.hasPrefix("client active: false") {
                return .connectionLostBeforeAnswer(report)
            }
            Issue.record(Comment(rawValue: report))
            return .completed
        }
        responder.continuation.withLock { _ = $0?.yield(Array("world".utf8)) }
        waiting.cancel()
        let outcome = await waiting.result
        if case .failure(let error) = outcome, !(error is CancellationError) {
            Issue.record("the cancelled request ended with \(error), not CancellationError; \(await connectionState())")
        }
        while !responder.terminated.withLock({ $0 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        if !responder.terminated.withLock({ $0 }) {
            Issue.record("the producer was not ended by the reset; \(await connectionState())")
        }

        let after: HTTPResponseMessage
        do {
            after = try await client.send(HTTPRequestMessage(method: "GET", path: "/plain"))
        } catch {
            Issue.record("the request after the reset failed: \(error); \(await connectionState())")
            await client.close()
            try await server.close()
            return .completed
        }
        #expect(after.status == 200)
        await client.close()
        while observations.final == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(observations.final == .empty, "\(String(describing: observations.final))")
        try await server.close()
        return .completed
    }
}
