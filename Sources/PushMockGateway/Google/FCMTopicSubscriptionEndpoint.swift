import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// One call of FCM's topic-subscription API as the pipeline carries it.
struct FCMTopicSubscriptionExchange: EndpointExchange {
    let request: HTTPRequestMessage
    var reply: HTTPReply?
    var status = 0
    var error: FCMError?
    var call: FCMTopicSubscriptionEndpoint.Call?
    /// `projects/{project}` of the path.
    var project: FCMProjectID?
    /// `registrations/{registration}` of the path, percent-decoded.
    var registration: String?
    /// The topic: the name's last segment, or `create`'s `topicName`.
    var topic: String?
    var grant: AccessTokenGrant?

    var isAccepted: Bool { status == 200 }
    var faultFacts: FaultFacts {
        var facts = FaultFacts(topic: topic)
        facts.token = registration
        facts.project = project?.rawValue
        return facts
    }
}

/// FCM's topic-subscription server API, which replaces IID's `batchAdd`/`batchRemove` and which
/// the Admin SDKs call since 2026 (Python 7.x: one request per token):
///
///     POST   /v1/projects/{p}/registrations/{r}/topicSubscriptions?topic_name=T   create
///     GET    /v1/projects/{p}/registrations/{r}/topicSubscriptions                list
///     GET    /v1/projects/{p}/registrations/{r}/topicSubscriptions/{T}            get
///     PATCH  /v1/projects/{p}/registrations/{r}/topicSubscriptions/{T}            patch
///     DELETE /v1/projects/{p}/registrations/{r}/topicSubscriptions/{T}            delete
///
/// (also without `/v1`; query parameters in either spelling, `topicName` or `topic_name`). The
/// subscriptions are those IID makes: one registry, so a topic send reaches a token subscribed
/// either way. Errors are FCM's `google.rpc.Status` bodies; what the service sends for a dead
/// or foreign token, a token at its topic limit and a missing `topic_name` is UNVERIFIED
/// (docs/push-wire-spec.md, "FCM topic subscriptions"). Recorded with platform `iid`: topic
/// management, whichever API it came through.
struct FCMTopicSubscriptionEndpoint: GatewayEndpoint {
    let options: FCMOptions
    let tokens: AccessTokenStore
    let registry: FCMRegistry
    /// The most FCM tokens a subscription of an unknown token may bring the registry to.
    var tokenLimit: Int = RegistryLimits.defaults.fcmTokens

    static var faultPlatform: Platform? { .iid }
    /// `list`'s page size when the request names none, and the largest it takes.
    static let defaultPageSize = 100
    static let maximumPageSize = 1000

    enum Call: Equatable {
        case create
        case list(pageSize: Int, after: String?)
        case get
        case patch(allowMissing: Bool)
        case delete(allowMissing: Bool)
    }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> FCMTopicSubscriptionExchange {
        var exchange = FCMTopicSubscriptionExchange(request: copy request)
        let path = request.pathWithoutQuery
        var rest = path
        if rest.hasPrefix("/v1/") { rest = rest.dropFirst(3) }
        // "", "projects", p, "registrations", r, "topicSubscriptions"[, t]
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard (6...7).contains(segments.count), segments[1] == "projects", segments[3] == "registrations",
            segments[5] == "topicSubscriptions", !segments[2].isEmpty, !segments[4].isEmpty,
            let project = Self.decoded(segments[2]), let registration = Self.decoded(segments[4])
        else {
            fail(&exchange, FCMError.notFound(path: String(path)))
            return exchange
        }
        exchange.project = FCMProjectID(project)
        exchange.registration = registration
        let query = Self.queryItems(request.query)
        let named = segments.count == 7
        if named {
            guard !segments[6].isEmpty, let topic = Self.decoded(segments[6]) else {
                fail(&exchange, FCMError.notFound(path: String(path)))
                return exchange
            }
            exchange.topic = topic
        }
        let allowMissing = Self.flag(query["allowMissing"] ?? query["allow_missing"])
        switch (request.method, named) {
        case ("POST", false):
            exchange.call = .create
            exchange.topic = query["topicName"] ?? query["topic_name"]
        case ("GET", false):
            exchange.call = .list(pageSize: 0, after: nil)
        case ("GET", true):
            exchange.call = .get
        case ("PATCH", true):
            exchange.call = .patch(allowMissing: allowMissing ?? false)
        case ("DELETE", true):
            exchange.call = .delete(allowMissing: allowMissing ?? false)
        default:
            // Google's front end knows no such method on the path.
            fail(&exchange, FCMError.notFound(path: String(path)))
        }
        return exchange
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout FCMTopicSubscriptionExchange, in context: PipelineContext) {
        // An `iid-error` rule speaks IID's vocabulary; this API answers it in Google's.
        guard case .iidError(let error, let status, let retryAfter) = action else { return }
        let code = GoogleRPCCode(rawValue: error.uppercased())
        var failure = FCMError(httpStatus: status, status: code, message: "Injected fault: \(error).")
        failure.retryAfter = retryAfter
        fail(&exchange, failure)
    }

