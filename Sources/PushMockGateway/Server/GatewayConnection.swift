import Logging
import NIOCore
import PushMockCore
import PushMockRecording
import PushMockSimulation
import PushMockTransport

/// The responder of one connection. Every request of a read batch goes through the same
/// pipeline (`RequestPipeline.swift`); this type owns what outlives one batch: the endpoints,
/// the connection's context, and the long polls still waiting (cancelled when the connection
/// closes). Runs on the connection's event loop.
final class GatewayConnection: HTTPConnectionResponder {
    let context: GatewayConnectionContext
    let state: GatewayState
    let endpoints: GatewayEndpoints
    let recorder: ExchangeRecorder
    let eventLoop: any EventLoop
    let logger: Logger
    /// Long polls and `within` expectations still running, by ticket.
    private var waiting: [UInt64: Task<Void, Never>] = [:]
    private var nextTicket: UInt64 = 0
    private var isClosed = false
    /// This connection's counts of the current batch (`nil` with `--no-metrics`).
    private var tally: RequestTally?
    /// The journal-line members this connection's records repeat, encoded once.
    private var journalMemo = JournalLineMemo()

    init(
        context: GatewayConnectionContext,
        state: GatewayState,
        controlAPI: ControlAPI,
        eventLoop: any EventLoop,
        logger: Logger
    ) {
        self.context = context
        self.state = state
        self.endpoints = GatewayEndpoints(state: state, controlAPI: controlAPI)
        self.recorder = ExchangeRecorder(store: state.recordings, journal: state.journal)
        self.eventLoop = eventLoop
        self.logger = logger
        self.tally = state.metrics.map { RequestTally(metrics: $0) }
    }

    func respond(to requests: consuming [HTTPRequestMessage]) -> HTTPReplyBatch {
        var pipelineContext = PipelineContext(
            connection: context, state: state, now: state.clock.now(), annotators: state.recordAnnotators.current)
        var batch = PipelineBatch(capacity: requests.count)
        // Unrecorded requests (control, metrics) are timed from the batch's start: one clock
        // read per batch; recorded ones carry their own latency.
        let batchStarted = tally == nil ? nil : NIODeadline.now()
        var requests = requests
        // Parts of the batch committed early, and how many requests each answers.
        var committedParts: [(replies: HTTPReplyBatch, count: Int)] = []
        for index in requests.indices {
            // Each request is moved out of the array (an empty one left in its place) and on
            // into its exchange: `for request in requests` copied it, retaining each of its
            // strings and buffers once more and releasing them again.
            var request = Self.movedOutRequest
            swap(&request, &requests[index])
            let endpoint = EndpointID(routing: request, servesInbox: context.servesInbox)
            if endpoint == .control, !batch.records.isEmpty {
                // A control request (the clock, a device going offline) must find the pushes
                // read before it delivered, as if they had come in reads of their own: the
                // devices get a batch's pushes only when it is committed.
                tally?.flush()
                committedParts.append((finish(&batch, now: pipelineContext.now), batch.replies.count))
                batch = PipelineBatch(capacity: requests.count - index)
            }
            let recordsBefore = batch.records.count
            let faultsBefore = batch.faultsFired.count
            switch endpoint {
            case .apnsDevice: run(endpoints.apnsDevice, consume request, in: pipelineContext, batch: &batch)
            case .fcmSend: run(endpoints.fcmSend, consume request, in: pipelineContext, batch: &batch)
            case .oauthToken: run(endpoints.oauthToken, consume request, in: pipelineContext, batch: &batch)
            case .iidTopics: run(endpoints.iidTopics, consume request, in: pipelineContext, batch: &batch)
            case .fcmTopicSubscriptions: run(endpoints.fcmTopicSubscriptions, consume request, in: pipelineContext, batch: &batch)
            case .expoSend: run(endpoints.expoSend, consume request, in: pipelineContext, batch: &batch)
            case .expoReceipts: run(endpoints.expoReceipts, consume request, in: pipelineContext, batch: &batch)
            case .control: run(endpoints.control, consume request, in: pipelineContext, batch: &batch)
            case .inbox: run(endpoints.inbox, consume request, in: pipelineContext, batch: &batch)
            case .metrics: run(endpoints.metrics, consume request, in: pipelineContext, batch: &batch)
            case .unrouted: run(endpoints.unrouted, consume request, in: pipelineContext, batch: &batch)
            }
            if let batchStarted {
                count(endpoint, in: batch, recordsBefore: recordsBefore, faultsBefore: faultsBefore, batchStarted: batchStarted)
            }
            if endpoint == .control {
                // It may have moved the clock: the requests after it see the new time.
                pipelineContext.now = state.clock.now()
            }
        }
        tally?.flush()
        let last = finish(&batch, now: pipelineContext.now)
        guard !committedParts.isEmpty else { return last }
        committedParts.append((last, batch.replies.count))
        return Self.joined(committedParts, on: eventLoop)
    }

