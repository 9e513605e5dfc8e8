import PushMockAuth
import PushMockCore
import PushMockRecording
import PushMockSimulation

/// One APNs device request as the pipeline carries it: the parsed headers, the identity, the
/// topic in effect and, once answered, everything the recording needs.
struct APNsExchange: EndpointExchange {
    let request: HTTPRequestMessage
    /// The payload, parsed once when fault rules or lint first ask.
    let payload: PayloadView
    var reply: HTTPReply?
    /// `:status` (0 while unanswered, or when the answer was a GOAWAY).
    var status = 0
    var reason: APNsReason?
    var timestamp: Timestamp?
    var apnsID = ""
    /// ``apnsID`` parsed, for an accepted request (the device keeps it as its value).
    var apnsIDValue: UUIDText.Parsed?
    let environment: APNsEnvironment
    /// The parsed headers, when the stateless checks passed.
    var headers: APNsNotificationHeaders?
    var authentication: APNsAuthentication?
    /// The topic in effect (for certificates, possibly the certificate's).
    var topic: String?
    /// The push type in effect, and whether it was inferred from the topic.
    var pushType: APNsPushType?
    var pushTypeInferred = false
    /// The device token as sent.
    var deviceToken: String?
    /// ``deviceToken`` in canonical form, once the token format was checked (lowered once,
    /// for the registry and the simulated device alike).
    var canonicalDeviceToken: APNsDeviceToken?
    /// The app the topic belongs to.
    var bundleID: String?
    /// Whether the token registry knows the token (its sends are then counted).
    var isKnownDevice = false

    var isAccepted: Bool { status == 200 }

    var faultFacts: FaultFacts {
        FaultFacts(token: deviceToken, topic: headers?.topic, environment: environment.name, payload: payload)
    }
}

/// `POST /3/device/<token>`: every rule of table C1, in the order documented on
/// ``APNsRequestRules`` (`docs/apns-validation-order.md`), split over the pipeline's steps:
/// the stateless header and path checks when parsing, provider token or certificate and the
/// topic's entitlement when authenticating, topic rules, device token and payload when
/// validating, and the token's lifecycle count as the only state change.
struct APNsDeviceEndpoint: GatewayEndpoint {
    let options: APNsOptions
    let keys: APNsKeyRegistry
    let devices: DeviceRegistry
    let intake: DeliveryIntake?
    let linting: NotificationLinting?

    static var faultPlatform: Platform? { .apns }
    static var supportsPlayback: Bool { true }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> APNsExchange {
        let connection = context.connection
        // The rules read the request before it moves into the exchange, and their result is
        // consumed: switching over a borrowed result, with the exchange built first, made the
        // compiler copy the whole exchange (≈ 470 bytes, some twenty references) on return.
        let parsed = APNsRequestRules.parse(
            method: request.method,
            path: request.path,
            headers: request.headers,
            tokenFormat: options.tokenFormat,
            knownTopic: connection.lastAPNsTopic
        )
        let payload = PayloadView(bytes: request.body)
        let environment = connection.apnsEnvironment(authority: request.authority, options: options)
        // One exchange per branch, each returned where it is built: a single `var` that one
        // branch lends `inout` was copied into the return value and then destroyed.
        switch consume parsed {
        case .success(let parsed):
            if let topic = parsed.headers.topic { connection.lastAPNsTopic = topic }
            return APNsExchange(
                request: request, payload: payload, environment: environment,
                headers: parsed.headers, deviceToken: parsed.deviceToken)
        case .failure(let failure):
            var exchange = APNsExchange(request: request, payload: payload, environment: environment)
            if exchange.request.path.hasPrefix(APNsRequestRules.devicePathPrefix) {
                exchange.deviceToken = String(
                    exchange.request.pathWithoutQuery.dropFirst(APNsRequestRules.devicePathPrefix.count))
            }
            reject(failure.error, apnsID: failure.apnsID, &exchange, connection: connection)
            return exchange
        }
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout APNsExchange, in context: PipelineContext) {
        guard case .apnsError(let reasonName, let statusOverride, let timestamp, let retryAfter) = action else { return }
        var error = APNsError(APNsReason(rawValue: reasonName))
        let status = statusOverride ?? error.status
        if status == 410 {
            error.timestamp = timestamp.map { Timestamp(millisecondsSince1970: $0) } ?? context.now
        }
        reject(error, apnsID: exchange.headers?.apnsID, &exchange, connection: context.connection)
        guard case .respond(var response) = exchange.reply?.action else { return }
        if status != error.status {
            response.status = status
            exchange.status = status
        }
        if let retryAfter {
            response.headers.append(name: "retry-after", value: String(retryAfter))
        }
        exchange.reply?.action = .respond(response)
    }