    func authenticate(_ exchange: inout FCMTopicSubscriptionExchange, in context: PipelineContext) {
        guard let project = exchange.project, let call = exchange.call else { return }
        if options.authentication == .none {
            exchange.grant = GoogleBearer.token(in: exchange.request).flatMap { tokens.validGrant($0, now: context.now) }
            return
        }
        guard GoogleBearer.hasCredential(exchange.request) else { return fail(&exchange, .missingCredential()) }
        guard let token = GoogleBearer.token(in: exchange.request), let grant = tokens.validGrant(token, now: context.now) else {
            return fail(&exchange, .invalidCredential())
        }
        exchange.grant = grant
        guard grant.allowsFCM else { return fail(&exchange, .insufficientScopes()) }
        guard grant.owns(project: project) else {
            let permission = Self.permission(for: call)
            return fail(
                &exchange,
                FCMError(
                    status: .permissionDenied,
                    message:
                        "Permission '\(permission)' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project.rawValue)' (or it may not exist)."
                ))
        }
    }

    func validate(_ exchange: inout FCMTopicSubscriptionExchange, in context: PipelineContext) {
        guard let call = exchange.call, let registration = exchange.registration else { return }
        let request = exchange.request
        if case .create = call, exchange.topic == nil {
            return fail(&exchange, Self.invalidArgument("topic_name", "Required. The topic name to subscribe to."))
        }
        if let topic = exchange.topic, !Self.isTopicName(topic) {
            return fail(
                &exchange,
                Self.invalidArgument(
                    "topic_name", "Invalid topic name \"\(topic)\": topic names match [a-zA-Z0-9-_.~%]{1,900}."))
        }
        guard FCMRegistrationToken.isWellFormed(registration) else {
            return fail(&exchange, .invalidRegistrationToken(field: "parent"))
        }
        if case .list = call {
            let query = Self.queryItems(request.query)
            var size = Self.defaultPageSize
            if let text = query["pageSize"] ?? query["page_size"] {
                guard let number = Int(text), number >= 0 else {
                    return fail(&exchange, Self.invalidArgument("page_size", "Invalid value \"\(text)\": a page size is 0 or more."))
                }
                size = number == 0 ? Self.defaultPageSize : min(number, Self.maximumPageSize)
            }
            var after: String?
            if let token = query["pageToken"] ?? query["page_token"], !token.isEmpty {
                guard let bytes = Base64.decode(token), let topic = String(validating: bytes, as: UTF8.self) else {
                    return fail(&exchange, Self.invalidArgument("page_token", "Invalid page token."))
                }
                after = topic
            }
            exchange.call = .list(pageSize: size, after: after)
        }
        switch call {
        case .create, .patch:
            if let problem = Self.bodyProblem(request) { return fail(&exchange, problem) }
        case .list, .get, .delete:
            break
        }
    }

