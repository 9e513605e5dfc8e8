import NIOSSL

/// Sends notifications to APNs over HTTP/2: production, sandbox, or any URL (the mock).
///
/// ```swift
/// let sender = try APNsSender(configuration: configuration)
/// let result = await sender.send(APNsNotification(deviceToken: token, payload: APNsPayload(alert: .init(title: "Hi", body: "There"))))
/// switch result.outcome {
/// case .accepted(let acceptance): print("apns-id", acceptance.id)
/// case .tokenInvalid(let invalidation): deleteToken(token, unless: registeredAfter(invalidation.timestamp))
/// case .rejected(let rejection): print("fix the request:", rejection.reason)
/// case .failed(let failure): print("try later:", failure.reason)
/// }
/// await sender.shutdown()
/// ```
///
/// One sender keeps a small pool of connections and multiplexes many requests on each; share
/// it. Call ``shutdown()`` when done (or use ``withAPNsSender(configuration:isolation:_:)``).
public final class APNsSender: Sendable {
    /// The configuration it was made with.
    public let configuration: APNsSenderConfiguration
    /// The provider tokens (token authentication only).
    public let providerTokens: ProviderTokenSource?
    let engine: DeliveryEngine

    /// Validates the configuration and prepares TLS; connects on the first send.
    public init(configuration: APNsSenderConfiguration) throws(SenderError) {
        try configuration.connection.validate()
        try configuration.retry.validate()
        var tls: TLSConfiguration?
        if configuration.server.endpoint.usesTLS {
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.applicationProtocols = ["h2"]
            settings.trustRoots = try configuration.trustRoots.nioTrustRoots()
            if case .certificate(let identity) = configuration.authentication.storage {
                settings.certificateChain = identity.certificateChain.map { .certificate($0) }
                settings.privateKey = .privateKey(identity.privateKey)
            }
            tls = settings
        } else if case .certificate = configuration.authentication.storage {
            throw SenderError(.invalidConfiguration, "certificate authentication needs TLS (an https URL)")
        }
        let tokens: ProviderTokenSource?
        if case .token(let key) = configuration.authentication.storage {
            tokens = try ProviderTokenSource(key: key, refreshInterval: configuration.providerTokenRefreshInterval)
        } else {
            tokens = nil
        }
        self.configuration = configuration
        self.providerTokens = tokens
        self.engine = DeliveryEngine(
            platform: APNsPlatform(tokens: tokens, retry: configuration.retry),
            endpoint: configuration.server.endpoint,
            tls: tls,
            connection: configuration.connection,
            retry: configuration.retry,
            jitter: configuration.jitter,
            sleep: configuration.sleep,
            clock: configuration.clock
        )
    }

    /// Sends one notification and returns how it ended (never throws: every failure is an
    /// outcome).
    public func send(_ notification: APNsNotification) async -> SendResult {
        var builder = APNsRequestBuilder(defaultTopic: configuration.defaultTopic)
        return await engine.send(builder.request(for: notification))
    }

    /// Sends many notifications concurrently (as many as the connections allow) and calls
    /// `onResult` once for each, in completion order, from an event-loop thread — keep it
    /// short. Returns when every notification is decided.
    @inlinable
    public func send<Notifications: Sequence>(
        contentsOf notifications: Notifications,
        onResult: @escaping @Sendable (SendResult) -> Void
    ) async where Notifications.Element == APNsNotification {
        // Inlined into the caller, where `Notifications` is a concrete type: the engine pulls
        // through a closure instead of generic code that looked up type metadata for every
        // notification (≈ 3 % of a bulk send's CPU).
        var notifications = notifications.makeIterator()
        await send(pulling: { notifications.next() }, onResult: onResult)
    }

    /// The bulk send behind ``send(contentsOf:onResult:)``: renders each notification as the
    /// engine pulls it.
    @usableFromInline
    func send(pulling next: () -> APNsNotification?, onResult: @escaping @Sendable (SendResult) -> Void) async {
        var builder = APNsRequestBuilder(defaultTopic: configuration.defaultTopic)
        await engine.sendAll(onResult: onResult) { next().map { builder.request(for: $0) } }
    }

    /// Sends many notifications and returns their summary.
    public func send<Notifications: Sequence>(contentsOf notifications: Notifications) async -> DeliverySummary
    where Notifications.Element == APNsNotification {
        let tally = DeliveryTally()
        await send(contentsOf: notifications) { tally.record($0) }
        return tally.summary()
    }

    /// Closes the connections. Queued and in-flight notifications end as failed
    /// (``SenderError/Code/shutdown``).
    public func shutdown() async {
        await engine.shutdown()
    }

    /// Open connections right now.
    public var openConnectionCount: Int { engine.openConnectionCount }

    /// Keep-alive PINGs the server answered on idle connections, and the last round trip.
    public var pings: (acknowledged: Int, lastRoundTrip: Duration?) { engine.pings }

    /// Connections opened since the sender was created (reconnects included).
    public var connectionsOpened: Int { engine.connectionsOpened }
}

/// Runs `body` with a sender and shuts it down afterwards, also when `body` throws.
public func withAPNsSender<Result: Sendable>(
    configuration: APNsSenderConfiguration,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (APNsSender) async throws -> Result
) async throws -> Result {
    let sender = try APNsSender(configuration: configuration)
    do {
        let result = try await body(sender)
        await sender.shutdown()
        return result
    } catch {
        await sender.shutdown()
        throw error
    }
}