    func authenticate(_ exchange: inout APNsExchange, in context: PipelineContext) {
        guard let headers = exchange.headers else { return }
        let connection = context.connection
        switch connection.apnsAuthenticator.authenticate(
            headers: exchange.request.headers,
            authorizationIndex: headers.authorizationIndex,
            environment: exchange.environment,
            now: context.now
        ) {
        case .success(let authentication):
            exchange.authentication = authentication
        case .failure(.error(let reason)):
            return reject(APNsError(reason), apnsID: headers.apnsID, &exchange, connection: connection)
        case .failure(.goAway(let reason)):
            exchange.reason = reason
            exchange.apnsID = headers.apnsID ?? connection.makeUUID()
            exchange.reply = HTTPReply(
                .goAway(.noError, debugData: APNsError(reason).goAwayDebugData, lastStreamID: 0, closeConnection: true)
            )
            return
        }
        guard let authentication = exchange.authentication else { return }

        // The topic in effect, and whether the identity may push to its app.
        var topic = headers.topic
        if case .certificate(let certificate) = authentication.method {
            if let requested = topic {
                if !certificate.allows(topic: requested) {
                    return reject(APNsError(.badTopic), apnsID: headers.apnsID, &exchange, connection: connection)
                }
            } else if certificate.isMultiTopic {
                return reject(APNsError(.missingTopic), apnsID: headers.apnsID, &exchange, connection: connection)
            } else if let bundleID = certificate.bundleID {
                topic = bundleID
            } else {
                return reject(APNsError(.badCertificate), apnsID: headers.apnsID, &exchange, connection: connection)
            }
        }
        guard let topic else {
            return reject(APNsError(.missingTopic), apnsID: headers.apnsID, &exchange, connection: connection)
        }
        exchange.topic = topic
        let pushType = headers.pushType ?? APNsPushType.inferred(fromTopic: topic)
        exchange.pushType = pushType
        exchange.pushTypeInferred = headers.pushType == nil
        if let reason = APNsRequestRules.checkTopic(topic, pushType: pushType) {
            return reject(APNsError(reason), apnsID: headers.apnsID, &exchange, connection: connection)
        }
        let bundleID = pushType.bundleID(fromTopic: topic) ?? topic
        exchange.bundleID = bundleID
        if let reason = connection.apnsAuthenticator.authorize(authentication, bundleID: bundleID) {
            return reject(APNsError(reason), apnsID: headers.apnsID, &exchange, connection: connection)
        }
    }

    func validate(_ exchange: inout APNsExchange, in context: PipelineContext) {
        guard let headers = exchange.headers, let deviceToken = exchange.deviceToken, let pushType = exchange.pushType,
            let bundleID = exchange.bundleID
        else { return }
        let connection = context.connection
        if options.rejectHighPriorityBackground, pushType == .background, headers.effectivePriority == .immediate {
            return reject(APNsError(.badPriority), apnsID: headers.apnsID, &exchange, connection: connection)
        }
        // Device token: format, then the registry.
        guard options.tokenFormat.accepts(deviceToken) else {
            return reject(APNsError(.badDeviceToken), apnsID: headers.apnsID, &exchange, connection: connection)
        }
        let canonicalToken = APNsDeviceToken(deviceToken)
        exchange.canonicalDeviceToken = canonicalToken
        if let device = devices.lookup(canonicalToken) {
            exchange.isKnownDevice = true
            if let tokenEnvironment = device.environment, tokenEnvironment != exchange.environment {
                return reject(APNsError(.badDeviceToken), apnsID: headers.apnsID, &exchange, connection: connection)
            }
            if let tokenBundleID = device.bundleID, tokenBundleID != bundleID {
                return reject(APNsError(.deviceTokenNotForTopic), apnsID: headers.apnsID, &exchange, connection: connection)
            }
            if let gone = device.goneError(at: context.now) {
                return reject(gone, apnsID: headers.apnsID, &exchange, connection: connection)
            }
        } else if options.rejectUnknownTokens {
            return reject(APNsError(.badDeviceToken), apnsID: headers.apnsID, &exchange, connection: connection)
        }
        // Payload.
        if let reason = APNsRequestRules.checkPayload(byteCount: exchange.request.bodyByteCount, pushType: pushType) {
            return reject(APNsError(reason), apnsID: headers.apnsID, &exchange, connection: connection)
        }
    }

    func applyState(_ exchange: inout APNsExchange, in context: PipelineContext) {
        guard let headers = exchange.headers, let deviceToken = exchange.deviceToken else { return }
        let canonicalToken = exchange.canonicalDeviceToken ?? APNsDeviceToken(deviceToken)
        exchange.canonicalDeviceToken = canonicalToken
        // Counted only now, so a rejected request never uses up a token's remaining sends.
        if exchange.isKnownDevice, let gone = devices.admitSend(to: canonicalToken, now: context.now) {
            return reject(gone, apnsID: headers.apnsID, &exchange, connection: context.connection)
        }
        accept(apnsID: headers.apnsID, value: headers.apnsIDValue, &exchange, connection: context.connection)
    }

