package import NIOCore
package import PushMockCore

/// Settings of the HTTP/2 server side of a connection.
package struct HTTP2ServerConfiguration: Sendable, Hashable {
    /// SETTINGS sent when the connection opens. Defaults to what APNs was observed sending:
    /// HEADER_TABLE_SIZE 4096, MAX_CONCURRENT_STREAMS 1000, INITIAL_WINDOW_SIZE 65535,
    /// MAX_FRAME_SIZE 16384, MAX_HEADER_LIST_SIZE 8000.
    package var initialSettings: [HTTP2Setting]
    /// Body bytes stored per request; more are counted but dropped (the gateway answers 413).
    package var maximumStoredBodyBytes: Int
    /// Debug data of the GOAWAY sent when the server shuts down gracefully (APNs sends
    /// `{"reason":"Shutdown"}`). Default: none.
    package var shutdownDebugData: [UInt8]
    /// Body bytes all streams of one connection may hold together (default 16 MiB).
    package var maximumBufferedBodyBytesPerConnection: Int
    /// Body bytes all connections may hold together, shared by every connection given the
    /// same budget; `nil`: no server-wide cap.
    package var bodyBudget: BodyBudget?
    /// Debug data of the GOAWAY sent before an idle connection is closed (APNs lists the
    /// reason `IdleTimeout`). Default: none.
    package var idleTimeoutDebugData: [UInt8] = []
    /// Response header fields whose values are new in every response. They are sent as
    /// never-indexed HPACK literals (the name indexed once per connection), so they do not
    /// churn either side's dynamic table. Default: APNs' `apns-id` and `apns-unique-id`.
    /// At most 64 names count.
    package var perMessageValueHeaders: [HTTPFieldName] = [.apnsID, .apnsUniqueID]
    /// When the connection is the only HTTP/2 connection on its event loop, the requests of a
    /// read batch are answered in runs of at most this many, each run flushed before the next
    /// is worked on, so the client gets its first answers (and can reuse those streams) while
    /// the rest are processed. Otherwise, or with `nil`, a batch is answered as one run.
    ///
    /// Default 64, measured with h2load (TLS, 1 connection × 100 streams, server on one CPU):
    /// 93.8k → 108.1k req/s. Applied to 4 connections on one loop, runs of 64 cost 7 % of
    /// the rate (119.4k → 111.4k: more flushes, journal writes and smaller reads), hence the
    /// condition. Runs of 32 and 16 were slower than 64 for one connection too.
    package var earlyReplyBatchLimit: Int? = 64

    package init(
        initialSettings: [HTTP2Setting] = HTTP2ServerConfiguration.apnsSettings(maxConcurrentStreams: 1000),
        maximumStoredBodyBytes: Int = 1 << 20,
        shutdownDebugData: [UInt8] = [],
        maximumBufferedBodyBytesPerConnection: Int = 16 << 20,
        bodyBudget: BodyBudget? = nil,
        idleTimeoutDebugData: [UInt8] = []
    ) {
        self.idleTimeoutDebugData = idleTimeoutDebugData
        self.initialSettings = initialSettings
        self.maximumStoredBodyBytes = maximumStoredBodyBytes
        self.shutdownDebugData = shutdownDebugData
        self.maximumBufferedBodyBytesPerConnection = maximumBufferedBodyBytesPerConnection
        self.bodyBudget = bodyBudget
    }

    /// The header list size the server enforces: the MAX_HEADER_LIST_SIZE it advertises
    /// (8000, as APNs), or 64 KiB when it advertises none.
    package var maximumHeaderListBytes: Int {
        for setting in initialSettings where setting.identifier == HTTP2Setting.maxHeaderListSize(0).identifier {
            return Int(setting.value)
        }
        return 64 << 10
    }

    /// What one connection may hold of its requests.
    package var inboundLimits: InboundLimits {
        InboundLimits(
            maximumStoredBodyBytes: maximumStoredBodyBytes,
            maximumHeaderListBytes: maximumHeaderListBytes,
            maximumBufferedBodyBytesPerConnection: maximumBufferedBodyBytesPerConnection,
            serverBudget: bodyBudget
        )
    }

    /// The SETTINGS frame APNs sends, with a chosen MAX_CONCURRENT_STREAMS.
    package static func apnsSettings(maxConcurrentStreams: UInt32) -> [HTTP2Setting] {
        [
            .headerTableSize(4096),
            .maxConcurrentStreams(maxConcurrentStreams),
            .initialWindowSize(65535),
            .maxFrameSize(16384),
            .maxHeaderListSize(8000),
        ]
    }
}

