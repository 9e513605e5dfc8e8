import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOPosix
import PushMockCore
import Testing

@testable import PushMockTransport

/// Valid client bytes for a few APNs-shaped requests, produced by a client-mode session.
func validClientBytes(requests: Int = 3, bodySize: Int = 64) throws -> [UInt8] {
    let client = try NGHTTP2Session(role: .client, maximumStoredBodyBytes: 1 << 16)
    try client.submitSettings([.enablePush(0), .initialWindowSize(65535)])
    for index in 0..<requests {
        var headers = HTTPHeaderList()
        headers.append(name: "authorization", value: "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQyJ9.eyJpc3MiOiJYIn0.c2ln")
        headers.append(name: "apns-topic", value: "com.example.app")
        headers.append(name: "apns-push-type", value: "alert")
        headers.append(name: "apns-collapse-id", value: "c\(index)")
        _ = try client.submitRequest(
            method: "POST",
            path: "/3/device/00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f\(index % 10)",
            scheme: "https",
            authority: "api.sandbox.push.apple.com",
            headers: headers,
            body: Array(repeating: UInt8(ascii: "x"), count: bodySize)
        )
    }
    var buffer = ByteBufferAllocator().buffer(capacity: 4096)
    try client.drainOutput(into: &buffer)
    return Array(buffer.readableBytesView)
}

@Suite("libnghttp2 session under abuse")
struct NGHTTP2AbuseTests {
    @Test("valid client bytes produce complete requests in a server session")
    func valid() throws {
        let bytes = try validClientBytes(requests: 3, bodySize: 100)
        let server = try NGHTTP2Session(role: .server, maximumStoredBodyBytes: 1 << 16)
        try bytes.withUnsafeBytes { try server.receive($0) }
        #expect(server.completed.count == 3)
        let request = try #require(server.takeRequest(streamID: server.completed[0]))
        #expect(request.method == "POST")
        #expect(request.authority == "api.sandbox.push.apple.com")
        #expect(request.headers.first(.apnsTopic) == "com.example.app")
        #expect(request.body.count == 100)
        #expect(request.bodyByteCount == 100)
    }

    @Test("a body beyond the storage cap is handed over at once, truncated; the rest is discarded")
    func bodyCap() throws {
        let bytes = try validClientBytes(requests: 1, bodySize: 50_000)
        let server = try NGHTTP2Session(role: .server, maximumStoredBodyBytes: 1000)
        try bytes.withUnsafeBytes { try server.receive($0) }
        // Complete as soon as the body passed the cap (so the gateway answers 413 without
        // waiting for, or buffering, the rest); later DATA is not counted or stored.
        let streamID = try #require(server.completed.first)
        let request = try #require(server.takeRequest(streamID: streamID))
        #expect(request.body.count == 1000)
        #expect(request.bodyByteCount > 1000)
        #expect(request.bodyByteCount < 50_000)
        #expect(request.isBodyTruncated)
        #expect(server.completed.count == 1)
    }

