import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
@_spi(Locking) import PushMockCore
import PushMockTestSupport
import Testing

@testable import PushMockTransport

/// Answers by path the way the gateway can: at once without a body (APNs success), with a body
/// (an error), with RST_STREAM, after a delay (fault latency), or never (a hang fault).
final class LifecycleResponder: HTTPConnectionResponder, Sendable {
    let delay: Duration
    let answered: SanitizerVisibleMutex<Int>
    let onAnswered: @Sendable (Int) -> Void

    init(delay: Duration = .milliseconds(1), onAnswered: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.delay = delay
        self.answered = SanitizerVisibleMutex(0)
        self.onAnswered = onAnswered
    }

    func respond(to requests: consuming [HTTPRequestMessage]) -> HTTPReplyBatch {
        let replies = requests.map { request -> HTTPReply in
            switch request.path {
            case "/body":
                return .respond(HTTPResponseMessage(status: 400, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8)))
            case "/reset": return HTTPReply(.resetStream(.refusedStream))
            case "/slow": return HTTPReply(.respond(HTTPResponseMessage(status: 200)), delay: delay)
            case "/hang": return HTTPReply(.noResponse)
            default: return .respond(HTTPResponseMessage(status: 200))
            }
        }
        let total = answered.withLock { count in
            count += requests.count
            return count
        }
        onAnswered(total)
        return .immediate(replies)
    }

    func connectionClosed() {}
}

/// What the probes saw of one connection's per-stream structures.
final class BookkeepingObservations: Sendable {
    struct Values {
        /// The largest value of each count seen at the end of a read cycle.
        var peak = HTTP2StreamBookkeeping.empty
        /// The counts when the connection closed, before the handler tore its session down.
        var final: HTTP2StreamBookkeeping?
        var readCycles = 0
        /// Errors that reached the pipeline (socket errors before the handler, the handler's
        /// own after it), for a failure's message.
        var errors: [String] = []
    }

    let values = SanitizerVisibleMutex(Values())

    var final: HTTP2StreamBookkeeping? { values.withLock { $0.final } }
}

/// Reads `HTTP2ServerHandler.streamBookkeeping` from the same pipeline. Placed after the handler
/// it samples at the end of each read cycle (the handler has answered and flushed by then);
/// placed before it, it takes the last look when the connection closes, before the handler
/// releases its session.
final class BookkeepingProbe: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    enum Position { case beforeHandler, afterHandler }

    let position: Position
    let observations: BookkeepingObservations

    init(_ position: Position, _ observations: BookkeepingObservations) {
        self.position = position
        self.observations = observations
    }

    private func bookkeeping(_ context: ChannelHandlerContext) -> HTTP2StreamBookkeeping? {
        try? context.pipeline.syncOperations.handler(type: HTTP2ServerHandler.self).streamBookkeeping
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if position == .afterHandler, let now = bookkeeping(context) {
            observations.values.withLock { values in
                values.readCycles += 1
                values.peak.inboundStreams = max(values.peak.inboundStreams, now.inboundStreams)
                values.peak.outboundBodies = max(values.peak.outboundBodies, now.outboundBodies)
                values.peak.completedStreams = max(values.peak.completedStreams, now.completedStreams)
                values.peak.closedStreams = max(values.peak.closedStreams, now.closedStreams)
                values.peak.delayedReplies = max(values.peak.delayedReplies, now.delayedReplies)
            }
        }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if position == .beforeHandler {
            let now = bookkeeping(context)
            observations.values.withLock { $0.final = now }
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        observations.values.withLock { $0.errors.append("\(position): \(error)") }
        context.fireErrorCaught(error)
    }
}

/// Resident set size of this process, from `/proc/self/statm` (Linux).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(getpagesize())
}

/// Runs a process on a Dispatch thread (never blocking a cooperative thread).
func runProcess(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(
                with: Result {
                    // posix_spawn, not Foundation's Process (see ChildProcess).
                    let child = try ChildProcess.spawn(executable, arguments, output: .captureMerged)
                    let output = child.readOutput().output
                    return (child.wait(), String(decoding: output, as: UTF8.self))
                }
            )
        }
    }
}