    /// Commits `batch` and answers it, its long polls included.
    private func finish(_ batch: inout PipelineBatch, now: Timestamp) -> HTTPReplyBatch {
        let committed = commit(&batch, now: now)
        return batch.waiting.isEmpty ? committed : waitForLateReplies(committed, late: batch.waiting)
    }

    /// The answers of consecutive parts of one read, as one batch.
    static func joined(_ parts: [(replies: HTTPReplyBatch, count: Int)], on eventLoop: any EventLoop) -> HTTPReplyBatch {
        var immediate: [HTTPReply] = []
        var onTime: [EventLoopFuture<[HTTPReply]>] = []
        var late: [HTTPLateReply] = []
        var offset = 0
        var allImmediate = true
        for part in parts {
            var replies = part.replies
            if case .withLateReplies(let base, let lateReplies) = replies {
                replies = base
                late += lateReplies.map { HTTPLateReply(index: $0.index + offset, reply: $0.reply) }
            }
            switch replies {
            case .immediate(let answers):
                immediate += answers
                onTime.append(eventLoop.makeSucceededFuture(answers))
            default:
                allImmediate = false
                onTime.append(replies.allReplies(on: eventLoop))
            }
            offset += part.count
        }
        let base: HTTPReplyBatch =
            allImmediate
            ? .immediate(immediate)
            : .deferred(EventLoopFuture.whenAllSucceed(onTime, on: eventLoop).map { $0.flatMap { $0 } })
        return late.isEmpty ? base : .withLateReplies(base, late: late)
    }

    /// What a request moved out of the batch's array leaves behind: nothing to allocate or
    /// release.
    private static let movedOutRequest = HTTPRequestMessage(method: "", path: "")

    func connectionClosed() {
        // Nobody is left to read the answers: stop waiting (frees the store's waiters too).
        isClosed = true
        for task in waiting.values {
            task.cancel()
        }
        waiting.removeAll()
    }

    /// Counts the request `run` just answered (the last reply of the batch).
    private func count(
        _ endpoint: EndpointID, in batch: PipelineBatch, recordsBefore: Int, faultsBefore: Int, batchStarted: NIODeadline
    ) {
        if batch.records.count > recordsBefore {
            // Read in place: `let record = batch.records.last` copied the whole record.
            let last = batch.records.count - 1
            tally?.count(
                endpoint,
                status: batch.records[last].response.status,
                reason: batch.records[last].response.reason,
                latency: .microseconds(batch.records[last].latencyMicroseconds)
            )
        } else if let reply = batch.replies.last {
            let status: Int
            if case .respond(let response) = reply.action { status = response.status } else { status = 0 }
            tally?.count(
                endpoint, status: status, reason: nil,
                latency: .nanoseconds((NIODeadline.now() - batchStarted).nanoseconds) + (reply.delay ?? .zero))
        }
        for kind in batch.faultsFired[faultsBefore...] {
            tally?.faultFired(kind, at: endpoint)
        }
    }

    /// How many long polls of this connection are still waiting (for tests).
    var waitingCount: Int { waiting.count }

    // MARK: Long polls

    /// Answers the batch at once (or once its journal write is durable), and each waiting
    /// control request when its own reply is ready: a long poll must not hold up the pushes
    /// that arrived on other streams of the same read. Each waits in a task that is cancelled
    /// if the connection closes first, and never answers before the batch's records are
    /// committed (a poll may return them).
    private func waitForLateReplies(_ committed: HTTPReplyBatch, late: [(slot: Int, compute: @Sendable () async -> HTTPReply)])
        -> HTTPReplyBatch
    {
        let committedReplies = committed.allReplies(on: eventLoop)
        let lateReplies = late.map { entry in
            let reply = start(entry.compute)
            return HTTPLateReply(index: entry.slot, reply: committedReplies.flatMap { _ in reply })
        }
        return .withLateReplies(committed, late: lateReplies)
    }

    private func start(_ compute: @escaping @Sendable () async -> HTTPReply) -> EventLoopFuture<HTTPReply> {
        let promise = eventLoop.makePromise(of: HTTPReply.self)
        guard !isClosed else {
            promise.succeed(HTTPReply(.noResponse))
            return promise.futureResult
        }
        nextTicket &+= 1
        let ticket = nextTicket
        waiting[ticket] = Task {
            promise.succeed(await compute())
        }
        promise.futureResult.assumeIsolated().whenComplete { [weak self] _ in
            self?.waiting[ticket] = nil
        }
        return promise.futureResult
    }

    // MARK: Commit

