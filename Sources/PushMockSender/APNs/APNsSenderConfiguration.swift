public import PushMockCore

/// Everything an ``APNsSender`` needs: where (production, sandbox or any URL such as the
/// mock), how to authenticate, whom to trust, and how to connect and retry.
///
/// ```swift
/// let configuration = APNsSenderConfiguration(
///     server: .production,
///     authentication: .token(try APNsSigningKey(p8FilePath: "AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "DEF123GHIJ")),
///     defaultTopic: "com.example.app"
/// )
/// ```
public struct APNsSenderConfiguration: Sendable {
    /// Which APNs. No default: production, sandbox or a custom URL must be chosen.
    public var server: APNsServer
    /// Provider tokens or a client certificate.
    public var authentication: APNsAuthentication
    /// Whom to trust for the server certificate. Default: the system roots.
    public var trustRoots: TrustRoots
    /// `apns-topic` for notifications that do not name one (normally the bundle ID).
    /// Default `nil`: every notification must name its topic (with certificate
    /// authentication the certificate's topic applies when none is sent).
    public var defaultTopic: String?
    /// Connections, streams, timeouts, PING. Default ``ConnectionConfiguration/init(maximumConnections:maximumConcurrentStreams:connectTimeout:requestTimeout:pingInterval:idleTimeout:eventLoopGroup:)``.
    public var connection: ConnectionConfiguration
    /// Retries. Default ``RetryPolicy/default``.
    public var retry: RetryPolicy
    /// Age at which the shared provider token is replaced: 20 minutes to just under 60.
    /// Default 50 minutes (what pushy uses).
    public var providerTokenRefreshInterval: Duration
    /// The wall clock for provider-token `iat` and age, and `Retry-After` dates. Default
    /// ``SystemClock``; inject a `VirtualClock` in tests.
    public var clock: any PushMockClock
    /// Backoff jitter. Default ``JitterSource/system``.
    public var jitter: JitterSource
    /// How retries wait. Default ``RetrySleep/system``.
    public var sleep: RetrySleep

    public init(
        server: APNsServer,
        authentication: APNsAuthentication,
        trustRoots: TrustRoots = .system,
        defaultTopic: String? = nil,
        connection: ConnectionConfiguration = ConnectionConfiguration(),
        retry: RetryPolicy = .default,
        providerTokenRefreshInterval: Duration = .seconds(50 * 60),
        clock: any PushMockClock = SystemClock(),
        jitter: JitterSource = .system,
        sleep: RetrySleep = .system
    ) {
        self.server = server
        self.authentication = authentication
        self.trustRoots = trustRoots
        self.defaultTopic = defaultTopic
        self.connection = connection
        self.retry = retry
        self.providerTokenRefreshInterval = providerTokenRefreshInterval
        self.clock = clock
        self.jitter = jitter
        self.sleep = sleep
    }
}
