import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// One `POST /--/api/v2/push/send` as the pipeline carries it.
struct ExpoSendExchange: EndpointExchange {
    /// The request, its body decoded from its `Content-Encoding` (what the records and fault
    /// payload predicates read); ``receivedCoding`` says how it arrived.
    var request: HTTPRequestMessage
    var reply: HTTPReply?
    var status = 0
    var receivedCoding: HTTPContentCoding = .identity
    /// The validated request, or the request error the service answers for it (after the
    /// access-token check, which needs the request's project).
    var parsed: Result<ExpoSendRequest, ExpoRequestError>?
    var requestError: ExpoRequestError?
    /// One ticket per recipient, in order, once issued.
    var tickets: [ExpoTicket] = []
    /// The uncompressed answer, for the record.
    var responseJSON: [UInt8] = []
    /// Indexes of the entries whose ticket is ok and whose message goes on to the device.
    var relayed: [Int] = []
    /// The registry's platform of each relayed entry.
    var platforms: [Int: ExpoTokenRecord.Platform] = [:]
    /// The error-ticket rules that fired, one per recipient they answered.
    var recipientFaults: [FaultDecision] = []

    var send: ExpoSendRequest? {
        if case .success(let send) = parsed { return send }
        return nil
    }

    var isAccepted: Bool { status == 200 }

    var faultFacts: FaultFacts {
        FaultFacts(token: send?.entries.first?.message.to, tokens: send?.entries.map(\.message.to), project: send?.project)
    }
}

/// The Expo push service's send endpoint: `POST /--/api/v2/push/send`.
struct ExpoSendEndpoint: GatewayEndpoint {
    static let path = "/--/api/v2/push/send"

    let options: ExpoOptions
    let registry: ExpoRegistry
    let receipts: ExpoReceiptStore
    let rate: ExpoRateLimiter
    let intake: DeliveryIntake?
    let linting: NotificationLinting?

    static var faultPlatform: Platform? { .expo }

    private var http: ExpoHTTP { ExpoHTTP(options: options) }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> ExpoSendExchange {
        var exchange = ExpoSendExchange(request: request)
        let registry = self.registry
        let validation = options.validation
        let parsed = http.parse(&exchange.request, coding: &exchange.receivedCoding) { body throws(ExpoRequestError) in
            try ExpoPushRequestParser.parse(body: body, options: validation) { token in
                registry.project(ofToken: ExpoTokenID(token.rawValue))?.rawValue
            }
        }
        exchange.parsed = parsed
        return exchange
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout ExpoSendExchange, in context: PipelineContext) {
        guard case .expoError(let kind, let message, let status, let retryAfter) = action else { return }
        switch kind {
        case .request(let code):
            let error = http.injectedRequestError(code: code, message: message, status: status)
            fail(&exchange, error, retryAfter: retryAfter)
        case .ticket:
            // Decided per recipient in the state step (`FaultAction.Scope.recipient`): the
            // engine never hands an error-ticket rule to a whole request.
            break
        }
    }

    /// The error ticket an `expo-error` `ticketError` rule gives one recipient.
    private func injectedTicket(code: String, message: String?, for entry: ExpoSendRequest.Entry, of send: ExpoSendRequest)
        -> ExpoTicket
    {
        let record = registry.lookup(ExpoTokenID(entry.message.to))
        let project = send.project.flatMap { registry.project(named: ExpoProjectName($0)) }
        return .error(
            ExpoDeliveryError.named(
                ExpoErrorCode(rawValue: code),
                token: entry.message.to,
                message: message,
                platform: record?.platform ?? .ios,
                project: send.project,
                bundleIdentifier: project?.bundleIdentifier,
                sentAt: nil,
                payloadSize: entry.payloadSize,
                payloadLimit: options.validation.maximumPayloadBytes
            )
        )
    }

    /// Enhanced push security: a project that requires an access token refuses requests
    /// without one of its tokens.
    func authenticate(_ exchange: inout ExpoSendExchange, in context: PipelineContext) {
        guard options.authentication == .required, let name = exchange.send?.project,
            let project = registry.project(named: ExpoProjectName(name)),
            project.requiresAccessToken
        else {
            return
        }
        guard let token = ExpoHTTP.bearerToken(in: exchange.request), project.accessTokens.contains(token) else {
            return fail(&exchange, .unauthorized)
        }
    }

