/// The errors of table C3 (FCM v1 `messages:send`), with the messages observed from the real
/// service. Texts marked "our choice" in `docs/fcm-validation.md` were not found in any capture.
extension FCMError {
    /// The generic text Google uses for `INVALID_ARGUMENT` when it has nothing more specific.
    public static let genericInvalidArgumentMessage = "Request contains an invalid argument."

    /// The `WWW-Authenticate` value sent with a missing bearer token.
    public static let bearerChallenge = #"Bearer realm="https://accounts.google.com/""#
    /// The `WWW-Authenticate` value sent with an invalid or expired bearer token.
    public static let invalidTokenChallenge = #"Bearer realm="https://accounts.google.com/", error="invalid_token""#

    /// 404 `NOT_FOUND` / `UNREGISTERED`: the token was valid once but the app instance is gone
    /// (also answered under `validate_only`).
    public static func unregistered() -> FCMError {
        FCMError(
            status: .notFound,
            message: "Requested entity was not found.",
            details: [.fcmError(.unregistered)]
        )
    }

    /// 400 `INVALID_ARGUMENT`: the target is not an FCM registration token at all.
    ///
    /// Observed with the `FcmError` detail alone and with an extra `BadRequest` violation on
    /// `message.token`; this renders the fuller variant.
    public static func invalidRegistrationToken(field: String = "message.token") -> FCMError {
        let text = "The registration token is not a valid FCM registration token"
        return FCMError(
            status: .invalidArgument,
            message: text,
            details: [.fcmError(.invalidArgument), .badRequest([FieldViolation(field: field, description: text)])]
        )
    }

    /// 403 `PERMISSION_DENIED` / `SENDER_ID_MISMATCH`: the token belongs to another project.
    public static func senderIDMismatch() -> FCMError {
        FCMError(
            status: .permissionDenied,
            message: "SenderId mismatch",
            details: [.fcmError(.senderIDMismatch)]
        )
    }

    /// 401 `UNAUTHENTICATED`: no `Authorization` header. No `FcmError` detail (so Node's SDK
    /// reports it as *third-party-auth-error*). `errorInfo: true` adds the `ErrorInfo`
    /// `CREDENTIALS_MISSING` detail seen in 2024 captures.
    public static func missingCredential(errorInfo: Bool = false) -> FCMError {
        FCMError(
            status: .unauthenticated,
            message:
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
            details: errorInfo ? [.errorInfo(.sendMessage(reason: "CREDENTIALS_MISSING"))] : [],
            wwwAuthenticate: bearerChallenge
        )
    }

    /// 401 `UNAUTHENTICATED`: the bearer token is unknown or expired. `expired: true` adds the
    /// `ErrorInfo` `ACCESS_TOKEN_EXPIRED` detail seen in 2024 captures of expired tokens.
    public static func invalidCredential(expired: Bool = false) -> FCMError {
        FCMError(
            status: .unauthenticated,
            message:
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
            details: expired ? [.errorInfo(.sendMessage(reason: "ACCESS_TOKEN_EXPIRED"))] : [],
            wwwAuthenticate: invalidTokenChallenge
        )
    }

    /// 403 `PERMISSION_DENIED`: the caller's identity may not send for `project` (IAM).
    public static func permissionDenied(project: String) -> FCMError {
        FCMError(
            status: .permissionDenied,
            message:
                "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist)."
        )
    }

    /// 403 `PERMISSION_DENIED`: the FCM API is disabled for the project (Google's standard
    /// "has not been used … or it is disabled" text).
    public static func apiDisabled(project: String) -> FCMError {
        FCMError(
            status: .permissionDenied,
            message:
                "Firebase Cloud Messaging API has not been used in project \(project) before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/fcm.googleapis.com/overview?project=\(project) then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry."
        )
    }

