import NIOCore
import NIOPosix
import PushMockCore
import Testing

@testable import PushMockTransport

/// A TCP server that does not speak HTTP/2: on the client's first bytes it answers `reply`
/// (if any) and closes the connection, or keeps silent and open.
final class ScriptedPeer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Script: Sendable {
        case closeOnFirstBytes
        /// Closes with SO_LINGER 0: the client gets a TCP RST, not an orderly close.
        case resetOnFirstBytes
        case replyAndStayOpen([UInt8])
        case silent
    }

    let script: Script
    init(_ script: Script) { self.script = script }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch script {
        case .closeOnFirstBytes:
            context.close(promise: nil)
        case .resetOnFirstBytes:
            let channel = context.channel
            guard let provider = channel as? any SocketOptionProvider else {
                context.close(promise: nil)
                return
            }
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        case .replyAndStayOpen(let bytes):
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        case .silent:
            break
        }
    }

    static func start(_ script: Script) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptedPeer(script))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }
}

/// A request that fails because its connection closed says why, as far as the client knows:
/// "connection closed" alone left a CI failure unexplained (the reset test's, 2026-11-30).
@Suite("HTTP/2 client: why a connection closed")
struct HTTP2ClientCloseCauseTests {
    /// Sends one request on a fresh connection to `server` and returns how it failed.
    static func failure(against server: any Channel, closingAfterSubmit: Bool = false) async throws -> HTTP2ClientError {
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        let request = Task { try await client.send(HTTPRequestMessage(method: "GET", path: "/")) }
        if closingAfterSubmit {
            let deadline = ContinuousClock.now + .seconds(120)
            while try await client.inFlightCount == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            await client.close()
        }
        let outcome = await request.result
        await client.close()
        try await server.close()
        guard case .failure(let error) = outcome else {
            Issue.record("the request succeeded: \(outcome)")
            return HTTP2ClientError(.submitFailed("no failure"))
        }
        return try #require(error as? HTTP2ClientError, "\(error)")
    }

    @Test("errors of one kind are equal whatever their details; the detail is in the description")
    func equalityIgnoresDetail() {
        let detailed = HTTP2ClientError(.connectionClosed, detail: "the server closed the connection")
        #expect(detailed == HTTP2ClientError(.connectionClosed))
        #expect(detailed.hashValue == HTTP2ClientError(.connectionClosed).hashValue)
        #expect(detailed != HTTP2ClientError(.submitFailed("x")))
        #expect(detailed.description == "connection closed before the response completed: the server closed the connection")
        #expect(HTTP2ClientError(.connectionClosed).description == "connection closed before the response completed")
    }

    @Test("the server closing the connection")
    func serverClosed() async throws {
        let error = try await Self.failure(against: ScriptedPeer.start(.closeOnFirstBytes))
        #expect(error.kind == .connectionClosed)
        #expect(error.detail == "the server closed the connection", "\(error)")
    }

    /// A socket error reads like the connect failures (`ConnectFailureText`), not as NIO's
    /// `IOError` dump.
    @Test("the server resetting the connection")
    func serverReset() async throws {
        let error = try await Self.failure(against: ScriptedPeer.start(.resetOnFirstBytes))
        #expect(error.kind == .connectionClosed)
        #expect(
            ["connection reset by peer", "broken pipe", "the server closed the connection"].contains(error.detail ?? ""), "\(error)")
        #expect(!(error.detail ?? "").contains("IOError"), "\(error)")
    }

    @Test("the caller closing the connection")
    func callerClosed() async throws {
        let error = try await Self.failure(against: ScriptedPeer.start(.silent), closingAfterSubmit: true)
        #expect(error.kind == .connectionClosed)
        #expect(error.detail == "closed by the client", "\(error)")
    }

    @Test("the client's own graceful shutdown (GOAWAY) is not taken for libnghttp2 ending the session")
    func clientShutdown() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        #expect(try await client.send(HTTPRequestMessage(method: "GET", path: "/")).status == 200)
        let handler = client.loopBoundHandler
        client.eventLoop.execute { handler.value.shutdownGracefully() }
        await client.closeFuture()
        do {
            _ = try await client.send(HTTPRequestMessage(method: "GET", path: "/"))
            Issue.record("a request after the shutdown succeeded")
        } catch let error as HTTP2ClientError {
            #expect(error.kind == .connectionClosed)
            #expect(error.detail == "shut down by the client (GOAWAY)", "\(error)")
        }
        try await server.close()
    }

    @Test("libnghttp2 refusing what the server sent (an HTTP/1.1 answer)")
    func notHTTP2() async throws {
        let reply = Array("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n".utf8)
        let error = try await Self.failure(against: ScriptedPeer.start(.replyAndStayOpen(reply)))
        #expect(error.kind == .connectionClosed)
        #expect(error.detail?.hasPrefix("libnghttp2 ") == true, "\(error)")
    }
}