    func validate(_ exchange: inout ExpoSendExchange, in context: PipelineContext) {
        if case .failure(let error) = exchange.parsed { fail(&exchange, error) }
    }

    func applyState(_ exchange: inout ExpoSendExchange, in context: PipelineContext) {
        guard let send = exchange.send else { return }
        let now = context.now
        let limit = options.notificationsPerSecondPerProject
        guard rate.admit(send.entries.count, project: send.project ?? "", limit: limit, now: now) else {
            return fail(&exchange, .tooManyRequests(limitPerSecond: limit))
        }
        var tickets: [ExpoTicket] = []
        tickets.reserveCapacity(send.entries.count)
        var issued: [(id: ExpoReceiptID, entry: ExpoReceiptStore.Entry)] = []
        // Error-ticket rules fail single recipients, as Expo fails one push token of a batch
        // and not the batch: each recipient with a valid message is matched and counted.
        var faults = RecipientFaults(exchange.request, platform: .expo, facts: exchange.faultFacts, in: context)
        var retryAfter: Int?
        for (index, entry) in send.entries.enumerated() {
            let token = entry.message.to
            if let error = entry.ticketError {
                tickets.append(.error(error))
                continue
            }
            if let fault = faults.decide(token: token, messageIndex: entry.message.messageIndex),
                case .expoError(.ticket(let code), let message, _, let faultRetryAfter) = fault.action
            {
                tickets.append(injectedTicket(code: code, message: message, for: entry, of: send))
                retryAfter = retryAfter ?? faultRetryAfter
                continue
            }
            let record = registry.lookup(ExpoTokenID(token))
            if let error = ticketError(for: token, record: record, entry: entry, send: send, now: now) {
                tickets.append(.error(error))
                continue
            }
            let id = ExpoReceiptID(context.connection.makeUUID())
            tickets.append(.ok(id))
            issued.append(
                (
                    id,
                    ExpoReceiptStore.Entry(
                        token: ExpoTokenID(token),
                        project: send.project.map(ExpoProjectName.init),
                        issuedAt: now,
                        availableAt: now + options.receiptDelay,
                        expiresAt: now + options.receiptLifetime,
                        presetError: entry.receiptError
                    )
                ))
            if entry.receiptError == nil {
                exchange.relayed.append(index)
                exchange.platforms[index] = record?.platform ?? .ios
            }
        }
        receipts.issue(issued, now: now)
        exchange.tickets = tickets
        exchange.recipientFaults = faults.fired
        answer(&exchange, send: send, retryAfter: retryAfter)
        if let delay = faults.delay { exchange.reply?.delay = delay }
    }

    /// The error ticket a recipient gets from the registry, or `nil` when the message is
    /// accepted (then counted against the token's lifecycle).
    private func ticketError(
        for token: String,
        record: ExpoTokenRecord?,
        entry: ExpoSendRequest.Entry,
        send: ExpoSendRequest,
        now: Timestamp
    ) -> ExpoDeliveryError? {
        guard let record else {
            return options.rejectUnknownTokens ? .deviceNotRegistered(token) : nil
        }
        guard record.isActive(at: now) else { return .deviceNotRegistered(token) }
        if let failure = record.relayFailure, failure.stage == .ticket {
            let project = registry.project(named: record.project)
            return .named(
                ExpoErrorCode(rawValue: failure.error),
                token: token,
                message: failure.message,
                platform: record.platform,
                project: (project?.name ?? record.project).rawValue,
                bundleIdentifier: project?.bundleIdentifier,
                sentAt: nil,
                payloadSize: entry.payloadSize,
                payloadLimit: options.validation.maximumPayloadBytes
            )
        }
        // Counted last, so only an accepted message uses up one of the token's sends.
        guard registry.admitSend(to: ExpoTokenID(token), now: now) else { return .deviceNotRegistered(token) }
        return nil
    }

    func appendDeliveries(of exchange: ExpoSendExchange, in context: PipelineContext, to deliveries: inout [DeliveryIntake.Delivery]) {
        if let intake { deliveries += intake.expo(exchange, now: context.now) }
    }

