import NIOCore
import NIOSSL
@_spi(Locking) import PushMockCore
import PushMockJSON
import PushMockTransport

/// The part of a sender that gets notifications onto the wire: a queue, a small pool of HTTP/2
/// connections that pull from it, the retry loop, and shutdown.
///
/// How work flows:
/// * Callers ``enqueue(_:atFront:)`` deliveries (bulk producers wait in ``waitForRoom()`` when
///   the queue is long).
/// * Each connection has a ``ConnectionDriver`` confined to its event loop. At the end of
///   every read cycle (and when woken) it takes as many deliveries as it has free streams —
///   the server's MAX_CONCURRENT_STREAMS and the configured cap, whichever is lower — submits
///   them without flushing, and the transport flushes once. No task or thread hop per request.
/// * A driver that found the queue empty while it had room registers as hungry; enqueueing
///   wakes hungry drivers. When every driver is full and work is waiting, one more connection
///   is opened, up to the configured maximum.
/// * A finished attempt is classified by the platform; retries wait (``RetrySleep``) in a
///   small task and go back to the front of the queue.
///
/// Concurrency: the shared state is one `Mutex`; drivers are event-loop confined and reached
/// only through `NIOLoopBound`; deliveries are `Sendable` values that move between them.
final class DeliveryEngine: Sendable {
    typealias Item = Delivery

    let platform: any DeliveryPlatform
    let endpoint: SenderEndpoint
    let tls: TLSConfiguration?
    let connection: ConnectionConfiguration
    let retry: RetryPolicy
    let jitter: JitterSource
    let sleep: RetrySleep
    let clock: any PushMockClock
    /// Queue length above which bulk producers wait.
    let queueLimit: Int

    struct DriverHandle: Sendable {
        let connection: HTTP2ClientConnection
        let driver: NIOLoopBound<ConnectionDriver>
    }

    private struct DriverRecord {
        var handle: DriverHandle
        var inFlight = 0
        var capacity = 0
    }

    private struct State {
        var queue = CircularBuffer<Item>(initialCapacity: 256)
        var drivers: [Int: DriverRecord] = [:]
        /// Drivers with free streams that found the queue empty.
        var hungry: Set<Int> = []
        var connecting = 0
        var nextDriverID = 0
        var isShutdown = false
        /// Deliveries waiting to be retried, by id; whoever removes an entry owns its delivery
        /// (the timer or task that fires, or shutdown).
        var waiting: [Int: WaitingRetry] = [:]
        var nextWaitID = 0
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        var connectionsOpened = 0
        var pingsAcknowledged = 0
        var lastPingRoundTrip: Duration?
    }

    private struct WaitingRetry {
        var item: Item
        var cancel: @Sendable () -> Void
    }

    private let state = SanitizerVisibleMutex(State())

    init(
        platform: any DeliveryPlatform,
        endpoint: SenderEndpoint,
        tls: TLSConfiguration?,
        connection: ConnectionConfiguration,
        retry: RetryPolicy,
        jitter: JitterSource,
        sleep: RetrySleep,
        clock: any PushMockClock
    ) {
        self.platform = platform
        self.endpoint = endpoint
        self.tls = tls
        self.connection = connection
        self.retry = retry
        self.jitter = jitter
        self.sleep = sleep
        self.clock = clock
        // Enough queued work that a producer woken late never lets the connections run dry.
        self.queueLimit = min(max(4096, 4 * connection.maximumConnections * connection.maximumConcurrentStreams), 65_536)
    }

    // MARK: Sending

