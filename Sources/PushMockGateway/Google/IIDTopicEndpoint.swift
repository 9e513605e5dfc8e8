import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// One IID topic request as the pipeline carries it.
struct IIDTopicExchange: EndpointExchange {
    let request: HTTPRequestMessage
    var reply: HTTPReply?
    var status = 0
    var error: String?
    var operation: IIDTopicEndpoint.Operation?
    /// `to` without `/topics/`, when the body parsed.
    var topic: String?
    /// `registration_tokens` as sent (non-strings are `nil`).
    var registrationTokens: [String?] = []
    /// Whether the body had the shape IID requires (checked after authentication).
    var bodyIsWellFormed = false
    var project: String?
    var grant: AccessTokenGrant?
    /// The well-formed tokens whose subscription was changed or looked up.
    var tokens: [String] = []

    var isAccepted: Bool { status == 200 }
    var faultFacts: FaultFacts { FaultFacts(topic: topic) }
}

/// The Instance ID topic-management API the Admin SDKs call: `POST /iid/v1:batchAdd` and
/// `POST /iid/v1:batchRemove` with `{"to": "/topics/<name>", "registration_tokens": [...]}`,
/// an OAuth2 access token and the `access_token_auth: true` header (table C5).
///
/// Errors are bare strings (`{"error":"INVALID_ARGUMENT"}`), as the SDKs parse them; which
/// status a missing `access_token_auth` header gets is undocumented — we answer 401
/// `UNAUTHENTICATED`, because without the header IID treats the bearer as a legacy server key,
/// and an access token is not one.
struct IIDTopicEndpoint: GatewayEndpoint {
    let options: FCMOptions
    let tokens: AccessTokenStore
    let registry: FCMRegistry
    /// The most FCM tokens an unknown token's subscription may bring the registry to.
    var tokenLimit: Int = RegistryLimits.defaults.fcmTokens

    static var faultPlatform: Platform? { .iid }
    static let maximumTokensPerRequest = 1000

    enum Operation {
        case add
        case remove
    }

    static func operation(forPath path: Substring) -> Operation? {
        switch path {
        case "/iid/v1:batchAdd": return .add
        case "/iid/v1:batchRemove": return .remove
        default: return nil
        }
    }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> IIDTopicExchange {
        var exchange = IIDTopicExchange(request: copy request)
        guard let operation = Self.operation(forPath: request.pathWithoutQuery) else {
            fail(&exchange, 404, "NOT_FOUND")
            return exchange
        }
        exchange.operation = operation
        guard request.method == "POST" else {
            fail(&exchange, 405, "METHOD_NOT_ALLOWED")
            return exchange
        }
        guard !request.isBodyTruncated else {
            fail(&exchange, 413, "PAYLOAD_TOO_LARGE")
            return exchange
        }
        guard let root = try? JSONValue(parsing: request.body), let to = root["to"]?.stringValue,
            case .array(let entries)? = root["registration_tokens"],
            !entries.isEmpty, entries.count <= Self.maximumTokensPerRequest
        else { return exchange }
        var topic = Substring(to)
        if topic.hasPrefix("/topics/") { topic = topic.dropFirst(8) }
        let bareTopic = topic.hasPrefix("private/") ? topic.dropFirst(8) : topic
        exchange.topic = String(topic)
        exchange.registrationTokens = entries.map(\.stringValue)
        // At most 900 characters, as the topic-subscription API: IID kept 900 KB names, about
        // 1 MB of memory per request, without end.
        exchange.bodyIsWellFormed = FCMTopicName.isSubscribable(bareTopic)
        return exchange
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout IIDTopicExchange, in context: PipelineContext) {
        guard case .iidError(let error, let status, let retryAfter) = action else { return }
        let response = FaultReplies.iidError(error, status: status, retryAfter: retryAfter)
        exchange.status = response.status
        exchange.error = error
        exchange.reply = .respond(response)
    }

