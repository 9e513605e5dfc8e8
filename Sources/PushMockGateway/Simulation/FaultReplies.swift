import PushMockCore
import PushMockJSON
import PushMockSimulation

/// Turns a fault action into the wire answer of the platform it targets.
enum FaultReplies {
    /// The reply for connection-level and generic actions; `nil` for error actions (built by
    /// the platform's service) and for `pass`/`settings` (a normal answer follows).
    static func connectionLevel(_ action: FaultAction) -> HTTPReply.Action? {
        switch action.type {
        case .reset:
            return .resetStream(action.code.flatMap(HTTP2ErrorCode.init(name:)) ?? .internalError)
        case .goaway:
            let debug = action.reason.map { APNsError(APNsReason(rawValue: $0)).goAwayDebugData } ?? []
            let code = action.code.flatMap(HTTP2ErrorCode.init(name:)) ?? .noError
            return .goAway(code, debugData: debug, lastStreamID: action.lastStream == "last" ? nil : 0, closeConnection: action.close ?? true)
        case .close:
            return .closeConnection
        case .hang:
            return .noResponse
        default:
            return nil
        }
    }

    /// The FCM error a `fcm-error` action names.
    static func fcmError(_ action: FaultAction) -> FCMError {
        let code = (action.code ?? "INTERNAL").uppercased()
        var error: FCMError
        switch code {
        case "QUOTA_EXCEEDED", "RESOURCE_EXHAUSTED": error = .quotaExceeded(kind: .deviceMessageRate, retryAfter: action.retryAfter)
        case "UNAVAILABLE": error = .unavailable(retryAfter: action.retryAfter)
        case "INTERNAL": error = .internal(retryAfter: action.retryAfter)
        case "UNREGISTERED", "NOT_FOUND": error = .unregistered()
        case "SENDER_ID_MISMATCH": error = .senderIDMismatch()
        case "THIRD_PARTY_AUTH_ERROR", "APNS_AUTH_ERROR": error = .thirdPartyAuthError(apnsStatus: 403, apnsReason: "InvalidProviderToken")
        case "UNAUTHENTICATED": error = .invalidCredential()
        case "PERMISSION_DENIED": error = .permissionDenied(project: "")
        default: error = .invalidArgument(message: "Request contains an invalid argument.", violations: [], apnsError: nil)
        }
        if let message = action.message {
            error.message = message
        }
        if let retryAfter = action.retryAfter {
            error.retryAfter = retryAfter
        }
        return error
    }

    /// `{"error": "<code>"}` as IID answers.
    static func iidError(_ action: FaultAction) -> HTTPResponseMessage {
        let error = action.error ?? "INTERNAL"
        let status = action.status ?? [
            "RESOURCE_EXHAUSTED": 429, "INTERNAL": 500, "UNAVAILABLE": 503, "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403,
        ][error] ?? 400
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("error")
            writer.string(error)
        }
        var headers = IIDService.jsonHeaders()
        if let retryAfter = action.retryAfter {
            headers.append(name: "retry-after", value: String(retryAfter))
        }
        return HTTPResponseMessage(status: status, headers: headers, body: body.bytes)
    }

    /// `{"error": …, "error_description": …}` as the token endpoint answers.
    static func oauthError(_ action: FaultAction) -> HTTPResponseMessage {
        let error = action.error ?? "internal_failure"
        let status = action.status ?? ["internal_failure": 500, "server_error": 500, "temporarily_unavailable": 503][error] ?? 400
        var body = JSONWriterBox()
        body.object { writer in
            writer.key("error")
            writer.string(error)
            if let description = action.description_ {
                writer.key("error_description")
                writer.string(description)
            }
        }
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json; charset=utf-8")
        return HTTPResponseMessage(status: status, headers: headers, body: body.bytes)
    }
}
