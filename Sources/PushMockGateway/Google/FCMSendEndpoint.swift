import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// One FCM `messages:send` as the pipeline carries it.
struct FCMSendExchange: EndpointExchange {
    var request: HTTPRequestMessage
    var reply: HTTPReply?
    var status = 0
    var error: FCMError?
    /// `projects/{project}` of the path.
    var project: FCMProjectID?
    /// The body, parsed once: the typed request or the error FCM gives for it (answered only
    /// after authentication, as Google's front end checks the credential first).
    var body: Result<FCMSendRequest, FCMError>?
    /// The body as JSON, when it parsed (fault rules with payload predicates read it).
    var json: JSONValue?
    var grant: AccessTokenGrant?
    var messageName: String?
    var resolvedTokens: [FCMRegistrationToken] = []

    /// The validated request, when the body passed validation.
    var send: FCMSendRequest? {
        if case .success(let send) = body { return send }
        return nil
    }

    var isAccepted: Bool { status == 200 }

    var faultFacts: FaultFacts {
        var facts = FaultFacts(project: project?.rawValue, payload: json.map { PayloadView(bytes: request.body, json: $0) })
        switch send?.message.target {
        case .token(let token), .fid(let token): facts.token = token
        case .topic(let topic): facts.topic = topic
        case .condition, .none: break
        }
        return facts
    }
}

/// FCM HTTP v1: `POST /v1/projects/{project}/messages:send` (also without `/v1`, as Go's
/// `option.WithEndpoint` produces), with every row of table C3 of the wire reference.
struct FCMSendEndpoint: GatewayEndpoint {
    let options: FCMOptions
    let tokens: AccessTokenStore
    let registry: FCMRegistry
    let intake: DeliveryIntake?
    let linting: NotificationLinting?

    static var faultPlatform: Platform? { .fcm }
    static var supportsPlayback: Bool { true }

    /// `projects/{project}/messages:send` with or without the `/v1` prefix; `nil` otherwise.
    static func project(inPath path: Substring) -> String? {
        var rest = path
        if rest.hasPrefix("/v1/") { rest = rest.dropFirst(3) }
        guard rest.hasPrefix("/projects/"), rest.hasSuffix("/messages:send") else { return nil }
        let project = rest.dropFirst("/projects/".count).dropLast("/messages:send".count)
        guard !project.isEmpty, !project.contains("/") else { return nil }
        return String(project)
    }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> FCMSendExchange {
        var exchange = FCMSendExchange(request: copy request)
        guard let project = Self.project(inPath: request.pathWithoutQuery) else {
            fail(&exchange, FCMError.notFound(path: String(request.pathWithoutQuery)))
            return exchange
        }
        exchange.project = FCMProjectID(project)
        guard request.method == "POST" else {
            fail(&exchange, FCMError.notFound(path: String(request.pathWithoutQuery)))
            return exchange
        }
        if request.isBodyTruncated {
            // Refused, never parsed from a prefix: Google's API front end answers an oversized
            // body with this INVALID_ARGUMENT before looking at it.
            fail(
                &exchange,
                FCMError(status: .invalidArgument, message: "Request payload size exceeds the limit: \(request.body.count) bytes."))
            return exchange
        }
        guard decodeContentCoding(&exchange) else { return exchange }
        if let root = try? JSONValue(parsing: exchange.request.body, maxDepth: FCMMessageValidator.maximumJSONDepth) {
            exchange.json = root
            exchange.body = FCMMessageValidator.validate(json: root)
        } else {
            // Empty bodies read as `{}`; anything else gets the parser's own message.
            exchange.body = FCMMessageValidator.validate(body: exchange.request.body)
        }
        return exchange
    }

    /// The largest body a compressed request may decode to: the transport's cap on stored
    /// bodies, which uncompressed requests meet first.
    static let maximumDecodedBodyBytes = 1 << 20

