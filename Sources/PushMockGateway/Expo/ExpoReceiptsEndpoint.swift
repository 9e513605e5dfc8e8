import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// One `POST /--/api/v2/push/getReceipts` as the pipeline carries it.
struct ExpoReceiptsExchange: EndpointExchange {
    var request: HTTPRequestMessage
    var reply: HTTPReply?
    var status = 0
    var receivedCoding: HTTPContentCoding = .identity
    var parsed: Result<[ExpoReceiptID], ExpoRequestError>?
    var requestError: ExpoRequestError?
    /// The receipts answered (available, not expired), in request order.
    var receipts: [(id: ExpoReceiptID, receipt: ExpoReceipt)] = []
    var responseJSON: [UInt8] = []
    /// The error-receipt rules that fired, one per receipt they answered.
    var recipientFaults: [FaultDecision] = []

    var isAccepted: Bool { status == 200 }

    var faultFacts: FaultFacts { FaultFacts() }
}

/// The Expo push service's receipts endpoint: `POST /--/api/v2/push/getReceipts`.
struct ExpoReceiptsEndpoint: GatewayEndpoint {
    static let path = "/--/api/v2/push/getReceipts"

    let options: ExpoOptions
    let registry: ExpoRegistry
    let receipts: ExpoReceiptStore

    static var faultPlatform: Platform? { .expo }

    private var http: ExpoHTTP { ExpoHTTP(options: options) }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> ExpoReceiptsExchange {
        var exchange = ExpoReceiptsExchange(request: request)
        let maximumIDs = options.maximumReceiptIDs
        let parsed = http.parse(&exchange.request, coding: &exchange.receivedCoding) { body throws(ExpoRequestError) in
            try ExpoReceiptsRequestParser.parse(body: body, maximumIDs: maximumIDs)
        }
        exchange.parsed = parsed
        return exchange
    }

    /// A request error answers as such. An error-ticket rule (`ticketError`) is decided per
    /// receipt in the state step (`FaultAction.Scope.recipient`), never here.
    func answerInjected(_ action: FaultAction, _ exchange: inout ExpoReceiptsExchange, in context: PipelineContext) {
        guard case .expoError(.request(let code), let message, let status, let retryAfter) = action else { return }
        let error = http.injectedRequestError(code: code, message: message, status: status)
        fail(&exchange, error, retryAfter: retryAfter)
    }

    func validate(_ exchange: inout ExpoReceiptsExchange, in context: PipelineContext) {
        if case .failure(let error) = exchange.parsed { fail(&exchange, error) }
    }

    func applyState(_ exchange: inout ExpoReceiptsExchange, in context: PipelineContext) {
        guard case .success(let ids) = exchange.parsed else { return }
        let registry = self.registry
        exchange.receipts = receipts.receipts(for: ids, now: context.now) { entry in
            Self.outcome(of: entry, registry: registry)
        }
        // Error-receipt rules answer single receipts (matched on the receipt's token) for this
        // read only: the receipt's own outcome stays as decided, for the next read.
        var faults = RecipientFaults(exchange.request, platform: .expo, facts: exchange.faultFacts, in: context)
        var retryAfter: Int?
        for index in exchange.receipts.indices where faults.isActive {
            let id = exchange.receipts[index].id
            let token = receipts.entry(id.rawValue)?.token
            guard let fault = faults.decide(token: token?.rawValue ?? "", messageIndex: nil),
                case .expoError(.ticket(let code), let message, _, let faultRetryAfter) = fault.action
            else { continue }
            exchange.receipts[index].receipt = .error(injectedReceipt(code: code, message: message, token: token, now: context.now))
            retryAfter = retryAfter ?? faultRetryAfter
        }
        exchange.recipientFaults = faults.fired
        answer(&exchange, retryAfter: retryAfter)
        if let delay = faults.delay { exchange.reply?.delay = delay }
    }

