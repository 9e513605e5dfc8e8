public import PushMockCore

/// How faithfully, and how strictly, the gateway plays APNs. Every default is what
/// `api.sandbox.push.apple.com` does (or, where Apple documents nothing, the most plausible
/// behaviour, marked as such).
public struct APNsOptions: Sendable, Hashable {
    /// Whether requests must authenticate.
    public enum Authentication: String, Sendable, Hashable, Codable, CaseIterable {
        /// Provider tokens or client certificates, as APNs requires (default).
        case required
        /// No authentication at all (`--auth none`), for quick experiments.
        case none
    }

    /// Required (default) or none.
    public var authentication: Authentication
    /// The environment of a request whose `:authority` is not one of Apple's host names.
    /// Default: sandbox.
    public var defaultEnvironment: APNsEnvironment
    /// Whether `:authority`/`Host` `api.push.apple.com` selects production and
    /// `api.sandbox.push.apple.com`/`api.development.push.apple.com` sandbox. Default: true.
    public var environmentFromAuthority: Bool
    /// Device token format. Default: even-length hex, 8–200 bytes.
    public var tokenFormat: APNsDeviceTokenFormat
    /// Reject well-formed tokens the registry does not know with `BadDeviceToken` (APNs does
    /// not know every token either: a token of no installed app is `BadDeviceToken`). Default:
    /// false — unknown tokens are accepted so that zero-configuration use works.
    public var rejectUnknownTokens: Bool
    /// `BadEnvironmentKeyInToken` (observed, default) or `BadEnvironmentKeyIdInToken` (documented).
    public var environmentKeySpelling: APNsReason.EnvironmentKeySpelling
    /// A provider token older than this is `ExpiredProviderToken`. Default: 1 hour.
    public var providerTokenLifetime: Duration
    /// A new provider token on a connection less than this after the connection started using
    /// its current one is `TooManyProviderTokenUpdates` (unless the current token has expired or
    /// the connection was answered `ExpiredProviderToken`). Default: 20 minutes; zero disables
    /// the check.
    public var providerTokenUpdateInterval: Duration
    /// MAX_CONCURRENT_STREAMS advertised to clients. Default: 1000 (observed on APNs).
    public var maxConcurrentStreams: UInt32
    /// Advertise one stream until the connection's first successfully authenticated request,
    /// as Apple documents for token connections. Default: false (most clients cope, but the
    /// first burst then queues).
    public var oneStreamUntilAuthenticated: Bool
    /// Drop MAX_CONCURRENT_STREAMS to 1 after a rejected push and restore it after the next
    /// accepted one (observed in 2016, openradar 27870881). Default: false.
    public var throttleStreamsAfterRejection: Bool
    /// Reject priority 10 on `background` pushes with `BadPriority`. Apple calls it "an error",
    /// but APNs was observed to accept it. Default: false (accept; a lint finding notes it).
    public var rejectHighPriorityBackground: Bool

    public init(
        authentication: Authentication = .required,
        defaultEnvironment: APNsEnvironment = .sandbox,
        environmentFromAuthority: Bool = true,
        tokenFormat: APNsDeviceTokenFormat = .variable,
        rejectUnknownTokens: Bool = false,
        environmentKeySpelling: APNsReason.EnvironmentKeySpelling = .observed,
        providerTokenLifetime: Duration = .seconds(3600),
        providerTokenUpdateInterval: Duration = .seconds(20 * 60),
        maxConcurrentStreams: UInt32 = 1000,
        oneStreamUntilAuthenticated: Bool = false,
        throttleStreamsAfterRejection: Bool = false,
        rejectHighPriorityBackground: Bool = false
    ) {
        self.authentication = authentication
        self.defaultEnvironment = defaultEnvironment
        self.environmentFromAuthority = environmentFromAuthority
        self.tokenFormat = tokenFormat
        self.rejectUnknownTokens = rejectUnknownTokens
        self.environmentKeySpelling = environmentKeySpelling
        self.providerTokenLifetime = providerTokenLifetime
        self.providerTokenUpdateInterval = providerTokenUpdateInterval
        self.maxConcurrentStreams = maxConcurrentStreams
        self.oneStreamUntilAuthenticated = oneStreamUntilAuthenticated
        self.throttleStreamsAfterRejection = throttleStreamsAfterRejection
        self.rejectHighPriorityBackground = rejectHighPriorityBackground
    }

    /// The defaults.
    public static let defaults = APNsOptions()
}