    func applyState(_ exchange: inout FCMTopicSubscriptionExchange, in context: PipelineContext) {
        guard let call = exchange.call, let project = exchange.project, let registration = exchange.registration else { return }
        let token = FCMRegistrationToken(registration)
        let createUnknown = !options.rejectUnknownTokens
        if case .list(let pageSize, let after) = call {
            switch registry.topicSubscriptions(of: token, project: project, createUnknown: createUnknown, now: context.now) {
            case .refused(let refusal):
                fail(&exchange, Self.error(for: refusal))
            case .subscriptions(let all):
                let remaining = after.map { after in all.filter { after.utf8.lexicographicallyPrecedes($0.topic.utf8) } } ?? all
                let page = remaining.prefix(pageSize)
                let next = remaining.count > page.count ? page.last.map { Base64.encodedString(Array($0.topic.utf8)) } : nil
                succeed(&exchange, Self.listBody(page, next: next, parent: Self.parentName(project, registration), names: options))
            }
            return
        }
        guard let topic = exchange.topic else { return }
        let request: FCMRegistry.TopicSubscriptionRequest =
            switch call {
            case .create: .create
            case .get: .get
            case .patch(let allowMissing): .patch(allowMissing: allowMissing)
            case .delete(let allowMissing): .delete(allowMissing: allowMissing)
            case .list: .get
            }
        let outcome = registry.topicSubscription(
            request, token: token, topic: topic, project: project, createUnknown: createUnknown, limit: tokenLimit, now: context.now)
        switch outcome {
        case .subscribed(let since):
            var writer = JSONWriter(capacity: 256)
            Self.write(subscription: topic, since: since, parent: Self.parentName(project, registration), names: options, to: &writer)
            writer.flush()
            succeed(&exchange, writer.bytes)
        case .deleted:
            succeed(&exchange, Array("{}".utf8))
        case .alreadyExists:
            fail(&exchange, FCMError(status: .alreadyExists, message: "Requested entity already exists"))
        case .subscriptionNotFound:
            fail(&exchange, FCMError(status: .notFound, message: "Requested entity was not found."))
        case .refused(let refusal):
            fail(&exchange, Self.error(for: refusal))
        }
    }

    func record(
        _ exchange: FCMTopicSubscriptionExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord
    ) -> Bool {
        record = ExchangeRecorder.topicSubscriptionRecord(
            exchange, connection: context.connection, time: context.now, latencyMicroseconds: latencyMicroseconds)
        return true
    }

    // MARK: Answers

    private func succeed(_ exchange: inout FCMTopicSubscriptionExchange, _ body: [UInt8]) {
        exchange.status = 200
        exchange.reply = .respond(HTTPResponseMessage(status: 200, headers: FCMSendEndpoint.responseHeaders(for: nil), body: body))
    }

    private func fail(_ exchange: inout FCMTopicSubscriptionExchange, _ error: FCMError) {
        exchange.error = error
        exchange.status = error.httpStatus
        exchange.reply = .respond(
            HTTPResponseMessage(
                status: error.httpStatus,
                headers: FCMSendEndpoint.responseHeaders(for: error),
                body: error.body(prettyPrinted: GooglePrettyPrint.isRequested(by: exchange.request, configured: options.prettyPrintErrors))
            ))
    }

    /// What a token that cannot take part gets, in FCM's words where `messages:send` has them.
    static func error(for refusal: FCMRegistry.SubscriptionResult) -> FCMError {
        switch refusal {
        case .notFound, .ok: return .unregistered()
        case .senderMismatch: return .senderIDMismatch()
        case .tooManyTopics:
            return FCMError(
                status: .resourceExhausted,
                message: "The app instance is subscribed to the most topics it may have (\(FCMRegistry.maximumTopicsPerToken)).")
        case .registryFull:
            // The gateway's own cap (docs/SECURITY.md), in the words Google uses for a quota.
            return FCMError(status: .resourceExhausted, message: "Resource has been exhausted (e.g. check quota).")
        }
    }

    static func invalidArgument(_ field: String, _ description: String) -> FCMError {
        FCMError(
            status: .invalidArgument, message: description,
            details: [.badRequest([FCMError.FieldViolation(field: field, description: description)])])
    }

