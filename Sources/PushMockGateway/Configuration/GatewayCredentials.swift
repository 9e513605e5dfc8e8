public import Foundation
public import PushMockAuth
import X509

/// The sample APNs signing key `pushmock serve` writes and trusts, so that any client can
/// authenticate out of the box. Clearly fake: generated locally, never committed.
public struct SampleAPNsKey: Sendable {
    /// Where the `.p8` file is (nil for in-memory keys).
    public var path: String?
    /// The key, with its Key ID and Team ID.
    public var signingKey: APNsSigningKey
    /// The app topic the sample is meant for.
    public var topic: String

    public var keyID: String { signingKey.keyID }
    public var teamID: String { signingKey.teamID }

    /// Key ID of generated sample keys.
    public static let defaultKeyID = "PUSHMOCK01"
    /// Team ID of generated sample keys.
    public static let defaultTeamID = "PUSHMOCK00"
    /// App topic of generated sample keys.
    public static let defaultTopic = "dev.pushmock.sample"
}

/// The sample Google service account `pushmock serve` writes and trusts: a fresh RSA key,
/// `token_uri` pointing at the mock. Clearly fake: generated locally, never committed.
public struct SampleServiceAccount: Sendable {
    /// Where the JSON file is (nil for in-memory accounts).
    public var path: String?
    /// The service-account JSON (Google's field names).
    public var json: ServiceAccountJSON
    /// Its key.
    public var key: ServiceAccountKey

    /// Project of generated sample accounts.
    public static let defaultProjectID = "pushmock-sample"
    /// E-mail of generated sample accounts.
    public static func clientEmail(project: String) -> String {
        "firebase-adminsdk-mock@\(project).iam.gserviceaccount.com"
    }

    /// The `token_uri` of the shared `fcm-sample-service-account.json`: the token endpoint of a
    /// gateway on the default TLS port. It never changes, so gateways sharing one `certs/`
    /// cannot overwrite each other's.
    public static let defaultTokenURI = "https://localhost:2197/token"

    /// Makes a fresh sample account in memory.
    public static func generate(projectID: String = defaultProjectID, tokenURI: String = defaultTokenURI) throws
        -> SampleServiceAccount
    {
        let json = try ServiceAccountJSON.makeSample(
            projectID: projectID,
            clientEmail: clientEmail(project: projectID),
            tokenURI: tokenURI
        )
        return SampleServiceAccount(path: nil, json: json, key: try json.signingKey())
    }

    /// One throwaway account per process: RSA-2048 generation takes a noticeable fraction of a
    /// second, and in-process test gateways need not each have their own.
    private static let cachedEphemeral = Result { try generate() }

    /// The per-process throwaway account (tests, `withPushMock`).
    public static func ephemeral() throws -> SampleServiceAccount {
        try cachedEphemeral.get()
    }

    /// Points the account at `tokenURI`, the token endpoint the gateway actually listens on.
    /// The shared file (`fcm-sample-service-account.json`) keeps ``defaultTokenURI``; a gateway
    /// on any other port gets a file of its own next to it, named by the port
    /// (`fcm-sample-service-account-53211.json`), with the same key — so parallel gateways
    /// sharing one `certs/` never rewrite each other's file. `path` names the file for this
    /// gateway afterwards.
    public mutating func update(tokenURI: String) throws {
        json.tokenURI = tokenURI
        // The shared file already says the default (``GatewayCredentials/prepare``).
        guard let sharedPath = path, tokenURI != Self.defaultTokenURI else { return }
        let port = URLComponents(string: tokenURI)?.port.map(String.init) ?? "gateway"
        let directory = (sharedPath as NSString).deletingLastPathComponent
        let name = ((sharedPath as NSString).lastPathComponent as NSString).deletingPathExtension
        let ownPath = (directory as NSString).appendingPathComponent("\(name)-\(port).json")
        try Self.write(json, to: ownPath)
        path = ownPath
    }

    static func write(_ json: ServiceAccountJSON, to path: String) throws {
        // The file holds a private key: 0600, like the other keys under certs/.
        let text = String(decoding: try json.encodedJSON(), as: UTF8.self)
        try PEM.writePrivateKeyPEM(text, to: path)
    }
}

/// The TLS identity of the gateway and the sample credentials it hands out.
public struct GatewayCredentials: Sendable {
    /// The server certificate chain (leaf first) in PEM.
    public var certificateChainPEM: String
    /// The server's private key in PEM.
    public var privateKeyPEM: String
    /// The CA that issued the server certificate, in PEM, if known (clients must trust it).
    public var certificateAuthorityPEM: String?
    /// Where that CA is on disk, if anywhere (printed in the banner).
    public var certificateAuthorityPath: String?
    /// The local CA itself (with its key) when the gateway generated it; used to issue test
    /// client certificates.
    public var certificateAuthority: LocalCertificateAuthority?
    /// The sample APNs key, if one was prepared.
    public var sampleAPNsKey: SampleAPNsKey?
    /// The sample FCM service account, if one was prepared.
    public var sampleServiceAccount: SampleServiceAccount?

