import Foundation
import PushMockCore
import PushMockJSON

/// The Instance ID topic-management API the Admin SDKs call: `POST /iid/v1:batchAdd` and
/// `POST /iid/v1:batchRemove` with `{"to": "/topics/<name>", "registration_tokens": [...]}`,
/// an OAuth2 access token and the `access_token_auth: true` header (table C5).
///
/// Errors are bare strings (`{"error":"INVALID_ARGUMENT"}`), as the SDKs parse them; which
/// status a missing `access_token_auth` header gets is undocumented — we answer 401
/// `UNAUTHENTICATED`, because without the header IID treats the bearer as a legacy server key,
/// and an access token is not one.
struct IIDService {
    let options: FCMOptions
    let tokens: AccessTokenStore
    let registry: FCMRegistry

    static let maximumTokensPerRequest = 1000

    struct Outcome {
        var reply: HTTPReply
        var status: Int
        var error: String?
        var topic: String?
        var project: String?
        var grant: AccessTokenGrant?
        var tokens: [String] = []
    }

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

    func handle(_ request: HTTPRequestMessage, now: Timestamp) -> Outcome {
        guard let operation = Self.operation(forPath: request.pathWithoutQuery) else {
            return failure(404, "NOT_FOUND")
        }
        guard request.method == "POST" else { return failure(405, "METHOD_NOT_ALLOWED") }
        guard let token = GoogleBearer.token(in: request) else { return failure(401, "UNAUTHENTICATED") }
        guard let grant = tokens.validGrant(token, now: now) else { return failure(401, "UNAUTHENTICATED") }
        guard request.headers.first(named: "access_token_auth")?.lowercased() == "true" else {
            var outcome = failure(401, "UNAUTHENTICATED")
            outcome.grant = grant
            return outcome
        }
        guard grant.allowsFCM else {
            var outcome = failure(403, "PERMISSION_DENIED")
            outcome.grant = grant
            return outcome
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
            let to = object["to"] as? String,
            let registrationTokens = object["registration_tokens"] as? [Any],
            !registrationTokens.isEmpty, registrationTokens.count <= Self.maximumTokensPerRequest
        else {
            var outcome = failure(400, "INVALID_ARGUMENT")
            outcome.grant = grant
            return outcome
        }
        var topic = Substring(to)
        if topic.hasPrefix("/topics/") { topic = topic.dropFirst(8) }
        let bareTopic = topic.hasPrefix("private/") ? topic.dropFirst(8) : topic
        guard FCMTopicName.isValid(String(bareTopic)) else {
            var outcome = failure(400, "INVALID_ARGUMENT")
            outcome.grant = grant
            return outcome
        }
        var results: [String?] = []
        var seen: [String] = []
        for entry in registrationTokens {
            guard let token = entry as? String, !token.isEmpty, FCMRegistrationToken.isWellFormed(token) else {
                results.append("INVALID_ARGUMENT")
                continue
            }
            seen.append(token)
            switch registry.changeSubscription(
                token: token,
                topic: String(topic),
                subscribe: operation == .add,
                project: grant.projectID,
                createUnknown: !options.rejectUnknownTokens,
                now: now
            ) {
            case .ok: results.append(nil)
            case .notFound: results.append("NOT_FOUND")
            case .tooManyTopics: results.append("TOO_MANY_TOPICS")
            case .senderMismatch: results.append("PERMISSION_DENIED")
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
        return Outcome(
            reply: .respond(HTTPResponseMessage(status: 200, headers: Self.jsonHeaders(), body: body.bytes)),
            status: 200,
            topic: String(topic),
            project: grant.projectID,
            grant: grant,
            tokens: seen
        )
    }

    private func failure(_ status: Int, _ error: String) -> Outcome {
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("error")
            writer.string(error)
        }
        return Outcome(
            reply: .respond(HTTPResponseMessage(status: status, headers: Self.jsonHeaders(), body: body.bytes)),
            status: status,
            error: error
        )
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
