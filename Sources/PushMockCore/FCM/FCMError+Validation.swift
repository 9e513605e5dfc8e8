/// The errors ``FCMMessageValidator`` produces. All are 400 `INVALID_ARGUMENT`.
extension FCMError {
    /// No target (`token`, `topic`, `condition`, `fid`) was set — or no `message` at all.
    /// Text and detail order (BadRequest first, then FcmError) as captured from FCM.
    public static func recipientNotSet() -> FCMError {
        let text = "Recipient of the message is not set."
        return FCMError(
            status: .invalidArgument,
            message: text,
            details: [.badRequest([FieldViolation(field: "message", description: text)]), .fcmError(.invalidArgument)]
        )
    }

    /// The message exceeds the payload limit: 4096 bytes, 2048 for topic and condition sends.
    ///
    /// "Android message is too big" with an empty `BadRequest` followed by an `FcmError` was
    /// captured for a token send; topic sends use the same shape with "Topic message is too big"
    /// (our choice — no capture found).
    public static func messageTooBig(toTopic: Bool) -> FCMError {
        FCMError(
            status: .invalidArgument,
            message: toTopic ? "Topic message is too big" : "Android message is too big",
            details: [.badRequest([]), .fcmError(.invalidArgument)]
        )
    }

    /// A message that parsed but breaks one of FCM's rules (reserved data key, TTL out of range,
    /// bad topic…): `FcmError` `INVALID_ARGUMENT` plus a `BadRequest` violation on `field`.
    ///
    /// The top-level message is `description` itself, or Google's generic "Request contains an
    /// invalid argument." when `generic` is set (``FCMValidationOptions/genericInvalidArgumentMessages``).
    public static func invalidField(_ field: String, _ description: String, generic: Bool = false) -> FCMError {
        FCMError(
            status: .invalidArgument,
            message: generic ? genericInvalidArgumentMessage : description,
            details: [.fcmError(.invalidArgument), .badRequest([FieldViolation(field: field, description: description)])]
        )
    }

    /// Errors found while reading the JSON into the schema (unknown names, wrong value types,
    /// a second `oneof` member): one line per problem joined by `\n`, one violation each, and
    /// no `FcmError` detail — as Google's JSON transcoder reports them.
    static func payload(_ issues: [FCMPayloadIssue]) -> FCMError {
        FCMError(
            status: .invalidArgument,
            message: issues.map(\.text).joined(separator: "\n"),
            details: [.badRequest(issues.map(\.violation))]
        )
    }
}
