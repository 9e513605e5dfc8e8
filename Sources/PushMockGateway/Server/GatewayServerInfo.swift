/// What a started gateway tells scripts and users: where it listens and which credentials to
/// use. Printed in the banner, written by `--ready-file`, served at `GET /_pushmock/info`.
public struct GatewayServerInfo: Codable, Sendable, Hashable {
    /// One bound listener.
    public struct Listener: Codable, Sendable, Hashable {
        /// Bound host.
        public var host: String
        /// Bound port (the real one when 0 was asked for).
        public var port: Int
        /// Base URL, e.g. `https://127.0.0.1:2197`.
        public var url: String
        /// `sandbox` or `production` for requests whose authority names no Apple host.
        public var environment: String
    }

    /// The sample APNs key any client can sign provider tokens with.
    public struct SampleKey: Codable, Sendable, Hashable {
        public var path: String?
        public var keyId: String
        public var teamId: String
        public var topic: String
    }

    /// The sample Google service account (for FCM SDKs).
    public struct SampleServiceAccount: Codable, Sendable, Hashable {
        public var path: String?
        public var projectId: String
        public var clientEmail: String
        public var tokenUri: String
    }

    /// TLS listener (h2 and http/1.1 via ALPN; h2 without ALPN).
    public var tls: Listener?
    /// Extra TLS listener pinned to production, if configured.
    public var productionTLS: Listener?
    /// Cleartext listener (h2c prior knowledge and HTTP/1.1).
    public var cleartext: Listener?
    /// PEM file of the CA clients must trust.
    public var caCertificatePath: String?
    /// The sample APNs signing key.
    public var apnsSampleKey: SampleKey?
    /// The sample FCM service account.
    public var fcmSampleServiceAccount: SampleServiceAccount?
    /// The JSON Lines journal, if enabled.
    public var journalPath: String?
    /// Base URL of the control API.
    public var controlAPI: String?
    /// Process id.
    public var pid: Int32
    /// PushMock version.
    public var version: String
}

/// The PushMock version reported by the gateway and the CLI.
public enum PushMockVersion {
    public static let current = "0.1.0"
}
