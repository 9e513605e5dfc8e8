public import NIOCore
public import PushMockCore

/// Why a request sent over ``HTTP2ClientHandler`` got no response.
public struct HTTP2ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The server reset the stream (RST_STREAM) with this code.
        case streamReset(HTTP2ErrorCode)
        /// The server sent GOAWAY and this stream was above its last stream ID, or the
        /// connection closed after a GOAWAY.
        case goAway(ReceivedGoAway)
        /// The connection closed before the response completed.
        case connectionClosed
        /// libnghttp2 refused the request (e.g. the session is shutting down).
        case submitFailed(String)
    }

    public var kind: Kind
    /// Why the connection closed, when this side knows (``Kind/connectionClosed``): a socket
    /// error, libnghttp2 rejecting the server's bytes, the caller closing it, or the server
    /// closing it. For reading, not matching: two errors of the same kind are equal whatever
    /// their details.
    public var detail: String?
    /// For ``Kind/streamReset``: libnghttp2 reset the stream itself (the server's response
    /// broke HTTP/2's rules: no `:status`, a malformed header; or the request could not be
    /// sent), not the server.
    public var resetLocally = false

    public init(_ kind: Kind, detail: String? = nil) {
        self.kind = kind
        self.detail = detail
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }

    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    public var description: String {
        let text: String
        switch kind {
        case .streamReset(let code):
            text =
                resetLocally
                ? "stream reset by this client (\(code)): the server's response broke HTTP/2's rules, or the request could not be sent"
                : "stream reset by peer (\(code))"
        case .goAway(let goAway):
            let debug = String(decoding: goAway.debugData, as: UTF8.self)
            text = "connection going away (\(goAway.errorCode), last stream \(goAway.lastStreamID)\(debug.isEmpty ? "" : ", \(debug)"))"
        case .connectionClosed: text = "connection closed before the response completed"
        case .submitFailed(let message): text = "request not sent: \(message)"
        }
        return detail.map { "\(text): \($0)" } ?? text
    }
}