    func authenticate(_ exchange: inout IIDTopicExchange, in context: PipelineContext) {
        let request = exchange.request
        if options.authentication == .none {
            // No credential is checked; one that happens to be valid still names the project.
            exchange.grant = GoogleBearer.token(in: request).flatMap { tokens.validGrant($0, now: context.now) }
            return
        }
        guard let token = GoogleBearer.token(in: request) else { return fail(&exchange, 401, "UNAUTHENTICATED") }
        guard let grant = tokens.validGrant(token, now: context.now) else { return fail(&exchange, 401, "UNAUTHENTICATED") }
        exchange.grant = grant
        guard request.headers.first(named: "access_token_auth")?.lowercased() == "true" else {
            return fail(&exchange, 401, "UNAUTHENTICATED")
        }
        guard grant.allowsFCM else { return fail(&exchange, 403, "PERMISSION_DENIED") }
    }

    func validate(_ exchange: inout IIDTopicExchange, in context: PipelineContext) {
        if !exchange.bodyIsWellFormed {
            exchange.topic = nil
            fail(&exchange, 400, "INVALID_ARGUMENT")
        }
    }

    func applyState(_ exchange: inout IIDTopicExchange, in context: PipelineContext) {
        guard let operation = exchange.operation, let topic = exchange.topic else { return }
        guard let project = exchange.grant?.projectID ?? (options.authentication == .none ? options.sampleProjectID : nil) else { return }
        var results: [String?] = []
        var seen: [String] = []
        for entry in exchange.registrationTokens {
            guard let token = entry, !token.isEmpty, FCMRegistrationToken.isWellFormed(token) else {
                results.append("INVALID_ARGUMENT")
                continue
            }
            seen.append(token)
            switch registry.changeSubscription(
                token: FCMRegistrationToken(token),
                topic: topic,
                subscribe: operation == .add,
                project: FCMProjectID(project),
                createUnknown: !options.rejectUnknownTokens,
                limit: tokenLimit,
                now: context.now
            ) {
            case .ok: results.append(nil)
            case .notFound: results.append("NOT_FOUND")
            case .tooManyTopics: results.append("TOO_MANY_TOPICS")
            case .senderMismatch: results.append("PERMISSION_DENIED")
            // What IID answers when it will not take more for now (docs/SECURITY.md).
            case .registryFull: results.append("RESOURCE_EXHAUSTED")
            }
        }
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("results")
            writer.beginArray()
            for result in results {
                writer.beginObject()
                if let result {
                    writer.key("error")
                    writer.string(result)
                }
                writer.endObject()
            }
            writer.endArray()
        }
        exchange.status = 200
        exchange.project = project
        exchange.tokens = seen
        exchange.reply = .respond(HTTPResponseMessage(status: 200, headers: Self.jsonHeaders(), body: body.bytes))
    }

    func record(_ exchange: IIDTopicExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord)
        -> Bool
    {
        record = ExchangeRecorder.iidRecord(
            exchange, connection: context.connection, time: context.now, latencyMicroseconds: latencyMicroseconds)
        return true
    }

    private func fail(_ exchange: inout IIDTopicExchange, _ status: Int, _ error: String) {
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("error")
            writer.string(error)
        }
        exchange.status = status
        exchange.error = error
        exchange.reply = .respond(HTTPResponseMessage(status: status, headers: Self.jsonHeaders(), body: body.bytes))
    }

    static func jsonHeaders() -> HTTPHeaderList {
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json; charset=UTF-8")
        return headers
    }
}

/// The OAuth2 access token of a Google API request: `Authorization: Bearer …` (scheme matched
/// case-insensitively) or the standard `access_token` query parameter.
enum GoogleBearer {
    static func token(in request: HTTPRequestMessage) -> String? {
        if let authorization = request.headers.first(.authorization) {
            let trimmed = authorization.drop { $0 == " " }
            guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
            let token = trimmed.dropFirst(7).trimmingCharacters(in: .whitespaces)
            return token.isEmpty ? nil : token
        }
        if let query = request.query {
            for pair in query.split(separator: "&") where pair.hasPrefix("access_token=") {
                let value = String(pair.dropFirst("access_token=".count))
                return value.removingPercentEncoding ?? value
            }
        }
        return nil
    }

    /// Whether the request carried any credential at all (missing → "missing credential").
    static func hasCredential(_ request: HTTPRequestMessage) -> Bool {
        request.headers.firstIndex(of: .authorization) != nil || (request.query?.contains("access_token=") ?? false)
    }
}