@Suite("HTTP/2 server: per-stream state is released as streams close", .serialized)
struct HTTP2StreamLifecycleTests {
    /// Streams carried by the long-lived connection of ``oneMillionStreams()``.
    static let streamCount = 1_000_000

    @Test("one connection carrying 1,000,000 streams (h2load) ends with nothing held per stream and flat memory")
    func oneMillionStreams() async throws {
        let observations = BookkeepingObservations()
        let rss = SanitizerVisibleMutex<(warm: Int, late: Int)>((0, 0))
        let warmUp = 100_000
        let responder = LifecycleResponder { answered in
            // Both samples are taken while the connection is busy, so they compare like with like.
            if answered >= warmUp {
                rss.withLock { if $0.warm == 0 { $0.warm = residentBytes() } }
            }
            if answered >= Self.streamCount - 1000 {
                rss.withLock { if $0.late == 0 { $0.late = residentBytes() } }
            }
        }
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
        let base = "http://127.0.0.1:\(port)"

        // One client, one connection, 1000 streams in flight, the four kinds of answer in turn (in the
        // proportions a sender sees: mostly successes, some errors and resets, a few delayed).
        let result = try await runProcess(
            "/usr/bin/h2load",
            [
                "-n", String(Self.streamCount), "-c", "1", "-m", "1000", "-N", "60s",
            ] + ["/ok", "/body", "/ok", "/reset", "/ok", "/body", "/ok", "/slow"].map { base + $0 })
        #expect(result.status == 0, "\(result.output)")
        #expect(
            result.output.contains("requests: \(Self.streamCount) total, \(Self.streamCount) started, \(Self.streamCount) done"),
            "\(result.output)")
        #expect(responder.answered.withLock { $0 } == Self.streamCount)

        // h2load closes the connection once every stream is answered.
        let deadline = ContinuousClock.now + .seconds(60)
        while observations.final == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let final = try #require(observations.final, "the connection did not close")
        #expect(final == .empty, "held after \(Self.streamCount) streams: \(final)")

        let values = observations.values.withLock { $0 }
        // While it ran, nothing grew past the streams in flight (h2load keeps up to 1000 open, the
        // advertised MAX_CONCURRENT_STREAMS).
        #expect(values.peak.inboundStreams <= 1000, "\(values.peak)")
        #expect(values.peak.outboundBodies <= 1000, "\(values.peak)")
        #expect(values.peak.delayedReplies <= 1000, "\(values.peak)")
        #expect(values.peak.completedStreams == 0, "\(values.peak)")
        #expect(values.peak.closedStreams == 0, "\(values.peak)")
        #expect(values.readCycles > 0)