    /// Records the batch (journal first), hands accepted notifications to the devices, and
    /// returns the replies — at once, or once the journal is durable.
    private func commit(_ batch: inout PipelineBatch, now: Timestamp) -> HTTPReplyBatch {
        guard !batch.records.isEmpty else { return .immediate(batch.replies) }

        let commit = recorder.commit(&batch.records, memo: &journalMemo, eventLoop: eventLoop)
        // The devices get what the service accepted once it is recorded (never what a failed
        // journal write turned into a 500), and before the client hears the answer.
        let records = batch.records
        // In place: copying each delivery to set its sequence number retained all it holds.
        for index in batch.deliveries.indices {
            batch.deliveries[index].notification.sequence = records[batch.deliveryRecords[index]].sequence
        }
        let accepted = batch.deliveries
        let replies = batch.replies
        switch commit {
        case .done:
            state.simulatedDevices.receive(accepted, now: now)
            state.webhooks.offer(records)
            return .immediate(replies)
        case .pending(let durable):
            let logger = self.logger
            let fallback = Self.internalErrorReplies(for: replies)
            let devices = state.simulatedDevices
            let webhooks = state.webhooks
            return .deferred(
                durable.map {
                    devices.receive(accepted, now: now)
                    webhooks.offer(records)
                    return replies
                }.recover { [recorder] error in
                    logger.error("journal write failed; answering 500", metadata: ["error": "\(error)"])
                    recorder.recordJournalFailure(records, error: error, answer: Self.internalErrorResponse())
                    return fallback
                }
            )
        case .failed(let error):
            logger.error("journal write failed; answering 500", metadata: ["error": "\(error)"])
            recorder.recordJournalFailure(records, error: error, answer: Self.internalErrorResponse())
            return .immediate(Self.internalErrorReplies(for: replies))
        }
    }

    /// When an exchange cannot be made durable, the client must not believe it succeeded.
    static func internalErrorReplies(for replies: [HTTPReply]) -> [HTTPReply] {
        replies.map { _ in internalErrorReply() }
    }

    /// APNs's 500, for answers the gateway cannot give as it should.
    static func internalErrorReply() -> HTTPReply {
        HTTPReply(.respond(internalErrorResponse()))
    }

    static func internalErrorResponse() -> HTTPResponseMessage {
        let error = APNsError(.internalServerError)
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json")
        return HTTPResponseMessage(status: error.status, headers: headers, body: error.body)
    }
}

/// The endpoints of one connection, built once when it opens.
struct GatewayEndpoints {
    let apnsDevice: APNsDeviceEndpoint
    let fcmSend: FCMSendEndpoint
    let oauthToken: OAuthTokenEndpoint
    let iidTopics: IIDTopicEndpoint
    let fcmTopicSubscriptions: FCMTopicSubscriptionEndpoint
    let expoSend: ExpoSendEndpoint
    let expoReceipts: ExpoReceiptsEndpoint
    let control: ControlEndpoint
    let inbox: InboxEndpoint
    let metrics: MetricsEndpoint
    let unrouted: UnroutedEndpoint

    init(state: GatewayState, controlAPI: ControlAPI) {
        let intake =
            state.simulationOptions.simulateDevices
            ? DeliveryIntake(options: state.simulationOptions, fcmTokens: state.fcmTokens, ledger: state.simulatedDevices.contentLedger)
            : nil
        let linting = state.simulationOptions.lint.map {
            NotificationLinting(configuration: $0, fcmTokens: state.fcmTokens, expoTokens: state.expoTokens)
        }
        apnsDevice = APNsDeviceEndpoint(
            options: state.apnsOptions,
            keys: state.apnsKeys,
            devices: state.devices,
            intake: intake,
            linting: linting
        )
        fcmSend = FCMSendEndpoint(
            options: state.fcmOptions,
            tokens: state.accessTokens,
            registry: state.fcmTokens,
            intake: intake,
            linting: linting
        )
        oauthToken = OAuthTokenEndpoint(
            options: state.fcmOptions,
            accounts: state.serviceAccounts,
            tokens: state.accessTokens,
            credentialClock: state.credentialClock
        )
        iidTopics = IIDTopicEndpoint(
            options: state.fcmOptions, tokens: state.accessTokens, registry: state.fcmTokens,
            tokenLimit: state.registryLimits.fcmTokens)
        fcmTopicSubscriptions = FCMTopicSubscriptionEndpoint(
            options: state.fcmOptions, tokens: state.accessTokens, registry: state.fcmTokens,
            tokenLimit: state.registryLimits.fcmTokens)
        expoSend = ExpoSendEndpoint(
            options: state.expoOptions,
            registry: state.expoTokens,
            receipts: state.expoReceipts,
            rate: state.expoRate,
            intake: intake,
            linting: linting
        )
        expoReceipts = ExpoReceiptsEndpoint(options: state.expoOptions, registry: state.expoTokens, receipts: state.expoReceipts)
        control = ControlEndpoint(api: controlAPI)
        inbox = InboxEndpoint()
        metrics = MetricsEndpoint()
        unrouted = UnroutedEndpoint(apns: apnsDevice)
    }
}
