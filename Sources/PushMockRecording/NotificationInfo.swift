/// The push-specific facts extracted from a send request (APNs headers/path or FCM message),
/// recorded so tests can query "what was pushed to whom" without re-parsing requests.
public struct NotificationInfo: Sendable, Hashable {
    /// Device token (APNs) or registration token (FCM).
    public var token: String?
    /// `apns-topic`, or the FCM topic name.
    public var topic: String?
    /// `apns-push-type`.
    public var pushType: String?
    /// `apns-priority`, or FCM priority mapped to a number by the caller.
    public var priority: Int?
    /// `apns-expiration` (seconds since the epoch), if given.
    public var expiration: Int64?
    /// `apns-collapse-id` or FCM collapse key.
    public var collapseID: String?
    /// `apns-id`, or the FCM message name (`projects/…/messages/…`).
    public var messageID: String?
    /// FCM project ID.
    public var project: String?
    /// FCM condition expression.
    public var condition: String?
    /// Tokens the topic or condition resolved to in the mock's registry.
    public var resolvedTokens: [String]

    /// Creates notification information; every field defaults to absent.
    public init(
        token: String? = nil,
        topic: String? = nil,
        pushType: String? = nil,
        priority: Int? = nil,
        expiration: Int64? = nil,
        collapseID: String? = nil,
        messageID: String? = nil,
        project: String? = nil,
        condition: String? = nil,
        resolvedTokens: [String] = []
    ) {
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.messageID = messageID
        self.project = project
        self.condition = condition
        self.resolvedTokens = resolvedTokens
    }
}
