import NIOCore
import PushMockCore
import Testing

@testable import PushMockTransport

/// The caps on request bodies a connection and a server may hold (``InboundLimits``).
@Suite("Body buffering caps")
struct BodyBudgetTests {
    /// The RST_STREAM error codes in a server's output, in order.
    static func resetCodes(in session: NGHTTP2Session) throws -> [UInt32] {
        var output = ByteBufferAllocator().buffer(capacity: 1024)
        try session.drainOutput(into: &output)
        var bytes = Array(output.readableBytesView)
        var codes: [UInt32] = []
        while bytes.count >= 9 {
            let length = Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])
            guard bytes.count >= 9 + length else { break }
            if bytes[3] == 0x3, length == 4 {
                codes.append(bytes[9..<13].reduce(0) { $0 << 8 | UInt32($1) })
            }
            bytes.removeFirst(9 + length)
        }
        return codes
    }

    @Test("streams past the per-connection cap are reset with ENHANCE_YOUR_CALM")
    func perConnection() throws {
        let bytes = try validClientBytes(requests: 5, bodySize: 400)
        let server = try NGHTTP2Session(
            role: .server,
            limits: InboundLimits(maximumBufferedBodyBytesPerConnection: 1000)
        )
        try bytes.withUnsafeBytes { try server.receive($0) }
        #expect(server.completed.count == 2)
        #expect(try Self.resetCodes(in: server) == [0xb, 0xb, 0xb])
        for streamID in server.completed {
            #expect(server.takeRequest(streamID: streamID)?.body.count == 400)
        }
    }

    @Test("the server-wide budget refuses streams with REFUSED_STREAM and is given back")
    func serverWide() throws {
        let budget = BodyBudget(limit: 1000)
        let limits = InboundLimits(serverBudget: budget)
        let first = try NGHTTP2Session(role: .server, limits: limits)
        let second = try NGHTTP2Session(role: .server, limits: limits)
        let bytes = try validClientBytes(requests: 2, bodySize: 400)
        try bytes.withUnsafeBytes { try first.receive($0) }
        #expect(budget.bytesInUse == 800)
        try bytes.withUnsafeBytes { try second.receive($0) }
        #expect(second.completed.isEmpty)
        #expect(try Self.resetCodes(in: second) == [0x7, 0x7])
        for streamID in first.completed {
            _ = first.takeRequest(streamID: streamID)
        }
        #expect(budget.bytesInUse == 0)
        second.close()
        first.close()
        #expect(budget.bytesInUse == 0)
    }
}
