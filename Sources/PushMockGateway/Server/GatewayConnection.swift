import Logging
import NIOCore
import PushMockCore
import PushMockRecording
import PushMockSimulation
import PushMockTransport

/// The responder of one connection: routes each request, answers it, records it, and makes the
/// records durable before any answer of the batch goes out. Runs on the connection's event loop.
final class GatewayConnection: HTTPConnectionResponder {
    private let context: GatewayConnectionContext
    private let state: GatewayState
    private let apns: APNsService
    private let fcm: FCMService
    private let oauth: OAuthService
    private let iid: IIDService
    private let controlAPI: ControlAPI
    private let recorder: ExchangeRecorder
    private let intake: DeliveryIntake?
    private let linting: NotificationLinting?
    private let eventLoop: any EventLoop
    private let logger: Logger

    init(
        context: GatewayConnectionContext,
        state: GatewayState,
        controlAPI: ControlAPI,
        eventLoop: any EventLoop,
        logger: Logger
    ) {
        self.context = context
        self.state = state
        self.apns = APNsService(options: state.apnsOptions, keys: state.apnsKeys, devices: state.devices)
        self.fcm = FCMService(options: state.fcmOptions, tokens: state.accessTokens, registry: state.fcmTokens)
        self.oauth = OAuthService(options: state.fcmOptions, accounts: state.serviceAccounts, tokens: state.accessTokens)
        self.iid = IIDService(options: state.fcmOptions, tokens: state.accessTokens, registry: state.fcmTokens)
        self.controlAPI = controlAPI
        self.recorder = ExchangeRecorder(store: state.recordings, journal: state.journal)
        self.intake = state.simulationOptions.simulateDevices
            ? DeliveryIntake(options: state.simulationOptions, fcmTokens: state.fcmTokens)
            : nil
        self.linting = state.simulationOptions.lint.map { NotificationLinting(configuration: $0, fcmTokens: state.fcmTokens) }
        self.eventLoop = eventLoop
        self.logger = logger
    }

