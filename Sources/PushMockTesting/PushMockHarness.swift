import Foundation
import Logging
public import NIOSSL
public import PushMockAuth
import PushMockCheckAPI
@_spi(Locking) public import PushMockCore
public import PushMockGateway
import PushMockJSON
public import PushMockRecording
public import PushMockSender
public import PushMockSimulation
public import PushMockTransport

/// Runs an in-process gateway for the duration of `body`: loopback, free ports, throwaway TLS
/// credentials (nothing written to disk), the sample APNs key trusted, client certificates from
/// the throwaway CA accepted, no journal. The gateway always shuts down, also when `body` throws.
///
/// ```swift
/// try await withPushMock { mock in
///     let connection = try await mock.connect()
///     let response = try await connection.send(mock.apnsRequest(token: token, payload: #"{"aps":{"alert":"Hi"}}"#))
///     #expect(response.status == 200)
///     #expect(mock.recordings.count == 1)
/// }
/// ```
public func withPushMock<Result: Sendable>(
    clock: any PushMockClock = VirtualClock(),
    configure: (inout GatewayConfiguration) throws -> Void = { _ in },
    isolation: isolated (any Actor)? = #isolation,
    _ body: (PushMockHarness) async throws -> Result
) async throws -> Result {
    let credentials = try GatewayCredentials.ephemeral()
    var configuration = GatewayConfiguration.testing(credentials: credentials)
    if let authority = credentials.certificateAuthorityPEM {
        configuration.clientCertificateAuthorityPEMs = [authority]
    }
    // The REST check endpoints, as `pushmock serve` has them.
    configuration.controlAPIExtensions.append(CheckControlAPI())
    try configure(&configuration)
    var logger = Logger(label: "pushmock.test")
    logger.logLevel = .warning
    let server = try PushMockServer(configuration: configuration, clock: clock, logger: logger)
    return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
        group.addTask {
            try await server.run()
        }
        let result: Swift.Result<Result, any Error>
        do {
            let info = try await server.waitUntilReady()
            let harness = try PushMockHarness(server: server, info: info)
            do {
                result = .success(try await body(harness))
            } catch {
                result = .failure(error)
            }
            await harness.apnsSender.shutdown()
            await harness.fcmSender.shutdown()
        } catch {
            result = .failure(error)
        }
        server.triggerGracefulShutdown()
        try await group.waitForAll()
        return try result.get()
    }
}

/// A running in-process gateway and helpers to talk to it like a real APNs client would.
public struct PushMockHarness: Sendable {
    /// The gateway.
    package let server: PushMockServer
    /// Where it listens.
    package let info: GatewayServerInfo
    /// The default provider token, reused like real clients do (APNs rejects a new token on a
    /// connection within 20 minutes of the last one).
    let tokenCache: ProviderTokenCache
    /// An APNs sender configured for this gateway (TLS with its CA, the sample key, the default
    /// topic, the gateway's clock); shut down when `withPushMock` returns.
    public let apnsSender: APNsSender
    /// An FCM sender configured for this gateway (the sample service account, its token
    /// endpoint); shut down when `withPushMock` returns.
    public let fcmSender: FCMSender

    init(server: PushMockServer, info: GatewayServerInfo) throws {
        self.server = server
        self.info = info
        self.tokenCache = ProviderTokenCache()
        // The senders connect on their first send, so making them costs nothing when unused.
        let tlsURL = "https://127.0.0.1:\(info.tls?.port ?? 0)"
        self.apnsSender = try APNsSender(configuration: Self.apnsSenderConfiguration(server: server, url: tlsURL))
        self.fcmSender = try FCMSender(configuration: Self.fcmSenderConfiguration(server: server, url: tlsURL))
    }

    /// How long the harness's clients and senders wait for TCP and TLS: as long as the gateway
    /// waits for a handshake (2 minutes with `GatewayConfiguration.testing`), not the 10 s a
    /// client gives a real service. A test process on a loaded CI machine can take longer than
    /// 10 s to finish a handshake, and a test that fails then says nothing about the code.
    public var clientConnectTimeout: Duration { Self.clientConnectTimeout(of: server) }

    /// Registries, clock and recordings.
    package var state: GatewayState { server.state }
    /// Everything recorded so far.
    public var recordings: RecordingStore { server.state.recordings }
    /// The throwaway TLS identity (its CA also issues client certificates).
    package var credentials: GatewayCredentials { server.credentials }
    /// The sample APNs key the gateway trusts.
    public var sampleKey: SampleAPNsKey { server.credentials.sampleAPNsKey! }
    /// The sample key's topic.
    public var topic: String { sampleKey.topic }

    /// TLS port.
    public var tlsPort: Int { info.tls?.port ?? 0 }
    /// Cleartext port.
    public var cleartextPort: Int { info.cleartext?.port ?? 0 }

