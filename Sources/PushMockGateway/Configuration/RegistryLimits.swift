/// How many entries each registry a client can grow may hold, so that a script adding tokens,
/// users or rules in a loop (or a send flood that creates entries on the fly) ends with a clear
/// error instead of a gateway that eats the machine's memory (docs/SECURITY.md, "Registries are
/// bounded"). The defaults are far above what a test suite registers.
///
/// Beyond a cap the control API answers `507 Insufficient Storage` with
/// `{"error": …, "registry": …, "limit": …}` and keeps nothing of that request (replacing an
/// entry that exists is always allowed). The wire endpoints answer what the real service would:
/// IID subscriptions that would create a token answer `RESOURCE_EXHAUSTED` for that token, and
/// the OAuth token endpoint forgets the oldest access tokens (the sender then gets 401 and
/// fetches a new one, as after a revocation). Collections bounded elsewhere: recordings
/// (``RecordingOptions``), simulated devices (``SimulationOptions/limits``), Expo receipts
/// (``ExpoOptions/maximumReceipts``), webhook queues (``WebhookOptions``), connections
/// (``ConnectionLimits``).
public struct RegistryLimits: Sendable, Hashable {
    /// APNs device tokens (`/_pushmock/apns/tokens`). Default 100,000.
    public var apnsDeviceTokens: Int
    /// APNs signing keys (`/_pushmock/apns/keys`). Default 1,000.
    public var apnsKeys: Int
    /// Teams with declared apps (`/_pushmock/apns/teams`). Default 1,000.
    public var apnsTeams: Int
    /// Client-certificate CAs added through `/_pushmock/apns/certificate-authorities` (each
    /// rebuilds the TLS context). Default 100.
    public var clientCertificateAuthorities: Int
    /// FCM registration tokens, whether registered through `/_pushmock/fcm/tokens` or created by
    /// an IID subscription for an unknown token. Default 100,000.
    public var fcmTokens: Int
    /// Trusted service accounts (`/_pushmock/fcm/service-accounts`). Default 1,000.
    public var serviceAccounts: Int
    /// OAuth2 access tokens kept by the token endpoint; the oldest are forgotten first. Default
    /// 10,000.
    public var accessTokens: Int
    /// Expo push tokens (`/_pushmock/expo/tokens`). Default 100,000.
    public var expoTokens: Int
    /// Expo projects (`/_pushmock/expo/projects`). Default 1,000.
    public var expoProjects: Int
    /// Users (`/_pushmock/users`). Default 100,000.
    public var users: Int
    /// App events posted for users (`/_pushmock/users/{id}/events`). Default 100,000.
    public var appEvents: Int
    /// Notification categories (`/_pushmock/categories`). Default 1,000.
    public var notificationCategories: Int
    /// Webhooks (`/_pushmock/webhooks`; each is matched against every recording). Default 100.
    public var webhooks: Int
    /// Active fault rules (every request is matched against each). Default 1,000.
    public var faultRules: Int
    /// Rules of the engagement behaviour model (every delivery is matched against each).
    /// Default 1,000.
    public var engagementRules: Int

    public init(
        apnsDeviceTokens: Int = 100_000,
        apnsKeys: Int = 1_000,
        apnsTeams: Int = 1_000,
        clientCertificateAuthorities: Int = 100,
        fcmTokens: Int = 100_000,
        serviceAccounts: Int = 1_000,
        accessTokens: Int = 10_000,
        expoTokens: Int = 100_000,
        expoProjects: Int = 1_000,
        users: Int = 100_000,
        appEvents: Int = 100_000,
        notificationCategories: Int = 1_000,
        webhooks: Int = 100,
        faultRules: Int = 1_000,
        engagementRules: Int = 1_000
    ) {
        self.apnsDeviceTokens = apnsDeviceTokens
        self.apnsKeys = apnsKeys
        self.apnsTeams = apnsTeams
        self.clientCertificateAuthorities = clientCertificateAuthorities
        self.fcmTokens = fcmTokens
        self.serviceAccounts = serviceAccounts
        self.accessTokens = accessTokens
        self.expoTokens = expoTokens
        self.expoProjects = expoProjects
        self.users = users
        self.appEvents = appEvents
        self.notificationCategories = notificationCategories
        self.webhooks = webhooks
        self.faultRules = faultRules
        self.engagementRules = engagementRules
    }

    public static let defaults = RegistryLimits()
}
