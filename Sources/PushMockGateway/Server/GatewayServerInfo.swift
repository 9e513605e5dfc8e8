/// What a started gateway tells scripts and users: where it listens and which credentials to
/// use. Printed in the banner, written by `--ready-file`, served at `GET /_pushmock/info`.
package struct GatewayServerInfo: Codable, Sendable, Hashable {
    /// One bound listener.
    package struct Listener: Codable, Sendable, Hashable {
        /// Bound host.
        package var host: String
        /// Bound port (the real one when 0 was asked for).
        package var port: Int
        /// Base URL, e.g. `https://127.0.0.1:2197`.
        package var url: String
        /// `sandbox` or `production` for requests whose authority names no Apple host.
        package var environment: String
    }

    /// The sample APNs key any client can sign provider tokens with.
    package struct SampleKey: Codable, Sendable, Hashable {
        package var path: String?
        package var keyId: String
        package var teamId: String
        package var topic: String
    }

    /// The sample Google service account (for FCM SDKs).
    package struct SampleServiceAccount: Codable, Sendable, Hashable {
        package var path: String?
        package var projectId: String
        package var clientEmail: String
        package var tokenUri: String
    }

    /// TLS listener (h2 and http/1.1 via ALPN; h2 without ALPN).
    package var tls: Listener?
    /// Extra TLS listener pinned to production, if configured.
    package var productionTLS: Listener?
    /// Cleartext listener (h2c prior knowledge and HTTP/1.1).
    package var cleartext: Listener?
    /// PEM file of the CA clients must trust.
    package var caCertificatePath: String?
    /// The sample APNs signing key.
    package var apnsSampleKey: SampleKey?
    /// The sample FCM service account.
    package var fcmSampleServiceAccount: SampleServiceAccount?
    /// The JSON Lines journal, if enabled.
    package var journalPath: String?
    /// What opening the journal found: where numbering continued, and a torn last line cut
    /// off (a crash in the middle of a write). `nil` without a journal.
    package var journalRecovery: JournalRecoveryInfo?
    /// The base URL Expo SDKs take in place of `https://exp.host` (Node's `EXPO_BASE_URL`,
    /// Python's `PushClient(host:)`): the cleartext listener if there is one, else the TLS one.
    package var expoBaseURL: String?
    /// Base URL of the control API.
    package var controlAPI: String?
    /// The web inbox's URL (`docs/inbox.md`), when it is served.
    package var inbox: String?
    /// The extra listener of `--inbox-port`, if any.
    package var inboxListener: Listener?
    /// Every registry cap and device-simulation bound in force, by ``CapacityLimit`` name
    /// (`serve --limit`, the configuration file's `"limits"`). `nil` in a ready file written
    /// by an older version.
    package var limits: [String: Int]?
    /// Process id.
    package var pid: Int32
    /// PushMock version.
    package var version: String
}

/// The PushMock version reported by the gateway and the CLI.
package enum PushMockVersion {
    package static let current = "0.1.0"
}
