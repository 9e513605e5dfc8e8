import Logging
import NIOCore
import PushMockCore
import PushMockRecording
import PushMockSimulation

/// What the requests of one read batch produce: a reply per request (in order), the records to
/// commit, the deliveries waiting for their records' sequence numbers, and the replies that
/// wait (long polls).
struct PipelineBatch {
    var replies: [HTTPReply] = []
    var records: [ExchangeRecord] = []
    /// Accepted notifications, and for each the index of its record in ``records``.
    var deliveries: [DeliveryIntake.Delivery] = []
    var deliveryRecords: [Int] = []
    /// Control requests answered later, with their slot in `replies`.
    var waiting: [(slot: Int, compute: @Sendable () async -> HTTPReply)] = []
    /// The kind of each fault that fired, in order (for the metrics).
    var faultsFired: [FaultAction.Kind] = []

    init(capacity: Int) {
        replies.reserveCapacity(capacity)
        records.reserveCapacity(capacity)
    }
}

extension GatewayConnection {
    /// One request through the pipeline. The order is the same for every endpoint:
    ///
    /// 1. parse — the typed exchange every later step reads;
    /// 2. faults — decided before anything changes state;
    /// 3. authenticate; 4. playback (`serve --playback`); 5. validate;
    /// 6. state changes — lifecycle counts, issued tokens, subscriptions, the success answer;
    /// 7. lint, deliveries and record annotators (payload contracts) — only for accepted
    ///    requests that reach a device;
    /// 8. record; 9. reply (with the fault's SETTINGS and delay).
    ///
    /// A step that answers ends the request's journey through steps 3–6; every request still
    /// leaves through 7–9, so every answer is recorded.
    func run<Endpoint: GatewayEndpoint>(
        _ endpoint: Endpoint,
        _ request: consuming HTTPRequestMessage,
        in context: PipelineContext,
        batch: inout PipelineBatch
    ) {
        // NIO's monotonic reading, not `ContinuousClock.now`: the standard library's
        // `ContinuousClock.Instant` is a resilient type, so every copy of one (and of an
        // optional one) went through its value witnesses (≈ 1.5 % of the default server's
        // samples with the clock reads).
        let started = NIODeadline.now()
        // Moved into the exchange: a copy retained each of the request's strings and buffers
        // once more, and released them again at the end.
        var exchange = endpoint.parse(consume request, in: context)

        let fault = decideFault(for: exchange, of: Endpoint.self, in: context)
        if let fault {
            batch.faultsFired.append(fault.action.kind)
            switch fault.action.effect {
            case .errorAnswer: endpoint.answerInjected(fault.action, &exchange, in: context)
            case .noAnswer: exchange.reply = FaultReplies.noAnswer(fault.action).map { HTTPReply($0) }
            case .normalAnswer: break
            }
        }
        if !exchange.isAnswered { endpoint.authenticate(&exchange, in: context) }
        var playback: PlaybackDecision?
        if !exchange.isAnswered, Endpoint.supportsPlayback, let book = state.playback {
            playback = play(endpoint, &exchange, from: book, in: context)
            exchange.reply = playback?.reply
        }
        if !exchange.isAnswered { endpoint.validate(&exchange, in: context) }
        if !exchange.isAnswered { endpoint.applyState(&exchange, in: context) }
        // Rules decided per recipient (Expo's error tickets) fired inside the state step.
        let recipientFaults = exchange.recipientFaults
        for decision in recipientFaults { batch.faultsFired.append(decision.action.kind) }

        // Read, not copied: the reply stays in the exchange until the record and the later steps
        // have read it, and then moves to the batch (below). Copying it out here cost a retain
        // per buffer in it now and a release when the exchange went.
        let injectedDelay = (exchange.reply?.delay ?? .zero) + (fault?.delay ?? .zero)

        // The record is filled in where it stays, the batch's array (see
        // `GatewayEndpoint.record`), and every later step changes it there.
        let slot = batch.records.count
        batch.records.append(Self.blankRecord)
        if endpoint.record(
            exchange, in: context, latencyMicroseconds: Self.microseconds(since: started) + injectedDelay.wholeMicroseconds,
            into: &batch.records[slot])
        {
            let reachesDevice =
                exchange.isAccepted && playback == nil && (fault?.action.effect ?? .normalAnswer) == .normalAnswer
            if reachesDevice {
                let notes = endpoint.lint(exchange, in: context)
                if !notes.isEmpty { batch.records[slot].notification?.lint = notes }
                let before = batch.deliveries.count
                endpoint.appendDeliveries(of: exchange, in: context, to: &batch.deliveries)
                for _ in before..<batch.deliveries.count { batch.deliveryRecords.append(slot) }
                for annotator in context.annotators { annotator.annotate(&batch.records[slot]) }
            }
            if let fault { Self.annotate(&batch.records[slot], with: fault) }
            if !recipientFaults.isEmpty { Self.annotate(&batch.records[slot], withRecipientFaults: recipientFaults) }
            if let playback { Self.annotate(&batch.records[slot], with: playback) }
        } else {
            batch.records.removeLast()
        }

        if let deferred = exchange.deferredReply {
            batch.waiting.append((batch.replies.count, deferred))
        }
        var reply: HTTPReply
        if let answer = exchange.takeReply() {
            reply = answer
        } else {
            // Every endpoint answers by its state step at the latest; this is the one place a
            // missing answer would surface.
            logger.error("endpoint left a request unanswered", metadata: ["path": "\(exchange.request.path)"])
            reply = Self.internalErrorReply()
        }
        if let fault {
            if case .settings(let streams) = fault.action {
                reply.settings.append(.maxConcurrentStreams(streams))
            }
            if let delay = fault.delay {
                reply.delay = (reply.delay ?? .zero) + delay
            }
        }
        // Moved, not copied: copying an `HTTPReply` retains every buffer in it.
        batch.replies.append(consume reply)
    }

