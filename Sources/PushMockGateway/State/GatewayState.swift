@_spi(Locking) package import PushMockCore
package import PushMockRecording
package import PushMockSimulation

/// Everything shared by all connections of one gateway: the clock, the registries, the
/// recording store and journal. One instance per gateway; every member is `Sendable` and guards
/// its own state, so connections on different event loops can use it concurrently.
package final class GatewayState: Sendable {
    /// The source of "now" (real or virtual).
    package let clock: any PushMockClock
    /// APNs provider-token keys and team apps.
    package let apnsKeys: APNsKeyRegistry
    /// APNs device tokens.
    package let devices: DeviceRegistry
    /// In-memory recordings.
    package let recordings: RecordingStore
    /// The APNs behaviour in force.
    package let apnsOptions: APNsOptions
    /// The FCM / OAuth2 / IID behaviour in force.
    package let fcmOptions: FCMOptions
    /// Service accounts the token endpoint trusts.
    package let serviceAccounts: ServiceAccountRegistry
    /// Access tokens the token endpoint issued.
    package let accessTokens: AccessTokenStore
    /// When the gateway first saw each sender-signed credential, so its age follows the
    /// gateway clock from then on (a clock move does not lock senders out).
    package let credentialClock: CredentialClock
    /// FCM registration tokens and topic subscriptions.
    package let fcmTokens: FCMRegistry
    /// The Expo push service behaviour in force.
    package let expoOptions: ExpoOptions
    /// Expo push tokens and projects.
    package let expoTokens: ExpoRegistry
    /// Receipts of issued Expo tickets.
    package let expoReceipts: ExpoReceiptStore
    /// Expo's per-project notification rate.
    package let expoRate: ExpoRateLimiter
    /// Fault rules.
    package let faults: FaultEngine
    /// Device simulation behaviour.
    package let simulationOptions: SimulationOptions
    /// The simulated devices behind the tokens (inboxes and timelines).
    package let simulatedDevices: DeliverySimulator
    /// Users behind the tokens and the app events posted for them.
    package let users: UserRegistry
    /// Checks that add findings to accepted records at intake (payload contracts).
    package let recordAnnotators: RecordAnnotators
    /// Recorded answers to play back; `nil` (the default) leaves the request path as it is.
    package let playback: PlaybackBook?
    /// The journal, if enabled.
    let journal: JournalWriter?
    /// Server details the control API reports, filled in once the listeners are bound.
    let serverInfo: SanitizerVisibleMutex<GatewayServerInfo?>
    /// Client-certificate CAs added through the control API (PEM), on top of the configured ones.
    let addedClientCertificateAuthorities: SanitizerVisibleMutex<[String]>
    /// Notification categories with action buttons, for the inbox's previews.
    package let notificationCategories = NotificationCategoryRegistry()
    /// The event streams (`GET /_pushmock/recordings/stream`) open now, bounded.
    package let eventStreamSlots = EventStreamSlots()
    /// The Prometheus series of `GET /metrics`; `nil` with `--no-metrics`.
    package let metrics: GatewayMetrics?
    /// Webhooks on receipt (none until configured).
    package let webhooks: RecordingWebhooks
    /// How far the control API (and zero-configuration sends) may grow each registry.
    package let registryLimits: RegistryLimits

    package init(
        clock: any PushMockClock = VirtualClock(),
        apnsOptions: APNsOptions = .defaults,
        fcmOptions: FCMOptions = .defaults,
        expoOptions: ExpoOptions = .defaults,
        simulationOptions: SimulationOptions = .defaults,
        apnsKeys: APNsKeyRegistry = APNsKeyRegistry(),
        devices: DeviceRegistry = DeviceRegistry(),
        recordings: RecordingStore,
        journal: JournalWriter?,
        playback: PlaybackBook? = nil,
        metrics: GatewayMetrics? = nil,
        webhooks: RecordingWebhooks = RecordingWebhooks(),
        registryLimits: RegistryLimits = .defaults
    ) {
        self.registryLimits = registryLimits
        self.metrics = metrics
        self.webhooks = webhooks
        self.playback = playback
        self.clock = clock
        self.apnsOptions = apnsOptions
        self.fcmOptions = fcmOptions
        self.serviceAccounts = ServiceAccountRegistry()
        self.accessTokens = AccessTokenStore(capacity: registryLimits.accessTokens)
        self.credentialClock = CredentialClock()
        self.fcmTokens = FCMRegistry()
        self.expoOptions = expoOptions
        self.expoTokens = ExpoRegistry()
        self.expoReceipts = ExpoReceiptStore(capacity: expoOptions.maximumReceipts)
        self.expoRate = ExpoRateLimiter()
        self.faults = FaultEngine(maximumRules: registryLimits.faultRules)
        self.users = UserRegistry()
        self.recordAnnotators = RecordAnnotators()
        self.simulationOptions = simulationOptions
        self.simulatedDevices = DeliverySimulator(
            limits: simulationOptions.limits,
            defaultConnectivity: simulationOptions.defaultConnectivity
        )
        self.apnsKeys = apnsKeys
        self.devices = devices
        self.recordings = recordings
        self.journal = journal
        self.serverInfo = SanitizerVisibleMutex(nil)
        self.addedClientCertificateAuthorities = SanitizerVisibleMutex([])
        // Delivery receipts and engagement reach webhooks only while one asks for them: the
        // simulator collects nothing otherwise.
        let devices = simulatedDevices
        webhooks.onDeviceEventsWanted { [weak webhooks] wanted in
            guard wanted, let webhooks else { return devices.setEventSink(nil) }
            devices.setEventSink { [weak webhooks] events in webhooks?.offer(deviceEvents: events) }
        }
    }

    /// The clock, when it can be frozen, set and advanced (the default for `pushmock serve` and
    /// `withPushMock`); `nil` when someone injected another clock.
    package var virtualClock: VirtualClock? { clock as? VirtualClock }

    /// The journal's path, if journaling is on.
    package var journalPath: String? { journal?.path }
}

extension GatewayState {
    /// How a device stores notifications while offline: by the service that finally delivers
    /// to it. FCM tokens registered as iOS, and Expo tokens of iOS apps, are reached through
    /// APNs and follow its rules (one stored notification per app).
    package func storagePolicy(for address: DeviceAddress) -> StoragePolicy {
        switch address.service {
        case .fcm: return fcmTokens.lookup(FCMRegistrationToken(address.token))?.platform == .ios ? .apns : .fcm
        case .expo: return expoTokens.lookup(ExpoTokenID(address.token))?.platform == .android ? .fcm : .apns
        default: return .apns
        }
    }
}
