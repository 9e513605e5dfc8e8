import PushMockGateway
public import PushMockSender

/// Senders for the code under test: configurations that reach this gateway with its
/// throwaway credentials, so a test can hand them to the code it exercises.
extension PushMockHarness {
    /// An APNs sender configuration for this gateway: TLS with its CA, token authentication
    /// with the sample key it trusts, the sample topic as default, the gateway's clock (so
    /// provider-token refresh follows `mock.clock`), and a connect timeout of
    /// ``clientConnectTimeout``, 2 minutes for each request. `configure` adjusts the rest.
    public func apnsSenderConfiguration(
        authentication: APNsAuthentication? = nil,
        retry: RetryPolicy = .default,
        configure: (inout APNsSenderConfiguration) -> Void = { _ in }
    ) throws(SenderError) -> APNsSenderConfiguration {
        var configuration = try Self.apnsSenderConfiguration(
            server: server, url: "https://127.0.0.1:\(tlsPort)", authentication: authentication, retry: retry)
        configure(&configuration)
        return configuration
    }

    /// An FCM sender configuration for this gateway: the sample service account (whose
    /// `token_uri` is this gateway's OAuth endpoint), TLS with its CA, the gateway's clock, a
    /// connect timeout of ``clientConnectTimeout``, 2 minutes for each request.
    public func fcmSenderConfiguration(
        retry: RetryPolicy = .default,
        validateOnly: Bool = false,
        configure: (inout FCMSenderConfiguration) -> Void = { _ in }
    ) throws(SenderError) -> FCMSenderConfiguration {
        var configuration = try Self.fcmSenderConfiguration(
            server: server, url: "https://127.0.0.1:\(tlsPort)", retry: retry, validateOnly: validateOnly)
        configure(&configuration)
        return configuration
    }

    static func apnsSenderConfiguration(
        server: PushMockServer,
        url: String,
        authentication: APNsAuthentication? = nil,
        retry: RetryPolicy = .default
    ) throws(SenderError) -> APNsSenderConfiguration {
        guard let key = server.credentials.sampleAPNsKey else {
            throw SenderError(.invalidConfiguration, "the gateway has no sample APNs key")
        }
        return APNsSenderConfiguration(
            server: try .custom(url: url),
            authentication: authentication ?? .token(key.signingKey),
            trustRoots: .pem(server.credentials.certificateAuthorityPEM ?? ""),
            defaultTopic: key.topic,
            connection: ConnectionConfiguration(
                connectTimeout: clientConnectTimeout(of: server), requestTimeout: clientRequestTimeout),
            retry: retry,
            clock: server.state.clock
        )
    }

    static func fcmSenderConfiguration(
        server: PushMockServer,
        url: String,
        retry: RetryPolicy = .default,
        validateOnly: Bool = false
    ) throws(SenderError) -> FCMSenderConfiguration {
        guard let account = server.sampleFCMServiceAccount else {
            throw SenderError(.invalidConfiguration, "the gateway has no sample service account")
        }
        return FCMSenderConfiguration(
            serviceAccount: account.json,
            server: try SenderEndpoint(url: url),
            trustRoots: .pem(server.credentials.certificateAuthorityPEM ?? ""),
            validateOnly: validateOnly,
            connection: ConnectionConfiguration(
                connectTimeout: clientConnectTimeout(of: server), requestTimeout: clientRequestTimeout),
            retry: retry,
            clock: server.state.clock
        )
    }

    /// How long the harness's senders wait for an answer: 2 minutes, not a real client's 30 s.
    /// On a loaded machine a late answer would otherwise be a timeout and a retry, and the
    /// test would count one request more than it sent.
    static let clientRequestTimeout: Duration = .seconds(120)

    /// ``clientConnectTimeout`` before a harness exists.
    static func clientConnectTimeout(of server: PushMockServer) -> Duration {
        server.configuration.connectionLimits.handshakeTimeout
    }
}
