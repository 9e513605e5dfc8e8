import Synchronization

/// Request body bytes held by every connection of one server together, so that many
/// connections each within their own cap still cannot pin unbounded memory. Connections
/// reserve before storing a chunk and release when the request is handed over or its stream
/// closes; a reservation that does not fit is refused (the stream is reset).
package final class BodyBudget: Sendable, Hashable {
    /// The most body bytes all connections may hold at once.
    package let limit: Int
    private let used = Atomic<Int>(0)

    package init(limit: Int) {
        self.limit = limit
    }

    /// Bytes held right now (tests, diagnostics).
    package var bytesInUse: Int { used.load(ordering: .relaxed) }

    /// Takes `count` bytes if they fit under the limit.
    package func reserve(_ count: Int) -> Bool {
        guard count > 0 else { return true }
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + count <= limit else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current,
                desired: current + count,
                ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back bytes taken with ``reserve(_:)``.
    package func release(_ count: Int) {
        guard count > 0 else { return }
        used.subtract(count, ordering: .relaxed)
    }

    package static func == (lhs: BodyBudget, rhs: BodyBudget) -> Bool { lhs === rhs }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// What one connection may hold of its requests: per request, per connection, and (shared
/// with every other connection) per server.
package struct InboundLimits: Sendable, Hashable {
    /// Body bytes stored per request. A longer body is handed over as soon as it passes this
    /// (``HTTPRequestMessage/isBodyTruncated``) and the rest is discarded unread, so the
    /// gateway answers 413 without buffering it.
    package var maximumStoredBodyBytes: Int
    /// The largest header list accepted, counted as RFC 9113 §6.5.2 does (name + value + 32
    /// per field, pseudo-headers included). Larger requests are answered 431 by the transport
    /// and never reach the gateway.
    package var maximumHeaderListBytes: Int
    /// Body bytes all open streams of one connection may hold together; a stream that would
    /// exceed it is reset with ENHANCE_YOUR_CALM.
    package var maximumBufferedBodyBytesPerConnection: Int
    /// Body bytes all connections of the server may hold together; a stream that would
    /// exceed it is reset with REFUSED_STREAM (safe to retry). `nil`: no server-wide cap.
    package var serverBudget: BodyBudget?

    package init(
        maximumStoredBodyBytes: Int = 1 << 20,
        maximumHeaderListBytes: Int = 8000,
        maximumBufferedBodyBytesPerConnection: Int = 16 << 20,
        serverBudget: BodyBudget? = nil
    ) {
        self.maximumStoredBodyBytes = maximumStoredBodyBytes
        self.maximumHeaderListBytes = maximumHeaderListBytes
        self.maximumBufferedBodyBytesPerConnection = maximumBufferedBodyBytesPerConnection
        self.serverBudget = serverBudget
    }

    /// The size RFC 9113 gives one header field in a header list.
    @inline(__always)
    static func fieldSize(nameCount: Int, valueCount: Int) -> Int { nameCount + valueCount + 32 }
}
