public import PushMockAuth
public import PushMockCore

/// Everything an ``FCMSender`` needs: the service account (which names the project and the
/// OAuth2 token endpoint), the FCM base URL, whom to trust, and how to connect and retry.
///
/// ```swift
/// let account = try ServiceAccountJSON.decode(from: Data(contentsOf: URL(fileURLWithPath: "service-account.json")))
/// let configuration = FCMSenderConfiguration(serviceAccount: account)   // fcm.googleapis.com
/// ```
public struct FCMSenderConfiguration: Sendable {
    /// The service-account JSON: `project_id`, `client_email`, `private_key`, `token_uri`.
    public var serviceAccount: ServiceAccountJSON
    /// The project in `/v1/projects/<project>/messages:send`. Default: the account's.
    public var projectID: String?
    /// The FCM base URL. Default `https://fcm.googleapis.com`.
    public var server: SenderEndpoint
    /// Overrides the account's `token_uri` (where access tokens come from).
    public var tokenURI: String?
    /// OAuth2 scopes to ask for. Default: `firebase.messaging`.
    public var scopes: [String]
    /// Whom to trust for the FCM and token-endpoint certificates. Default: the system roots.
    public var trustRoots: TrustRoots
    /// Send every message with `validate_only: true` (FCM validates, delivers nothing).
    /// Default false.
    public var validateOnly: Bool
    /// Refresh the access token when it has less than this left. Default 5 minutes.
    public var accessTokenRefreshMargin: Duration
    /// Connections, streams, timeouts.
    public var connection: ConnectionConfiguration
    /// Retries (also used for the token endpoint).
    public var retry: RetryPolicy
    /// Wall clock for the assertion's `iat` and the access token's expiry. Default
    /// ``SystemClock``.
    public var clock: any PushMockClock
    public var jitter: JitterSource
    public var sleep: RetrySleep

    public init(
        serviceAccount: ServiceAccountJSON,
        projectID: String? = nil,
        server: SenderEndpoint = FCMSenderConfiguration.production,
        tokenURI: String? = nil,
        scopes: [String] = [ServiceAccountKey.firebaseMessagingScope],
        trustRoots: TrustRoots = .system,
        validateOnly: Bool = false,
        accessTokenRefreshMargin: Duration = .seconds(300),
        connection: ConnectionConfiguration = ConnectionConfiguration(),
        retry: RetryPolicy = .default,
        clock: any PushMockClock = SystemClock(),
        jitter: JitterSource = .system,
        sleep: RetrySleep = .system
    ) {
        self.serviceAccount = serviceAccount
        self.projectID = projectID
        self.server = server
        self.tokenURI = tokenURI
        self.scopes = scopes
        self.trustRoots = trustRoots
        self.validateOnly = validateOnly
        self.accessTokenRefreshMargin = accessTokenRefreshMargin
        self.connection = connection
        self.retry = retry
        self.clock = clock
        self.jitter = jitter
        self.sleep = sleep
    }

    /// `https://fcm.googleapis.com`.
    public static let production = SenderEndpoint(host: "fcm.googleapis.com", port: 443)

    /// The project messages go to.
    public var effectiveProjectID: String { projectID ?? serviceAccount.projectID }
}
