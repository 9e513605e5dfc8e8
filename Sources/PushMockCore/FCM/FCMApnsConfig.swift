public import PushMockJSON

/// `message.apns`: the APNs request FCM makes for iOS devices, as sent (`nil` = not set).
public struct FCMApnsConfig: Sendable, Hashable {
    /// The `headers` map as an HTTP header list: names lower-cased (HTTP/2), values and order as
    /// sent. Checked with the same rules as a direct APNs request.
    public var headers: HTTPHeaderList
    /// The parsed `apns-*` values of ``headers``.
    public var headerValues: APNsNotificationHeaders
    /// The APNs payload (`aps` plus custom keys), kept as sent.
    public var payload: JSONValue?
    public var fcmOptions: FCMFcmOptions?
    /// A Live Activity push (or push-to-start) token.
    public var liveActivityToken: String?

    public init(
        headers: HTTPHeaderList = HTTPHeaderList(),
        headerValues: APNsNotificationHeaders = APNsNotificationHeaders(),
        payload: JSONValue? = nil,
        fcmOptions: FCMFcmOptions? = nil,
        liveActivityToken: String? = nil
    ) {
        self.headers = headers
        self.headerValues = headerValues
        self.payload = payload
        self.fcmOptions = fcmOptions
        self.liveActivityToken = liveActivityToken
    }

    /// The push type APNs would apply: `apns-push-type`, or `alert`.
    public var effectivePushType: APNsPushType { headerValues.pushType ?? .alert }

    /// The payload's size as FCM would send it to APNs (compact JSON bytes).
    public var payloadByteCount: Int { payload?.compactBytes.count ?? 0 }
}