    /// The error receipt an `expo-error` `ticketError` rule gives one receipt.
    private func injectedReceipt(code: String, message: String?, token: ExpoTokenID?, now: Timestamp) -> ExpoDeliveryError {
        let record = token.flatMap(registry.lookup)
        let project = record.flatMap { registry.project(named: $0.project) }
        return .named(
            ExpoErrorCode(rawValue: code),
            token: token?.rawValue ?? "",
            message: message,
            platform: record?.platform ?? .ios,
            project: (project?.name ?? record?.project)?.rawValue,
            bundleIdentifier: project?.bundleIdentifier,
            sentAt: now.secondsSince1970
        )
    }

    private func answer(_ exchange: inout ExpoReceiptsExchange, retryAfter: Int?) {
        let body = ExpoReceiptsResponse(receipts: exchange.receipts).body
        exchange.status = 200
        exchange.responseJSON = body
        exchange.reply = http.reply(status: 200, body: body, to: exchange.request, retryAfter: retryAfter)
    }

    /// What the relay to APNs/FCM reported, judged at the relay time (`availableAt`): an
    /// error decided at send time, the token's configured relay failure, `DeviceNotRegistered`
    /// when the token was unregistered by then, else ok.
    static func outcome(of entry: ExpoReceiptStore.Entry, registry: ExpoRegistry) -> ExpoReceipt {
        if let preset = entry.presetError { return .error(preset) }
        guard let record = registry.lookup(entry.token) else { return .ok }
        if !record.isActive(at: entry.availableAt) {
            return .error(.deviceNotRegistered(entry.token.rawValue))
        }
        if let failure = record.relayFailure, failure.stage == .receipt {
            let project = registry.project(named: record.project)
            return .error(
                .named(
                    ExpoErrorCode(rawValue: failure.error),
                    token: entry.token.rawValue,
                    message: failure.message,
                    platform: record.platform,
                    project: (project?.name ?? record.project).rawValue,
                    bundleIdentifier: project?.bundleIdentifier,
                    sentAt: entry.availableAt.secondsSince1970
                )
            )
        }
        return .ok
    }

    func record(
        _ exchange: ExpoReceiptsExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord
    ) -> Bool {
        record = ExchangeRecorder.expoReceiptsRecord(
            exchange,
            connection: context.connection,
            time: context.now,
            latencyMicroseconds: latencyMicroseconds
        )
        record.namespace = ExchangeRecorder.namespace(of: exchange.request, app: nil)
        return true
    }

    private func fail(_ exchange: inout ExpoReceiptsExchange, _ error: ExpoRequestError, retryAfter: Int? = nil) {
        let body = error.body(requestID: nil)
        exchange.requestError = error
        exchange.status = error.httpStatus
        exchange.responseJSON = body
        exchange.reply = http.reply(status: error.httpStatus, body: body, to: exchange.request, retryAfter: retryAfter)
    }
}

// MARK: Playback

extension ExpoReceiptsEndpoint {
    static var supportsPlayback: Bool { true }

    /// The recorded receipts, encoded as this request asks (gzip or not). A getReceipts that no
    /// recording matches (other ids, another order) is answered by the receipt store, where
    /// played-back tickets left their recorded outcomes.
    func playBack(_ answer: PlaybackBook.Answer, _ exchange: inout ExpoReceiptsExchange, in context: PipelineContext) -> HTTPReply {
        let retryAfter = answer.headers.first(named: "retry-after").flatMap { Int($0) }
        exchange.status = answer.status
        exchange.responseJSON = answer.body
        if answer.status == 200, let json = try? JSONValue(parsing: answer.body), let recorded = ExpoReceiptsResponse(json: json) {
            exchange.receipts = recorded.receipts
        }
        return http.reply(status: answer.status, body: answer.body, to: exchange.request, retryAfter: retryAfter)
    }

    func refuseUnmatchedPlayback(_ exchange: inout ExpoReceiptsExchange) -> HTTPReply {
        fail(&exchange, ExpoPlayback.unmatched)
        return exchange.reply ?? .respond(GatewayConnection.unmatchedResponse(platform: .expo))
    }
}
