import NIOCore
import NIOEmbedded
@_spi(Locking) import PushMockCore
import Testing

@testable import PushMockTransport

/// Records the requests of every `respond(to:)` call and answers each with 200.
private final class RunRecorder: HTTPConnectionResponder, Sendable {
    let runs = SanitizerVisibleMutex<[[String]]>([])

    func respond(to requests: consuming [HTTPRequestMessage]) -> HTTPReplyBatch {
        let paths = requests.map(\.path)
        runs.withLock { $0.append(paths) }
        return .immediate(paths.map { _ in .respond(HTTPResponseMessage(status: 200)) })
    }

    func connectionClosed() {}
}

/// A server handler in an `EmbeddedChannel` on a given loop, and a client-role session.
private struct Connection {
    let channel: EmbeddedChannel
    let client: NGHTTP2Session
    let recorder = RunRecorder()

    init(loop: EmbeddedEventLoop, configuration: HTTP2ServerConfiguration = HTTP2ServerConfiguration()) throws {
        channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(HTTP2ServerHandler(configuration: configuration, responder: recorder))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        client = try NGHTTP2Session(role: .client, maximumStoredBodyBytes: 1 << 16)
        try client.submitSettings([.initialWindowSize(65535)])
        _ = try exchange()
    }

    /// Sends what the client queued as ONE read (one read cycle), then hands every buffer the
    /// server wrote to the client; returns how many buffers (flushes) that was.
    func exchange() throws -> Int {
        var outbound = ByteBufferAllocator().buffer(capacity: 1 << 16)
        try client.drainOutput(into: &outbound)
        if outbound.readableBytes > 0 {
            try channel.writeInbound(outbound)
            channel.pipeline.fireChannelReadComplete()
        }
        var buffers = 0
        while let reply = try channel.readOutbound(as: ByteBuffer.self) {
            buffers += 1
            try reply.withUnsafeReadableBytes { try client.receive($0) }
        }
        return buffers
    }

    func send(_ count: Int) throws -> [Int32] {
        try (0..<count).map { index in
            try client.submitRequest(
                method: "POST", path: "/\(index)", scheme: "http", authority: "a", headers: HTTPHeaderList(), body: [1, 2, 3])
        }
    }
}

@Suite("HTTP/2 server: a connection alone on its event loop answers a large read batch in runs")
struct EarlyReplyRunsTests {
    @Test(
        "alone on the loop: runs of the limit, in the order the requests completed, each flushed; every stream answered",
        arguments: [(150, 64, [64, 64, 22]), (128, 64, [64, 64]), (64, 64, [64]), (10, 4, [4, 4, 2]), (5, 1, [1, 1, 1, 1, 1])]
    )
    func alone(requests: Int, limit: Int, expectedRuns: [Int]) throws {
        var configuration = HTTP2ServerConfiguration()
        configuration.earlyReplyBatchLimit = limit
        let connection = try Connection(loop: EmbeddedEventLoop(), configuration: configuration)
        #expect(EventLoopConnectionCount.count(on: connection.channel.eventLoop) == 1)
        let streams = try connection.send(requests)
        let flushes = try connection.exchange()

        let runs = connection.recorder.runs.withLock { $0 }
        #expect(runs.map(\.count) == expectedRuns)
        #expect(runs.flatMap { $0 } == (0..<requests).map { "/\($0)" })
        #expect(flushes >= expectedRuns.count)
        #expect(streams.allSatisfy { connection.client.inbound[$0]?.status == 200 })
        _ = try connection.channel.finish(acceptAlreadyClosed: true)
    }

    @Test("another connection on the same loop, or no limit: the batch is one run")
    func sharedOrUnlimited() throws {
        let loop = EmbeddedEventLoop()
        let first = try Connection(loop: loop)
        let second = try Connection(loop: loop)
        #expect(EventLoopConnectionCount.count(on: loop) == 2)
        let streams = try first.send(150)
        _ = try first.exchange()
        #expect(first.recorder.runs.withLock { $0.map(\.count) } == [150])
        #expect(streams.allSatisfy { first.client.inbound[$0]?.status == 200 })

        // The other connection closes: the first is alone now, and answers in runs.
        second.channel.pipeline.fireChannelInactive()
        #expect(EventLoopConnectionCount.count(on: loop) == 1)
        _ = try first.send(150)
        _ = try first.exchange()
        #expect(first.recorder.runs.withLock { $0.map(\.count) } == [150, 64, 64, 22])

        var unlimited = HTTP2ServerConfiguration()
        unlimited.earlyReplyBatchLimit = nil
        let alone = try Connection(loop: EmbeddedEventLoop(), configuration: unlimited)
        _ = try alone.send(150)
        _ = try alone.exchange()
        #expect(alone.recorder.runs.withLock { $0.map(\.count) } == [150])

        _ = try first.channel.finish(acceptAlreadyClosed: true)
        _ = try second.channel.finish(acceptAlreadyClosed: true)
        _ = try alone.channel.finish(acceptAlreadyClosed: true)
        #expect(EventLoopConnectionCount.count(on: loop) == 0)
    }
}