    func appendDeliveries(of exchange: APNsExchange, in context: PipelineContext, to deliveries: inout [DeliveryIntake.Delivery]) {
        if let delivery = intake?.apns(exchange, now: context.now) { deliveries.append(delivery) }
    }

    func lint(_ exchange: APNsExchange, in context: PipelineContext) -> [LintNote] {
        linting?.apns(exchange, now: context.now) ?? []
    }

    func record(_ exchange: APNsExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord)
        -> Bool
    {
        ExchangeRecorder.apnsRecord(
            exchange,
            connection: context.connection,
            time: context.now,
            namespace: ExchangeRecorder.namespace(
                of: exchange.request,
                app: exchange.topic.map { exchange.pushType?.bundleID(fromTopic: $0) ?? $0 }
            ),
            latencyMicroseconds: latencyMicroseconds,
            into: &record
        )
        return true
    }

    // MARK: Answers

    /// 404 `BadPath` for a path APNs does not serve at all, with the usual headers.
    func answerUnroutedPath(_ exchange: inout APNsExchange, connection: GatewayConnectionContext) {
        var apnsID: String?
        let headers = exchange.request.headers
        if let index = headers.firstIndex(of: .apnsID), APNsMessageID.isValid(headers.valueBytes(at: index)) {
            apnsID = headers.value(at: index)
        }
        reject(APNsError(.badPath), apnsID: apnsID, &exchange, connection: connection)
    }

    /// 200, echoing `apnsID` (whose parsed form is `value`) or with a new one.
    private func accept(apnsID: String?, value: UUIDText.Parsed?, _ exchange: inout APNsExchange, connection: GatewayConnectionContext) {
        var headers = HTTPHeaderList(fields: 2, bytes: 96)
        if let apnsID {
            exchange.apnsIDValue = value
            exchange.apnsID = appendIdentifiers(apnsID: apnsID, to: &headers, &exchange, connection: connection)
        } else {
            let made = connection.makeUUIDWithValue()
            exchange.apnsIDValue = made.value
            exchange.apnsID = appendIdentifiers(apnsID: made.text, to: &headers, &exchange, connection: connection)
        }
        exchange.status = 200
        exchange.reply = HTTPReply(
            .respond(HTTPResponseMessage(status: 200, headers: headers)),
            settings: connection.streamSettingsAfter(accepted: true, options: options)
        )
    }

    private func reject(_ error: APNsError, apnsID: String?, _ exchange: inout APNsExchange, connection: GatewayConnectionContext) {
        if error.reason == .expiredProviderToken {
            // Real or injected alike: the client will replace its token, which is then never
            // "too many updates".
            connection.apnsAuthenticator.providerTokenExpiryReported(
                authorization: exchange.headers?.authorizationIndex.flatMap { exchange.request.headers.value(at: $0) })
        }
        var headers = HTTPHeaderList(fields: 3, bytes: 128)
        exchange.apnsID = appendIdentifiers(apnsID: apnsID, to: &headers, &exchange, connection: connection)
        headers.append(name: "content-type", value: "application/json")
        exchange.status = error.status
        exchange.reason = error.reason
        exchange.timestamp = error.timestamp
        // 410 is "not an error condition" for APNs' stream throttling.
        let settings = error.status == 410 ? [] : connection.streamSettingsAfter(accepted: false, options: options)
        exchange.reply = HTTPReply(
            .respond(HTTPResponseMessage(status: error.status, headers: headers, body: error.body)),
            settings: settings
        )
    }

    /// `apns-id` (echoed or generated) and, in the sandbox, `apns-unique-id`.
    private func appendIdentifiers(
        apnsID: String?,
        to headers: inout HTTPHeaderList,
        _ exchange: inout APNsExchange,
        connection: GatewayConnectionContext
    ) -> String {
        let id = apnsID ?? connection.makeUUID()
        headers.append(name: "apns-id", value: id)
        if exchange.environment == .sandbox {
            connection.appendNewUUID(named: .apnsUniqueID, to: &headers)
        }
        return id
    }
}

/// Paths no impersonated service serves: APNs's 404 `BadPath`, recorded like an APNs request.
/// Fault rules do not apply (they name services, and this is none).
struct UnroutedEndpoint: GatewayEndpoint {
    let apns: APNsDeviceEndpoint

    static var faultPlatform: Platform? { nil }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> APNsExchange {
        var exchange = APNsExchange(
            request: request,
            payload: PayloadView(bytes: request.body),
            environment: context.connection.apnsEnvironment(authority: request.authority, options: apns.options)
        )
        apns.answerUnroutedPath(&exchange, connection: context.connection)
        return exchange
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout APNsExchange, in context: PipelineContext) {}
    func applyState(_ exchange: inout APNsExchange, in context: PipelineContext) {}

    func record(_ exchange: APNsExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord)
        -> Bool
    {
        apns.record(exchange, in: context, latencyMicroseconds: latencyMicroseconds, into: &record)
    }
}