    /// Google's API front end reads `Content-Encoding: gzip` (and deflate) request bodies: the
    /// .NET client libraries gzip every body by default. The recording keeps the decoded body.
    /// An undecodable body or an unknown coding is INVALID_ARGUMENT (UNVERIFIED wording).
    private func decodeContentCoding(_ exchange: inout FCMSendExchange) -> Bool {
        let header = exchange.request.headers.values(named: "content-encoding").last ?? ""
        guard let coding = HTTPContentCoding(headerValue: header) else {
            fail(&exchange, FCMError(status: .invalidArgument, message: "Unsupported Content-Encoding: \(header)"))
            return false
        }
        guard coding != .identity else { return true }
        do {
            let decoded = try coding.decode(exchange.request.body, limit: Self.maximumDecodedBodyBytes)
            exchange.request.bodyByteCount = decoded.count
            exchange.request.body = decoded
            return true
        } catch .tooLarge(let limit) {
            fail(&exchange, FCMError(status: .invalidArgument, message: "Request payload size exceeds the limit: \(limit) bytes."))
        } catch {
            fail(&exchange, FCMError(status: .invalidArgument, message: "The request body could not be decoded as \(coding) content."))
        }
        return false
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout FCMSendExchange, in context: PipelineContext) {
        guard case .fcmError(let code, let retryAfter, let message) = action else { return }
        fail(&exchange, FaultReplies.fcmError(code: code, retryAfter: retryAfter, message: message))
    }

    func authenticate(_ exchange: inout FCMSendExchange, in context: PipelineContext) {
        guard let project = exchange.project, options.authentication == .required else { return }
        guard GoogleBearer.hasCredential(exchange.request) else {
            return fail(&exchange, .missingCredential())
        }
        guard let token = GoogleBearer.token(in: exchange.request), let grant = tokens.validGrant(token, now: context.now) else {
            return fail(&exchange, .invalidCredential())
        }
        exchange.grant = grant
        guard grant.allowsFCM else {
            return fail(&exchange, .insufficientScopes())
        }
        guard grant.owns(project: project) else {
            return fail(&exchange, .permissionDenied(project: project.rawValue))
        }
    }

    func validate(_ exchange: inout FCMSendExchange, in context: PipelineContext) {
        guard let project = exchange.project else { return }
        let send: FCMSendRequest
        switch exchange.body {
        case .success(let validated): send = validated
        case .failure(let error): return fail(&exchange, error)
        case .none: return
        }
        switch send.message.target {
        case .token(let registrationToken), .fid(let registrationToken):
            if let error = checkToken(registrationToken, project: project, validateOnly: send.validateOnly, now: context.now) {
                return fail(&exchange, error)
            }
        case .topic, .condition:
            break
        }
    }

