package import CoreMetrics
import Foundation
package import Logging
package import NIOCore
import NIOPosix
@_spi(Locking) import PushMockCore

/// Limits of a ``WebhookDispatcher``.
package struct WebhookDispatcherOptions: Sendable, Hashable {
    /// Events waiting for a sender, all webhooks together; more are dropped (counted, logged),
    /// so whoever enqueues never waits. Retries waiting out their backoff are not counted.
    /// Default 10 000.
    package var queueCapacity: Int
    /// Attempts in flight at once. Default 4.
    package var concurrency: Int
    /// Deliveries kept per webhook for the API (oldest forgotten first). Default 100.
    package var historyPerWebhook: Int

    package init(queueCapacity: Int = 10_000, concurrency: Int = 4, historyPerWebhook: Int = 100) {
        self.queueCapacity = max(1, queueCapacity)
        self.concurrency = max(1, concurrency)
        self.historyPerWebhook = max(1, historyPerWebhook)
    }
}

/// Delivers events to webhooks: a bounded queue that never blocks the producer, a few senders
/// (unstructured tasks started on demand, none while idle), retries with exponential backoff,
/// HMAC signatures, and a log of every attempt for the API. Generic: it knows events, not what
/// they describe — the gateway feeds it recordings; delivery receipts and engagement events
/// use it the same way. Counters go through swift-metrics with the factory it is given (the
/// gateway passes its own Prometheus registry's factory, so each gateway has its own series).
package final class WebhookDispatcher: Sendable {
    private struct Job: Sendable {
        var webhook: String
        var key: UInt64
        var event: WebhookEvent
        var body: [UInt8]
        var attempt: Int
    }

    private struct Hook {
        var subscription: WebhookSubscription
        var metrics: HookMetrics
        var counts = WebhookReport.Counts()
        var deliveries: [UInt64: WebhookDelivery] = [:]
        var order: [UInt64] = []
    }

    private struct State {
        var hooks: [String: Hook] = [:]
        var hookOrder: [String] = []
        var queue: [Job] = []
        var queueHead = 0
        var senders = 0
        var nextKey: UInt64 = 0
        var retries: [UInt64: Task<Void, Never>] = [:]
        var closed = false
        var droppedSinceLog = 0
        var lastDropLog: ContinuousClock.Instant?

        var queued: Int { queue.count - queueHead }

        mutating func popJob() -> Job? {
            guard queueHead < queue.count else { return nil }
            let job = queue[queueHead]
            queueHead += 1
            if queueHead > 1024, queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            return job
        }
    }

    package let options: WebhookDispatcherOptions
    private let client: WebhookHTTPClient
    private let state = SanitizerVisibleMutex(State())
    private let logger: Logger
    private let metricsFactory: any MetricsFactory
    private let queueDepth: Gauge

    package init(
        options: WebhookDispatcherOptions = WebhookDispatcherOptions(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance,
        logger: Logger = Logger(label: "pushmock.webhooks")
    ) {
        self.options = options
        self.client = WebhookHTTPClient(group: group)
        self.logger = logger
        self.metricsFactory = metrics
        self.queueDepth = Gauge(label: "pushmock_webhook_queue_depth", factory: metrics)
    }

    // MARK: Webhooks

    /// Adds a webhook; its id must be new.
    package func add(_ subscription: WebhookSubscription) throws(WebhookConfigurationError) {
        guard !subscription.id.isEmpty else { throw WebhookConfigurationError("a webhook needs a non-empty id") }
        let metrics = HookMetrics(webhook: subscription.id, factory: metricsFactory)
        let added = state.withLock { state -> Bool in
            guard state.hooks[subscription.id] == nil else { return false }
            state.hooks[subscription.id] = Hook(subscription: subscription, metrics: metrics)
            state.hookOrder.append(subscription.id)
            return true
        }
        guard added else { throw WebhookConfigurationError("a webhook with id \"\(subscription.id)\" exists already") }
    }

    /// Removes a webhook: its queued events are dropped, its retries stop.
    @discardableResult
    package func remove(id: String) -> Bool {
        state.withLock { state in
            guard state.hooks.removeValue(forKey: id) != nil else { return false }
            state.hookOrder.removeAll { $0 == id }
            return true
        }
    }

    /// The webhooks in the order they were added.
    package var subscriptions: [WebhookSubscription] {
        state.withLock { state in state.hookOrder.compactMap { state.hooks[$0]?.subscription } }
    }

    /// A fresh id (`webhook-1`, `webhook-2`, …) that no webhook has.
    package func unusedID() -> String {
        state.withLock { state in
            var number = state.hooks.count + 1
            while state.hooks["webhook-\(number)"] != nil { number += 1 }
            return "webhook-\(number)"
        }
    }

    // MARK: Events

    /// Queues events, each for one webhook, under one lock; never waits. An event for a webhook
    /// that does not exist is ignored; one that finds the queue full is dropped (counted in the
    /// webhook's `dropped` and `pushmock_webhook_dropped_total`, logged at most once a second).
    ///
    /// - Returns: how many were queued.
    @discardableResult
    package func enqueue(_ events: [(webhook: String, event: WebhookEvent)]) -> Int {
        guard !events.isEmpty else { return 0 }
        let prepared = events.map { entry in (entry.webhook, entry.event, entry.event.envelope(webhook: entry.webhook)) }
        var droppedMetrics: [HookMetrics] = []
        let (queued, startSenders, dropLog, depth) = state.withLock { state -> (Int, Int, Int?, Int) in
            var queued = 0
            for (webhook, event, body) in prepared {
                guard !state.closed, state.hooks[webhook] != nil else { continue }
                guard state.queued < options.queueCapacity else {
                    state.hooks[webhook]!.counts.dropped += 1
                    droppedMetrics.append(state.hooks[webhook]!.metrics)
                    state.droppedSinceLog += 1
                    continue
                }
                state.nextKey &+= 1
                let key = state.nextKey
                state.queue.append(Job(webhook: webhook, key: key, event: event, body: body, attempt: 1))
                Self.remember(
                    WebhookDelivery(id: event.id, event: event.type.name, state: .queued, attempts: []),
                    key: key,
                    in: &state.hooks[webhook]!,
                    limit: options.historyPerWebhook
                )
                state.hooks[webhook]!.counts.enqueued += 1
                queued += 1
            }
            let start = min(options.concurrency - state.senders, state.queued)
            if start > 0 { state.senders += start }
            var dropLog: Int?
            let now = ContinuousClock.now
            if state.droppedSinceLog > 0, state.lastDropLog.map({ now - $0 >= .seconds(1) }) ?? true {
                dropLog = state.droppedSinceLog
                state.droppedSinceLog = 0
                state.lastDropLog = now
            }
            return (queued, max(0, start), dropLog, state.queued)
        }
        for metrics in droppedMetrics { metrics.dropped.increment() }
        if let dropLog {
            logger.warning(
                "webhook queue full: events dropped",
                metadata: ["dropped": "\(dropLog)", "queueCapacity": "\(options.queueCapacity)"]
            )
        }
        queueDepth.record(depth)
        for _ in 0..<startSenders {
            Task { await self.sendUntilEmpty() }
        }
        return queued
    }

    /// Queues one event for one webhook.
    @discardableResult
    package func enqueue(_ event: WebhookEvent, to webhook: String) -> Bool {
        enqueue([(webhook, event)]) == 1
    }

    // MARK: Reports

    /// Every webhook with its counts and recent deliveries.
    package func reports() -> [WebhookReport] {
        state.withLock { state in state.hookOrder.compactMap { state.hooks[$0].map(Self.report) } }
    }

    /// One webhook's report; `nil` when there is no such webhook.
    package func report(id: String) -> WebhookReport? {
        state.withLock { state in state.hooks[id].map(Self.report) }
    }

    /// Stops: no more events are taken, waiting retries are cancelled.
    package func shutdown() {
        let retries = state.withLock { state -> [Task<Void, Never>] in
            state.closed = true
            defer { state.retries.removeAll() }
            return Array(state.retries.values)
        }
        for task in retries { task.cancel() }
    }

    // MARK: Sending

    private func sendUntilEmpty() async {
        while let job = nextJob() {
            await attempt(job)
        }
    }

    private func nextJob() -> Job? {
        let (job, depth) = state.withLock { state -> (Job?, Int) in
            while let job = state.popJob() {
                guard !state.closed, state.hooks[job.webhook] != nil else { continue }
                state.hooks[job.webhook]!.deliveries[job.key]?.state = .sending
                return (job, state.queued)
            }
            state.senders -= 1
            return (nil, 0)
        }
        queueDepth.record(depth)
        return job
    }

    private func attempt(_ job: Job) async {
        guard let subscription = state.withLock({ $0.hooks[job.webhook]?.subscription }) else { return }
        var headers: [(String, String)] = [
            ("X-PushMock-Event", job.event.type.name),
            ("X-PushMock-Delivery", job.event.id),
            ("X-PushMock-Webhook", job.webhook),
            ("X-PushMock-Attempt", String(job.attempt)),
        ]
        if let secret = subscription.secret {
            headers.append((WebhookSignature.headerName, WebhookSignature.value(body: job.body, secret: secret)))
        }
        let startedAt = Date()
        let started = ContinuousClock.now
        var record = WebhookAttempt(attempt: job.attempt, startedAt: startedAt, durationMilliseconds: 0, outcome: .error)
        do {
            let answer = try await client.post(
                to: subscription.target,
                headers: headers,
                body: job.body,
                timeout: subscription.timeout,
                verifyCertificate: subscription.verifyCertificate,
                trustedCertificates: subscription.trustedCertificates
            )
            record.status = answer.status
            record.responseBody = answer.bodyPrefix
            record.outcome = (200..<300).contains(answer.status) ? .delivered : .rejected
        } catch {
            record.error = "\(error)"
        }
        let elapsed = ContinuousClock.now - started
        record.durationMilliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        finish(job, with: record, elapsed: elapsed, policy: subscription.retry)
    }

    private func finish(_ job: Job, with attempt: WebhookAttempt, elapsed: Duration, policy: WebhookRetryPolicy) {
        let delivered = attempt.outcome == .delivered
        let retryAfter: Duration? = delivered || job.attempt >= policy.maximumAttempts ? nil : policy.backoff(after: job.attempt)
        let metrics = state.withLock { state -> HookMetrics? in
            guard state.hooks[job.webhook] != nil else { return nil }
            state.hooks[job.webhook]!.counts.attempts += 1
            var delivery = state.hooks[job.webhook]!.deliveries[job.key]
            delivery?.attempts.append(attempt)
            if delivered {
                delivery?.state = .delivered
                delivery?.nextAttemptAt = nil
                state.hooks[job.webhook]!.counts.delivered += 1
            } else if let retryAfter, !state.closed {
                delivery?.state = .retrying
                delivery?.nextAttemptAt = Date().addingTimeInterval(
                    Double(retryAfter.components.seconds) + Double(retryAfter.components.attoseconds) / 1e18)
            } else {
                delivery?.state = .failed
                delivery?.nextAttemptAt = nil
                state.hooks[job.webhook]!.counts.failed += 1
            }
            if let delivery { state.hooks[job.webhook]!.deliveries[job.key] = delivery }
            return state.hooks[job.webhook]!.metrics
        }
        guard let metrics else { return }
        metrics.attempts(attempt.outcome).increment()
        metrics.duration.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        if delivered {
            metrics.delivered.increment()
            return
        }
        guard let retryAfter else {
            metrics.failed.increment()
            logger.notice(
                "webhook delivery failed after every attempt",
                metadata: ["webhook": "\(job.webhook)", "event": "\(job.event.id)", "attempts": "\(job.attempt)"]
            )
            return
        }
        var next = job
        next.attempt += 1
        scheduleRetry(next, after: retryAfter)
    }

    /// Waits out the backoff without holding a sender, then puts the job back at the end of the
    /// queue (retries are never dropped: the event was accepted already).
    private func scheduleRetry(_ job: Job, after wait: Duration) {
        state.withLock { state in
            guard !state.closed else { return }
            let key = job.key
            state.retries[key] = Task {
                try? await Task.sleep(for: wait)
                self.requeue(job)
            }
        }
    }

    private func requeue(_ job: Job) {
        let start = state.withLock { state -> Bool in
            state.retries[job.key] = nil
            guard !state.closed, !Task.isCancelled, state.hooks[job.webhook] != nil else {
                if state.hooks[job.webhook]?.deliveries[job.key] != nil {
                    state.hooks[job.webhook]!.deliveries[job.key]!.state = .failed
                    state.hooks[job.webhook]!.counts.failed += 1
                }
                return false
            }
            state.queue.append(job)
            state.hooks[job.webhook]!.deliveries[job.key]?.state = .queued
            guard state.senders < options.concurrency else { return false }
            state.senders += 1
            return true
        }
        if start {
            Task { await self.sendUntilEmpty() }
        }
    }

    // MARK: Helpers

    private static func remember(_ delivery: WebhookDelivery, key: UInt64, in hook: inout Hook, limit: Int) {
        hook.deliveries[key] = delivery
        hook.order.append(key)
        if hook.order.count > limit * 2 {
            let excess = hook.order.count - limit
            for old in hook.order.prefix(excess) {
                hook.deliveries[old] = nil
            }
            hook.order.removeFirst(excess)
        }
    }

    private static func report(_ hook: Hook) -> WebhookReport {
        let subscription = hook.subscription
        var counts = hook.counts
        counts.pending = counts.enqueued - counts.delivered - counts.failed
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        let limit = min(hook.order.count, 100)
        let recent = hook.order.suffix(limit).reversed().compactMap { hook.deliveries[$0] }
        return WebhookReport(
            id: subscription.id,
            url: subscription.target.description,
            signed: subscription.secret != nil,
            timeoutSeconds: seconds(subscription.timeout),
            maximumAttempts: subscription.retry.maximumAttempts,
            initialBackoffSeconds: seconds(subscription.retry.initialBackoff),
            maximumBackoffSeconds: seconds(subscription.retry.maximumBackoff),
            counts: counts,
            deliveries: Array(recent)
        )
    }
}

/// One webhook's series: attempts by outcome, deliveries and failures, drops, attempt durations.
private struct HookMetrics: Sendable {
    let attemptsDelivered: Counter
    let attemptsRejected: Counter
    let attemptsError: Counter
    let delivered: Counter
    let failed: Counter
    let dropped: Counter
    let duration: CoreMetrics.Timer

    init(webhook: String, factory: any MetricsFactory) {
        func attempts(_ outcome: WebhookAttempt.Outcome) -> Counter {
            Counter(
                label: "pushmock_webhook_attempts_total", dimensions: [("webhook", webhook), ("outcome", outcome.description)],
                factory: factory)
        }
        attemptsDelivered = attempts(.delivered)
        attemptsRejected = attempts(.rejected)
        attemptsError = attempts(.error)
        delivered = Counter(
            label: "pushmock_webhook_deliveries_total", dimensions: [("webhook", webhook), ("result", "delivered")], factory: factory)
        failed = Counter(
            label: "pushmock_webhook_deliveries_total", dimensions: [("webhook", webhook), ("result", "failed")], factory: factory)
        dropped = Counter(label: "pushmock_webhook_dropped_total", dimensions: [("webhook", webhook)], factory: factory)
        duration = CoreMetrics.Timer(
            label: "pushmock_webhook_attempt_duration_seconds", dimensions: [("webhook", webhook)], factory: factory)
    }

    func attempts(_ outcome: WebhookAttempt.Outcome) -> Counter {
        switch outcome {
        case .delivered: return attemptsDelivered
        case .rejected: return attemptsRejected
        default: return attemptsError
        }
    }
}
