public import NIOCore
public import NIOPosix
public import NIOSSL
import NIOTLS
public import PushMockCore

/// A Sendable handle on one client HTTP/2 connection, usable from any task.
///
/// All work on the libnghttp2 session happens on the connection's event loop; this type only
/// hops there. Open one with ``connect(to:)``.
public final class HTTP2ClientConnection: Sendable {
    /// Where and how to connect.
    public struct Configuration: Sendable {
        /// Host to connect to.
        public var host: String
        /// Port to connect to.
        public var port: Int
        /// TLS settings, or `nil` for h2c with prior knowledge.
        public var tls: TLSConfiguration?
        /// SNI and certificate host name; defaults to ``host`` unless it is an IP address.
        public var serverHostname: String?
        /// `:authority` to send; defaults to `host:port`.
        public var authority: String?
        /// How long to wait for the TCP connection and the TLS handshake.
        public var connectTimeout: Duration

        public init(
            host: String,
            port: Int,
            tls: TLSConfiguration? = nil,
            serverHostname: String? = nil,
            authority: String? = nil,
            connectTimeout: Duration = .seconds(10)
        ) {
            self.host = host
            self.port = port
            self.tls = tls
            self.serverHostname = serverHostname
            self.authority = authority
            self.connectTimeout = connectTimeout
        }
    }

    /// The underlying channel.
    public let channel: any Channel
    private let handler: NIOLoopBound<HTTP2ClientHandler>
    /// The ALPN protocol the TLS handshake selected (`nil` over cleartext or without ALPN).
    public let negotiatedProtocol: String?

    private init(channel: any Channel, handler: NIOLoopBound<HTTP2ClientHandler>, negotiatedProtocol: String?) {
        self.channel = channel
        self.handler = handler
        self.negotiatedProtocol = negotiatedProtocol
    }