    /// 429 `RESOURCE_EXHAUSTED` / `QUOTA_EXCEEDED` with a `QuotaFailure` detail naming the kind.
    /// `subject` (for example `projects/<p>` or `topics/<t>`) is omitted when empty.
    public static func quotaExceeded(kind: FCMQuotaKind, retryAfter: Int? = nil, subject: String = "") -> FCMError {
        FCMError(
            status: .resourceExhausted,
            message: kind.message,
            details: [
                .fcmError(.quotaExceeded),
                .quotaFailure([QuotaViolation(subject: subject, description: kind.violationDescription)]),
            ],
            retryAfter: retryAfter
        )
    }

    /// 503 `UNAVAILABLE`: the service is overloaded; optionally with `Retry-After` seconds.
    public static func unavailable(retryAfter: Int? = nil) -> FCMError {
        FCMError(
            status: .unavailable,
            message: "The service is currently unavailable.",
            details: [.fcmError(.unavailable)],
            retryAfter: retryAfter
        )
    }

    /// 500 `INTERNAL`: an unknown internal error; optionally with `Retry-After` seconds.
    public static func `internal`(retryAfter: Int? = nil) -> FCMError {
        FCMError(
            status: .internal,
            message: "Internal error encountered.",
            details: [.fcmError(.internal)],
            retryAfter: retryAfter
        )
    }

    /// 401 `UNAUTHENTICATED` / `THIRD_PARTY_AUTH_ERROR`: APNs (or a web-push service) rejected
    /// the project's credential at delivery. With an APNs status, the relayed `ApnsError`
    /// detail follows (e.g. 403 `InvalidProviderToken`, 403 `BadEnvironmentKeyInToken`).
    public static func thirdPartyAuthError(apnsStatus: Int? = 403, apnsReason: String = "InvalidProviderToken")
        -> FCMError
    {
        var details: [Detail] = [.fcmError(.thirdPartyAuthError)]
        if let apnsStatus {
            details.append(.apnsError(statusCode: apnsStatus, reason: apnsReason))
        }
        return FCMError(status: .unauthenticated, message: "Auth error from APNS or Web Push Service", details: details)
    }

    /// APNs answered 410 for the device token FCM mapped the registration to.
    ///
    /// The only full capture with this message is 400 `INVALID_ARGUMENT` / `INVALID_ARGUMENT`
    /// plus the relayed `ApnsError`, so that is the default; `asUnregistered: true` gives the
    /// 404 `NOT_FOUND` / `UNREGISTERED` pairing another capture shows (and that SDK token-cleanup
    /// code keys on).
    public static func apnsTokenDisabled(apnsReason: String = "Unregistered", asUnregistered: Bool = false)
        -> FCMError
    {
        let code: FCMErrorCode = asUnregistered ? .unregistered : .invalidArgument
        return FCMError(
            status: asUnregistered ? .notFound : .invalidArgument,
            message: "APNs device token is disabled.",
            details: [.fcmError(code), .apnsError(statusCode: 410, reason: apnsReason)]
        )
    }

    /// 400 `INVALID_ARGUMENT` with an `FcmError` detail, then a `BadRequest` when there are
    /// violations, then an `ApnsError` when FCM relays an APNs rejection (e.g. 400
    /// `BadDeviceToken`). The message defaults to Google's generic text.
    public static func invalidArgument(
        message: String = genericInvalidArgumentMessage,
        violations: [FieldViolation] = [],
        apnsError: (statusCode: Int, reason: String)? = nil
    ) -> FCMError {
        var details: [Detail] = [.fcmError(.invalidArgument)]
        if !violations.isEmpty {
            details.append(.badRequest(violations))
        }
        if let apnsError {
            details.append(.apnsError(statusCode: apnsError.statusCode, reason: apnsError.reason))
        }
        return FCMError(status: .invalidArgument, message: message, details: details)
    }

    /// 404 `NOT_FOUND` for a path that names no FCM method (e.g. `/v1/projects/p/messages:sned`).
    ///
    /// Google's front end answers unknown URLs with an HTML page ("The requested URL … was not
    /// found on this server."); this is the same sentence in the JSON envelope, so clients that
    /// always parse JSON still get a readable error. No details.
    public static func notFound(path: String) -> FCMError {
        FCMError(status: .notFound, message: "The requested URL \(path) was not found on this server.")
    }
}
