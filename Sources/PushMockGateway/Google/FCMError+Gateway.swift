import PushMockCore

extension FCMError {
    /// 403 for an access token whose scopes do not include FCM's (`cloud-platform` or
    /// `firebase.messaging`): Google's standard answer for insufficient scopes.
    static func insufficientScopes() -> FCMError {
        FCMError(
            httpStatus: 403,
            status: .permissionDenied,
            message: "Request had insufficient authentication scopes.",
            details: []
        )
    }
}

/// Google's standard `prettyPrint` query parameter, which every discovery-based API (FCM HTTP
/// v1 among them) honours: `true` (the default) answers indented JSON, `false` compact JSON.
enum GooglePrettyPrint {
    /// Whether to indent the answer to `request`: its `prettyPrint` parameter when it has one
    /// that reads as a boolean, else `configured` (``FCMOptions/prettyPrintErrors``).
    static func isRequested(by request: HTTPRequestMessage, configured: Bool) -> Bool {
        guard let query = request.query else { return configured }
        var answer = configured
        for item in query.split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "prettyPrint" else { continue }
            // The last occurrence wins, as with Google's other repeated system parameters.
            switch parts[1].lowercased() {
            case "false", "0": answer = false
            case "true", "1": answer = true
            default: continue
            }
        }
        return answer
    }
}