    /// Connects, performs the TLS handshake (if configured) and starts HTTP/2.
    public static func connect(
        to configuration: Configuration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> HTTP2ClientConnection {
        try await makeConnection(to: configuration, group: group).get()
    }

    /// ``connect(to:group:)`` as a future, for callers that stay on event loops (no task is
    /// needed to open a connection).
    public static func makeConnection(
        to configuration: Configuration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) -> EventLoopFuture<HTTP2ClientConnection> {
        let sslContext: NIOSSLContext?
        do {
            sslContext = try configuration.tls.map { try NIOSSLContext(configuration: $0) }
        } catch {
            return group.next().makeFailedFuture(error)
        }
        let hostname = configuration.serverHostname ?? (Self.isIPAddress(configuration.host) ? nil : configuration.host)
        let authority = configuration.authority ?? "\(configuration.host):\(configuration.port)"
        let scheme = configuration.tls == nil ? "http" : "https"

        let timeout = TimeAmount(configuration.connectTimeout)
        // One budget for TCP and TLS: NIO's connect timeout covers only the TCP part, and a
        // server that accepts but never answers the ClientHello would otherwise hang us forever.
        let deadline = NIODeadline.now() + timeout
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
        return bootstrap.connect(host: configuration.host, port: configuration.port).flatMap { channel in
            let setup: EventLoopFuture<(NIOLoopBound<HTTP2ClientHandler>, String?)> = channel.eventLoop.flatSubmit {
                let handshake = channel.eventLoop.makePromise(of: String?.self)
                do {
                    if let sslContext {
                        let tlsHandler = try NIOSSLClientHandler(context: sslContext, serverHostname: hostname)
                        let observer = HandshakeObserver(promise: handshake)
                        try channel.pipeline.syncOperations.addHandler(tlsHandler)
                        try channel.pipeline.syncOperations.addHandler(observer)
                        let boundObserver = NIOLoopBound(observer, eventLoop: channel.eventLoop)
                        let expiry = channel.eventLoop.scheduleTask(deadline: deadline) {
                            boundObserver.value.timedOut(after: timeout)
                            channel.close(promise: nil)
                        }
                        handshake.futureResult.whenComplete { _ in expiry.cancel() }
                    } else {
                        handshake.succeed(nil)
                    }
                } catch {
                    handshake.fail(error)
                }
                return handshake.futureResult.flatMapThrowing { alpn in
                    // The server chose HTTP/1.1 (a proxy, a plain web server): HTTP/2 frames
                    // would only end in "libnghttp2 ended the session". Without ALPN at all,
                    // h2 is still tried (a server may speak it by prior knowledge).
                    if let alpn, alpn != "h2" {
                        throw HTTP2ClientError(
                            .connectionClosed, detail: "the server does not speak HTTP/2 here (TLS ALPN chose \(alpn), not h2)")
                    }
                    let handler = HTTP2ClientHandler(authority: authority, scheme: scheme)
                    try channel.pipeline.syncOperations.addHandler(handler)
                    return (NIOLoopBound(handler, eventLoop: channel.eventLoop), alpn)
                }
            }
            return setup.map { handler, alpn in
                HTTP2ClientConnection(channel: channel, handler: handler, negotiatedProtocol: alpn)
            }.flatMapError { error in
                channel.close(promise: nil)
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    /// The connection's event loop: the only place ``loopBoundHandler`` may be used.
    public var eventLoop: any EventLoop { channel.eventLoop }

    /// The libnghttp2 client handler, for code that runs on ``eventLoop`` and drives many
    /// requests itself (the sender submits batches with `flush: false` and refills from
    /// ``HTTP2ClientHandler/onReadCycleProcessed``).
    public var loopBoundHandler: NIOLoopBound<HTTP2ClientHandler> { handler }

    /// Sends one request and waits for its response. Cancelling the task resets the stream
    /// (RST_STREAM CANCEL) and throws `CancellationError`: wrap calls in a timeout to give up on
    /// a server that never answers.
    public func send(_ request: HTTPRequestMessage) async throws -> HTTPResponseMessage {
        let promise = channel.eventLoop.makePromise(of: HTTPResponseMessage.self)
        let handler = self.handler
        let eventLoop = channel.eventLoop
        return try await withTaskCancellationHandler {
            eventLoop.execute {
                handler.value.send(request, promise: promise)
            }
            return try await promise.futureResult.get()
        } onCancel: {
            eventLoop.execute {
                handler.value.cancel(promise)
            }
        }
    }

    /// Completes once the server's SETTINGS arrived (then ``remoteMaxConcurrentStreams`` is real).
    public func waitForRemoteSettings() async throws {
        try await remoteSettingsReceived().get()
    }

    /// Succeeds once the server's SETTINGS arrived; fails if the connection closes first.
    public func remoteSettingsReceived() -> EventLoopFuture<Void> {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let handler = self.handler
        channel.eventLoop.execute {
            handler.value.waitForRemoteSettings(promise: promise)
        }
        return promise.futureResult
    }

    /// The server's MAX_CONCURRENT_STREAMS.
    public var remoteMaxConcurrentStreams: UInt32 {
        get async throws {
            let handler = self.handler
            return try await channel.eventLoop.submit { handler.value.remoteMaxConcurrentStreams }.get()
        }
    }

    /// The GOAWAY the server sent, if any.
    public var receivedGoAway: ReceivedGoAway? {
        get async throws {
            let handler = self.handler
            return try await channel.eventLoop.submit { handler.value.receivedGoAway }.get()
        }
    }

    /// Requests waiting for a response.
    public var inFlightCount: Int {
        get async throws {
            let handler = self.handler
            return try await channel.eventLoop.submit { handler.value.inFlightCount }.get()
        }
    }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive }

    /// Sends a PING.
    public func ping() {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.ping() }
    }

    /// Closes the connection now; requests in flight fail with `connectionClosed`.
    public func close() async {
        let handler = self.handler
        // Queued before the close, so the handler knows who ended the connection.
        channel.eventLoop.execute { handler.value.noteClosedByCaller() }
        try? await channel.close()
    }

    /// Completes when the connection has closed.
    public func closeFuture() async {
        try? await channel.closeFuture.get()
    }
}

/// Reports the end of the TLS handshake (and the ALPN result) to a promise.
final class HandshakeObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let promise: EventLoopPromise<String?>
    private var done = false

    init(promise: EventLoopPromise<String?>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event, !done {
            done = true
            promise.succeed(negotiated)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            done = true
            promise.fail(error)
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(HTTP2ClientError(.connectionClosed))
        }
        context.fireChannelInactive()
    }

    /// The connect timeout ran out before the handshake finished; the caller closes the channel.
    func timedOut(after timeout: TimeAmount) {
        if !done {
            done = true
            promise.fail(ChannelError.connectTimeout(timeout))
        }
    }
}
