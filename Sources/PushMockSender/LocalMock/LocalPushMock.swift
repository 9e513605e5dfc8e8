import Foundation
public import PushMockAuth
import PushMockCore
import PushMockJSON

/// A `pushmock serve` running on this machine, found through the files it writes: the CA,
/// the sample APNs key and the sample service account under `certs/`, and optionally its
/// `--ready-file` (for the ports). The zero-configuration target of `pushmock send`.
///
/// ```swift
/// let mock = try LocalPushMock()                       // ./certs, https://127.0.0.1:2197
/// let sender = try APNsSender(configuration: mock.apnsConfiguration())
/// ```
public struct LocalPushMock: Sendable {
    /// The TLS base URL, e.g. `https://127.0.0.1:2197`.
    public var url: String
    /// The CA the gateway's certificate is issued by (PEM file).
    public var caPath: String
    /// The sample `.p8` key, its key ID and team ID, and its topic.
    public var sampleKeyPath: String
    public var sampleKeyID: String
    public var sampleTeamID: String
    public var sampleTopic: String
    /// The sample service-account JSON (its `token_uri` points at the gateway).
    public var serviceAccountPath: String
    /// Where Expo SDKs and ``ExpoSender`` send, in place of `https://exp.host`: the ready
    /// file's `expoBaseURL` (its cleartext listener), else ``defaultExpoBaseURL``.
    public var expoBaseURL: String

    /// The default port of `pushmock serve`'s TLS listener.
    public static let defaultURL = "https://127.0.0.1:2197"
    /// The default port of `pushmock serve`'s cleartext listener, where Expo clients go.
    public static let defaultExpoBaseURL = "http://127.0.0.1:2198"

    /// Reads `certificatesDirectory` (default `certs`, as `pushmock serve` writes it); with a
    /// `readyFile` the URL and paths come from it instead.
    public init(certificatesDirectory: String = "certs", readyFile: String? = nil, url: String? = nil) throws(SenderError) {
        var resolvedURL = url ?? Self.defaultURL
        var caPath = (certificatesDirectory as NSString).appendingPathComponent("ca.pem")
        var keyPath = (certificatesDirectory as NSString).appendingPathComponent("apns-sample-key.p8")
        var keyID: String?
        var teamID: String?
        var topic: String?
        var accountPath = (certificatesDirectory as NSString).appendingPathComponent("fcm-sample-service-account.json")
        var expoBaseURL = Self.defaultExpoBaseURL
        if let readyFile {
            // Paths in the ready file are relative to where `pushmock serve` runs; try them as
            // given, then next to the ready file.
            let base = (readyFile as NSString).deletingLastPathComponent
            func resolve(_ path: String) -> String {
                if path.hasPrefix("/") || FileManager.default.fileExists(atPath: path) || base.isEmpty { return path }
                return (base as NSString).appendingPathComponent(path)
            }
            guard let data = FileManager.default.contents(atPath: readyFile), let info = try? JSONValue(parsing: Array(data)) else {
                throw SenderError(
                    .invalidConfiguration, "cannot read the ready file \(readyFile) (is `pushmock serve --ready-file` running?)")
            }
            // Every ready file names a listener (the TLS one unless `--no-tls`). One that names
            // none (`{}`, `[]`, another program's JSON) is no ready file: going on sent to the
            // default ports, perhaps to someone else's gateway.
            guard let listenerURL = info["tls"]?["url"]?.stringValue ?? info["cleartext"]?["url"]?.stringValue else {
                throw SenderError(
                    .invalidConfiguration,
                    "\(readyFile) is not a ready file of `pushmock serve --ready-file` (it names no tls.url or cleartext.url)")
            }
            if url == nil { resolvedURL = listenerURL }
            if let path = info["caCertificatePath"]?.stringValue { caPath = resolve(path) }
            if let key = info["apnsSampleKey"] {
                if let path = key["path"]?.stringValue { keyPath = resolve(path) }
                keyID = key["keyId"]?.stringValue
                teamID = key["teamId"]?.stringValue
                topic = key["topic"]?.stringValue
            }
            if let path = info["fcmSampleServiceAccount"]?["path"]?.stringValue { accountPath = resolve(path) }
            // Gateways before `expoBaseURL` existed: the cleartext listener, else the TLS one.
            if let base = info["expoBaseURL"]?.stringValue ?? info["cleartext"]?["url"]?.stringValue ?? info["tls"]?["url"]?.stringValue {
                expoBaseURL = base
            }
        }
        if keyID == nil || teamID == nil || topic == nil {
            let metadataPath = (keyPath as NSString).deletingPathExtension + ".json"
            if let data = FileManager.default.contents(atPath: metadataPath), let metadata = try? JSONValue(parsing: Array(data)) {
                keyID = keyID ?? metadata["keyId"]?.stringValue
                teamID = teamID ?? metadata["teamId"]?.stringValue
                topic = topic ?? metadata["topic"]?.stringValue
            }
        }
        guard FileManager.default.fileExists(atPath: caPath) else {
            throw SenderError(
                .invalidConfiguration,
                "no local mock found: \(caPath) does not exist (start `pushmock serve` here, or pass --certs-dir / --ready-file, or a real target with credentials)"
            )
        }
        self.url = resolvedURL
        self.caPath = caPath
        self.sampleKeyPath = keyPath
        self.sampleKeyID = keyID ?? "PUSHMOCK01"
        self.sampleTeamID = teamID ?? "PUSHMOCK00"
        self.sampleTopic = topic ?? "dev.pushmock.sample"
        self.serviceAccountPath = accountPath
        self.expoBaseURL = expoBaseURL
    }

    /// The sample signing key.
    public func sampleKey() throws(SenderError) -> APNsSigningKey {
        do {
            return try APNsSigningKey(p8FilePath: sampleKeyPath, keyID: sampleKeyID, teamID: sampleTeamID)
        } catch {
            throw SenderError(.invalidCredentials, "cannot read the mock's sample key \(sampleKeyPath): \(error)", cause: error)
        }
    }

    /// The sample service account.
    public func serviceAccount() throws(SenderError) -> ServiceAccountJSON {
        let data: Data
        do {
            data = try FileContents.read(serviceAccountPath)
        } catch {
            throw SenderError(.invalidCredentials, "cannot read the mock's sample service account \(serviceAccountPath): \(error.reason)")
        }
        do {
            return try ServiceAccountJSON.decode(from: data)
        } catch {
            throw SenderError(.invalidCredentials, "\(serviceAccountPath) is not a service-account JSON: \(error)", cause: error)
        }
    }

    /// APNs through the mock with the sample key and topic, trusting the mock's CA.
    public func apnsConfiguration() throws(SenderError) -> APNsSenderConfiguration {
        APNsSenderConfiguration(
            server: try .custom(url: url),
            authentication: .token(try sampleKey()),
            trustRoots: .file(caPath),
            defaultTopic: sampleTopic
        )
    }

    /// Expo through the mock (no access token: the mock's projects need none unless registered
    /// with one), trusting the mock's CA when the base URL is `https`.
    public func expoConfiguration() throws(SenderError) -> ExpoSenderConfiguration {
        ExpoSenderConfiguration(server: try SenderEndpoint(url: expoBaseURL), trustRoots: .file(caPath))
    }

    /// FCM through the mock with the sample service account, trusting the mock's CA.
    public func fcmConfiguration() throws(SenderError) -> FCMSenderConfiguration {
        FCMSenderConfiguration(
            serviceAccount: try serviceAccount(),
            server: try SenderEndpoint(url: url),
            trustRoots: .file(caPath)
        )
    }
}
