/// The knobs of ``FCMMessageValidator`` for behaviour the sources leave open. The defaults are
/// what `docs/fcm-validation.md` argues is most plausible.
public struct FCMValidationOptions: Sendable, Hashable {
    /// How `message.token` and `message.fid` are checked (default: lenient).
    public var identifierRule: FCMRegistrationToken.Rule
    /// Which `data` keys are reserved (default: the discovery document's list).
    public var reservedDataKeys: FCMReservedDataKeys
    /// The payload limit for token and FID sends (4096 bytes).
    public var maximumPayloadSize: Int
    /// The payload limit for topic and condition sends (2048 bytes).
    public var maximumTopicPayloadSize: Int
    /// The most topic terms a condition may have (5).
    public var maximumConditionTopics: Int
    /// When set, rule violations (reserved key, bad TTL, bad topic…) carry Google's generic
    /// "Request contains an invalid argument." as the top-level message and keep the specific
    /// text only in the field violation — what FCM does for many of them. Off by default so a
    /// tester sees the reason at a glance.
    public var genericInvalidArgumentMessages: Bool

    public init(
        identifierRule: FCMRegistrationToken.Rule = .lenient,
        reservedDataKeys: FCMReservedDataKeys = .documented,
        maximumPayloadSize: Int = 4096,
        maximumTopicPayloadSize: Int = 2048,
        maximumConditionTopics: Int = FCMCondition.defaultMaximumTopics,
        genericInvalidArgumentMessages: Bool = false
    ) {
        self.identifierRule = identifierRule
        self.reservedDataKeys = reservedDataKeys
        self.maximumPayloadSize = maximumPayloadSize
        self.maximumTopicPayloadSize = maximumTopicPayloadSize
        self.maximumConditionTopics = maximumConditionTopics
        self.genericInvalidArgumentMessages = genericInvalidArgumentMessages
    }
}