    func lint(_ exchange: ExpoSendExchange, in context: PipelineContext) -> [LintNote] {
        linting?.expo(exchange, now: context.now) ?? []
    }

    func record(_ exchange: ExpoSendExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord)
        -> Bool
    {
        record = ExchangeRecorder.expoSendRecord(
            exchange,
            connection: context.connection,
            time: context.now,
            latencyMicroseconds: latencyMicroseconds
        )
        record.namespace = ExchangeRecorder.namespace(of: exchange.request, app: exchange.send?.project)
        return true
    }

    private func answer(_ exchange: inout ExpoSendExchange, send: ExpoSendRequest, retryAfter: Int?) {
        let body = ExpoTicketResponse(tickets: exchange.tickets, shape: send.shape).body
        exchange.status = 200
        exchange.responseJSON = body
        exchange.reply = http.reply(status: 200, body: body, to: exchange.request, retryAfter: retryAfter)
    }

    private func fail(_ exchange: inout ExpoSendExchange, _ error: ExpoRequestError, retryAfter: Int? = nil) {
        let body = error.body(requestID: nil)
        exchange.requestError = error
        exchange.status = error.httpStatus
        exchange.tickets = []
        exchange.relayed = []
        exchange.responseJSON = body
        exchange.reply = http.reply(status: error.httpStatus, body: body, to: exchange.request, retryAfter: retryAfter)
    }
}

// MARK: Playback

/// What `serve --playback` means for the Expo push API (docs/replay.md).
enum ExpoPlayback {
    /// The request-error code of a request no recording matches (`--playback-unmatched reject`).
    static let unmatchedCode = "PLAYBACK_UNMATCHED"
    /// 404 with our own code (Expo has no such error; the status says "nothing here").
    static let unmatched = ExpoRequestError(
        code: ExpoRequestErrorCode(rawValue: unmatchedCode),
        message: "No recorded exchange matches this request (pushmock playback).",
        httpStatus: 404
    )
}

extension ExpoSendEndpoint {
    static var supportsPlayback: Bool { true }

    /// The recorded tickets, encoded as this request asks (gzip or not). Their receipt ids are
    /// issued in the receipt store as a real send would, carrying the outcome the journal
    /// recorded for each (when it has one), so a getReceipts that no recording matches still
    /// gets the recorded receipts once the delay has passed.
    func playBack(_ answer: PlaybackBook.Answer, _ exchange: inout ExpoSendExchange, in context: PipelineContext) -> HTTPReply {
        let retryAfter = answer.headers.first(named: "retry-after").flatMap { Int($0) }
        exchange.status = answer.status
        exchange.responseJSON = answer.body
        if answer.status == 200, let send = exchange.send, let json = try? JSONValue(parsing: answer.body),
            let recorded = ExpoTicketResponse(json: json)
        {
            exchange.tickets = recorded.tickets
            let now = context.now
            let book = context.state.playback
            var issued: [(id: ExpoReceiptID, entry: ExpoReceiptStore.Entry)] = []
            for (index, ticket) in recorded.tickets.enumerated() where index < send.entries.count {
                guard case .ok(let id) = ticket else { continue }
                exchange.relayed.append(index)
                issued.append(
                    (
                        id,
                        ExpoReceiptStore.Entry(
                            token: ExpoTokenID(send.entries[index].message.to),
                            project: send.project.map(ExpoProjectName.init),
                            issuedAt: now,
                            availableAt: now + options.receiptDelay,
                            expiresAt: now + options.receiptLifetime,
                            presetError: book?.expoReceipts[id.rawValue]?.error
                        )
                    ))
            }
            receipts.issue(issued, now: now)
        }
        return http.reply(status: answer.status, body: answer.body, to: exchange.request, retryAfter: retryAfter)
    }

    func refuseUnmatchedPlayback(_ exchange: inout ExpoSendExchange) -> HTTPReply {
        fail(&exchange, ExpoPlayback.unmatched)
        return exchange.reply ?? .respond(GatewayConnection.unmatchedResponse(platform: .expo))
    }
}