/// The client side of an HTTP/2 connection over libnghttp2: the sender's transport and the
/// test suite's own HTTP/2 client.
///
/// Many requests are multiplexed on one connection; libnghttp2 holds back new streams while
/// the server's MAX_CONCURRENT_STREAMS is reached. Use it only on its channel's event loop
/// (``HTTP2ClientConnection`` does the hopping).
public final class HTTP2ClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private let authority: String
    private let scheme: String
    private var session: NGHTTP2Session?
    private var context: ChannelHandlerContext?
    /// Who waits for a stream's response: a promise, or a tag reported through
    /// ``onTaggedResponse``.
    private enum Waiter {
        case promise(EventLoopPromise<HTTPResponseMessage>)
        case tag(UInt64)
    }

    /// Unchecked at run time, as the session's stream tables are (see `InboundStream`):
    /// looked up once per response, only through table operations.
    @exclusivity(unchecked) private var pending = StreamTable<Waiter>()
    /// Stream of each pending request, by its future (for cancellation).
    @exclusivity(unchecked) private var streamByFuture: [ObjectIdentifier: Int32] = [:]
    private var started = false
    private var isClosed = false
    /// The first reason this side saw for the connection to end (see ``HTTP2ClientError/detail``).
    private var closeCause: String?
    private var settingsWaiters: [EventLoopPromise<Void>] = []
    private var receivedSettings = false

    /// The last GOAWAY the server sent, if any.
    public private(set) var receivedGoAway: ReceivedGoAway?

    /// Called on the event loop when a GOAWAY arrives.
    public var onGoAway: ((ReceivedGoAway) -> Void)?

    /// Receives the outcome of every request sent with ``send(_:tag:flush:)`` — the response,
    /// or the reason there is none — on the event loop. A callback instead of a promise per
    /// request: the sender's hot path.
    public var onTaggedResponse: ((UInt64, Result<HTTPResponseMessage, HTTP2ClientError>) -> Void)?

    /// Called on the event loop when the server acknowledged a PING (see ``ping()``).
    public var onPingAcknowledged: (() -> Void)?

    /// Called on the event loop at the end of every read cycle, after the responses that
    /// completed in it have been delivered and before the output is flushed: requests sent from
    /// here with `flush: false` leave in the same write as the cycle's WINDOW_UPDATEs and ACKs.
    public var onReadCycleProcessed: (() -> Void)?

    /// Within a long read cycle, also calls ``onReadCycleProcessed`` and flushes after every
    /// this many delivered responses (0: only at the end of the cycle). A busy client reads a
    /// whole window of responses at once; answering all of them before sending anything left
    /// the server idle meanwhile (client and server took turns). Refilling a quarter of the
    /// window at a time lets them overlap: 1 × 100 streams against nghttpd went from ≈ 0.75×
    /// to ≈ 1× h2load's rate, for a few more writes.
    public var refillInterval = 0

    /// Request header fields whose values are new in every request: after the first of each
    /// name on a connection they are sent as never-indexed HPACK literals, so they do not push
    /// an entry per request into both sides' dynamic tables (see the server's
    /// ``HTTP2ServerConfiguration/perMessageValueHeaders``). Default: `apns-id`, which a
    /// sender sets per notification when the caller gives one. Set before the channel is active.
    public var perMessageValueHeaders: [HTTPFieldName] = [.apnsID]

    /// - Parameters:
    ///   - authority: the `:authority` to send (host[:port]).
    ///   - scheme: `https` or `http`.
    public init(authority: String, scheme: String) {
        self.authority = authority
        self.scheme = scheme
    }

    /// What a response may bring: far more than any push service sends, bounded all the same.
    static let responseLimits = InboundLimits(
        maximumStoredBodyBytes: 16 << 20,
        maximumHeaderListBytes: 1 << 20,
        maximumBufferedBodyBytesPerConnection: 1 << 30
    )

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        do {
            // Until the server's SETTINGS arrive assume 100 streams (RFC 9113 recommends a
            // minimum of 100), so a burst before the first SETTINGS cannot overrun a server.
            session = try NGHTTP2Session(
                role: .client, limits: Self.responseLimits, peerMaxConcurrentStreams: 100,
                perMessageValueNames: perMessageValueHeaders)
        } catch {
            noteCloseCause("no libnghttp2 session: \(error)")
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if context.channel.isActive {
            start(context: context)
        }
    }

    /// Keeps the first reason for the connection to end.
    private func noteCloseCause(_ cause: String) {
        if closeCause == nil { closeCause = cause }
    }

    /// The caller is about to close the connection (``HTTP2ClientConnection/close()``).
    func noteClosedByCaller() {
        noteCloseCause("closed by the client")
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // NIO reports socket errors (a reset, a failed write) here before it closes; said in
        // words (`connection reset by peer`), as a failed connect is.
        noteCloseCause(ConnectFailureText.describe(error))
        context.fireErrorCaught(error)
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        failAll(HTTP2ClientError(.connectionClosed, detail: closeCause ?? "the client's HTTP/2 handler was removed"))
        session?.close()
        session = nil
        self.context = nil
    }

    public func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        isClosed = true
        // Nothing on this side ended it: the server closed the connection.
        noteCloseCause("the server closed the connection")
        if let receivedGoAway {
            failAll(HTTP2ClientError(.goAway(receivedGoAway)))
        } else {
            failAll(HTTP2ClientError(.connectionClosed, detail: closeCause))
        }
        for waiter in settingsWaiters {
            waiter.fail(HTTP2ClientError(.connectionClosed, detail: closeCause))
        }
        settingsWaiters.removeAll()
        context.fireChannelInactive()
    }

    private func start(context: ChannelHandlerContext) {
        guard !started, let session else { return }
        started = true
        do {
            try session.submitSettings([.enablePush(0), .maxConcurrentStreams(1000), .initialWindowSize(1 << 20)])
        } catch {
            noteCloseCause("the client's SETTINGS could not be queued: \(error)")
            context.close(promise: nil)
            return
        }
        flush(context: context)
    }

    /// The server's MAX_CONCURRENT_STREAMS (0 before its SETTINGS arrived means "not yet known").
    public var remoteMaxConcurrentStreams: UInt32 {
        session?.remoteSetting(0x3) ?? 0
    }

    /// Completes once the server's first SETTINGS frame has arrived.
    public func waitForRemoteSettings(promise: EventLoopPromise<Void>) {
        if receivedSettings {
            promise.succeed()
        } else if isClosed {
            promise.fail(HTTP2ClientError(.connectionClosed, detail: closeCause))
        } else {
            settingsWaiters.append(promise)
        }
    }

    /// Number of requests waiting for a response.
    public var inFlightCount: Int { pending.count }

    /// Sends a request; `promise` completes with the response or an ``HTTP2ClientError``.
    /// `request.authority`/`scheme` override the connection's defaults when set.
    public func send(_ request: HTTPRequestMessage, promise: EventLoopPromise<HTTPResponseMessage>) {
        send(request, promise: promise, flush: true)
    }

    /// Sends a request like ``send(_:promise:)``; with `flush: false` the frames stay queued in
    /// the session until the next flush (``flushPending()``, the end of a read cycle, or another
    /// flushing send), so that a batch of requests goes out in one write.
    public func send(_ request: HTTPRequestMessage, promise: EventLoopPromise<HTTPResponseMessage>, flush: Bool) {
        guard let session, let context, !isClosed else {
            promise.fail(receivedGoAway.map { HTTP2ClientError(.goAway($0)) } ?? HTTP2ClientError(.connectionClosed, detail: closeCause))
            return
        }
        if let receivedGoAway {
            promise.fail(HTTP2ClientError(.goAway(receivedGoAway)))
            return
        }
        do {
            let streamID = try session.submitRequest(
                method: request.method,
                path: request.path,
                scheme: request.scheme ?? scheme,
                authority: request.authority ?? authority,
                headers: request.headers,
                body: request.body
            )
            pending[streamID] = .promise(promise)
            streamByFuture[ObjectIdentifier(promise.futureResult)] = streamID
        } catch {
            promise.fail(HTTP2ClientError(.submitFailed(error.description)))
            return
        }
        if flush {
            self.flush(context: context)
        }
    }

    /// Sends a request whose outcome goes to ``onTaggedResponse`` with `tag`. Returns the
    /// stream ID, or the reason the request could not be sent (then no callback follows).
    ///
    /// `:path` is `request.path` followed by `pathSuffix`: a bulk sender whose paths differ only
    /// at the end (APNs's `/3/device/<token>`) passes the shared start and the token, and no
    /// string is built per request.
    public func send(
        _ request: HTTPRequestMessage, pathSuffix: String = "", tag: UInt64, flush: Bool
    ) -> Result<Int32, HTTP2ClientError> {
        guard let session, let context, !isClosed else {
            return .failure(receivedGoAway.map { HTTP2ClientError(.goAway($0)) } ?? HTTP2ClientError(.connectionClosed, detail: closeCause))
        }
        if let receivedGoAway {
            return .failure(HTTP2ClientError(.goAway(receivedGoAway)))
        }
        let streamID: Int32
        do {
            streamID = try session.submitRequest(
                method: request.method,
                path: request.path,
                pathSuffix: pathSuffix,
                scheme: request.scheme ?? scheme,
                authority: request.authority ?? authority,
                headers: request.headers,
                body: request.body
            )
        } catch {
            return .failure(HTTP2ClientError(.submitFailed(error.description)))
        }
        pending[streamID] = .tag(tag)
        if flush {
            self.flush(context: context)
        }
        return .success(streamID)
    }

    /// Abandons a tagged request: resets its stream with CANCEL. Returns whether it was still
    /// waiting (then no callback follows for it).
    @discardableResult
    public func cancel(streamID: Int32) -> Bool {
        guard case .tag = pending[streamID] else { return false }
        pending.removeValue(forKey: streamID)
        if let session, let context {
            try? session.submitReset(streamID: streamID, errorCode: .cancel)
            flush(context: context)
        }
        return true
    }

    /// Set while a pass over streams libnghttp2 closed during a flush is scheduled.
    private var closedStreamsScheduled = false

    /// Writes whatever the session has queued (requests sent with `flush: false`).
    public func flushPending() {
        guard let context else { return }
        flush(context: context)
    }

    /// Whether the connection can take new requests: open, and no GOAWAY received.
    public var isAcceptingRequests: Bool {
        session != nil && context != nil && !isClosed && receivedGoAway == nil
    }

    /// Abandons the request whose promise is `promise`: the stream is reset with CANCEL and the
    /// promise fails with `CancellationError`. Does nothing if it already completed.
    public func cancel(_ promise: EventLoopPromise<HTTPResponseMessage>) {
        guard let streamID = streamByFuture.removeValue(forKey: ObjectIdentifier(promise.futureResult)),
            case .promise(let pending) = pending.removeValue(forKey: streamID)
        else { return }
        if let session, let context {
            try? session.submitReset(streamID: streamID, errorCode: .cancel)
            flush(context: context)
        }
        pending.fail(CancellationError())
    }

    /// Sends a PING (keeps an idle connection alive, as Apple suggests after an hour).
    public func ping() {
        guard let session, let context else { return }
        try? session.submitPing()
        flush(context: context)
    }

    /// Sends GOAWAY(NO_ERROR) and closes once in-flight requests are answered.
    public func shutdownGracefully() {
        guard let session, let context else { return }
        noteCloseCause("shut down by the client (GOAWAY)")
        try? session.submitGoAway(lastStreamID: 0, errorCode: .noError, debugData: [])
        flush(context: context)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session else { return }
        let buffer = unwrapInboundIn(data)
        do {
            try buffer.withUnsafeReadableBytes { bytes in
                try session.receive(bytes)
            }
        } catch {
            noteCloseCause("libnghttp2 rejected the server's bytes: \(error)")
            flush(context: context)
            context.close(promise: nil)
            return
        }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        processEvents(context: context)
        flush(context: context)
        context.fireChannelReadComplete()
    }

    private func processEvents(context: ChannelHandlerContext) {
        guard let session else { return }
        if session.remoteSettingsChanged {
            session.remoteSettingsChanged = false
            if !receivedSettings {
                receivedSettings = true
                for waiter in settingsWaiters { waiter.succeed() }
                settingsWaiters.removeAll()
            }
        }
        if session.pingAcknowledgements > 0 {
            let count = session.pingAcknowledgements
            session.pingAcknowledgements = 0
            for _ in 0..<count { onPingAcknowledged?() }
        }
        if let goAway = session.receivedGoAway, receivedGoAway != goAway {
            receivedGoAway = goAway
            onGoAway?(goAway)
        }
        // By index, and emptied only after: a refill's flush may close streams (the callbacks
        // append to these lists), and those must be handled in this pass, not dropped.
        var sinceRefill = 0
        var index = 0
        while index < session.completed.count {
            let streamID = session.completed[index]
            index += 1
            guard let stream = session.inbound.removeValue(forKey: streamID) else { continue }
            let body = stream.body
            session.releaseBody(of: stream)
            guard let waiter = pending.removeValue(forKey: streamID) else { continue }
            complete(waiter, with: .success(HTTPResponseMessage(status: stream.status ?? 0, headers: stream.headers, body: body)))
            sinceRefill += 1
            if sinceRefill == refillInterval, let refill = onReadCycleProcessed {
                sinceRefill = 0
                refill()
                flush(context: context)
            }
        }
        session.completed.removeAll(keepingCapacity: true)
        index = 0
        while index < session.closed.count {
            let (streamID, errorCode) = session.closed[index]
            index += 1
            if let stream = session.inbound.removeValue(forKey: streamID) {
                session.releaseBody(of: stream)
            }
            let resetByPeer = session.peerResetStreams.remove(streamID) != nil
            guard let waiter = pending.removeValue(forKey: streamID) else { continue }
            if let receivedGoAway, streamID > receivedGoAway.lastStreamID {
                complete(waiter, with: .failure(HTTP2ClientError(.goAway(receivedGoAway))))
            } else {
                var error = HTTP2ClientError(.streamReset(.init(networkCode: errorCode)))
                error.resetLocally = !resetByPeer
                complete(waiter, with: .failure(error))
            }
        }
        session.closed.removeAll(keepingCapacity: true)
        onReadCycleProcessed?()
    }

    private func failAll(_ error: HTTP2ClientError) {
        let waiters = pending
        pending.removeAll()
        streamByFuture.removeAll()
        for waiter in waiters.allValues {
            complete(waiter, with: .failure(error))
        }
    }

    private func complete(_ waiter: Waiter, with result: Result<HTTPResponseMessage, HTTP2ClientError>) {
        switch waiter {
        case .promise(let promise):
            streamByFuture.removeValue(forKey: ObjectIdentifier(promise.futureResult))
            promise.completeWith(result.mapError { $0 as any Error })
        case .tag(let tag):
            onTaggedResponse?(tag, result)
        }
    }

    private func flush(context: ChannelHandlerContext) {
        guard let session else { return }
        var buffer = context.channel.allocator.buffer(capacity: 1024)
        let closedBefore = session.closed.count
        do {
            try session.drainOutput(into: &buffer)
        } catch {
            noteCloseCause("libnghttp2 could not produce output: \(error)")
            context.close(promise: nil)
            return
        }
        if buffer.readableBytes > 0 {
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        }
        if session.closed.count > closedBefore, !closedStreamsScheduled {
            // libnghttp2 closed streams while producing output (it reset one whose response was
            // malformed, or could not send a request's headers): their waiters hear it now, not
            // at the next read, which a silent server never causes (they waited the whole
            // request timeout, then were called timeouts). Not from here: this flush may run
            // inside the processing of the previous ones.
            closedStreamsScheduled = true
            context.eventLoop.assumeIsolated().execute { [self] in
                closedStreamsScheduled = false
                guard let context = self.context else { return }
                processEvents(context: context)
                flush(context: context)
            }
        }
        if started, !session.wantsIO {
            // After a GOAWAY either way with no stream left, or libnghttp2 ended the session
            // over a protocol error in what the server sent (it sent GOAWAY itself then).
            noteCloseCause(
                receivedGoAway == nil
                    ? "libnghttp2 ended the HTTP/2 session (it sent GOAWAY)" : "the server's GOAWAY, no stream left")
            context.close(promise: nil)
        }
    }
}
