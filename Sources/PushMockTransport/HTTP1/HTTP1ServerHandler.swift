package import NIOCore
package import NIOHTTP1
import PushMockCore

/// Serves HTTP/1.1 (FCM, OAuth2 and IID clients often use it; the control API too) through
/// NIOHTTP1, handing each complete request to the same responder the HTTP/2 handler uses.
///
/// Requests are answered one at a time, in order; pipelined requests wait in a short queue.
/// The handler keeps reading meanwhile (NIOHTTP1's pipelining assistance would stop reading
/// until the answer is written), so a client that hangs up during a long poll is noticed and
/// the poll is cancelled.
package final class HTTP1ServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundOut = HTTPServerResponsePart

    private let responder: any HTTPConnectionResponder
    private let scheme: String
    private let maximumStoredBodyBytes: Int
    private var current: HTTPRequestMessage?
    private var currentKeepAlive = true
    /// Requests that arrived while another was being answered, with their keep-alive wish.
    private var queued: [(request: HTTPRequestMessage, keepAlive: Bool)] = []
    /// Whether a request is being answered (its response not yet written).
    private var answering = false
    /// Pipelined requests beyond this many close the connection (no client needs more).
    static let maximumQueuedRequests = 64
    /// Body bytes pipelined requests may hold while they wait (as an HTTP/2 connection's cap).
    static let maximumQueuedBodyBytes = 16 << 20
    private var context: ChannelHandlerContext?
    private var closed = false
    /// The consumer of the streamed body being written, if any: cancelled (which ends its
    /// producer) when the connection closes.
    private var streamTask: Task<Void, Never>?
    /// Set when the server shuts down during a streamed body: end it and close.
    private var closeAfterStream = false

    /// The largest request head accepted (request line and header fields, counted as HTTP/2
    /// counts a header list); larger ones are answered 431 and the connection is closed.
    private let maximumHeaderListBytes: Int
    /// Set after a 431: the rest of that request is discarded.
    private var discardingRequest = false
    /// An answer that ends the connection (400 for a request that could not be framed, 431,
    /// too many pipelined requests), written once every request before it is answered: those
    /// were recorded, and a client must get their answers, not the refusal in their place.
    private var refusal: HTTPResponseMessage?
    /// Set with `refusal`: nothing read after it is a request.
    private var refusing = false
    /// Body bytes all connections of the server may hold together (shared with HTTP/2).
    private let bodyBudget: BodyBudget?
    /// What this connection took of `bodyBudget`: the bodies of the request being read and of
    /// the queued ones, given back as each is handed to the responder or the connection ends.
    private var reservedBodyBytes = 0

    package init(
        responder: any HTTPConnectionResponder,
        scheme: String,
        maximumStoredBodyBytes: Int = 1 << 20,
        maximumHeaderListBytes: Int = 8000,
        bodyBudget: BodyBudget? = nil
    ) {
        self.bodyBudget = bodyBudget
        self.responder = responder
        self.scheme = scheme
        self.maximumStoredBodyBytes = maximumStoredBodyBytes
        self.maximumHeaderListBytes = maximumHeaderListBytes
    }

    /// NIOHTTP1's error handler has answered a malformed request with 400; nothing after it
    /// can be framed, so the connection closes (the 400 is already flushed).
    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            // NIOHTTP1's decoder stopped: nothing after this can be framed. The 400 is ours to
            // write (its error handler would write it at once, in place of an answer still
            // being computed).
            refuse(with: HTTPResponseMessage(status: 400, headers: HTTPHeaderList(), body: []), context: context)
            return
        }
        context.fireErrorCaught(error)
    }

    /// Ends the connection with `response` after the answers to every request before it.
    private func refuse(with response: HTTPResponseMessage, context: ChannelHandlerContext) {
        guard !refusing else { return }
        refusing = true
        current = nil
        if answering {
            refusal = response
        } else {
            answering = true
            write(response, keepAlive: false, withoutBody: false, context: context)
        }
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        releaseBodyBytes(reservedBodyBytes)
        streamTask?.cancel()
        streamTask = nil
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if !closed {
            closed = true
            responder.connectionClosed()
        }
        streamTask?.cancel()
        streamTask = nil
        context.fireChannelInactive()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, let streamTask {
            // A streamed body never ends on its own: end it (the task then writes the last
            // chunk) and close, so shutdown does not wait for the grace period.
            closeAfterStream = true
            streamTask.cancel()
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            var size = InboundLimits.fieldSize(nameCount: 5, valueCount: head.uri.utf8.count)
            for (name, value) in head.headers {
                size += InboundLimits.fieldSize(nameCount: name.utf8.count, valueCount: value.utf8.count)
            }
            guard size <= maximumHeaderListBytes else {
                refuseOversizedHead(context: context)
                return
            }
            if let problem = Self.framingProblem(head) {
                refuse(with: problem, context: context)
                return
            }
            var headers = HTTPHeaderList()
            headers.reserveCapacity(fields: head.headers.count, bytes: 512)
            var authority: String?
            for (name, value) in head.headers {
                let lowered = name.lowercased()
                if lowered == "host", authority == nil {
                    authority = value
                }
                headers.append(name: lowered, value: value)
            }
            // After a request NIOHTTP1 takes for an upgrade (an `Upgrade` header with
            // `Connection: upgrade`, or CONNECT) its decoder reads nothing more
            // (apple/swift-nio#2570): the next request on the connection would wait forever.
            // Such a request is answered with `connection: close`, and the client opens a new
            // connection (curl --http2 and Java's HttpClient ask for h2c this way).
            currentKeepAlive = head.isKeepAlive && !Self.stopsDecoding(head)
            let expectsContinue = head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" })
            let declaredLength = head.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
            let target = Self.requestTarget(head.uri)
            current = HTTPRequestMessage(
                method: head.method.rawValue,
                path: target.path,
                authority: target.authority ?? authority,
                scheme: scheme,
                headers: headers
            )
            if expectsContinue, declaredLength > maximumStoredBodyBytes, head.version != .http1_0 {
                // RFC 9110 §10.1.1: a server may answer the final status instead of 100. The
                // request goes to the gateway as an oversized one (its 413, recorded as every
                // answer is); the client never sends the body, and the connection closes after.
                current!.bodyByteCount = declaredLength
                let request = current!
                current = nil
                discardingRequest = true
                if answering {
                    queued.append((request, false))
                } else {
                    dispatch(request, keepAlive: false, context: context)
                }
                return
            }
            // RFC 9110 §10.1.1: a client that sent `Expect: 100-continue` waits for the go-ahead
            // before its body (curl for large bodies, PHP, .NET), or gives up waiting after about
            // a second: every such request took a second longer. Not while another answer is
            // being written, which the interim response would cut into; the client then sends
            // its body once its own wait is over. HTTP/1.0 clients know no interim responses
            // (RFC 9110 §15.2).
            if !answering, queued.isEmpty, head.version != .http1_0, expectsContinue {
                let interim = HTTPResponseHead(version: .http1_1, status: .continue)
                context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
            }
        case .body(var buffer):
            guard current != nil, !discardingRequest else { return }
            current!.bodyByteCount += buffer.readableBytes
            let room = maximumStoredBodyBytes - current!.body.count
            if room > 0 {
                let taken = min(room, buffer.readableBytes)
                guard bodyBudget?.reserve(taken) ?? true else {
                    // Every connection together holds as much as the server allows: this
                    // request is not taken (HTTP/2 resets such a stream with REFUSED_STREAM).
                    refuse(with: Self.plainText(503, "Too many request bodies in flight; retry", retryAfter: 1), context: context)
                    return
                }
                reservedBodyBytes += taken
                if let bytes = buffer.readBytes(length: taken) {
                    current!.body.append(contentsOf: bytes)
                }
            }
        case .end:
            guard !discardingRequest, let request = current else { return }
            current = nil
            guard !answering else {
                let queuedBodyBytes = queued.reduce(request.body.count) { $0 + $1.request.body.count }
                guard queued.count < Self.maximumQueuedRequests, queuedBodyBytes <= Self.maximumQueuedBodyBytes else {
                    // This request is not taken (nor recorded); the ones before it are answered.
                    refuse(with: Self.plainText(503, "Too many pipelined requests"), context: context)
                    return
                }
                queued.append((request, currentKeepAlive))
                return
            }
            dispatch(request, keepAlive: currentKeepAlive, context: context)
        }
    }

    /// 431 with `connection: close` (after the answers before it), as nghttpx answers an
    /// HTTP/1.1 request whose header fields exceed its buffer.
    private func refuseOversizedHead(context: ChannelHandlerContext) {
        discardingRequest = true
        current = nil
        // The answers in flight and queued go first; nothing after this request is read.
        refuse(with: Self.plainText(431, "Request Header Fields Too Large"), context: context)
    }

    private func dispatch(_ request: HTTPRequestMessage, keepAlive: Bool, context: ChannelHandlerContext) {
        answering = true
        // Handed over: the responder holds the body now, as on HTTP/2.
        releaseBodyBytes(request.body.count)
        // RFC 9110 §9.3.2: the answer to HEAD has the headers a GET would get and no content.
        let withoutBody = request.method == "HEAD"
        switch responder.respond(to: [request]) {
        case .immediate(let replies):
            schedule(replies.first, keepAlive: keepAlive, withoutBody: withoutBody, context: context)
        case let batch:
            // One request at a time: a late reply is simply this request's answer.
            batch.allReplies(on: context.eventLoop).assumeIsolated().whenComplete { [self] result in
                guard let context = self.context else { return }
                switch result {
                case .success(let replies):
                    self.schedule(replies.first, keepAlive: keepAlive, withoutBody: withoutBody, context: context)
                case .failure:
                    self.perform(HTTPReply(.closeConnection), keepAlive: keepAlive, withoutBody: withoutBody, context: context)
                }
            }
        }
    }

    /// The current answer is written: the next queued request, if any, is answered.
    private func answered(context: ChannelHandlerContext) {
        answering = false
        guard !closed else { return }
        if queued.isEmpty, let refusal {
            self.refusal = nil
            answering = true
            write(refusal, keepAlive: false, withoutBody: false, context: context)
            return
        }
        guard !queued.isEmpty else { return }
        let next = queued.removeFirst()
        dispatch(next.request, keepAlive: next.keepAlive, context: context)
    }

    private func schedule(_ reply: HTTPReply?, keepAlive: Bool, withoutBody: Bool, context: ChannelHandlerContext) {
        guard let reply else { return }
        if let delay = reply.delay, delay > .zero {
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
                guard let context = self.context else { return }
                self.perform(reply, keepAlive: keepAlive, withoutBody: withoutBody, context: context)
            }
        } else {
            perform(reply, keepAlive: keepAlive, withoutBody: withoutBody, context: context)
        }
    }

    private func perform(_ reply: HTTPReply, keepAlive: Bool, withoutBody: Bool, context: ChannelHandlerContext) {
        switch reply.action {
        case .respond(let response):
            write(response, keepAlive: keepAlive, withoutBody: withoutBody, context: context)
        case .resetStream, .goAway, .closeConnection:
            // HTTP/1.1 has no streams or GOAWAY: the nearest behaviour is a dropped connection.
            context.close(promise: nil)
        case .noResponse:
            break
        case .stream(let streaming):
            stream(streaming, keepAlive: keepAlive, withoutBody: withoutBody, context: context)
        }
    }

    /// Writes the head with chunked framing, then each chunk of the body as the producer hands
    /// it over, waiting for each write (so a slow reader slows the producer, not memory).
    private func stream(_ response: HTTPStreamingResponse, keepAlive: Bool, withoutBody: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        for index in 0..<response.headers.count {
            headers.add(name: response.headers.name(at: index), value: response.headers.value(at: index))
        }
        headers.remove(name: "content-length")
        if !withoutBody {
            headers.replaceOrAdd(name: "transfer-encoding", value: "chunked")
        }
        if !keepAlive {
            headers.replaceOrAdd(name: "connection", value: "close")
        }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        guard !withoutBody else {
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            finishStream(keepAlive: keepAlive)
            return
        }
        context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
        let eventLoop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        let body = response.body
        streamTask = Task {
            for await chunk in body {
                do {
                    try await eventLoop.flatSubmit { handler.value.writeStreamedChunk(chunk, on: eventLoop) }.get()
                } catch {
                    return
                }
            }
            eventLoop.execute { handler.value.finishStream(keepAlive: keepAlive) }
        }
    }

    private func writeStreamedChunk(_ chunk: [UInt8], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        guard let context, !closed else {
            return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        var buffer = context.channel.allocator.buffer(capacity: chunk.count)
        buffer.writeBytes(chunk)
        return context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))))
    }

    private func finishStream(keepAlive: Bool) {
        streamTask = nil
        guard let context, !closed else { return }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { [self] _ in
            if keepAlive {
                self.answered(context: context)
            } else {
                context.close(promise: nil)
            }
        }
    }

    /// Writes `response`; with `withoutBody` (a HEAD request) the framing still announces the
    /// body's length, as a GET would, but no byte of it is sent.
    private func write(_ response: HTTPResponseMessage, keepAlive: Bool, withoutBody: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(response.headers.count + 2)
        for index in 0..<response.headers.count {
            headers.add(name: response.headers.name(at: index), value: response.headers.value(at: index))
        }
        headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
        if !keepAlive {
            headers.replaceOrAdd(name: "connection", value: "close")
        }
        let head = HTTPResponseHead(
            version: .http1_1,
            status: HTTPResponseStatus(statusCode: response.status),
            headers: headers
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !response.body.isEmpty, !withoutBody {
            var buffer = context.channel.allocator.buffer(capacity: response.body.count)
            buffer.writeBytes(response.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { [self] _ in
            if keepAlive, !self.closeAfterStream {
                self.answered(context: context)
            } else {
                context.close(promise: nil)
            }
        }
    }

    /// Whether NIOHTTP1's decoder stops after this request (it takes it for a protocol
    /// upgrade: llhttp's rule).
    static func stopsDecoding(_ head: HTTPRequestHead) -> Bool {
        if head.method == .CONNECT { return true }
        guard head.headers.contains(name: "upgrade") else { return false }
        return head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// RFC 9112 §3.2.2: a server must accept the absolute form (`POST http://host/path`, what
    /// clients send through an HTTP proxy setting); its authority replaces `Host`.
    static func requestTarget(_ uri: String) -> (path: String, authority: String?) {
        // The origin form (`/3/device/…`), nearly every request: no copy.
        if uri.utf8.first == UInt8(ascii: "/") { return (uri, nil) }
        let lowered = uri.prefix(8).lowercased()
        let schemeLength: Int
        if lowered.hasPrefix("http://") {
            schemeLength = 7
        } else if lowered.hasPrefix("https://") {
            schemeLength = 8
        } else {
            return (uri, nil)
        }
        let rest = uri.dropFirst(schemeLength)
        let pathStart = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = String(rest[..<pathStart])
        var path = String(rest[pathStart...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        return (path, authority.isEmpty ? nil : authority)
    }

    private func releaseBodyBytes(_ count: Int) {
        let released = min(count, reservedBodyBytes)
        guard released > 0 else { return }
        reservedBodyBytes -= released
        bodyBudget?.release(released)
    }

    /// What RFC 9112 has a server refuse before reading a request: a transfer coding other
    /// than chunked (§6.1: 501; NIOHTTP1 frames only chunked, so `gzip, chunked` was read as
    /// if the body were plain), and an HTTP/1.1 request without exactly one `Host` (§3.2: 400).
    static func framingProblem(_ head: HTTPRequestHead) -> HTTPResponseMessage? {
        let codings = head.headers[canonicalForm: "transfer-encoding"].map { $0.lowercased() }
        if let unknown = codings.first(where: { $0 != "chunked" }) {
            return plainText(501, "Transfer-Encoding \(unknown) is not supported")
        }
        if head.version != .http1_0, head.headers[canonicalForm: "host"].count != 1 {
            return plainText(400, "An HTTP/1.1 request needs exactly one Host header")
        }
        return nil
    }

    /// The transport's own answers: a line of text.
    static func plainText(_ status: Int, _ text: String, retryAfter seconds: Int? = nil) -> HTTPResponseMessage {
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "text/plain")
        if let seconds {
            headers.append(name: "retry-after", value: String(seconds))
        }
        return HTTPResponseMessage(status: status, headers: headers, body: Array((text + "\n").utf8))
    }
}