    @Test("20,000 seeded mutations of a valid stream never crash the session")
    func mutationFuzz() throws {
        let valid = try validClientBytes()
        var random = FastRandom(seed: 0x5eed)
        var fatal = 0
        var completed = 0
        for _ in 0..<20_000 {
            var bytes = valid
            let mutations = Int(random.next() % 8) + 1
            for _ in 0..<mutations {
                switch random.next() % 4 {
                case 0:  // flip a byte
                    let index = Int(random.next() % UInt64(bytes.count))
                    bytes[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                case 1:  // truncate
                    bytes.removeLast(Int(random.next() % UInt64(bytes.count / 2 + 1)))
                case 2:  // insert random bytes
                    let index = Int(random.next() % UInt64(bytes.count + 1))
                    let count = Int(random.next() % 32)
                    bytes.insert(contentsOf: (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: index)
                default:  // duplicate a slice (replayed frames)
                    let start = Int(random.next() % UInt64(bytes.count))
                    let end = min(bytes.count, start + Int(random.next() % 64))
                    bytes.insert(contentsOf: bytes[start..<end], at: Int(random.next() % UInt64(bytes.count + 1)))
                }
                if bytes.isEmpty { bytes = [0] }
            }
            let server = try NGHTTP2Session(role: .server, maximumStoredBodyBytes: 4096)
            do {
                // Feed in random-sized pieces, as TCP would.
                var offset = 0
                while offset < bytes.count {
                    let size = min(bytes.count - offset, Int(random.next() % 200) + 1)
                    try bytes[offset..<(offset + size)].withUnsafeBytes { try server.receive($0) }
                    offset += size
                }
                completed += server.completed.count
                for streamID in server.completed {
                    if let request = server.takeRequest(streamID: streamID) {
                        try server.submitResponse(streamID: streamID, status: 400, headers: HTTPHeaderList(), body: Array("{}".utf8))
                        _ = request
                    }
                }
                var output = ByteBufferAllocator().buffer(capacity: 1024)
                try server.drainOutput(into: &output)
            } catch {
                fatal += 1
            }
        }
        // Not an assertion about the split, just that both paths were exercised.
        #expect(fatal > 0)
        #expect(completed > 0)
    }

    @Test("random bytes (not HTTP/2 at all) are a fatal error, not a crash")
    func randomBytes() throws {
        var random = FastRandom(seed: 7)
        var refused = 0
        for _ in 0..<2000 {
            let bytes = (0..<Int(random.next() % 300 + 1)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let server = try NGHTTP2Session(role: .server, maximumStoredBodyBytes: 4096)
            let received: Void? = try? bytes.withUnsafeBytes { try server.receive($0) }
            var output = ByteBufferAllocator().buffer(capacity: 256)
            _ = try? server.drainOutput(into: &output)
            // Without the 24-byte client preface nothing is a request: either the session
            // rejects the bytes, or (fewer than 24 bytes, a prefix still possible) it waits.
            if received == nil { refused += 1 }
            #expect(server.completed.isEmpty)
            #expect(received == nil || bytes.count < 24, "\(bytes.count) random bytes were taken as a preface")
        }
        #expect(refused > 0)
    }

    @Test("submitting to a closed or unknown stream is refused quietly")
    func closedStream() throws {
        let server = try NGHTTP2Session(role: .server, maximumStoredBodyBytes: 4096)
        #expect(try server.submitResponse(streamID: 99, status: 200, headers: HTTPHeaderList(), body: []) == false)
        server.close()
        #expect(try server.submitResponse(streamID: 1, status: 200, headers: HTTPHeaderList(), body: []) == false)
        try server.submitGoAway(lastStreamID: 0, errorCode: .noError, debugData: [])
        var output = ByteBufferAllocator().buffer(capacity: 16)
        try server.drainOutput(into: &output)
        #expect(output.readableBytes == 0)
    }
}

/// Raw TCP clients against the real server handler on a socket.
@Suite("HTTP/2 server handler under abuse")
struct HTTP2ServerAbuseTests {
    /// Writes `bytes`, then collects whatever comes back until the server closes or `timeout`
    /// (long by default: a close the test expects ends the wait, and CI machines are loaded).
    static func exchange(port: Int, _ bytes: [UInt8], timeout: Duration = .seconds(60)) async throws -> (received: [UInt8], closed: Bool) {
        let collected = NIOLockedValueBox<[UInt8]>([])
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(collected: collected))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        try? await channel.writeAndFlush(buffer)
        let deadline = ContinuousClock.now + timeout
        while channel.isActive, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let closed = !channel.isActive
        try? await channel.close()
        return (collected.withLockedValue { $0 }, closed)
    }

    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let collected: NIOLockedValueBox<[UInt8]>
        init(collected: NIOLockedValueBox<[UInt8]>) { self.collected = collected }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            collected.withLockedValue { $0.append(contentsOf: buffer.readableBytesView) }
        }
    }

    /// A GOAWAY frame (type 7) in a server byte stream, with its error code.
    static func goAwayCode(in bytes: [UInt8]) -> UInt32? {
        var index = 0
        while index + 9 <= bytes.count {
            let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            let type = bytes[index + 3]
            if type == 7, index + 9 + 8 <= bytes.count {
                let base = index + 9 + 4
                return UInt32(bytes[base]) << 24 | UInt32(bytes[base + 1]) << 16 | UInt32(bytes[base + 2]) << 8 | UInt32(bytes[base + 3])
            }
            index += 9 + length
        }
        return nil
    }

    @Test("a broken frame after the preface gets GOAWAY and a closed connection; the server lives on")
    func brokenFrame() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        // A SETTINGS frame with a length that is not a multiple of 6: FRAME_SIZE_ERROR.
        let badSettings: [UInt8] = [0, 0, 5, 4, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5]
        let (received, closed) = try await Self.exchange(port: port, preface + badSettings)
        #expect(closed)
        #expect(Self.goAwayCode(in: received) == HTTP2ErrorCode.frameSizeError.networkCode)
        // Still serving.
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        #expect(try await client.send(HTTPRequestMessage(method: "GET", path: "/ok")).status == 200)
        await client.close()
        try await server.close()
    }

    @Test("seeded garbage and mutated streams over sockets: no crash, the server keeps answering")
    func socketFuzz() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let valid = try validClientBytes()
        var random = FastRandom(seed: 99)
        for round in 0..<80 {
            var bytes = valid
            for _ in 0..<(Int(random.next() % 6) + 1) {
                let index = Int(random.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: random.next())
            }
            if round % 10 == 0 {
                bytes = (0..<200).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            _ = try await Self.exchange(port: port, bytes, timeout: .milliseconds(50))
        }
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        #expect(try await client.send(HTTPRequestMessage(method: "GET", path: "/ok")).status == 200)
        await client.close()
        try await server.close()
    }

    @Test("a client that resets its stream or vanishes mid-request leaves the server unharmed")
    func resetsAndDisconnects() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        // HEADERS without END_STREAM, then RST_STREAM(CANCEL) on stream 1.
        let valid = try validClientBytes(requests: 1, bodySize: 10)
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        let rst: [UInt8] = [0, 0, 4, 3, 0, 0, 0, 0, 1, 0, 0, 0, 8]
        _ = try await Self.exchange(port: port, Array(valid.prefix(valid.count - 19)) + rst, timeout: .milliseconds(200))
        // Half a frame, then gone.
        _ = try await Self.exchange(port: port, preface + [0, 0, 20, 1, 4], timeout: .milliseconds(50))
        // Many more streams than allowed at once.
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        #expect(try await client.send(HTTPRequestMessage(method: "GET", path: "/ok")).status == 200)
        await client.close()
        try await server.close()
    }
}
