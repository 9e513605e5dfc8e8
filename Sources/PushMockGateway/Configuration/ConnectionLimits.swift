import PushMockTransport

/// What one gateway lets its clients hold, so that a hostile or broken client cannot starve
/// the others (docs/SECURITY.md). Every limit has a documented default far above what a
/// well-behaved sender needs.
public struct ConnectionLimits: Sendable, Hashable {
    /// Open connections across all listeners. Beyond it a new connection is closed as soon as
    /// it is accepted. Default 4096, and never more than the process's descriptor limit less
    /// 64 (kept for listeners, the journal and files), so the accept loop never meets EMFILE
    /// because of idle clients.
    public var maximumConnections: Int
    /// Time from accept to a usable connection (TLS handshake done and the protocol known:
    /// an HTTP/2 preface or an HTTP/1.1 request line). Default 10 s.
    public var handshakeTimeout: Duration
    /// A connection on which nothing is read or written for this long is closed. Default one
    /// hour: Apple tells providers to PING a mostly idle connection after an hour.
    public var idleTimeout: Duration
    /// Request body bytes all open streams of one connection may hold (stream reset with
    /// ENHANCE_YOUR_CALM beyond). Default 16 MiB.
    public var maximumBufferedBodyBytesPerConnection: Int
    /// Request body bytes all connections may hold together (stream reset with REFUSED_STREAM
    /// beyond). Default 256 MiB.
    public var maximumBufferedBodyBytes: Int

    public init(
        maximumConnections: Int = 4096,
        handshakeTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(3600),
        maximumBufferedBodyBytesPerConnection: Int = 16 << 20,
        maximumBufferedBodyBytes: Int = 256 << 20
    ) {
        self.maximumConnections = maximumConnections
        self.handshakeTimeout = handshakeTimeout
        self.idleTimeout = idleTimeout
        self.maximumBufferedBodyBytesPerConnection = maximumBufferedBodyBytesPerConnection
        self.maximumBufferedBodyBytes = maximumBufferedBodyBytes
    }

    public static let defaults = ConnectionLimits()

    /// ``maximumConnections`` lowered to what the descriptor limit allows.
    var effectiveMaximumConnections: Int {
        guard let available = DescriptorLimit.available else { return maximumConnections }
        return max(1, min(maximumConnections, available))
    }
}
