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

    /// A request error answers as such; an error-ticket fault (`ticketError`) turns every
    /// receipt that is ready into that error (receipt errors on demand), the others stay absent.
    func answerInjected(_ action: FaultAction, _ exchange: inout ExpoReceiptsExchange, in context: PipelineContext) {
        guard case .expoError(let kind, let message, let status, let retryAfter) = action else { return }
        switch kind {
        case .request(let code):
            let error = http.injectedRequestError(code: code, message: message, status: status)
            fail(&exchange, error, retryAfter: retryAfter)
        case .ticket(let code):
            guard case .success(let ids) = exchange.parsed else {
                if case .failure(let error) = exchange.parsed { fail(&exchange, error) }
                return
            }
            let registry = self.registry
            let ready = receipts.receipts(for: ids, now: context.now) { Self.outcome(of: $0, registry: registry) }
            exchange.receipts = ready.map { entry in
                let token = receipts.entry(entry.id.rawValue)?.token
                let record = token.flatMap(registry.lookup)
                let project = record.flatMap { registry.project(named: $0.project) }
                let error = ExpoDeliveryError.named(
                    ExpoErrorCode(rawValue: code),
                    token: token?.rawValue ?? "",
                    message: message,
                    platform: record?.platform ?? .ios,
                    project: (project?.name ?? record?.project)?.rawValue,
                    bundleIdentifier: project?.bundleIdentifier,
                    sentAt: context.now.secondsSince1970
                )
                return (entry.id, .error(error))
            }
            answer(&exchange, retryAfter: retryAfter)
        }
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
        answer(&exchange, retryAfter: nil)
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
