import NIOCore
import PushMockCore
import PushMockTransport

/// Drives one HTTP/2 connection for the ``DeliveryEngine``: takes deliveries when it has free
/// streams, submits them, classifies the answers, times out stalled requests, pings when idle,
/// and leaves the pool on GOAWAY or close.
///
/// Confined to the connection's event loop (created there, reached through `NIOLoopBound`).
final class ConnectionDriver {
    typealias Item = Delivery

    private struct InFlight {
        var item: Item
        let started: NIODeadline
        /// Set once the transport has opened the stream.
        var streamID: Int32 = 0
        let authorization: String?
    }

    private let engine: DeliveryEngine
    private let connection: HTTP2ClientConnection
    private let handler: HTTP2ClientHandler
    private let eventLoop: any EventLoop
    private var id = -1
    // `auth`, `inFlight` and `combinedHeaders` are used once or twice per request and not
    // checked for exclusive access at run time: the driver is confined to its event loop, and
    // no access calls anything that reaches the driver (the platform gets `auth` inout and
    // knows no driver; the table's closures touch only their entry).
    @exclusivity(unchecked) private var auth = ConnectionAuthState()
    @exclusivity(unchecked) private var inFlight = InFlightTable<InFlight>()
    private var isGone = false
    private var lastActivity = NIODeadline.now()
    private var tick: Scheduled<Void>?
    /// When the outstanding PING went out.
    private var pingSent: NIODeadline?
    @exclusivity(unchecked) private var combinedHeaders: (key: Int, authorization: String, combined: HTTPHeaderList)?
    private let tickInterval: TimeAmount
    private let requestTimeout: TimeAmount

    init(engine: DeliveryEngine, connection: HTTP2ClientConnection) {
        self.engine = engine
        self.connection = connection
        self.handler = connection.loopBoundHandler.value
        self.eventLoop = connection.eventLoop
        self.requestTimeout = TimeAmount(engine.connection.requestTimeout)
        // Check timeouts, PING and idle time four times per shortest period, at most once a
        // second, at least every 10 ms.
        let periods = [engine.connection.requestTimeout, engine.connection.pingInterval, engine.connection.idleTimeout].compactMap { $0 }
        let quarter = (periods.min() ?? .seconds(4)) / 4
        self.tickInterval = TimeAmount(min(max(quarter, .milliseconds(10)), .seconds(1)))
    }

    /// Joins the pool as `id` and starts taking work.
    func start(id: Int) {
        self.id = id
        handler.onReadCycleProcessed = { [self] in
            pump(flush: false)
        }
        handler.onTaggedResponse = { [self] key, result in
            finished(key, result.mapError { $0 as any Error }, timedOut: false)
        }
        handler.onGoAway = { [self] _ in
            leavePool()
        }
        handler.onPingAcknowledged = { [self] in
            if let sent = pingSent {
                pingSent = nil
                engine.pingAcknowledged(roundTrip: Duration(nanoseconds: NIODeadline.now().uptimeNanoseconds - sent.uptimeNanoseconds))
            }
        }
        connection.channel.closeFuture.assumeIsolated().whenComplete { [self] _ in
            leavePool()
            tick?.cancel()
            tick = nil
            // Break the handler → closure → driver cycle.
            handler.onReadCycleProcessed = nil
            handler.onTaggedResponse = nil
            handler.onGoAway = nil
            handler.onPingAcknowledged = nil
        }
        guard handler.isAcceptingRequests else {
            // GOAWAY (or the close) came with the server's first frames, before `onGoAway` was
            // set: the connection will take no request. Counted as a failed connect, so the
            // queued deliveries spend an attempt and back off; leaving the pool plainly had
            // the engine open the next connection at once, forever (400 connections in 20 s).
            isGone = true
            let error = handler.receivedGoAway.map { HTTP2ClientError(.goAway($0)) } ?? HTTP2ClientError(.connectionClosed)
            engine.driverUnusable(id, error: error)
            connection.channel.close(promise: nil)
            return
        }
        scheduleTick()
        pump(flush: true)
    }

    /// Takes as many deliveries as there are free streams and submits them. `flush: false`
    /// inside a read cycle (the transport flushes at its end).
    func pump(flush: Bool) {
        guard !isGone, handler.isAcceptingRequests else { return }
        let remote = Int(handler.remoteMaxConcurrentStreams)
        let capacity = min(engine.connection.maximumConcurrentStreams, remote == 0 ? 1 : remote)
        let (items, alone) = engine.take(driverID: id, free: capacity - inFlight.count, inFlight: inFlight.count, capacity: capacity)
        // A lone connection refills a quarter of its window at a time while a read cycle's
        // answers are handled, so that the server is not idle meanwhile; with several, the
        // others keep it busy and the extra writes would only cost.
        handler.refillInterval = alone ? max(8, capacity / 4) : 0
        guard !items.isEmpty else { return }
        switch engine.platform.authorization(&auth, now: engine.clock.now()) {
        case .none:
            for item in items { submit(item, authorization: nil) }
        case .value(let value):
            for item in items { submit(item, authorization: value) }
        case .unavailable:
            for item in items { engine.deferForCredentials(item) }
        case .failed(let error):
            for var item in items {
                item.attempts += 1
                engine.complete(item, .failed(DeliveryFailure(reason: "credentials", error: error)))
            }
        }
        lastActivity = .now()
        if flush {
            handler.flushPending()
        }
    }