        // Memory: the counts above are the exact check; RSS is the coarse one. Between 100,000 and
        // 999,000 streams the process may not grow by what a leak of 600 bytes a stream would
        // cost (a stream's whole state, nghttp2's and ours, is more than that). Alone this test
        // grows by well under 1 MB; the bound is generous because every other suite runs in the
        // same process at the same time: full runs have seen 84 MB and 271 MB (the second failed
        // an earlier bound of 256 MiB while every count above was exact).
        let samples = rss.withLock { $0 }
        #expect(samples.warm > 0 && samples.late > 0)
        let growth = samples.late - samples.warm
        #expect(growth < 512 << 20, "RSS grew by \(growth / 1024) KiB from \(samples.warm / 1024) KiB")
        print(
            "1M streams: RSS \(samples.warm / 1024) KiB at \(warmUp) streams, \(samples.late / 1024) KiB near the end; peak \(values.peak); \(values.readCycles) read cycles"
        )
        try await server.close()
    }

    /// A server handler in an `EmbeddedChannel` and a client-role session feeding it bytes.
    struct InProcess {
        let channel: EmbeddedChannel
        let client: NGHTTP2Session

        init(responder: LifecycleResponder) throws {
            channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(
                HTTP2ServerHandler(configuration: HTTP2ServerConfiguration(), responder: responder))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            client = try NGHTTP2Session(role: .client, maximumStoredBodyBytes: 1 << 16)
            try client.submitSettings([.initialWindowSize(65535)])
            try pump()
        }

        var bookkeeping: HTTP2StreamBookkeeping {
            get throws { try channel.pipeline.syncOperations.handler(type: HTTP2ServerHandler.self).streamBookkeeping }
        }

        /// Client → server (one read cycle), then server → client.
        func pump() throws {
            var outbound = ByteBufferAllocator().buffer(capacity: 4096)
            try client.drainOutput(into: &outbound)
            if outbound.readableBytes > 0 {
                try channel.writeInbound(outbound)
                channel.pipeline.fireChannelReadComplete()
            }
            while let reply = try channel.readOutbound(as: ByteBuffer.self) {
                try reply.withUnsafeReadableBytes { try client.receive($0) }
            }
        }

        func send(_ path: String) throws -> Int32 {
            try client.submitRequest(
                method: "POST", path: path, scheme: "http", authority: "a", headers: HTTPHeaderList(), body: [1, 2, 3])
        }
    }

    @Test("streams the client resets before their (delayed or withheld) reply release everything, and the reply is never sent")
    func resetBeforeReply() throws {
        let responder = LifecycleResponder(delay: .seconds(10))
        let setup = try InProcess(responder: responder)
        var streams: [Int32] = []
        for index in 0..<200 {
            streams.append(try setup.send(index.isMultiple(of: 2) ? "/slow" : "/hang"))
        }
        try setup.pump()
        #expect(responder.answered.withLock { $0 } == 200)
        #expect(
            try setup.bookkeeping
                == HTTP2StreamBookkeeping(
                    inboundStreams: 200, outboundBodies: 0, completedStreams: 0, closedStreams: 0, delayedReplies: 100,
                    libraryStreams: 200))

        for streamID in streams {
            try setup.client.submitReset(streamID: streamID, errorCode: .cancel)
        }
        try setup.pump()
        #expect(try setup.bookkeeping == .empty)

        // The delays elapse: no reply is sent for a stream that no longer exists.
        setup.channel.embeddedEventLoop.advanceTime(by: .seconds(11))
        #expect(try setup.channel.readOutbound(as: ByteBuffer.self) == nil)
        #expect(try setup.bookkeeping == .empty)

        // The connection still works.
        let stream = try setup.send("/ok")
        try setup.pump()
        #expect(setup.client.inbound[stream]?.status == 200)
        #expect(try setup.bookkeeping == .empty)
        _ = try setup.channel.finish(acceptAlreadyClosed: true)
    }

    @Test("a delayed reply whose stream was reset in the same read is not even scheduled")
    func resetInSameRead() throws {
        let responder = LifecycleResponder(delay: .seconds(10))
        let setup = try InProcess(responder: responder)
        let stream = try setup.send("/slow")
        try setup.client.submitReset(streamID: stream, errorCode: .cancel)
        try setup.pump()
        #expect(try setup.bookkeeping == .empty)
        _ = try setup.channel.finish(acceptAlreadyClosed: true)
    }

    @Test("closing the connection cancels delayed replies and drops streams still open")
    func connectionClosedMidStream() throws {
        let responder = LifecycleResponder(delay: .seconds(10))
        let setup = try InProcess(responder: responder)
        for index in 0..<10 {
            _ = try setup.send(index.isMultiple(of: 2) ? "/slow" : "/hang")
        }
        try setup.pump()
        #expect(try setup.bookkeeping.delayedReplies == 5)
        setup.channel.pipeline.fireChannelInactive()
        #expect(try setup.bookkeeping == .empty)
        _ = try setup.channel.finish(acceptAlreadyClosed: true)
    }

    /// A PRIORITY frame (RFC 9113 §6.3): `streamID` depends on `dependency`, weight 16.
    static func priorityFrame(streamID: Int32, dependsOn dependency: Int32, exclusive: Bool = false) -> [UInt8] {
        let dependencyField = UInt32(dependency) | (exclusive ? 0x8000_0000 : 0)
        return [0, 0, 5, 0x2, 0] + withUnsafeBytes(of: UInt32(streamID).bigEndian, Array.init)
            + withUnsafeBytes(of: dependencyField.bigEndian, Array.init) + [15]
    }

    @Test("PRIORITY frames about closed streams are ignored (APNs ignores PRIORITY); no closed stream is kept for them")
    func priorityFramesIgnored() throws {
        let setup = try InProcess(responder: LifecycleResponder())
        let first = try (0..<3).map { _ in try setup.send("/ok") }
        try setup.pump()
        #expect(first.allSatisfy { setup.client.inbound[$0]?.status == 200 })
        #expect(try setup.bookkeeping == .empty)

        var frames: [UInt8] = []
        frames += Self.priorityFrame(streamID: first[0], dependsOn: first[1])
        frames += Self.priorityFrame(streamID: first[1], dependsOn: first[2], exclusive: true)
        frames += Self.priorityFrame(streamID: first[2], dependsOn: 0)
        var buffer = ByteBufferAllocator().buffer(capacity: frames.count)
        buffer.writeBytes(frames)
        try setup.channel.writeInbound(buffer)
        setup.channel.pipeline.fireChannelReadComplete()

        let next = try setup.send("/ok")
        try setup.pump()
        #expect(setup.client.inbound[next]?.status == 200)
        #expect(setup.client.receivedGoAway == nil)
        #expect(try setup.bookkeeping == .empty)
        _ = try setup.channel.finish(acceptAlreadyClosed: true)
    }

    @Test("stream structures reused after close carry nothing over: after HEADs and a refused (431) request, POSTs get their bodies")
    func reusedStreamsStartClean() throws {
        let setup = try InProcess(responder: LifecycleResponder())
        // HEAD answers carry no DATA. (The method itself is set anew for every stream; the
        // flags below are what a reused structure could carry over.)
        let heads = try (0..<20).map { _ in
            try setup.client.submitRequest(
                method: "HEAD", path: "/body", scheme: "http", authority: "a", headers: HTTPHeaderList(), body: [])
        }
        try setup.pump()
        #expect(heads.allSatisfy { setup.client.inbound[$0]?.status == 400 && setup.client.inbound[$0]?.body.isEmpty == true })
        // Refused (431): a reused structure that stayed refused would swallow the next request.
        var oversized = HTTPHeaderList()
        oversized.append(name: "x-filler", value: String(repeating: "f", count: 20_000))
        let refused = try setup.client.submitRequest(
            method: "POST", path: "/ok", scheme: "http", authority: "a", headers: oversized, body: [1])
        try setup.pump()
        #expect(setup.client.inbound[refused]?.status == 431)
        #expect(try setup.bookkeeping == .empty)

        let posts = try (0..<40).map { index in try setup.send(index.isMultiple(of: 2) ? "/body" : "/ok") }
        try setup.pump()
        for (index, stream) in posts.enumerated() {
            let response = setup.client.inbound[stream]
            if index.isMultiple(of: 2) {
                #expect(response?.status == 400)
                #expect(response?.body == Array(#"{"reason":"BadDeviceToken"}"#.utf8))
            } else {
                #expect(response?.status == 200)
            }
        }
        #expect(try setup.bookkeeping == .empty)
        _ = try setup.channel.finish(acceptAlreadyClosed: true)
    }

    @Test("answers with bodies, resets and delays on one in-process connection leave nothing behind")
    func mixedInProcess() throws {
        let responder = LifecycleResponder(delay: .milliseconds(5))
        let setup = try InProcess(responder: responder)
        let paths = ["/ok", "/body", "/reset", "/slow"]
        for round in 0..<50 {
            for index in 0..<40 {
                _ = try setup.send(paths[(round + index) % paths.count])
            }
            try setup.pump()
            setup.channel.embeddedEventLoop.advanceTime(by: .milliseconds(5))
            try setup.pump()
            #expect(try setup.bookkeeping == .empty, "round \(round)")
        }
        #expect(responder.answered.withLock { $0 } == 2000)
        _ = try setup.channel.finish(acceptAlreadyClosed: true)
    }
}