    func respond(to requests: [HTTPRequestMessage]) -> HTTPReplyBatch {
        let now = state.clock.now()
        var replies: [HTTPReply] = []
        replies.reserveCapacity(requests.count)
        var records: [ExchangeRecord] = []
        records.reserveCapacity(requests.count)
        // Accepted notifications, with the index of their record (for its sequence number).
        var deliveries: [(record: Int, delivery: DeliveryIntake.Delivery)] = []
        var waiting: [(index: Int, reply: EventLoopFuture<HTTPReply>)] = []
        for request in requests {
            let started = ContinuousClock.now
            switch GatewayRoute(request) {
            case .control:
                switch controlAPI.handle(request) {
                case .now(let reply):
                    replies.append(reply)
                case .later(let compute):
                    // A waiting control request (long poll, expectation with `within`): the
                    // batch's answers go out together once it is done.
                    waiting.append((replies.count, eventLoop.makeFutureWithTask { await compute() }))
                    replies.append(HTTPReply(.noResponse))
                }
            case .apnsDevice:
                var outcome = apns.handle(request, connection: context, now: now)
                var playbackMissed = false
                if let playback = state.playback {
                    let decision = played(request, by: playback, serviceStatus: outcome.status)
                    let answered = answer(decision, replies: &replies, records: &records) {
                        apnsRecord(request, outcome, time: now, started: started)
                    }
                    if answered { continue }
                    playbackMissed = decision.fallsThroughUnmatched
                }
                let fault = evaluateFault(request, platform: "apns", environment: outcome.environment.name, now: now)
                if let fault {
                    if fault.action.type == .apnsError {
                        apns.applyFaultError(
                            reason: fault.action.reason ?? "InternalServerError",
                            status: fault.action.status,
                            timestamp: fault.action.timestamp,
                            outcome: &outcome,
                            connection: context,
                            now: now
                        )
                    }
                    Self.apply(fault, to: &outcome.reply)
                }
                replies.append(outcome.reply)
                if let intake, Self.reachesDevice(fault), let delivery = intake.apns(request, outcome: outcome, now: now) {
                    deliveries.append((records.count, delivery))
                }
                var record = apnsRecord(request, outcome, time: now, started: started)
                Self.annotate(&record, with: fault)
                if playbackMissed { record.annotations["playback"] = "unmatched" }
                if let linting, Self.reachesDevice(fault) {
                    record.notification?.lint = linting.apns(request, outcome: outcome, now: now)
                }
                records.append(record)
            case .fcm:
                var outcome = fcm.handle(request, now: now, random: &context.random)
                var playbackMissed = false
                if let playback = state.playback {
                    let decision = played(request, by: playback, serviceStatus: outcome.status)
                    let answered = answer(decision, replies: &replies, records: &records) {
                        fcmRecord(request, outcome, time: now, started: started)
                    }
                    if answered { continue }
                    playbackMissed = decision.fallsThroughUnmatched
                }
                let fault = evaluateFault(request, platform: "fcm", environment: nil, now: now)
                if let fault {
                    if fault.action.type == .fcmError {
                        let error = FaultReplies.fcmError(fault.action)
                        outcome.error = error
                        outcome.status = error.httpStatus
                        outcome.messageName = nil
                        outcome.reply.action = .respond(
                            HTTPResponseMessage(
                                status: error.httpStatus,
                                headers: FCMService.responseHeaders(for: error),
                                body: error.body(prettyPrinted: state.fcmOptions.prettyPrintErrors)
                            )
                        )
                    }
                    Self.apply(fault, to: &outcome.reply)
                }
                replies.append(outcome.reply)
                if let intake, Self.reachesDevice(fault) {
                    for delivery in intake.fcm(outcome, now: now) {
                        deliveries.append((records.count, delivery))
                    }
                }
                var record = fcmRecord(request, outcome, time: now, started: started)
                Self.annotate(&record, with: fault)
                if playbackMissed { record.annotations["playback"] = "unmatched" }
                if let linting, Self.reachesDevice(fault) {
                    record.notification?.lint = linting.fcm(outcome, now: now)
                }
                records.append(record)
            case .oauth:
                // A fault here answers instead of the endpoint: no token is issued.
                let fault = evaluateFault(request, platform: "oauth", environment: nil, now: now)
                var outcome: OAuthService.Outcome
                if let fault, fault.action.type != .pass, fault.action.type != .settings {
                    let response = fault.action.type == .oauthError ? FaultReplies.oauthError(fault.action) : HTTPResponseMessage(status: 0)
                    outcome = OAuthService.Outcome(reply: .respond(response), status: response.status, error: fault.action.error)
                } else {
                    outcome = oauth.handle(request, now: now)
                }
                if let fault { Self.apply(fault, to: &outcome.reply) }
                replies.append(outcome.reply)
                var record = ExchangeRecorder.oauthRecord(
                    request: request,
                    outcome: outcome,
                    connection: context,
                    time: now,
                    latencyMicroseconds: Self.microseconds(since: started)
                )
                Self.annotate(&record, with: fault)
                records.append(record)
            case .iid:
                // A fault here answers instead of the endpoint: subscriptions do not change.
                let fault = evaluateFault(request, platform: "iid", environment: nil, now: now)
                var outcome: IIDService.Outcome
                if let fault, fault.action.type != .pass, fault.action.type != .settings {
                    let response = fault.action.type == .iidError ? FaultReplies.iidError(fault.action) : HTTPResponseMessage(status: 0)
                    outcome = IIDService.Outcome(reply: .respond(response), status: response.status, error: fault.action.error)
                } else {
                    outcome = iid.handle(request, now: now)
                }
                if let fault { Self.apply(fault, to: &outcome.reply) }
                replies.append(outcome.reply)
                var record = ExchangeRecorder.iidRecord(
                    request: request,
                    outcome: outcome,
                    connection: context,
                    time: now,
                    latencyMicroseconds: Self.microseconds(since: started)
                )
                Self.annotate(&record, with: fault)
                records.append(record)
            case .unknown:
                let outcome = apns.handleUnknownPath(request, connection: context)
                replies.append(outcome.reply)
                records.append(
                    ExchangeRecorder.apnsRecord(
                        request: request,
                        outcome: outcome,
                        connection: context,
                        time: now,
                        latencyMicroseconds: Self.microseconds(since: started)
                    )
                )
            }
        }
        let batch = commitAndReply(replies, records: &records, deliveries: deliveries, now: now)
        guard !waiting.isEmpty else { return batch }
        let ready: EventLoopFuture<[HTTPReply]>
        switch batch {
        case .immediate(let answers): ready = eventLoop.makeSucceededFuture(answers)
        case .deferred(let future): ready = future
        }
        let eventLoop = self.eventLoop
        let lateReplies = waiting.map(\.reply)
        let lateSlots = waiting.map(\.index)
        return .deferred(
            ready.flatMap { answers in
                EventLoopFuture.whenAllSucceed(lateReplies, on: eventLoop).map { late in
                    var answers = answers
                    for (slot, reply) in zip(lateSlots, late) {
                        answers[slot] = reply
                    }
                    return answers
                }
            }
        )
    }

