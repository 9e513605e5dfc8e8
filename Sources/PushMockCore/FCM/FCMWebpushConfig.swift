public import PushMockJSON

/// `message.webpush`: Web Push options, as sent (`nil` = not set).
public struct FCMWebpushConfig: Sendable, Hashable {
    /// RFC 8030 headers (`TTL`, `Urgency`, `Topic`…), names as sent.
    public var headers: FCMStringMap?
    /// Overrides `message.data` for web clients.
    public var data: FCMStringMap?
    /// The Web Notification object (`title`, `body`, `icon`, `actions`…), kept as sent.
    public var notification: JSONValue?
    public var fcmOptions: FCMFcmOptions?

    public init() {}

    /// `fcm_options.link`.
    public var link: String? { fcmOptions?.link }

    init(_ parsed: FCMParsedMessage) {
        headers = parsed.map("headers")
        data = parsed.map("data")
        notification = parsed.structObject("notification").map(JSONValue.object)
        fcmOptions = parsed.message("fcm_options").map(FCMFcmOptions.init)
    }
}
