import Foundation
import PushMockCore
import PushMockJSON

/// FCM HTTP v1: `POST /v1/projects/{project}/messages:send` (also without `/v1`, as Go's
/// `option.WithEndpoint` produces), with every row of table C3 of the wire reference.
struct FCMService {
    let options: FCMOptions
    let tokens: AccessTokenStore
    let registry: FCMRegistry

    struct Outcome {
        var reply: HTTPReply
        var status: Int
        var error: FCMError?
        var project: String?
        var grant: AccessTokenGrant?
        var send: FCMSendRequest?
        var messageName: String?
        var resolvedTokens: [String] = []
    }

    /// `projects/{project}/messages:send` with or without the `/v1` prefix; `nil` otherwise.
    static func project(inPath path: Substring) -> String? {
        var rest = path
        if rest.hasPrefix("/v1/") { rest = rest.dropFirst(3) }
        guard rest.hasPrefix("/projects/"), rest.hasSuffix("/messages:send") else { return nil }
        let project = rest.dropFirst("/projects/".count).dropLast("/messages:send".count)
        guard !project.isEmpty, !project.contains("/") else { return nil }
        return String(project)
    }

    func handle(_ request: HTTPRequestMessage, now: Timestamp, random: inout FastRandom) -> Outcome {
        guard let project = Self.project(inPath: request.pathWithoutQuery) else {
            return failure(FCMError.notFound(path: String(request.pathWithoutQuery)))
        }
        guard request.method == "POST" else {
            return failure(FCMError.notFound(path: String(request.pathWithoutQuery)), project: project)
        }
        guard GoogleBearer.hasCredential(request) else {
            return failure(.missingCredential(), project: project)
        }
        guard let token = GoogleBearer.token(in: request), let grant = tokens.validGrant(token, now: now) else {
            return failure(.invalidCredential(), project: project)
        }
        guard grant.allowsFCM else {
            var outcome = failure(.insufficientScopes(), project: project)
            outcome.grant = grant
            return outcome
        }
        guard grant.owns(project: project) else {
            var outcome = failure(.permissionDenied(project: project), project: project)
            outcome.grant = grant
            return outcome
        }

        let send: FCMSendRequest
        switch FCMMessageValidator.validate(body: request.body) {
        case .success(let validated):
            send = validated
        case .failure(let error):
            var outcome = failure(error, project: project)
            outcome.grant = grant
            return outcome
        }

        var outcome = Outcome(reply: HTTPReply(.noResponse), status: 0, project: project, grant: grant, send: send)
        switch send.message.target {
        case .token(let registrationToken), .fid(let registrationToken):
            if let error = checkToken(registrationToken, project: project, validateOnly: send.validateOnly, now: now) {
                return fail(&outcome, error)
            }
            // Counted last, so only a message FCM accepts uses up one of the token's sends.
            if !send.validateOnly, !registry.admitSend(to: registrationToken, now: now) {
                return fail(&outcome, .unregistered())
            }
            outcome.resolvedTokens = [registrationToken]
        case .topic(let topic):
            outcome.resolvedTokens = registry.activeTokens(project: project, now: now) { $0.contains(topic) }
        case .condition(let condition):
            outcome.resolvedTokens = registry.activeTokens(project: project, now: now) { condition.evaluate(subscribedTopics: $0) }
        }
        if !send.validateOnly, case .topic = send.message.target {
            outcome.resolvedTokens = outcome.resolvedTokens.filter { registry.admitSend(to: $0, now: now) }
        } else if !send.validateOnly, case .condition = send.message.target {
            outcome.resolvedTokens = outcome.resolvedTokens.filter { registry.admitSend(to: $0, now: now) }
        }

        let name: String
        if send.validateOnly {
            name = "projects/\(project)/messages/fake_message_id"
        } else {
            // Like FCM's ids: "0:<microseconds>%<8 hex digits twice>".
            let hex = String(UInt32(truncatingIfNeeded: random.next()), radix: 16)
            let padded = String(repeating: "0", count: 8 - hex.count) + hex
            name = "projects/\(project)/messages/0:\(now.millisecondsSince1970 * 1000 + Int64(random.next() % 1000))%\(padded)\(padded)"
        }
        outcome.messageName = name
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("name")
            writer.string(name)
        }
        outcome.status = 200
        outcome.reply = .respond(HTTPResponseMessage(status: 200, headers: Self.responseHeaders(for: nil), body: body.bytes))
        return outcome
    }

    /// The registry's verdict on a registration token (C3 rows INVALID_ARGUMENT,
    /// SENDER_ID_MISMATCH, UNREGISTERED, and the APNs failures FCM relays for iOS tokens).
    private func checkToken(_ token: String, project: String, validateOnly: Bool, now: Timestamp) -> FCMError? {
        guard FCMRegistrationToken.isWellFormed(token) else {
            return .invalidRegistrationToken(field: "message.token")
        }
        guard let record = registry.lookup(token) else {
            return options.rejectUnknownTokens ? .invalidRegistrationToken(field: "message.token") : nil
        }
        if case .invalid = record.state {
            return .invalidRegistrationToken(field: "message.token")
        }
        guard record.project == project else { return .senderIDMismatch() }
        // A dry run still looks the token up (observed: validate_only to a dead token is 404).
        guard record.isActive(at: now) else { return .unregistered() }
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

    private func fail(_ outcome: inout Outcome, _ error: FCMError) -> Outcome {
        outcome.error = error
        outcome.status = error.httpStatus
        outcome.reply = .respond(
            HTTPResponseMessage(
                status: error.httpStatus,
                headers: Self.responseHeaders(for: error),
                body: error.body(prettyPrinted: options.prettyPrintErrors)
            )
        )
        return outcome
    }

    private func failure(_ error: FCMError, project: String? = nil) -> Outcome {
        var outcome = Outcome(reply: HTTPReply(.noResponse), status: 0, project: project)
        return fail(&outcome, error)
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
