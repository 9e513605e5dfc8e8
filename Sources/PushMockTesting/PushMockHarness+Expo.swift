import PushMockGateway
public import PushMockSender

/// The Expo side of the harness: a sender configuration for the gateway's Expo endpoint, and the
/// definitions of a `pushmock serve --config` file (users, Expo projects and tokens, categories,
/// the behaviour model) for a test that shares its files with the command line.
extension PushMockHarness {
    /// An Expo sender configuration for this gateway: its Expo endpoint over TLS
    /// (`https://127.0.0.1:<tlsPort>/--/api/v2/push/send`, `…/getReceipts`), trusting the
    /// throwaway CA, with a connect timeout of ``clientConnectTimeout`` and 2 minutes for each
    /// request. `configure` adjusts the rest (access token, retry policy, sleep).
    public func expoSenderConfiguration(configure: (inout ExpoSenderConfiguration) -> Void = { _ in }) -> ExpoSenderConfiguration {
        var configuration = ExpoSenderConfiguration(
            server: SenderEndpoint(host: "127.0.0.1", port: tlsPort, usesTLS: true, serverHostname: "localhost"),
            trustRoots: .pem(credentials.certificateAuthorityPEM ?? ""),
            requestTimeout: Self.clientRequestTimeout,
            connectTimeout: clientConnectTimeout
        )
        configure(&configuration)
        return configuration
    }

    /// Registers what a `pushmock serve --config` file defines — users, Expo projects and
    /// tokens, APNs/FCM tokens, categories, faults, the behaviour model and the clock — in this
    /// running gateway, as `serve --config` does at start. Options that shape the server itself
    /// (`expo.options`, `simulation`, webhooks) are read at start only: pass them through
    /// `withPushMock(configure:)`.
    public func register(configFile path: String) throws {
        try ConfigurationFile.load(path: path).register(in: state)
    }
}
