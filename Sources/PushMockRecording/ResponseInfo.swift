public import PushMockCore

/// The response half of an exchange, as sent by the gateway.
public struct ResponseInfo: Sendable, Hashable {
    /// HTTP status code.
    public var status: Int
    /// The APNs `reason` or FCM error status, when the response carried one.
    public var reason: String?
    /// Response headers in order.
    public var headers: HTTPHeaderList
    /// The response body as sent.
    public var body: RecordedBody
    /// The APNs 410 `timestamp` (milliseconds since the epoch) if one was reported.
    public var timestampMilliseconds: Int64?

    /// Creates response information; defaults to an empty `200`.
    public init(
        status: Int = 200,
        reason: String? = nil,
        headers: HTTPHeaderList = HTTPHeaderList(),
        body: RecordedBody = .none,
        timestampMilliseconds: Int64? = nil
    ) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.timestampMilliseconds = timestampMilliseconds
    }
}
