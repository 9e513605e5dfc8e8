import PushMockCore
import PushMockJSON

/// FCM HTTP v1: a bearer access token shared by all connections, `messages:send`, and the
/// Google error envelope.
struct FCMPlatform: DeliveryPlatform {
    let tokens: AccessTokenProvider
    let retry: RetryPolicy

    /// The headers of every send; ask for the detailed error format (FcmError details), as the
    /// Admin SDKs do.
    static let headers: HTTPHeaderList = {
        var headers = HTTPHeaderList()
        headers.append(.contentType, value: "application/json; charset=UTF-8")
        headers.append(name: "x-goog-api-format-version", value: "2")
        return headers
    }()

    /// The key of ``headers``.
    static let headersKey = PreparedRequest.newHeadersKey()

    func authorization(_ auth: inout ConnectionAuthState, now: Timestamp) -> AuthorizationHeader {
        tokens.currentHeader(now: now).map(AuthorizationHeader.value) ?? .unavailable
    }

    func classify(
        _ response: HTTPResponseMessage,
        auth: inout ConnectionAuthState,
        authorization: String?,
        now: Timestamp
    ) -> AttemptVerdict {
        let status = response.status
        let body = try? JSONValue(parsing: response.body)
        if status == 200 {
            return .final(.accepted(Acceptance(id: body?["name"]?.stringValue ?? "")))
        }
        let error = GoogleErrorBody(body)
        let reason = error.errorCode ?? error.status ?? "HTTP \(status)"
        let rejection = SendOutcome.rejected(Rejection(status: status, reason: reason, message: error.message))
        if status == 401, error.errorCode == nil || error.errorCode == "UNAUTHENTICATED" {
            // Our access token expired or was revoked: fetch a new one and send again.
            tokens.invalidate(header: authorization)
            return .refreshCredentials(fallback: rejection)
        }
        if error.errorCode == FCMErrorCode.unregistered.rawValue || error.apnsStatus == 410 {
            return .final(
                .tokenInvalid(TokenInvalidation(status: status, reason: error.apnsStatus == 410 ? (error.apnsReason ?? reason) : reason)))
        }
        if retry.retryableStatuses.contains(status) {
            let retryAfter = response.headers.first(.retryAfter).flatMap { RetryAfter.parse($0, now: now) }
            return .retry(
                DeliveryFailure(
                    status: status,
                    reason: reason,
                    error: SenderError(.serverError, "FCM answered \(status) \(reason)\(error.message.map { ": \($0)" } ?? "")")
                ),
                retryAfter: retryAfter
            )
        }
        return .final(rejection)
    }

    func verdict(forGoAwayReason reason: String) -> AttemptVerdict? { nil }

    func refreshCredentials() async -> SenderError? {
        do {
            _ = try await tokens.token()
            return nil
        } catch {
            return error
        }
    }
}

/// The fields of a Google error body (`{"error": {"code", "message", "status", "details"}}`)
/// a sender acts on.
struct GoogleErrorBody {
    var status: String?
    var message: String?
    /// `details[@type=…FcmError].errorCode`.
    var errorCode: String?
    /// `details[@type=…ApnsError].statusCode` / `.reason` (APNs's answer relayed by FCM).
    var apnsStatus: Int?
    var apnsReason: String?

    init(_ body: JSONValue?) {
        let error = body?["error"]
        status = error?["status"]?.stringValue
        message = error?["message"]?.stringValue
        for detail in error?["details"]?.arrayValue ?? [] {
            let type = detail["@type"]?.stringValue ?? ""
            if type.hasSuffix("FcmError") {
                errorCode = detail["errorCode"]?.stringValue
            } else if type.hasSuffix("ApnsError") {
                apnsStatus = detail["statusCode"]?.intValue
                apnsReason = detail["reason"]?.stringValue
            }
        }
    }
}
