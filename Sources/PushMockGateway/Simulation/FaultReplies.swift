import PushMockCore
import PushMockJSON
import PushMockSimulation

/// Turns a fault action into what goes on the wire: the connection-level behaviours here, the
/// error answers in each endpoint's own dialect (``GatewayEndpoint/answerInjected(_:_:in:)``
/// uses the builders below).
enum FaultReplies {
    /// The reply action of an action the client gets no HTTP answer for; `nil` for the others.
    static func noAnswer(_ action: FaultAction) -> HTTPReply.Action? {
        switch action {
        case .reset(let code):
            return .resetStream(code)
        case .goAway(let reason, let code, let lastStream, let close):
            let debug = reason.map { APNsError(APNsReason(rawValue: $0)).goAwayDebugData } ?? []
            return .goAway(code, debugData: debug, lastStreamID: lastStream == .last ? nil : 0, closeConnection: close)
        case .close:
            return .closeConnection
        case .hang:
            return .noResponse
        case .apnsError, .fcmError, .iidError, .oauthError, .expoError, .settings, .pass:
            return nil
        }
    }

    /// The FCM error an `fcm-error` action names.
    static func fcmError(code: String, retryAfter: Int?, message: String?) -> FCMError {
        var error: FCMError
        switch code.uppercased() {
        case "QUOTA_EXCEEDED", "RESOURCE_EXHAUSTED": error = .quotaExceeded(kind: .deviceMessageRate, retryAfter: retryAfter)
        case "UNAVAILABLE": error = .unavailable(retryAfter: retryAfter)
        case "INTERNAL": error = .internal(retryAfter: retryAfter)
        case "UNREGISTERED", "NOT_FOUND": error = .unregistered()
        case "SENDER_ID_MISMATCH": error = .senderIDMismatch()
        case "THIRD_PARTY_AUTH_ERROR", "APNS_AUTH_ERROR": error = .thirdPartyAuthError(apnsStatus: 403, apnsReason: "InvalidProviderToken")
        case "UNAUTHENTICATED": error = .invalidCredential()
        case "PERMISSION_DENIED": error = .permissionDenied(project: "")
        default: error = .invalidArgument(message: "Request contains an invalid argument.", violations: [], apnsError: nil)
        }
        if let message {
            error.message = message
        }
        if let retryAfter {
            error.retryAfter = retryAfter
        }
        return error
    }

    /// `{"error": "<code>"}` as IID answers.
    static func iidError(_ error: String, status: Int?, retryAfter: Int?) -> HTTPResponseMessage {
        let status =
            status ?? [
                "RESOURCE_EXHAUSTED": 429, "INTERNAL": 500, "UNAVAILABLE": 503, "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403,
            ][error] ?? 400
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("error")
            writer.string(error)
        }
        var headers = IIDTopicEndpoint.jsonHeaders()
        if let retryAfter {
            headers.append(name: "retry-after", value: String(retryAfter))
        }
        return HTTPResponseMessage(status: status, headers: headers, body: body.bytes)
    }

    /// `{"error": …, "error_description": …}` as the token endpoint answers.
    static func oauthError(_ error: String, description: String?, status: Int?) -> HTTPResponseMessage {
        let status = status ?? ["internal_failure": 500, "server_error": 500, "temporarily_unavailable": 503][error] ?? 400
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("error")
            writer.string(error)
            if let description {
                writer.key("error_description")
                writer.string(description)
            }
        }
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json; charset=utf-8")
        return HTTPResponseMessage(status: status, headers: headers, body: body.bytes)
    }
}
