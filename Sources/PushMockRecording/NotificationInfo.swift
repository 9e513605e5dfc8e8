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
    /// What the linter noticed about an accepted notification (`docs/lint-rules.md`).
    public var lint: [LintNote]

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
        resolvedTokens: [String] = [],
        lint: [LintNote] = []
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
        self.lint = lint
    }
}

/// One lint finding as recorded: something real APNs/FCM accept but devices throttle, drop or
/// ignore. The response is never changed by it.
public struct LintNote: Sendable, Hashable {
    /// Stable rule code, e.g. `apns.background-high-priority`.
    public var code: String
    /// `warning` or `info`.
    public var severity: String
    /// The header or body path concerned.
    public var field: String
    public var message: String
    /// Where the behaviour is documented.
    public var source: String

    public init(code: String, severity: String, field: String, message: String, source: String) {
        self.code = code
        self.severity = severity
        self.field = field
        self.message = message
        self.source = source
    }
}
