/// How the gateway plays FCM, Google's OAuth2 token endpoint and the IID topic API.
public struct FCMOptions: Sendable, Hashable {
    /// Lifetime of issued access tokens; `expires_in` reports one second less, as Google does
    /// (3599). Default: 1 hour.
    public var accessTokenLifetime: Duration
    /// How far an assertion's `iat` may lie in the future (clock skew). Default: 5 minutes.
    public var assertionClockSkew: Duration
    /// Answer `INVALID_ARGUMENT` for well-formed registration tokens the registry does not
    /// know. Default: false — unknown tokens are accepted (zero-configuration use).
    public var rejectUnknownTokens: Bool
    /// Render error bodies indented, as Google's servers do (clients parse either). Default: true.
    public var prettyPrintErrors: Bool
    /// The sample project the generated service account belongs to.
    public var sampleProjectID: String
    /// `required` (default): FCM sends and IID calls need a bearer access token the token
    /// endpoint issued, and the token endpoint checks assertions. `none` (`--auth none`): no
    /// credential is checked anywhere — sends and IID calls without one are accepted, and any
    /// well-formed assertion gets an access token.
    public var authentication: APNsOptions.Authentication
    /// How FCM's topic-subscription API spells a `TopicSubscription`'s fields. Google's
    /// reference shows the proto names (`topic_name`, `create_time`), its discovery document
    /// and the clients generated from it read JSON names (`topicName`, `createTime`), and the
    /// Admin SDKs read neither (UNVERIFIED which one the service sends; docs/push-wire-spec.md).
    /// Default: ``TopicSubscriptionFieldNames/camelCase``.
    public var topicSubscriptionFieldNames: TopicSubscriptionFieldNames = .camelCase

    /// The spelling of a `TopicSubscription`'s fields in answers.
    public enum TopicSubscriptionFieldNames: String, Sendable, Hashable, Codable {
        /// `topicName`, `createTime`: proto3's JSON mapping, as generated clients read it.
        case camelCase
        /// `topic_name`, `create_time`: the proto field names, as Google's reference shows.
        case snakeCase = "snake_case"
    }

    public init(
        accessTokenLifetime: Duration = .seconds(3600),
        assertionClockSkew: Duration = .seconds(300),
        rejectUnknownTokens: Bool = false,
        prettyPrintErrors: Bool = true,
        sampleProjectID: String = "pushmock-sample",
        authentication: APNsOptions.Authentication = .required
    ) {
        self.authentication = authentication
        self.accessTokenLifetime = accessTokenLifetime
        self.assertionClockSkew = assertionClockSkew
        self.rejectUnknownTokens = rejectUnknownTokens
        self.prettyPrintErrors = prettyPrintErrors
        self.sampleProjectID = sampleProjectID
    }

    public static let defaults = FCMOptions()
}
