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
