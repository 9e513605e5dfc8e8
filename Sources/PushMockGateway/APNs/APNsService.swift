import PushMockAuth
import PushMockCore

/// The result of one APNs device request: the reply, and everything the recording needs.
struct APNsOutcome {
    /// What goes back on the wire.
    var reply: HTTPReply
    /// `:status` (0 when the answer was a GOAWAY).
    var status: Int
    var reason: APNsReason?
    var timestamp: Timestamp?
    var apnsID: String
    var apnsUniqueID: String?
    var environment: APNsEnvironment
    /// The parsed headers, when the stateless checks passed.
    var headers: APNsNotificationHeaders?
    var authentication: APNsAuthentication?
    /// The topic in effect (for certificates, possibly the certificate's).
    var topic: String?
    /// The push type in effect, and whether it was inferred from the topic.
    var pushType: APNsPushType?
    var pushTypeInferred: Bool
    /// The device token as sent.
    var deviceToken: String?
}

/// `POST /3/device/<token>`: every rule of table C1, in the order documented on
/// ``APNsRequestRules``. Pure apart from the registries it reads; runs on the connection's
/// event loop.
struct APNsService {
    let options: APNsOptions
    let keys: APNsKeyRegistry
    let devices: DeviceRegistry

    func handle(
        _ request: HTTPRequestMessage,
        connection: GatewayConnectionContext,
        now: Timestamp
    ) -> APNsOutcome {
        let environment = connection.apnsEnvironment(authority: request.authority, options: options)
        var outcome = APNsOutcome(
            reply: HTTPReply(.noResponse),
            status: 0,
            environment: environment,
            pushTypeInferred: false
        )

        let headers: APNsNotificationHeaders
        let deviceToken: String
        switch APNsRequestRules.parse(
            method: request.method,
            path: request.path,
            headers: request.headers,
            tokenFormat: options.tokenFormat
        ) {
        case .failure(let failure):
            if request.path.hasPrefix(APNsRequestRules.devicePathPrefix) {
                outcome.deviceToken = String(request.path.dropFirst(APNsRequestRules.devicePathPrefix.count))
            }
            return reject(failure.error, apnsID: failure.apnsID, outcome: &outcome, connection: connection)
        case .success(let parsed):
            headers = parsed.headers
            deviceToken = parsed.deviceToken
        }
        outcome.headers = headers
        outcome.deviceToken = deviceToken

        // 7. Authentication.
        let authentication: APNsAuthentication
        switch connection.apnsAuthenticator.authenticate(
            headers: request.headers,
            authorizationIndex: headers.authorizationIndex,
            environment: environment,
            now: now
        ) {
        case .success(let value):
            authentication = value
        case .failure(.error(let reason)):
            return reject(APNsError(reason), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        case .failure(.goAway(let reason)):
            outcome.reason = reason
            outcome.apnsID = headers.apnsID ?? connection.makeUUID()
            outcome.reply = HTTPReply(
                .goAway(.noError, debugData: APNsError(reason).goAwayDebugData, lastStreamID: 0, closeConnection: true)
            )
            return outcome
        }
        outcome.authentication = authentication

        // 8. Topic.
        var topic = headers.topic
        if case .certificate(let certificate) = authentication.method {
            if let requested = topic {
                if !certificate.allows(topic: requested) {
                    return reject(APNsError(.badTopic), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
                }
            } else if certificate.isMultiTopic {
                return reject(APNsError(.missingTopic), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
            } else if let bundleID = certificate.bundleID {
                topic = bundleID
            } else {
                return reject(APNsError(.badCertificate), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
            }
        }
        guard let topic else {
            return reject(APNsError(.missingTopic), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        }
        outcome.topic = topic
        let pushType = headers.pushType ?? APNsPushType.inferred(fromTopic: topic)
        outcome.pushType = pushType
        outcome.pushTypeInferred = headers.pushType == nil
        if let reason = APNsRequestRules.checkTopic(topic, pushType: pushType) {
            return reject(APNsError(reason), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        }
        let bundleID = pushType.bundleID(fromTopic: topic) ?? topic
        if let reason = connection.apnsAuthenticator.authorize(authentication, bundleID: bundleID) {
            return reject(APNsError(reason), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        }
        if options.rejectHighPriorityBackground, pushType == .background, headers.effectivePriority == .immediate {
            return reject(APNsError(.badPriority), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        }

        // 9. Device token: format, then the registry.
        guard options.tokenFormat.accepts(deviceToken) else {
            return reject(APNsError(.badDeviceToken), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        }
        let knownDevice = devices.lookup(deviceToken)
        if let device = knownDevice {
            if let tokenEnvironment = device.environment, tokenEnvironment != environment {
                return reject(APNsError(.badDeviceToken), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
            }
            if let tokenBundleID = device.bundleID, tokenBundleID != bundleID {
                return reject(
                    APNsError(.deviceTokenNotForTopic),
                    apnsID: headers.apnsID,
                    outcome: &outcome,
                    connection: connection
                )
            }
            if let gone = device.goneError(at: now) {
                return reject(gone, apnsID: headers.apnsID, outcome: &outcome, connection: connection)
            }
        } else if options.rejectUnknownTokens {
            return reject(APNsError(.badDeviceToken), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        }

        // 10. Payload.
        if let reason = APNsRequestRules.checkPayload(byteCount: request.bodyByteCount, pushType: pushType) {
            return reject(APNsError(reason), apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        }

        // Counted only now, so a rejected request never uses up a token's remaining sends.
        if knownDevice != nil, let gone = devices.admitSend(to: deviceToken, now: now) {
            return reject(gone, apnsID: headers.apnsID, outcome: &outcome, connection: connection)
        }
        return accept(apnsID: headers.apnsID, outcome: &outcome, connection: connection)
    }

    /// For a path APNs does not serve at all (404 BadPath with the usual headers).
    func handleUnknownPath(_ request: HTTPRequestMessage, connection: GatewayConnectionContext) -> APNsOutcome {
        let environment = connection.apnsEnvironment(authority: request.authority, options: options)
        var outcome = APNsOutcome(reply: HTTPReply(.noResponse), status: 0, environment: environment, pushTypeInferred: false)
        var apnsID: String?
        if let index = request.headers.firstIndex(of: .apnsID), APNsMessageID.isValid(request.headers.valueBytes(at: index)) {
            apnsID = request.headers.value(at: index)
        }
        return reject(APNsError(.badPath), apnsID: apnsID, outcome: &outcome, connection: connection)
    }

    // MARK: Faults

    /// Replaces the answer with an injected `apns-error` (status from Apple's table unless the
    /// fault gives one; 410 bodies carry the fault's timestamp, default now).
    func applyFaultError(
        reason: String,
        status: Int?,
        timestamp: Int64?,
        outcome: inout APNsOutcome,
        connection: GatewayConnectionContext,
        now: Timestamp
    ) {
        let parsedReason = APNsReason(rawValue: reason)
        var error = APNsError(parsedReason)
        let effectiveStatus = status ?? error.status
        if effectiveStatus == 410 {
            error.timestamp = timestamp.map { Timestamp(millisecondsSince1970: $0) } ?? now
        }
        outcome = reject(error, apnsID: outcome.headers?.apnsID, outcome: &outcome, connection: connection)
        if effectiveStatus != error.status, case .respond(var response) = outcome.reply.action {
            response.status = effectiveStatus
            outcome.reply.action = .respond(response)
            outcome.status = effectiveStatus
        }
    }

    // MARK: Responses

    private func accept(
        apnsID: String?,
        outcome: inout APNsOutcome,
        connection: GatewayConnectionContext
    ) -> APNsOutcome {
        var headers = HTTPHeaderList(fields: 2, bytes: 96)
        let id = appendIdentifiers(apnsID: apnsID, environment: outcome.environment, to: &headers, outcome: &outcome, connection: connection)
        outcome.apnsID = id
        outcome.status = 200
        outcome.reply = HTTPReply(
            .respond(HTTPResponseMessage(status: 200, headers: headers)),
            settings: connection.streamSettingsAfter(accepted: true, options: options)
        )
        return outcome
    }

    func reject(
        _ error: APNsError,
        apnsID: String?,
        outcome: inout APNsOutcome,
        connection: GatewayConnectionContext
    ) -> APNsOutcome {
        var headers = HTTPHeaderList(fields: 3, bytes: 128)
        let id = appendIdentifiers(apnsID: apnsID, environment: outcome.environment, to: &headers, outcome: &outcome, connection: connection)
        headers.append(name: "content-type", value: "application/json")
        outcome.apnsID = id
        outcome.status = error.status
        outcome.reason = error.reason
        outcome.timestamp = error.timestamp
        // 410 is "not an error condition" for APNs' stream throttling.
        let settings = error.status == 410 ? [] : connection.streamSettingsAfter(accepted: false, options: options)
        outcome.reply = HTTPReply(
            .respond(HTTPResponseMessage(status: error.status, headers: headers, body: error.body)),
            settings: settings
        )
        return outcome
    }

    /// `apns-id` (echoed or generated) and, in the sandbox, `apns-unique-id`.
    private func appendIdentifiers(
        apnsID: String?,
        environment: APNsEnvironment,
        to headers: inout HTTPHeaderList,
        outcome: inout APNsOutcome,
        connection: GatewayConnectionContext
    ) -> String {
        let id = apnsID ?? connection.makeUUID()
        headers.append(name: "apns-id", value: id)
        if environment == .sandbox {
            let unique = connection.makeUUID()
            headers.append(name: "apns-unique-id", value: unique)
            outcome.apnsUniqueID = unique
        }
        return id
    }
}

extension APNsOutcome {
    init(reply: HTTPReply, status: Int, environment: APNsEnvironment, pushTypeInferred: Bool) {
        self.reply = reply
        self.status = status
        self.environment = environment
        self.pushTypeInferred = pushTypeInferred
        self.apnsID = ""
    }
}