    /// A client TLS configuration that trusts the gateway's CA.
    /// - Parameters:
    ///   - alpn: ALPN protocols to offer; empty offers none (some APNs clients do that).
    ///   - clientCertificate: a certificate to present for certificate-based authentication.
    public func clientTLSConfiguration(
        alpn: [String] = ["h2"],
        clientCertificate: IssuedCertificate? = nil
    ) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array((credentials.certificateAuthorityPEM ?? "").utf8)))
        tls.applicationProtocols = alpn
        if let clientCertificate {
            tls.certificateChain = [.certificate(try NIOSSLCertificate(bytes: clientCertificate.certificateDER, format: .der))]
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(clientCertificate.privateKeyPEM.utf8), format: .pem))
        }
        return tls
    }

    /// Opens an HTTP/2 connection: TLS (default) or h2c.
    /// - Parameters:
    ///   - tls: TLS with ALPN, or h2c with prior knowledge.
    ///   - alpn: ALPN protocols to offer over TLS; `[]` sends the preface without ALPN.
    ///   - clientCertificate: present this client certificate.
    ///   - authority: the `:authority` to send, e.g. `api.push.apple.com` to select production.
    ///   - serverHostname: SNI / verified host name (default `localhost`).
    public func connect(
        tls: Bool = true,
        alpn: [String] = ["h2"],
        clientCertificate: IssuedCertificate? = nil,
        authority: String? = nil,
        serverHostname: String = "localhost"
    ) async throws -> HTTP2ClientConnection {
        try await HTTP2ClientConnection.connect(
            to: .init(
                host: "127.0.0.1",
                port: tls ? tlsPort : cleartextPort,
                tls: tls ? clientTLSConfiguration(alpn: alpn, clientCertificate: clientCertificate) : nil,
                serverHostname: tls ? serverHostname : nil,
                authority: authority,
                connectTimeout: clientConnectTimeout
            )
        )
    }

    /// A provider token signed with the sample key (or `key`), issued at `issuedAt` (default:
    /// the gateway clock's now).
    public func providerToken(
        key: APNsSigningKey? = nil,
        issuedAt: Timestamp? = nil,
        signatureEncoding: ES256.SignatureEncoding = .raw,
        issuedAtEncoding: APNsSigningKey.IssuedAtEncoding = .integer
    ) throws -> String {
        try (key ?? sampleKey.signingKey).makeProviderToken(
            issuedAt: (issuedAt ?? state.clock.now()).secondsSince1970,
            signatureEncoding: signatureEncoding,
            issuedAtEncoding: issuedAtEncoding
        )
    }

    /// The sample key's token, minted once and renewed after 50 minutes of gateway-clock time,
    /// as pushy and apns2 do.
    public func cachedProviderToken() throws -> String {
        let now = state.clock.now()
        if let cached = tokenCache.current(), now - cached.issuedAt < .seconds(50 * 60), cached.issuedAt <= now {
            return cached.token
        }
        let token = try providerToken(issuedAt: now)
        tokenCache.store(token, issuedAt: now)
        return token
    }

    /// Builds `POST /3/device/<token>` the way real clients do: `authorization: bearer <jwt>`
    /// (pass `providerToken: nil` for none), `apns-topic`, `apns-push-type`, extra headers, and
    /// the JSON payload.
    public func apnsRequest(
        token: String = PushMockHarness.sampleDeviceToken,
        topic: String? = nil,
        pushType: String? = "alert",
        payload: String = #"{"aps":{"alert":"Hello"}}"#,
        providerToken: String?? = .some(nil),
        headers extra: [(String, String)] = [],
        method: String = "POST",
        path: String? = nil
    ) throws -> HTTPRequestMessage {
        var headers = HTTPHeaderList()
        let bearer: String?
        switch providerToken {
        case .none: bearer = nil
        case .some(.none): bearer = try cachedProviderToken()
        case .some(.some(let given)): bearer = given
        }
        if let bearer {
            headers.append(.authorization, value: "bearer \(bearer)")
        }
        headers.append(.apnsTopic, value: topic ?? self.topic)
        if let pushType {
            headers.append(.apnsPushType, value: pushType)
        }
        for (name, value) in extra {
            headers.append(name: name, value: value)
        }
        return HTTPRequestMessage(
            method: method,
            path: path ?? "/3/device/\(token)",
            headers: headers,
            body: Array(payload.utf8)
        )
    }

    /// Issues a client certificate from the throwaway CA (which the gateway trusts).
    public func issueClientCertificate(
        bundleID: String,
        environments: Set<APNsCertificateEnvironment> = [.sandbox, .production],
        multiTopics: [APNsCertificateTopic]? = nil
    ) throws -> IssuedCertificate {
        guard let authority = credentials.certificateAuthority else {
            throw GatewayStartError("the harness has no CA to issue client certificates")
        }
        return try LocalPKI.makeAPNsClientCertificate(
            issuer: authority,
            bundleID: bundleID,
            environments: environments,
            multiTopics: multiTopics
        )
    }

    /// A well-formed 32-byte sandbox device token.
    public static let sampleDeviceToken = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
}

/// Holds the harness's default provider token.
final class ProviderTokenCache: Sendable {
    private let value = SanitizerVisibleMutex<(token: String, issuedAt: Timestamp)?>(nil)

    func current() -> (token: String, issuedAt: Timestamp)? { value.withLock { $0 } }

    func store(_ token: String, issuedAt: Timestamp) {
        value.withLock { $0 = (token, issuedAt) }
    }
}

extension HTTPResponseMessage {
    /// The APNs `reason` of an error response, decoded from the body.
    public var apnsReason: String? {
        (try? JSONValue(parsing: body))?["reason"]?.stringValue
    }

    /// The APNs 410 `timestamp`, decoded from the body.
    public var apnsTimestamp: Int64? {
        (try? JSONValue(parsing: body))?["timestamp"]?.int64Value
    }

    /// The first value of a header.
    public func header(_ name: String) -> String? {
        headers.first(named: name)
    }
}

extension PushMockHarness {
    /// Adds a fault rule (validated) and returns it with its id.
    @discardableResult
    public func addFault(_ rule: FaultRule) throws -> FaultRule {
        try state.faults.add(rule, now: state.clock.now())
    }
}