    func applyState(_ exchange: inout FCMSendExchange, in context: PipelineContext) {
        guard let project = exchange.project, let send = exchange.send else { return }
        let now = context.now
        switch send.message.target {
        case .token(let registrationToken), .fid(let registrationToken):
            // Counted last, so only a message FCM accepts uses up one of the token's sends.
            if !send.validateOnly, !registry.admitSend(to: FCMRegistrationToken(registrationToken), now: now) {
                return fail(&exchange, .unregistered())
            }
            exchange.resolvedTokens = [FCMRegistrationToken(registrationToken)]
        case .topic(let topic):
            exchange.resolvedTokens = registry.activeTokens(project: project, now: now) { $0.contains(topic) }
        case .condition(let condition):
            exchange.resolvedTokens = registry.activeTokens(project: project, now: now) { condition.evaluate(subscribedTopics: $0) }
        }
        if !send.validateOnly, send.message.target.isFanOut {
            exchange.resolvedTokens = exchange.resolvedTokens.filter { registry.admitSend(to: $0, now: now) }
        }

        let name: String
        if send.validateOnly {
            name = "projects/\(project)/messages/fake_message_id"
        } else {
            // Like FCM's ids: "0:<microseconds>%<8 hex digits twice>".
            let random = context.connection.nextRandom()
            let hex = String(UInt32(truncatingIfNeeded: random), radix: 16)
            let padded = String(repeating: "0", count: 8 - hex.count) + hex
            name =
                "projects/\(project)/messages/0:\(now.millisecondsSince1970 * 1000 + Int64(context.connection.nextRandom() % 1000))%\(padded)\(padded)"
        }
        exchange.messageName = name
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("name")
            writer.string(name)
        }
        exchange.status = 200
        exchange.reply = .respond(HTTPResponseMessage(status: 200, headers: Self.responseHeaders(for: nil), body: body.bytes))
    }

    func appendDeliveries(of exchange: FCMSendExchange, in context: PipelineContext, to deliveries: inout [DeliveryIntake.Delivery]) {
        if let intake { deliveries += intake.fcm(exchange, now: context.now) }
    }

    func lint(_ exchange: FCMSendExchange, in context: PipelineContext) -> [LintNote] {
        linting?.fcm(exchange, now: context.now) ?? []
    }

    func record(_ exchange: FCMSendExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord)
        -> Bool
    {
        record = ExchangeRecorder.fcmRecord(
            exchange,
            connection: context.connection,
            time: context.now,
            namespace: ExchangeRecorder.namespace(of: exchange.request, app: exchange.project?.rawValue),
            latencyMicroseconds: latencyMicroseconds
        )
        return true
    }

    /// The registry's verdict on a registration token (C3 rows INVALID_ARGUMENT,
    /// SENDER_ID_MISMATCH, UNREGISTERED, and the APNs failures FCM relays for iOS tokens).
    private func checkToken(_ token: String, project: FCMProjectID, validateOnly: Bool, now: Timestamp) -> FCMError? {
        guard FCMRegistrationToken.isWellFormed(token) else {
            return .invalidRegistrationToken(field: "message.token")
        }
        guard let record = registry.lookup(FCMRegistrationToken(token)) else {
            return options.rejectUnknownTokens ? .invalidRegistrationToken(field: "message.token") : nil
        }
        if case .invalid = record.state {
            return .invalidRegistrationToken(field: "message.token")
        }
        // A dead token is UNREGISTERED whoever asks: FCM forgets the registration, so no
        // sender owns it any more (and a token unregistered through the control API without a
        // project must not answer SENDER_ID_MISMATCH to every project but the sample one).
        // A dry run still looks the token up (observed: validate_only to a dead token is 404).
        guard record.isActive(at: now) else { return .unregistered() }
        guard record.project == project else { return .senderIDMismatch() }
        // A dry run never reaches APNs, so APNs failures only show on real sends.
        if !validateOnly, record.platform == .ios, let failure = record.apnsFailure {
            switch failure.status {
            case 410: return .apnsTokenDisabled(apnsReason: failure.reason, asUnregistered: true)
            case 403: return .thirdPartyAuthError(apnsStatus: failure.status, apnsReason: failure.reason)
            default:
                return .invalidArgument(
                    message: "Request contains an invalid argument.",
                    violations: [],
                    apnsError: (failure.status, failure.reason)
                )
            }
        }
        return nil
    }

    private func fail(_ exchange: inout FCMSendExchange, _ error: FCMError) {
        exchange.error = error
        exchange.status = error.httpStatus
        exchange.messageName = nil
        exchange.reply = .respond(
            HTTPResponseMessage(
                status: error.httpStatus,
                headers: Self.responseHeaders(for: error),
                body: error.body(prettyPrinted: GooglePrettyPrint.isRequested(by: exchange.request, configured: options.prettyPrintErrors))
            )
        )
    }

    /// What Google's front end sends with FCM answers; `Retry-After` only on errors that
    /// carry one, never on success.
    static func responseHeaders(for error: FCMError?) -> HTTPHeaderList {
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json; charset=UTF-8")
        headers.append(name: "vary", value: "Origin")
        headers.append(name: "vary", value: "X-Origin")
        headers.append(name: "vary", value: "Referer")
        if let error {
            if let authenticate = error.wwwAuthenticate {
                headers.append(name: "www-authenticate", value: authenticate)
            }
            if let retryAfter = error.retryAfter {
                headers.append(name: "retry-after", value: String(retryAfter))
            }
        }
        return headers
    }
}