    /// Records the batch (journal first), hands accepted notifications to the devices, and
    /// returns the replies — at once, or once the journal is durable.
    private func commitAndReply(
        _ replies: [HTTPReply],
        records: inout [ExchangeRecord],
        deliveries: [(record: Int, delivery: DeliveryIntake.Delivery)],
        now: Timestamp
    ) -> HTTPReplyBatch {
        guard !records.isEmpty else { return .immediate(replies) }

        let commit = recorder.commit(&records, eventLoop: eventLoop)
        // The devices get what the service accepted once it is recorded (never what a failed
        // journal write turned into a 500), and before the client hears the answer.
        let accepted = deliveries.map { entry -> DeliveryIntake.Delivery in
            var delivery = entry.delivery
            delivery.notification.sequence = records[entry.record].sequence
            return delivery
        }
        switch commit {
        case .done:
            state.simulatedDevices.receive(accepted, now: now)
            return .immediate(replies)
        case .pending(let durable):
            let logger = self.logger
            let fallback = Self.internalErrorReplies(for: replies)
            let answered = replies
            let devices = state.simulatedDevices
            return .deferred(
                durable.map {
                    devices.receive(accepted, now: now)
                    return answered
                }.recover { error in
                    logger.error("journal write failed; answering 500", metadata: ["error": "\(error)"])
                    return fallback
                }
            )
        case .failed(let error):
            logger.error("journal write failed; answering 500", metadata: ["error": "\(error)"])
            return .immediate(Self.internalErrorReplies(for: replies))
        }
    }

    func connectionClosed() {}

    // MARK: Faults

    private func evaluateFault(_ request: HTTPRequestMessage, platform: String, environment: String?, now: Timestamp) -> FaultDecision? {
        guard state.faults.isActive else { return nil }
        let subject = GatewayFaultSubject(request: request, platform: platform, environment: environment, connectionID: context.id)
        return state.faults.evaluate(subject, now: now)
    }

    /// Applies the connection-level part of a fault (RST_STREAM, GOAWAY, close, no answer),
    /// SETTINGS, and the delay. Error answers were already put in place by the caller.
    private static func apply(_ fault: FaultDecision, to reply: inout HTTPReply) {
        if let action = FaultReplies.connectionLevel(fault.action) {
            reply.action = action
        }
        if fault.action.type == .settings, let streams = fault.action.maxConcurrentStreams {
            reply.settings.append(.maxConcurrentStreams(streams))
        }
        if let delay = fault.delay {
            reply.delay = (reply.delay ?? .zero) + delay
        }
    }

    /// The namespace a record belongs to, for isolating parallel test runs: the
    /// `x-pushmock-namespace` request header when the sender adds one, else the app (APNs
    /// bundle ID, FCM project).
    static func namespace(of request: HTTPRequestMessage, app: String?) -> String? {
        if let index = request.headers.firstIndex(of: HTTPFieldName("x-pushmock-namespace")) {
            return request.headers.value(at: index)
        }
        return app
    }