    /// Where each record starts: copying it is cheaper than building `ExchangeRecord()`, which
    /// the compiler built on the stack and then copied anyway.
    private static let blankRecord = ExchangeRecord()

    /// The first fault rule that fires for the exchange, seen as its endpoint's platform; `nil`
    /// when none does or the endpoint takes no faults.
    private func decideFault<Endpoint: GatewayEndpoint>(
        for exchange: Endpoint.Exchange,
        of endpoint: Endpoint.Type,
        in context: PipelineContext
    ) -> FaultDecision? {
        guard let platform = Endpoint.faultPlatform, state.faults.isActive else { return nil }
        let subject = GatewayFaultSubject(
            request: exchange.request,
            platform: platform,
            facts: exchange.faultFacts,
            connectionID: context.connection.id
        )
        return state.faults.evaluate(subject, now: context.now)
    }

    /// Makes the record say a fault was injected, and what the client saw instead of an HTTP
    /// answer when it saw none.
    private static func annotate(_ record: inout ExchangeRecord, with fault: FaultDecision) {
        record.annotations["fault"] = fault.summary
        guard fault.action.effect == .noAnswer else { return }
        record.response.status = 0
        if case .goAway(let reason, _, _, _) = fault.action {
            record.response.reason = reason
        } else {
            record.response.reason = nil
        }
        record.response.headers = HTTPHeaderList()
        record.response.body = .none
    }

    /// Makes the record say which rules answered some recipients with error tickets (after the
    /// request's own fault, if one fired too).
    private static func annotate(_ record: inout ExchangeRecord, withRecipientFaults decisions: [FaultDecision]) {
        let summary = FaultDecision.summary(ofRecipients: decisions)
        record.annotations["fault"] = record.annotations["fault"].map { "\($0); \(summary)" } ?? summary
    }

    static func microseconds(since start: NIODeadline) -> Int64 {
        (NIODeadline.now() - start).nanoseconds / 1000
    }
}

extension Duration {
    /// The duration in whole microseconds.
    var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