    /// A `create` or `patch` body must be a JSON object of `TopicSubscription`'s fields (all of
    /// them output only, so their values are ignored).
    static func bodyProblem(_ request: HTTPRequestMessage) -> FCMError? {
        if request.isBodyTruncated {
            return FCMError(status: .invalidArgument, message: "Request payload size exceeds the limit: \(request.body.count) bytes.")
        }
        if request.body.isEmpty { return nil }
        guard let root = try? JSONValue(parsing: request.body) else {
            return FCMError(status: .invalidArgument, message: "Invalid JSON payload received. Unexpected token.")
        }
        guard let object = root.objectValue else {
            return FCMError(status: .invalidArgument, message: "Invalid JSON payload received. Expected an object.")
        }
        let known: Set<String> = ["name", "topicName", "topic_name", "createTime", "create_time"]
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            let text = "Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field."
            return FCMError(
                status: .invalidArgument, message: text, details: [.badRequest([FCMError.FieldViolation(field: nil, description: text)])])
        }
        return nil
    }

    static func parentName(_ project: FCMProjectID, _ registration: String) -> String {
        "projects/\(project.rawValue)/registrations/\(registration)"
    }

    static func write(subscription topic: String, since: Timestamp, parent: String, names: FCMOptions, to writer: inout JSONWriter) {
        let snake = names.topicSubscriptionFieldNames == .snakeCase
        writer.beginObject()
        writer.key("name")
        writer.string("\(parent)/topicSubscriptions/\(topic)")
        writer.key(snake ? "topic_name" : "topicName")
        writer.string(topic)
        writer.key(snake ? "create_time" : "createTime")
        writer.string(ISO8601Milliseconds.format(since.millisecondsSince1970))
        writer.endObject()
    }

    static func listBody(
        _ page: ArraySlice<(topic: String, since: Timestamp)>, next: String?, parent: String, names: FCMOptions
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: 128 + 160 * page.count)
        writer.beginObject()
        // proto3 leaves empty repeated fields and empty strings out.
        if !page.isEmpty {
            writer.key(names.topicSubscriptionFieldNames == .snakeCase ? "topic_subscriptions" : "topicSubscriptions")
            writer.beginArray()
            for entry in page {
                write(subscription: entry.topic, since: entry.since, parent: parent, names: names, to: &writer)
            }
            writer.endArray()
        }
        if let next {
            writer.key(names.topicSubscriptionFieldNames == .snakeCase ? "next_page_token" : "nextPageToken")
            writer.string(next)
        }
        writer.endObject()
        writer.flush()
        return writer.bytes
    }

    // MARK: Request pieces

    /// The IAM permission a call needs (named in a 403).
    static func permission(for call: Call) -> String {
        switch call {
        case .create: "cloudmessaging.topicSubscriptions.create"
        case .list: "cloudmessaging.topicSubscriptions.list"
        case .get: "cloudmessaging.topicSubscriptions.get"
        case .patch: "cloudmessaging.topicSubscriptions.update"
        case .delete: "cloudmessaging.topicSubscriptions.delete"
        }
    }

    /// Topic names match `[a-zA-Z0-9-_.~%]{1,900}` (Google's reference).
    static func isTopicName(_ text: String) -> Bool {
        FCMTopicName.isSubscribable(text)
    }

    static func decoded(_ segment: Substring) -> String? {
        let text = String(segment)
        guard let decoded = text.removingPercentEncoding, !decoded.isEmpty else { return nil }
        return decoded
    }

    /// `true`/`false` (any case, or 1/0); `nil` when absent or unreadable.
    static func flag(_ text: String?) -> Bool? {
        switch text?.lowercased() {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }

    /// Query items by name, percent-decoded (`+` as a space); the last occurrence wins.
    static func queryItems(_ query: Substring?) -> [String: String] {
        var items: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let raw = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ") : ""
            items[name] = raw.removingPercentEncoding ?? raw
        }
        return items
    }
}
