import NIOSSL

/// Sends messages through FCM HTTP v1 over HTTP/2 (`fcm.googleapis.com` or any URL, such as
/// the mock), with the service account's OAuth2 access token.
///
/// ```swift
/// let sender = try FCMSender(configuration: FCMSenderConfiguration(serviceAccount: account))
/// let result = await sender.send(FCMPushMessage(target: .token(token), notification: .init(title: "Hi")))
/// if case .tokenInvalid = result.outcome { deleteToken(token) }
/// await sender.shutdown()
/// ```
public final class FCMSender: Sendable {
    /// The configuration it was made with.
    public let configuration: FCMSenderConfiguration
    /// The access-token cache.
    public let accessTokens: AccessTokenProvider
    let engine: DeliveryEngine
    private let sendPath: String

    /// Validates the configuration, reads the service account's key and prepares TLS;
    /// connects on the first send.
    public init(configuration: FCMSenderConfiguration) throws(SenderError) {
        try configuration.connection.validate()
        try configuration.retry.validate()
        let trustRoots = try configuration.trustRoots.nioTrustRoots()
        var tls: TLSConfiguration?
        if configuration.server.usesTLS {
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.applicationProtocols = ["h2"]
            settings.trustRoots = trustRoots
            tls = settings
        }
        let tokens = try AccessTokenProvider(configuration: configuration, trustRoots: trustRoots)
        let prefix = configuration.server.pathPrefix.isEmpty ? "/v1" : configuration.server.pathPrefix
        self.sendPath = "\(prefix)/projects/\(configuration.effectiveProjectID)/messages:send"
        self.configuration = configuration
        self.accessTokens = tokens
        self.engine = DeliveryEngine(
            platform: FCMPlatform(tokens: tokens, retry: configuration.retry),
            endpoint: configuration.server,
            tls: tls,
            connection: configuration.connection,
            retry: configuration.retry,
            jitter: configuration.jitter,
            sleep: configuration.sleep,
            clock: configuration.clock
        )
    }

    private func prepare(_ message: FCMPushMessage, validateOnly: Bool?) -> PreparedRequest {
        PreparedRequest(
            recipient: message.target.description,
            path: sendPath,
            headers: FCMPlatform.headers,
            headersKey: FCMPlatform.headersKey,
            body: message.requestBody(validateOnly: validateOnly ?? configuration.validateOnly)
        )
    }

    /// Sends one message and returns how it ended (never throws: every failure is an
    /// outcome). `validateOnly` overrides the configuration's.
    public func send(_ message: FCMPushMessage, validateOnly: Bool? = nil) async -> SendResult {
        do {
            _ = try await accessTokens.token()
        } catch {
            return SendResult(
                recipient: message.target.description,
                outcome: .failed(DeliveryFailure(reason: "credentials", error: error)),
                attempts: 0,
                latency: .zero
            )
        }
        return await engine.send(prepare(message, validateOnly: validateOnly))
    }

    /// Sends many messages concurrently and calls `onResult` once for each (on an event-loop
    /// thread — keep it short). Returns when every message is decided. When no access token
    /// can be obtained, every message fails with ``SenderError/Code/authorizationFailed``.
    @inlinable
    public func send<Messages: Sequence>(
        contentsOf messages: Messages,
        validateOnly: Bool? = nil,
        onResult: @escaping @Sendable (SendResult) -> Void
    ) async where Messages.Element == FCMPushMessage {
        // Inlined into the caller, where `Messages` is a concrete type: the engine pulls
        // through a closure instead of generic code (see `APNsSender`).
        var messages = messages.makeIterator()
        await send(pulling: { messages.next() }, validateOnly: validateOnly, onResult: onResult)
    }

    /// The bulk send behind ``send(contentsOf:validateOnly:onResult:)``.
    @usableFromInline
    func send(
        pulling next: () -> FCMPushMessage?, validateOnly: Bool?, onResult: @escaping @Sendable (SendResult) -> Void
    ) async {
        do {
            _ = try await accessTokens.token()
        } catch {
            var index = 0
            while let message = next() {
                onResult(
                    SendResult(
                        recipient: message.target.description,
                        outcome: .failed(DeliveryFailure(reason: "credentials", error: error)),
                        attempts: 0,
                        latency: .zero,
                        index: index
                    )
                )
                index += 1
            }
            return
        }
        await engine.sendAll(onResult: onResult) { next().map { self.prepare($0, validateOnly: validateOnly) } }
    }

    /// Sends many messages and returns their summary.
    public func send<Messages: Sequence>(contentsOf messages: Messages, validateOnly: Bool? = nil) async -> DeliverySummary
    where Messages.Element == FCMPushMessage {
        let tally = DeliveryTally()
        await send(contentsOf: messages, validateOnly: validateOnly) { tally.record($0) }
        return tally.summary()
    }

    /// Closes the connections; queued and in-flight messages end as failed.
    public func shutdown() async {
        await engine.shutdown()
    }

    /// Open connections right now.
    public var openConnectionCount: Int { engine.openConnectionCount }

    /// Keep-alive PINGs the server answered on idle connections, and the last round trip.
    public var pings: (acknowledged: Int, lastRoundTrip: Duration?) { engine.pings }
}

/// Runs `body` with an FCM sender and shuts it down afterwards, also when `body` throws.
public func withFCMSender<Result: Sendable>(
    configuration: FCMSenderConfiguration,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (FCMSender) async throws -> Result
) async throws -> Result {
    let sender = try FCMSender(configuration: configuration)
    do {
        let result = try await body(sender)
        await sender.shutdown()
        return result
    } catch {
        await sender.shutdown()
        throw error
    }
}