    /// Whether a notification the service accepted still reaches the device: not when a fault
    /// replaced the answer with an error, or the client never got one (reset, GOAWAY, close,
    /// no answer — the sender must assume it was lost).
    private static func reachesDevice(_ fault: FaultDecision?) -> Bool {
        guard let fault else { return true }
        return fault.action.type == .pass || fault.action.type == .settings
    }

    private static func annotate(_ record: inout ExchangeRecord, with fault: FaultDecision?) {
        guard let fault else { return }
        record.annotations["fault"] = fault.summary
        switch fault.action.type {
        case .reset, .goaway, .close, .hang:
            // The answer the client saw was not an HTTP response.
            record.response.status = 0
            record.response.reason = fault.action.type == .goaway ? fault.action.reason : nil
            record.response.headers = HTTPHeaderList()
            record.response.body = .none
        default:
            break
        }
    }

    /// When an exchange cannot be made durable, the client must not believe it succeeded.
    private static func internalErrorReplies(for replies: [HTTPReply]) -> [HTTPReply] {
        replies.map { _ in
            let error = APNsError(.internalServerError)
            var headers = HTTPHeaderList()
            headers.append(name: "content-type", value: "application/json")
            return HTTPReply(.respond(HTTPResponseMessage(status: error.status, headers: headers, body: error.body)))
        }
    }

    /// The record of an APNs send, in its namespace (the header's, else the app's bundle ID).
    private func apnsRecord(_ request: HTTPRequestMessage, _ outcome: APNsOutcome, time: Timestamp, started: ContinuousClock.Instant) -> ExchangeRecord {
        var record = ExchangeRecorder.apnsRecord(
            request: request,
            outcome: outcome,
            connection: context,
            time: time,
            latencyMicroseconds: Self.microseconds(since: started)
        )
        record.namespace = Self.namespace(of: request, app: outcome.topic.map { outcome.pushType?.bundleID(fromTopic: $0) ?? $0 })
        return record
    }

    /// The record of an FCM send, in its namespace (the header's, else the project).
    private func fcmRecord(_ request: HTTPRequestMessage, _ outcome: FCMService.Outcome, time: Timestamp, started: ContinuousClock.Instant) -> ExchangeRecord {
        var record = ExchangeRecorder.fcmRecord(
            request: request,
            outcome: outcome,
            connection: context,
            time: time,
            latencyMicroseconds: Self.microseconds(since: started)
        )
        record.namespace = Self.namespace(of: request, app: outcome.project)
        return record
    }

    private static func microseconds(since start: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}

/// Where a request goes, by path. All services share one port, as they share a process.
enum GatewayRoute {
    /// `/_pushmock/…`: the control API (not recorded).
    case control
    /// `/3/device/…`: the APNs provider API.
    case apnsDevice
    /// `/v1/projects/…`, `/projects/…`, and the retired legacy `/fcm/send` and `/batch`: FCM.
    case fcm
    /// `/token`, `/oauth2/v4/token`: Google's OAuth2 token endpoint.
    case oauth
    /// `/iid/…`: the Instance ID topic API.
    case iid
    /// Anything else: APNs answers 404 BadPath (Google hosts get Google's 404).
    case unknown

    static let controlPrefix = "/_pushmock/"

    init(_ request: HTTPRequestMessage) {
        let path = request.pathWithoutQuery
        if path.hasPrefix("/3/device") {
            self = .apnsDevice
        } else if path.hasPrefix("/v1/") || path.hasPrefix("/projects/") || path == "/fcm/send" || path == "/batch" {
            self = .fcm
        } else if path == "/token" || path == "/oauth2/v4/token" {
            self = .oauth
        } else if path.hasPrefix("/iid/") {
            self = .iid
        } else if path.hasPrefix(Self.controlPrefix) || path == "/_pushmock" {
            self = .control
        } else if let authority = request.authority, Self.isGoogleHost(authority) {
            self = .fcm
        } else {
            self = .unknown
        }
    }

    static func isGoogleHost(_ authority: String) -> Bool {
        let host = authority.split(separator: ":").first.map(String.init)?.lowercased() ?? ""
        return host.hasSuffix(".googleapis.com")
    }
}