    /// Sends one message and waits for its outcome. Cancelling the calling task stops further
    /// attempts (an attempt in flight still runs to its response or timeout).
    func send(_ request: PreparedRequest) async -> SendResult {
        let flag = CancellationFlag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SendResult, Never>) in
                enqueue([Item(request: request, cancellation: flag) { continuation.resume(returning: $0) }])
            }
        } onCancel: {
            flag.cancel()
        }
    }

    /// Sends every message `next` gives until it returns `nil`, at most as many at once as the
    /// connections allow, calling `onResult` once per message (on an event-loop thread: keep it
    /// short). Returns when all are decided.
    func sendAll(onResult: @escaping @Sendable (SendResult) -> Void, pulling next: () -> PreparedRequest?) async {
        let job = BulkJob(onResult: onResult)
        let completion: @Sendable (SendResult) -> Void = { job.complete($0) }
        var batch: [Item] = []
        batch.reserveCapacity(64)
        var index = 0
        while let request = next() {
            batch.append(Item(request: request, index: index, completion: completion))
            index += 1
            if batch.count == 64 {
                await waitForRoom()
                job.add(batch.count)
                enqueue(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        job.add(batch.count)
        enqueue(batch)
        await job.finish()
    }

    /// Adds deliveries to the queue (retries go to the front) and wakes drivers with room.
    func enqueue(_ items: [Item], atFront: Bool = false) {
        guard !items.isEmpty else { return }
        let (accepted, wake, grow) = state.withLock { state -> (Bool, [DriverHandle], Bool) in
            if state.isShutdown { return (false, [], false) }
            if atFront {
                for item in items.reversed() { state.queue.prepend(item) }
            } else {
                state.queue.append(contentsOf: items)
            }
            var wake: [DriverHandle] = []
            while wake.count < items.count, let id = state.hungry.popFirst() {
                if let record = state.drivers[id] { wake.append(record.handle) }
            }
            let grow = state.drivers.isEmpty && state.connecting == 0
            if grow { state.connecting += 1 }
            return (true, wake, grow)
        }
        guard accepted else {
            for item in items { complete(item, .failed(Self.shutdownFailure)) }
            return
        }
        for handle in wake {
            handle.connection.eventLoop.execute {
                handle.driver.value.pump(flush: true)
            }
        }
        if grow { openConnection() }
    }

    /// Waits while the queue is longer than ``queueLimit`` (bulk back-pressure).
    func waitForRoom() async {
        let hasRoom = state.withLock { $0.isShutdown || $0.queue.count < queueLimit }
        if hasRoom { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.isShutdown || state.queue.count < queueLimit { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    // MARK: Called by drivers, on their event loop

    /// Hands a driver up to `free` deliveries and records its load; `alone`: it is the only
    /// open connection.
    func take(driverID: Int, free: Int, inFlight: Int, capacity: Int) -> (items: [Item], alone: Bool) {
        let (items, grow, resume, alone) = state.withLock { state -> ([Item], Bool, [CheckedContinuation<Void, Never>], Bool) in
            guard var record = state.drivers[driverID] else { return ([], false, [], false) }
            let count = min(max(free, 0), state.queue.count)
            var taken: [Item] = []
            if count > 0 {
                taken.reserveCapacity(count)
                for _ in 0..<count { taken.append(state.queue.removeFirst()) }
            }
            record.inFlight = inFlight + count
            record.capacity = capacity
            state.drivers[driverID] = record
            if count < free {
                state.hungry.insert(driverID)
            } else {
                state.hungry.remove(driverID)
            }
            var grow = false
            if !state.queue.isEmpty, state.hungry.isEmpty, state.connecting == 0,
                state.drivers.count < connection.maximumConnections, !state.isShutdown
            {
                state.connecting += 1
                grow = true
            }
            var resume: [CheckedContinuation<Void, Never>] = []
            if !state.roomWaiters.isEmpty, state.queue.count <= queueLimit / 2 {
                resume = state.roomWaiters
                state.roomWaiters.removeAll()
            }
            return (taken, grow, resume, state.drivers.count == 1)
        }
        for continuation in resume { continuation.resume() }
        if grow { openConnection() }
        return (items, alone)
    }

    /// Acts on the verdict about an attempt: completes the delivery or schedules its retry.
    func resolve(_ item: Item, _ verdict: AttemptVerdict) {
        switch verdict {
        case .final(let outcome):
            complete(item, outcome)
        case .retry(let failure, let retryAfter):
            if item.isCancelled {
                complete(item, .failed(Self.cancelledFailure))
                return
            }
            guard let delay = retry.delay(afterAttempt: item.attempts, retryAfter: retryAfter, unit: jitter.next()) else {
                complete(item, .failed(failure))
                return
            }
            scheduleRetry(item, after: delay, refreshingCredentials: false)
        case .refreshCredentials(let fallback):
            guard item.credentialRefreshes == 0, !item.isCancelled else {
                complete(item, fallback)
                return
            }
            var next = item
            next.credentialRefreshes += 1
            scheduleRetry(next, after: .zero, refreshingCredentials: true)
        }
    }

    /// A delivery that could not be sent because the connection has no credentials yet.
    func deferForCredentials(_ item: Item) {
        guard item.credentialRefreshes < 2 else {
            complete(
                item,
                .failed(
                    DeliveryFailure(reason: "no credentials", error: SenderError(.authorizationFailed, "no access token could be obtained"))
                ))
            return
        }
        var next = item
        next.credentialRefreshes += 1
        scheduleRetry(next, after: .zero, refreshingCredentials: true)
    }

    /// The verdict about an attempt that got no response.
    func faultVerdict(for error: any Error, timedOut: Bool) -> AttemptVerdict {
        let failure: DeliveryFailure
        let retries: Bool
        if timedOut {
            failure = DeliveryFailure(
                reason: "timeout",
                error: SenderError(.timeout, "no response within \(connection.requestTimeout)")
            )
            retries = retry.retriesTimeouts
        } else if let error = error as? HTTP2ClientError {
            retries = retry.retriesConnectionFaults
            switch error.kind {
            case .goAway(let goAway):
                let reason = Self.goAwayReason(goAway.debugData)
                if let reason, let verdict = platform.verdict(forGoAwayReason: reason) {
                    return verdict
                }
                failure = DeliveryFailure(
                    reason: "GOAWAY \(reason ?? goAway.errorCode.name)",
                    error: SenderError(.goAway, error.description, cause: error)
                )
            case .streamReset(let code):
                failure = DeliveryFailure(
                    reason: error.resetLocally ? "malformed response (\(code.name))" : "RST_STREAM \(code.name)",
                    error: SenderError(.streamReset, error.description, cause: error)
                )
            case .connectionClosed, .submitFailed:
                failure = DeliveryFailure(
                    reason: "connection closed",
                    error: SenderError(.connectionClosed, error.description, cause: error)
                )
            }
        } else {
            retries = retry.retriesConnectionFaults
            failure = DeliveryFailure(
                reason: "connection closed",
                error: SenderError(.connectionClosed, "\(error)", cause: error)
            )
        }
        return retries ? .retry(failure, retryAfter: nil) : .final(.failed(failure))
    }

    /// A driver's connection is going away (GOAWAY or closed): no more work for it.
    func driverGone(_ id: Int) {
        let grow = state.withLock { state -> Bool in
            guard state.drivers.removeValue(forKey: id) != nil else { return false }
            state.hungry.remove(id)
            if !state.queue.isEmpty, state.drivers.isEmpty, state.connecting == 0, !state.isShutdown {
                state.connecting += 1
                return true
            }
            return false
        }
        if grow { openConnection() }
    }

    /// Completes a delivery.
    func complete(_ item: Item, _ outcome: SendOutcome) {
        item.content.completion(
            SendResult(
                recipient: item.request.recipient,
                outcome: outcome,
                attempts: item.attempts,
                latency: item.lastLatency,
                index: item.content.index
            )
        )
    }

    // MARK: Retries

    /// Puts `item` back on the queue after `delay` (and fresh credentials, if asked). With the
    /// system sleep the wait is an event-loop timer; an injected sleep runs in a task.
    ///
    /// The entry is registered first and the wait started after the lock is released: a task
    /// started under the lock would often find it still held (an injected sleep returns at
    /// once), blocking a pool thread, and a contended `Mutex` hand-over goes through the kernel,
    /// where ThreadSanitizer cannot see it and reports a race that is not there.
    private func scheduleRetry(_ item: Item, after delay: Duration, refreshingCredentials: Bool) {
        let usesTask = refreshingCredentials || !sleep.isSystem
        let registered = state.withLock { state -> Int? in
            if state.isShutdown { return nil }
            let id = state.nextWaitID
            state.nextWaitID += 1
            state.waiting[id] = WaitingRetry(item: item, cancel: {})
            return id
        }
        guard let id = registered else {
            complete(item, .failed(Self.shutdownFailure))
            return
        }
        let cancel: @Sendable () -> Void
        if usesTask {
            let task = Task {
                if delay > .zero {
                    try? await self.sleep(delay)
                }
                guard self.claimWaiting(id) != nil else { return }
                if refreshingCredentials, let error = await self.platform.refreshCredentials() {
                    self.complete(item, .failed(DeliveryFailure(reason: "credentials", error: error)))
                } else {
                    self.enqueue([item], atFront: true)
                }
            }
            cancel = { task.cancel() }
        } else {
            let timer = connection.resolvedEventLoopGroup.next().scheduleTask(in: TimeAmount(delay)) {
                guard let claimed = self.claimWaiting(id) else { return }
                self.enqueue([claimed], atFront: true)
            }
            cancel = { timer.cancel() }
        }
        // Whoever claimed the entry meanwhile owns the delivery: the wait itself (left alone),
        // or shutdown, which could not stop this wait yet and so leaves it to be stopped here.
        let stoppedByShutdown = state.withLock { state -> Bool in
            if state.waiting[id] != nil {
                state.waiting[id]?.cancel = cancel
                return false
            }
            return state.isShutdown
        }
        if stoppedByShutdown {
            cancel()
        }
    }

    private func claimWaiting(_ id: Int) -> Item? {
        state.withLock { $0.waiting.removeValue(forKey: id)?.item }
    }

    // MARK: Connections

    /// Opens one connection (the caller counted it in `connecting`), entirely on event loops:
    /// TCP, TLS, the server's SETTINGS, then a driver. The connect timeout is one budget for
    /// all three: a server that accepts and never sends SETTINGS fails the attempt at the same
    /// deadline, with the same `ChannelError.connectTimeout`, as one that never finishes TLS
    /// (it used to get a second full timeout, then failed as "connection closed").
    private func openConnection() {
        let configuration = HTTP2ClientConnection.Configuration(
            host: endpoint.host,
            port: endpoint.port,
            tls: tls,
            serverHostname: endpoint.serverHostname,
            authority: endpoint.effectiveAuthority,
            connectTimeout: connection.connectTimeout
        )
        let connectTimeout = TimeAmount(connection.connectTimeout)
        let deadline = NIODeadline.now() + connectTimeout
        HTTP2ClientConnection.makeConnection(to: configuration, group: connection.resolvedEventLoopGroup)
            .flatMap { opened -> EventLoopFuture<HTTP2ClientConnection> in
                let ready = opened.eventLoop.makePromise(of: HTTP2ClientConnection.self)
                // Both closures run on the connection's event loop; the first one decides.
                let decided = NIOLoopBoundBox(false, eventLoop: opened.eventLoop)
                let expiry = opened.eventLoop.scheduleTask(deadline: deadline) {
                    guard !decided.value else { return }
                    decided.value = true
                    // Before the close, which would fail the wait for SETTINGS as "connection
                    // closed": not what happened.
                    ready.fail(ChannelError.connectTimeout(connectTimeout))
                    opened.channel.close(promise: nil)
                }
                opened.remoteSettingsReceived().whenComplete { result in
                    guard !decided.value else { return }
                    decided.value = true
                    expiry.cancel()
                    ready.completeWith(result.map { opened })
                }
                return ready.futureResult
            }
            .whenComplete { result in
                switch result {
                case .success(let opened):
                    opened.eventLoop.execute { self.attach(opened) }
                case .failure(let error):
                    self.connectFailed(error)
                }
            }
    }

    /// Creates the driver of a ready connection; on its event loop.
    private func attach(_ opened: HTTP2ClientConnection) {
        let driver = ConnectionDriver(engine: self, connection: opened)
        let handle = DriverHandle(connection: opened, driver: NIOLoopBound(driver, eventLoop: opened.eventLoop))
        guard let id = register(handle) else {
            opened.channel.close(promise: nil)
            return
        }
        driver.start(id: id)
    }

    private func register(_ handle: DriverHandle) -> Int? {
        state.withLock { state in
            state.connecting -= 1
            guard !state.isShutdown else { return nil }
            let id = state.nextDriverID
            state.nextDriverID += 1
            state.drivers[id] = DriverRecord(handle: handle)
            state.connectionsOpened += 1
            return id
        }
    }

    private func connectFailed(_ error: any Error) {
        let stranded = state.withLock { state -> [Item] in
            state.connecting -= 1
            // Other connections (or one being opened) will take the work.
            guard state.drivers.isEmpty, state.connecting == 0 else { return [] }
            var items: [Item] = []
            while let item = state.queue.popFirst() { items.append(item) }
            return items
        }
        failConnectAttempt(stranded, error)
    }

    /// A driver whose connection refused all work before taking any (GOAWAY with the server's
    /// first frames): a failed connect, not a connection that went away after serving.
    func driverUnusable(_ id: Int, error: any Error) {
        let stranded = state.withLock { state -> [Item] in
            guard state.drivers.removeValue(forKey: id) != nil else { return [] }
            state.hungry.remove(id)
            guard state.drivers.isEmpty, state.connecting == 0 else { return [] }
            var items: [Item] = []
            while let item = state.queue.popFirst() { items.append(item) }
            return items
        }
        failConnectAttempt(stranded, error)
    }

    /// Charges the deliveries no connection could take one attempt each, and retries them
    /// (with backoff) or fails them, as the retry policy says.
    private func failConnectAttempt(_ stranded: [Item], _ error: any Error) {
        guard !stranded.isEmpty else { return }
        let failure = DeliveryFailure(
            reason: "connect failed",
            error: SenderError(.connectionFailed, "cannot connect to \(endpoint): \(ConnectFailureText.describe(error))", cause: error)
        )
        for var item in stranded {
            item.attempts += 1
            resolve(item, retry.retriesConnectionFaults ? .retry(failure, retryAfter: nil) : .final(.failed(failure)))
        }
    }

    // MARK: Shutdown and introspection

    /// Fails queued deliveries, stops retries and closes every connection. Deliveries in
    /// flight fail with ``SenderError/Code/shutdown``.
    func shutdown() async {
        let (queued, handles, waiting, waiters) = state.withLock { state in
            state.isShutdown = true
            var queued: [Item] = []
            while let item = state.queue.popFirst() { queued.append(item) }
            let handles = state.drivers.values.map(\.handle)
            state.drivers.removeAll()
            state.hungry.removeAll()
            let waiters = state.roomWaiters
            state.roomWaiters.removeAll()
            let waiting = Array(state.waiting.values)
            state.waiting.removeAll()
            return (queued, handles, waiting, waiters)
        }
        for item in queued { complete(item, .failed(Self.shutdownFailure)) }
        for entry in waiting {
            entry.cancel()
            complete(entry.item, .failed(Self.shutdownFailure))
        }
        for waiter in waiters { waiter.resume() }
        for handle in handles { await handle.connection.close() }
    }

    /// Open connections (tests).
    var openConnectionCount: Int { state.withLock { $0.drivers.count } }

    /// Connections opened since the start (tests: reconnects).
    var connectionsOpened: Int { state.withLock { $0.connectionsOpened } }

    /// An idle connection's PING came back.
    func pingAcknowledged(roundTrip: Duration) {
        state.withLock { state in
            state.pingsAcknowledged += 1
            state.lastPingRoundTrip = roundTrip
        }
    }

    /// PINGs answered so far, and the last round trip.
    var pings: (acknowledged: Int, lastRoundTrip: Duration?) {
        state.withLock { ($0.pingsAcknowledged, $0.lastPingRoundTrip) }
    }

    static var shutdownFailure: DeliveryFailure {
        DeliveryFailure(reason: "sender shut down", error: SenderError(.shutdown, "the sender was shut down"))
    }

    static var cancelledFailure: DeliveryFailure {
        DeliveryFailure(reason: "cancelled", error: SenderError(.cancelled, "the send was cancelled"))
    }

    /// The `reason` of GOAWAY debug data `{"reason":"…"}`, if it is that.
    static func goAwayReason(_ debugData: [UInt8]) -> String? {
        guard !debugData.isEmpty, let value = try? JSONValue(parsing: debugData) else { return nil }
        return value["reason"]?.stringValue
    }
}

/// Counts the deliveries of one bulk send and wakes it when the last one is decided.
final class BulkJob: Sendable {
    private struct State {
        var submitted = 0
        var completed = 0
        var producing = true
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = SanitizerVisibleMutex(State())
    private let onResult: @Sendable (SendResult) -> Void

    init(onResult: @escaping @Sendable (SendResult) -> Void) {
        self.onResult = onResult
    }

    func add(_ count: Int) {
        state.withLock { $0.submitted += count }
    }

    func complete(_ result: SendResult) {
        onResult(result)
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.completed += 1
            guard !state.producing, state.completed == state.submitted else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Waits for every delivery added so far (no more will be added).
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                state.producing = false
                if state.completed == state.submitted { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
