public import PushMockCore

/// One APNs notification: the device token, the JSON payload and the `apns-*` headers.
public struct APNsNotification: Sendable, Hashable {
    /// When the notification stops being worth delivering (`apns-expiration`).
    public struct Expiration: Sendable, Hashable {
        /// Seconds since 1970; 0 means "try once, do not store".
        public var secondsSince1970: Int64

        public init(secondsSince1970: Int64) { self.secondsSince1970 = secondsSince1970 }

        /// `apns-expiration: 0`: deliver now or never.
        public static let immediately = Expiration(secondsSince1970: 0)

        /// Store and retry until `timestamp`.
        public static func at(_ timestamp: Timestamp) -> Expiration {
            Expiration(secondsSince1970: timestamp.secondsSince1970)
        }
    }

    /// The hex device token.
    public var deviceToken: String
    /// The JSON payload (an object with an `aps` dictionary).
    public var payload: [UInt8]
    /// `apns-topic`; `nil` uses the configuration's default topic.
    public var topic: String?
    /// `apns-push-type`; `nil` sends `alert`, or `background` for a content-available-only
    /// payload built with ``APNsPayload``.
    public var pushType: APNsPushType?
    /// `apns-priority`; `nil` omits the header (APNs then uses 10).
    public var priority: APNsPriority?
    /// `apns-expiration`; `nil` omits the header.
    public var expiration: Expiration?
    /// `apns-collapse-id` (at most 64 bytes).
    public var collapseID: String?
    /// `apns-id` (a UUID); `nil` lets APNs generate one (returned in the outcome).
    public var apnsID: String?

    /// A notification with a ready-made JSON payload.
    public init(
        deviceToken: String,
        payloadJSON: [UInt8],
        topic: String? = nil,
        pushType: APNsPushType? = nil,
        priority: APNsPriority? = nil,
        expiration: Expiration? = nil,
        collapseID: String? = nil,
        apnsID: String? = nil
    ) {
        self.deviceToken = deviceToken
        self.payload = payloadJSON
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }

    /// A notification built from a typed payload. The push type defaults to `background`
    /// for a payload that only sets `content-available`, `liveactivity` for Live Activity
    /// payloads, `alert` otherwise.
    public init(
        deviceToken: String,
        payload: APNsPayload,
        topic: String? = nil,
        pushType: APNsPushType? = nil,
        priority: APNsPriority? = nil,
        expiration: Expiration? = nil,
        collapseID: String? = nil,
        apnsID: String? = nil
    ) {
        self.init(
            deviceToken: deviceToken,
            payloadJSON: payload.encoded(),
            topic: topic,
            pushType: pushType ?? payload.suggestedPushType,
            priority: priority,
            expiration: expiration,
            collapseID: collapseID,
            apnsID: apnsID
        )
    }
}