    /// Host names every generated server certificate covers: loopback and the real push hosts,
    /// so clients that verify the host name can be pointed at the mock via /etc/hosts.
    public static let serverDNSNames = [
        "localhost",
        "api.push.apple.com",
        "api.sandbox.push.apple.com",
        "api.development.push.apple.com",
        "fcm.googleapis.com",
        "oauth2.googleapis.com",
        "iid.googleapis.com",
        // Expo's push service, for SDKs that take no base URL (a hosts-file entry instead).
        "exp.host",
    ]
    /// IP addresses every generated server certificate covers.
    public static let serverIPAddresses = ["127.0.0.1", "::1"]

    public init(
        certificateChainPEM: String,
        privateKeyPEM: String,
        certificateAuthorityPEM: String? = nil,
        certificateAuthorityPath: String? = nil,
        certificateAuthority: LocalCertificateAuthority? = nil,
        sampleAPNsKey: SampleAPNsKey? = nil,
        sampleServiceAccount: SampleServiceAccount? = nil
    ) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateAuthorityPEM = certificateAuthorityPEM
        self.certificateAuthorityPath = certificateAuthorityPath
        self.certificateAuthority = certificateAuthority
        self.sampleAPNsKey = sampleAPNsKey
        self.sampleServiceAccount = sampleServiceAccount
    }

    /// Throwaway credentials that never touch the disk (tests, `withPushMock`).
    public static func ephemeral(extraDNSNames: [String] = []) throws -> GatewayCredentials {
        let authority = try LocalPKI.makeCertificateAuthority(commonName: "PushMock Ephemeral CA")
        let server = try LocalPKI.makeServerCertificate(
            issuer: authority,
            dnsNames: serverDNSNames + extraDNSNames,
            ipAddresses: serverIPAddresses
        )
        return GatewayCredentials(
            certificateChainPEM: server.certificatePEM,
            privateKeyPEM: server.privateKeyPEM,
            certificateAuthorityPEM: authority.certificatePEM,
            certificateAuthority: authority,
            sampleAPNsKey: SampleAPNsKey(
                path: nil,
                signingKey: APNsSigningKey.generate(keyID: SampleAPNsKey.defaultKeyID, teamID: SampleAPNsKey.defaultTeamID),
                topic: SampleAPNsKey.defaultTopic
            ),
            sampleServiceAccount: try SampleServiceAccount.ephemeral()
        )
    }

    /// Your own certificate and key (`--cert`/`--key`); `caPath` names the CA to print, if any.
    public static func files(certificatePath: String, keyPath: String, caPath: String?) throws -> GatewayCredentials {
        let chain = try PEM.readText(at: certificatePath)
        let key = try PEM.readText(at: keyPath)
        return GatewayCredentials(
            certificateChainPEM: chain,
            privateKeyPEM: key,
            certificateAuthorityPEM: try caPath.map { try PEM.readText(at: $0) },
            certificateAuthorityPath: caPath
        )
    }

    /// Loads the credentials kept in `directory`, creating what is missing: a local CA
    /// (`ca.pem`, `ca-key.pem`), a server certificate (`server.pem`, `server-key.pem`) renewed
    /// when it expires within 30 days or misses a host name, and the sample APNs key
    /// (`apns-sample-key.p8` with `apns-sample-key.json`). Private keys are written 0600 and are
    /// git-ignored.
    public static func prepare(
        directory: String,
        extraDNSNames: [String] = [],
        extraIPAddresses: [String] = [],
        now: Date = Date()
    ) throws -> GatewayCredentials {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let caPath = (directory as NSString).appendingPathComponent("ca.pem")
        let caKeyPath = (directory as NSString).appendingPathComponent("ca-key.pem")
        let serverPath = (directory as NSString).appendingPathComponent("server.pem")
        let serverKeyPath = (directory as NSString).appendingPathComponent("server-key.pem")

        var authority: LocalCertificateAuthority?
        if let caPEM = try? PEM.readText(at: caPath), let keyPEM = try? PEM.readText(at: caKeyPath) {
            authority = try? LocalCertificateAuthority(certificatePEM: caPEM, privateKeyPEM: keyPEM)
            if let existing = authority, existing.certificate.notValidAfter < now.addingTimeInterval(30 * 86_400) {
                authority = nil
            }
        }
        var regenerateServer = false
        if authority == nil {
            let created = try LocalPKI.makeCertificateAuthority(now: now)
            try PEM.writeCertificatePEM(created.certificatePEM, to: caPath)
            try PEM.writePrivateKeyPEM(created.privateKeyPEM, to: caKeyPath)
            authority = created
            regenerateServer = true
        }
        guard let authority else { throw PKIError.certificateCreationFailed }

        let dnsNames = serverDNSNames + extraDNSNames.filter { !serverDNSNames.contains($0) }
        let ipAddresses = serverIPAddresses + extraIPAddresses.filter { !serverIPAddresses.contains($0) }
        var server: IssuedCertificate?
        if !regenerateServer, let certificatePEM = try? PEM.readText(at: serverPath),
            let keyPEM = try? PEM.readText(at: serverKeyPath),
            let existing = try? IssuedCertificate(certificatePEM: certificatePEM, privateKeyPEM: keyPEM),
            existing.certificate.notValidAfter > now.addingTimeInterval(30 * 86_400),
            existing.certificate.issuer == authority.certificate.subject,
            Self.covers(existing.certificate, dnsNames: dnsNames)
        {
            server = existing
        }
        if server == nil {
            let issued = try LocalPKI.makeServerCertificate(
                issuer: authority,
                dnsNames: dnsNames,
                ipAddresses: ipAddresses,
                now: now
            )
            try PEM.writeCertificatePEM(issued.certificatePEM, to: serverPath)
            try PEM.writePrivateKeyPEM(issued.privateKeyPEM, to: serverKeyPath)
            server = issued
        }
        guard let server else { throw PKIError.certificateCreationFailed }

        return GatewayCredentials(
            certificateChainPEM: server.certificatePEM,
            privateKeyPEM: server.privateKeyPEM,
            certificateAuthorityPEM: authority.certificatePEM,
            certificateAuthorityPath: caPath,
            certificateAuthority: authority,
            sampleAPNsKey: try prepareSampleKey(directory: directory),
            sampleServiceAccount: try prepareSampleServiceAccount(directory: directory)
        )
    }

    /// Loads or writes `fcm-sample-service-account.json`, whose `token_uri` is always
    /// ``SampleServiceAccount/defaultTokenURI`` (a gateway on another port writes its own copy
    /// once it knows its port: ``SampleServiceAccount/update(tokenURI:)``). A file from an older
    /// version that named another port is put back to the default.
    static func prepareSampleServiceAccount(directory: String) throws -> SampleServiceAccount {
        let path = (directory as NSString).appendingPathComponent("fcm-sample-service-account.json")
        if let data = FileManager.default.contents(atPath: path),
            var json = try? ServiceAccountJSON.decode(from: data),
            let key = try? json.signingKey()
        {
            if json.tokenURI != SampleServiceAccount.defaultTokenURI {
                json.tokenURI = SampleServiceAccount.defaultTokenURI
                try SampleServiceAccount.write(json, to: path)
            }
            return SampleServiceAccount(path: path, json: json, key: key)
        }
        var account = try SampleServiceAccount.generate()
        account.path = path
        try SampleServiceAccount.write(account.json, to: path)
        return account
    }

    private struct SampleKeyMetadata: Codable {
        var keyId: String
        var teamId: String
        var topic: String
        var note: String?
    }

    /// `credentials` with the sample APNs key and service account kept in `directory` (loaded,
    /// or created there on first use), for a gateway serving your own certificate.
    public static func addingSamples(to credentials: GatewayCredentials, directory: String) throws -> GatewayCredentials {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var credentials = credentials
        credentials.sampleAPNsKey = try prepareSampleKey(directory: directory)
        credentials.sampleServiceAccount = try prepareSampleServiceAccount(directory: directory)
        return credentials
    }

    /// Loads or writes `apns-sample-key.p8` and its metadata.
    private static func prepareSampleKey(directory: String) throws -> SampleAPNsKey {
        let keyPath = (directory as NSString).appendingPathComponent("apns-sample-key.p8")
        let metadataPath = (directory as NSString).appendingPathComponent("apns-sample-key.json")
        if let data = FileManager.default.contents(atPath: metadataPath),
            let metadata = try? JSONDecoder().decode(SampleKeyMetadata.self, from: data),
            let key = try? APNsSigningKey(p8FilePath: keyPath, keyID: metadata.keyId, teamID: metadata.teamId)
        {
            return SampleAPNsKey(path: keyPath, signingKey: key, topic: metadata.topic)
        }
        let key = APNsSigningKey.generate(keyID: SampleAPNsKey.defaultKeyID, teamID: SampleAPNsKey.defaultTeamID)
        try PEM.writePrivateKeyPEM(key.pkcs8PEM, to: keyPath)
        let metadata = SampleKeyMetadata(
            keyId: key.keyID,
            teamId: key.teamID,
            topic: SampleAPNsKey.defaultTopic,
            note: "Sample APNs signing key generated by pushmock; trusted only by the local mock."
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(metadata).write(to: URL(fileURLWithPath: metadataPath))
        return SampleAPNsKey(path: keyPath, signingKey: key, topic: SampleAPNsKey.defaultTopic)
    }

    private static func covers(_ certificate: Certificate, dnsNames: [String]) -> Bool {
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return false }
        var present: Set<String> = []
        for name in names {
            if case .dnsName(let dns) = name { present.insert(dns) }
        }
        return dnsNames.allSatisfy(present.contains)
    }
}
