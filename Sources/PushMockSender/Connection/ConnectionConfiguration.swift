public import NIOCore
import NIOPosix
import PushMockTransport

/// How a sender manages its HTTP/2 connections.
///
/// Requests are multiplexed: each connection carries up to ``maximumConcurrentStreams``
/// requests at once, fewer when the server's SETTINGS (MAX_CONCURRENT_STREAMS) say so, and the
/// limit follows the server's SETTINGS as they change. A second connection is opened only
/// when every open one is full and requests are waiting, up to ``maximumConnections``.
public struct ConnectionConfiguration: Sendable {
    /// Connections to one server at most. Default 2.
    public var maximumConnections: Int
    /// Requests in flight per connection at most (the server's SETTINGS may lower it).
    /// Default 1000, which is what APNs advertises.
    public var maximumConcurrentStreams: Int
    /// TCP connect, TLS handshake and the server's first SETTINGS, together. Default 10 s.
    public var connectTimeout: Duration
    /// How long one request may wait for its response before the stream is reset and the
    /// attempt counts as a timeout. Default 30 s.
    public var requestTimeout: Duration
    /// Send an HTTP/2 PING after this much inactivity (Apple suggests one after an hour).
    /// `nil`: never. Default 1 hour.
    public var pingInterval: Duration?
    /// Close a connection after this much inactivity. `nil` (default): keep it open.
    public var idleTimeout: Duration?
    /// The event loops connections run on. `nil` (default): NIO's shared singleton group, or,
    /// when the process may use fewer CPUs than the machine has (`taskset`, a cpuset), a
    /// shared group with one loop per CPU it may use.
    public var eventLoopGroup: (any EventLoopGroup)?

    public init(
        maximumConnections: Int = 2,
        maximumConcurrentStreams: Int = 1000,
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(30),
        pingInterval: Duration? = .seconds(3600),
        idleTimeout: Duration? = nil,
        eventLoopGroup: (any EventLoopGroup)? = nil
    ) {
        self.maximumConnections = maximumConnections
        self.maximumConcurrentStreams = maximumConcurrentStreams
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.pingInterval = pingInterval
        self.idleTimeout = idleTimeout
        self.eventLoopGroup = eventLoopGroup
    }

    /// Checks the values.
    public func validate() throws(SenderError) {
        guard maximumConnections >= 1 else {
            throw SenderError(.invalidConfiguration, "maximumConnections must be at least 1 (was \(maximumConnections))")
        }
        guard maximumConcurrentStreams >= 1 else {
            throw SenderError(.invalidConfiguration, "maximumConcurrentStreams must be at least 1 (was \(maximumConcurrentStreams))")
        }
        guard requestTimeout > .zero, connectTimeout > .zero else {
            throw SenderError(.invalidConfiguration, "timeouts must be positive")
        }
        if let pingInterval, pingInterval <= .zero {
            throw SenderError(.invalidConfiguration, "pingInterval must be positive")
        }
        if let idleTimeout, idleTimeout <= .zero {
            throw SenderError(.invalidConfiguration, "idleTimeout must be positive")
        }
    }
}

extension ConnectionConfiguration {
    /// The group actually used.
    var resolvedEventLoopGroup: any EventLoopGroup {
        eventLoopGroup ?? EventLoopCount.sharedGroup
    }
}