    private func submit(_ item: Item, authorization: String?) {
        if item.isCancelled {
            engine.complete(item, .failed(DeliveryEngine.cancelledFailure))
            return
        }
        var item = item
        item.attempts += 1
        let request = makeRequest(item.content, authorization: authorization)
        // In the table before the send (the key is the stream's tag); a refused send takes it
        // out again.
        let key = inFlight.insert(InFlight(item: item, started: NIODeadline.now(), authorization: authorization))
        switch handler.send(request, pathSuffix: item.content.request.pathSuffix, tag: key, flush: false) {
        case .success(let streamID):
            inFlight.update(key) { $0.streamID = streamID }
        case .failure(let error):
            if let entry = inFlight.removeValue(forKey: key) {
                engine.resolve(entry.item, engine.faultVerdict(for: error, timedOut: false))
            }
        }
    }

    private func finished(_ key: UInt64, _ result: Result<HTTPResponseMessage, any Error>, timedOut wasTimedOut: Bool) {
        guard var entry = inFlight.removeValue(forKey: key) else { return }
        entry.item.lastLatency = Duration(nanoseconds: NIODeadline.now().uptimeNanoseconds - entry.started.uptimeNanoseconds)
        let verdict: AttemptVerdict
        switch result {
        case .success(let response):
            verdict = engine.platform.classify(
                response,
                auth: &auth,
                authorization: entry.authorization,
                now: engine.clock.now()
            )
        case .failure(let error):
            verdict = engine.faultVerdict(for: error, timedOut: wasTimedOut)
        }
        engine.resolve(entry.item, verdict)
    }

    /// The wire request (its path without the request's `pathSuffix`): the prepared headers
    /// plus `authorization`. Requests in a bulk send share one header list, so the combined list
    /// is cached per (headers, authorization).
    ///
    /// Reads the fields it needs through `content` rather than copying its whole
    /// `PreparedRequest` out first (a retain and a release per reference in it).
    private func makeRequest(_ content: DeliveryContent, authorization: String?) -> HTTPRequestMessage {
        guard let authorization else {
            return HTTPRequestMessage(
                method: "POST", path: content.request.path, headers: content.request.headers, body: content.request.body)
        }
        if let cached = combinedHeaders, cached.key == content.request.headersKey, cached.authorization == authorization {
            return HTTPRequestMessage(method: "POST", path: content.request.path, headers: cached.combined, body: content.request.body)
        }
        var combined = content.request.headers
        combined.append(.authorization, value: authorization)
        combinedHeaders = (content.request.headersKey, authorization, combined)
        return HTTPRequestMessage(method: "POST", path: content.request.path, headers: combined, body: content.request.body)
    }

    /// Leaves the pool: no new work; requests in flight finish or fail on their own.
    private func leavePool() {
        guard !isGone else { return }
        isGone = true
        engine.driverGone(id)
    }

    // MARK: Timer: timeouts, PING, idle close

    private func scheduleTick() {
        tick = eventLoop.assumeIsolated().scheduleTask(in: tickInterval) { [self] in
            onTick()
        }
    }

    private func onTick() {
        let now = NIODeadline.now()
        let expired = inFlight.keys { now - $0.started >= requestTimeout }
        for key in expired {
            guard let entry = inFlight[key] else { continue }
            // Resets the stream (CANCEL); no response will be reported for it.
            handler.cancel(streamID: entry.streamID)
            finished(key, .failure(CancellationError()), timedOut: true)
        }
        if !expired.isEmpty {
            // Their streams are free again, and their retries may be queued for this driver
            // (it was full, so not among the hungry ones an enqueue wakes): without this pump
            // the queue waited for the keep-alive PING, an hour.
            pump(flush: true)
        }
        if inFlight.isEmpty {
            let idle = now - lastActivity
            if let idleTimeout = engine.connection.idleTimeout, idle >= TimeAmount(idleTimeout) {
                leavePool()
                connection.channel.close(promise: nil)
                return
            }
            if let pingInterval = engine.connection.pingInterval, idle >= TimeAmount(pingInterval) {
                handler.ping()
                pingSent = now
                lastActivity = now
            }
        }
        scheduleTick()
    }
}

extension Duration {
    init(nanoseconds: UInt64) {
        self = .nanoseconds(Int64(truncatingIfNeeded: nanoseconds))
    }
}