/// Sent down a connection's pipeline just before it is closed for idleness; the HTTP/2 handler
/// answers it with GOAWAY.
package struct ConnectionIdleEvent: Sendable {
    package init() {}
}

/// Serves HTTP/2 on one connection with libnghttp2 doing framing and HPACK.
///
/// Reads are fed to the session as they arrive; requests completed during a read cycle are
/// handed to the responder together at `channelReadComplete` (in runs of
/// ``HTTP2ServerConfiguration/earlyReplyBatchLimit`` when the connection is alone on its event
/// loop), and everything libnghttp2 wants to send is written with one flush per run. There is
/// no child channel or task per stream.
package final class HTTP2ServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private let configuration: HTTP2ServerConfiguration
    private let responder: any HTTPConnectionResponder
    private var session: NGHTTP2Session?
    private var context: ChannelHandlerContext?
    private var started = false
    private var closeAfterFlush = false
    private var closing = false
    /// Whether this connection is counted in ``EventLoopConnectionCount`` (from `handlerAdded`
    /// until it goes inactive or is removed).
    private var isCounted = false
    /// Replies waiting for their delay, by stream: cancelled when the stream or the connection
    /// closes first, so a reset stream holds nothing for the rest of the delay.
    private var delayedReplies: [Int32: Scheduled<Void>] = [:]
    /// The consumers of streamed bodies, by stream: cancelled (which ends their producers) when
    /// the stream or the connection closes.
    private var streamProducers: [Int32: Task<Void, Never>] = [:]
    /// A streamed body whose client lets more than this many bytes pile up (it stopped reading)
    /// is reset rather than buffered without bound.
    static let maximumBufferedStreamBytes = 1 << 20

    package init(configuration: HTTP2ServerConfiguration, responder: any HTTPConnectionResponder) {
        self.configuration = configuration
        self.responder = responder
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        do {
            session = try NGHTTP2Session(
                role: .server, limits: configuration.inboundLimits,
                perMessageValueNames: configuration.perMessageValueHeaders)
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        EventLoopConnectionCount.opened(on: context.eventLoop)
        isCounted = true
        if context.channel.isActive {
            start(context: context)
        }
    }

    private func stopCounting(on loop: any EventLoop) {
        guard isCounted else { return }
        isCounted = false
        EventLoopConnectionCount.closed(on: loop)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        stopCounting(on: context.eventLoop)
        cancelDelayedReplies()
        cancelStreamProducers()
        session?.close()
        session = nil
        self.context = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        stopCounting(on: context.eventLoop)
        closing = true
        responder.connectionClosed()
        cancelDelayedReplies()
        cancelStreamProducers()
        session?.close()
        context.fireChannelInactive()
    }

    /// What the connection holds per stream right now (all zeros when no stream is open).
    package var streamBookkeeping: HTTP2StreamBookkeeping {
        var bookkeeping = session?.bookkeeping ?? .empty
        bookkeeping.delayedReplies = delayedReplies.count
        bookkeeping.streamProducers = streamProducers.count
        return bookkeeping
    }

    private func cancelStreamProducers() {
        for producer in streamProducers.values {
            producer.cancel()
        }
        streamProducers.removeAll()
    }

    private func cancelDelayedReplies() {
        for scheduled in delayedReplies.values {
            scheduled.cancel()
        }
        delayedReplies.removeAll()
    }

    /// Releases what the handler keeps for streams libnghttp2 has closed since the last look
    /// (closures are noted inside `mem_recv` and `mem_send`, so this runs after both).
    private func releaseClosedStreams() {
        guard let session, !session.closed.isEmpty else { return }
        if !delayedReplies.isEmpty || !streamProducers.isEmpty {
            for closed in session.closed {
                delayedReplies.removeValue(forKey: closed.streamID)?.cancel()
                streamProducers.removeValue(forKey: closed.streamID)?.cancel()
            }
        }
        session.closed.removeAll(keepingCapacity: true)
    }

    private func start(context: ChannelHandlerContext) {
        guard !started, let session else { return }
        started = true
        do {
            try session.submitSettings(configuration.initialSettings)
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        flush(context: context)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session, !closing else { return }
        let buffer = unwrapInboundIn(data)
        do {
            try buffer.withUnsafeReadableBytes { bytes in
                try session.receive(bytes)
            }
        } catch {
            // A fatal error (e.g. not an HTTP/2 preface): send what libnghttp2 queued, then close.
            closeAfterFlush = true
            releaseClosedStreams()
            flush(context: context)
            return
        }
        releaseClosedStreams()
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        refuseOversizedHeaderLists()
        var runLength = Int.max
        if let limit = configuration.earlyReplyBatchLimit, (session?.completed.count ?? 0) > limit,
            EventLoopConnectionCount.count(on: context.eventLoop) == 1
        {
            runLength = max(1, limit)
        }
        // Runs while more than a run is left; the rest is the last run. Once the connection is
        // to close (a reply asked for it), what is left is answered as one run before the close,
        // as a batch always was.
        while let session, session.completed.count > runLength, !closing, !closeAfterFlush {
            processCompletedRequests(context: context, upTo: runLength)
            flush(context: context)
        }
        processCompletedRequests(context: context, upTo: .max)
        flush(context: context)
        context.fireChannelReadComplete()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            beginGracefulShutdown(context: context)
            // Streamed bodies never end on their own: end them (their tasks then send
            // END_STREAM), so the connection can close once the other streams are answered.
            for producer in streamProducers.values {
                producer.cancel()
            }
            return
        }
        if event is ConnectionIdleEvent, let session {
            // The connection is about to be closed for idleness: say so first.
            try? session.submitGoAway(
                lastStreamID: session.lastProcessedStreamID,
                errorCode: .noError,
                debugData: configuration.idleTimeoutDebugData
            )
            flush(context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Sends GOAWAY(NO_ERROR) with the last processed stream and the configured debug data; the
    /// connection closes once the streams in flight are answered.
    private func beginGracefulShutdown(context: ChannelHandlerContext) {
        guard let session else { return }
        do {
            try session.submitGoAway(
                lastStreamID: session.lastProcessedStreamID,
                errorCode: .noError,
                debugData: configuration.shutdownDebugData
            )
        } catch {
            context.close(promise: nil)
            return
        }
        flush(context: context)
    }

    // MARK: Requests and replies

    /// Requests whose header list exceeded the advertised MAX_HEADER_LIST_SIZE get 431 (RFC
    /// 9113 §10.5.1; nghttpx answers the same) from the transport: they reach neither the
    /// gateway nor the recordings, and nothing of their headers was kept.
    private func refuseOversizedHeaderLists() {
        guard let session, !session.oversizedHeaderStreams.isEmpty else { return }
        for streamID in session.oversizedHeaderStreams {
            do {
                try session.submitResponse(streamID: streamID, status: 431, headers: HTTPHeaderList(), body: [])
            } catch {
                closeAfterFlush = true
            }
        }
        session.oversizedHeaderStreams.removeAll(keepingCapacity: true)
    }

    /// Hands the first `limit` completed requests (in the order they completed) to the
    /// responder and applies its replies.
    private func processCompletedRequests(context: ChannelHandlerContext, upTo limit: Int) {
        guard let session, !session.completed.isEmpty else { return }
        let taken = min(session.completed.count, limit)
        var requests: [HTTPRequestMessage] = []
        requests.reserveCapacity(taken)
        for streamID in session.completed[..<taken] {
            if let request = session.takeRequest(streamID: streamID) {
                requests.append(request)
            }
        }
        if taken == session.completed.count {
            session.completed.removeAll(keepingCapacity: true)
        } else {
            session.completed.removeFirst(taken)
        }
        guard !requests.isEmpty else { return }
        let streamIDs = requests.map { $0.streamID ?? 0 }

        deliver(responder.respond(to: consume requests), to: streamIDs, context: context)
    }

    private func deliver(_ batch: HTTPReplyBatch, to streamIDs: [Int32], context: ChannelHandlerContext) {
        switch batch {
        case .immediate(let replies):
            apply(replies, to: streamIDs, context: context)
        case .deferred(let future):
            future.assumeIsolated().whenComplete { [self] result in
                guard let context = self.context, self.session != nil else { return }
                switch result {
                case .success(let replies):
                    self.apply(replies, to: streamIDs, context: context)
                case .failure:
                    // The responder maps its own failures to replies; a failed future here
                    // means it could not, so refuse the streams rather than leave them hanging.
                    let refused = streamIDs.map { _ in HTTPReply(.resetStream(.internalError)) }
                    self.apply(refused, to: streamIDs, context: context)
                }
                self.flush(context: context)
            }
        case .withLateReplies(let batch, let late):
            // The placeholders at the late indices are skipped; each late stream is answered
            // on its own, so a long poll never holds up the streams that arrived beside it.
            var onTime = streamIDs
            for entry in late where onTime.indices.contains(entry.index) {
                onTime[entry.index] = 0
            }
            deliver(batch, to: onTime, context: context)
            for entry in late where streamIDs.indices.contains(entry.index) {
                let streamID = streamIDs[entry.index]
                entry.reply.assumeIsolated().whenComplete { [self] result in
                    guard let context = self.context, self.session != nil else { return }
                    let reply: HTTPReply
                    switch result {
                    case .success(let answer): reply = answer
                    case .failure: reply = HTTPReply(.resetStream(.internalError))
                    }
                    self.apply([reply], to: [streamID], context: context)
                    self.flush(context: context)
                }
            }
        }
    }

    private func apply(_ replies: [HTTPReply], to streamIDs: [Int32], context: ChannelHandlerContext) {
        // By index: iterating `zip(replies, streamIDs)` copied every reply out of the array,
        // through its multi-payload enum's value witnesses; `replies[index]` is read in place.
        for index in 0..<min(replies.count, streamIDs.count) {
            let streamID = streamIDs[index]
            // 0: a late reply's placeholder (`HTTPReplyBatch.withLateReplies`); no client stream has id 0.
            guard streamID != 0 else { continue }
            if let delay = replies[index].delay, delay > .zero {
                let reply = replies[index]
                if reply.action.answersOnlyItsStream, reply.settings.isEmpty, session?.inbound[streamID] == nil {
                    // The client reset the stream already: nothing to wait for.
                    continue
                }
                let scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
                    self.delayedReplies.removeValue(forKey: streamID)
                    guard let context = self.context else { return }
                    self.perform(reply, streamID: streamID, context: context)
                    self.flush(context: context)
                }
                delayedReplies[streamID] = scheduled
            } else {
                perform(replies[index], streamID: streamID, context: context)
            }
        }
    }

    private func perform(_ reply: HTTPReply, streamID: Int32, context: ChannelHandlerContext) {
        guard let session else { return }
        do {
            if !reply.settings.isEmpty {
                try session.submitSettings(reply.settings)
            }
            switch reply.action {
            case .respond(let response):
                try session.submitResponse(
                    streamID: streamID,
                    status: response.status,
                    headers: response.headers,
                    body: response.body
                )
            case .resetStream(let code):
                try session.submitReset(streamID: streamID, errorCode: code)
            case .goAway(let code, let debugData, let lastStreamID, let closeConnection):
                try session.submitGoAway(
                    lastStreamID: lastStreamID ?? session.lastProcessedStreamID,
                    errorCode: code,
                    debugData: debugData
                )
                if closeConnection {
                    closeAfterFlush = true
                }
            case .closeConnection:
                flush(context: context)
                closing = true
                context.close(promise: nil)
            case .noResponse:
                break
            case .stream(let streaming):
                if try session.submitStreamingResponse(streamID: streamID, status: streaming.status, headers: streaming.headers) {
                    startStreaming(streaming.body, streamID: streamID, context: context)
                }
            }
        } catch {
            context.fireErrorCaught(error)
            closeAfterFlush = true
        }
    }

    // MARK: Streamed bodies

    /// Consumes a streamed body in a task of its own, handing each chunk to the session on the
    /// event loop (the session is touched nowhere else). The task ends with the body, or is
    /// cancelled when the stream or the connection closes.
    private func startStreaming(_ body: AsyncStream<[UInt8]>, streamID: Int32, context: ChannelHandlerContext) {
        let eventLoop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        streamProducers[streamID] = Task {
            for await chunk in body {
                let delivered = try? await eventLoop.submit { handler.value.sendStreamedChunk(chunk, streamID: streamID) }.get()
                guard delivered == true else { return }
            }
            eventLoop.execute { handler.value.finishStreamedBody(streamID: streamID) }
        }
    }

    /// Returns `false` when the stream is gone, or was reset because its client stopped reading.
    private func sendStreamedChunk(_ chunk: [UInt8], streamID: Int32) -> Bool {
        guard let session, let context, !closing else { return false }
        do {
            guard let pending = try session.appendToStreamedBody(streamID: streamID, chunk) else { return false }
            if pending > Self.maximumBufferedStreamBytes {
                try session.submitReset(streamID: streamID, errorCode: .cancel)
                flush(context: context)
                return false
            }
        } catch {
            context.fireErrorCaught(error)
            closeAfterFlush = true
            flush(context: context)
            return false
        }
        flush(context: context)
        return true
    }

    private func finishStreamedBody(streamID: Int32) {
        streamProducers.removeValue(forKey: streamID)
        guard let session, let context, !closing else { return }
        do {
            try session.finishStreamedBody(streamID: streamID)
        } catch {
            context.fireErrorCaught(error)
            closeAfterFlush = true
        }
        flush(context: context)
    }

    /// Writes everything libnghttp2 has queued, with a single flush; closes the connection when
    /// asked to, or when libnghttp2 has nothing more to read or write (after GOAWAY).
    private func flush(context: ChannelHandlerContext) {
        guard let session, !closing else { return }
        var buffer = context.channel.allocator.buffer(capacity: 4096)
        do {
            try session.drainOutput(into: &buffer)
        } catch {
            closeAfterFlush = true
        }
        // Streams answered with END_STREAM closed while their frames were serialised.
        releaseClosedStreams()
        let shouldClose = closeAfterFlush || !session.wantsIO
        if buffer.readableBytes > 0 {
            if shouldClose {
                closing = true
                context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
                return
            }
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        } else if shouldClose {
            closing = true
            context.close(promise: nil)
        }
    }
}

extension TimeAmount {
    /// Converts a Swift `Duration` (nanosecond precision is enough for delays).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension HTTPReply.Action {
    /// Whether the action concerns only its own stream (and is moot once that stream closed),
    /// as opposed to the whole connection.
    fileprivate var answersOnlyItsStream: Bool {
        switch self {
        case .respond, .resetStream, .noResponse, .stream: true
        case .goAway, .closeConnection: false
        }
    }
}
