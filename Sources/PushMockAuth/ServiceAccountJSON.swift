public import Foundation

/// The service-account key file Google Cloud hands out (`"type": "service_account"`), with
/// Google's field names.
///
/// FCM HTTP v1 client libraries are configured with exactly this file; PushMock generates one
/// whose `token_uri` points at its own OAuth2 endpoint, so unmodified clients authenticate
/// against the mock. Fields that clients never read are optional so that older files (without
/// `universe_domain`, for instance) still decode.
public struct ServiceAccountJSON: Codable, Sendable, Hashable {
    /// Always `service_account` for this kind of file.
    public var type: String
    /// The Firebase / Google Cloud project ID, which FCM URLs name.
    public var projectID: String
    /// Identifies the key; written as the JWT `kid`.
    public var privateKeyID: String
    /// The RSA private key, PKCS#8 PEM.
    public var privateKey: String
    /// The service account's email, written as the JWT `iss`.
    public var clientEmail: String
    /// The numeric client ID.
    public var clientID: String
    /// The OAuth2 authorisation endpoint (unused by service accounts, present in real files).
    public var authURI: String?
    /// The OAuth2 token endpoint the client posts its assertion to, and the JWT `aud`.
    public var tokenURI: String
    /// Where Google publishes its own OAuth2 certificates.
    public var authProviderX509CertURL: String?
    /// Where Google publishes this service account's public certificates.
    public var clientX509CertURL: String?
    /// `googleapis.com` for the public cloud; absent in files issued before 2023.
    public var universeDomain: String?

    private enum CodingKeys: String, CodingKey {
        case type
        case projectID = "project_id"
        case privateKeyID = "private_key_id"
        case privateKey = "private_key"
        case clientEmail = "client_email"
        case clientID = "client_id"
        case authURI = "auth_uri"
        case tokenURI = "token_uri"
        case authProviderX509CertURL = "auth_provider_x509_cert_url"
        case clientX509CertURL = "client_x509_cert_url"
        case universeDomain = "universe_domain"
    }

    /// Creates a file from its fields.
    public init(
        type: String = "service_account",
        projectID: String,
        privateKeyID: String,
        privateKey: String,
        clientEmail: String,
        clientID: String,
        authURI: String? = nil,
        tokenURI: String,
        authProviderX509CertURL: String? = nil,
        clientX509CertURL: String? = nil,
        universeDomain: String? = nil
    ) {
        self.type = type
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.privateKey = privateKey
        self.clientEmail = clientEmail
        self.clientID = clientID
        self.authURI = authURI
        self.tokenURI = tokenURI
        self.authProviderX509CertURL = authProviderX509CertURL
        self.clientX509CertURL = clientX509CertURL
        self.universeDomain = universeDomain
    }

    /// The signing key this file describes.
    ///
    /// - Throws: ``JWTError/invalidKey`` when `private_key` is not an RSA private key PEM.
    public func signingKey() throws(JWTError) -> ServiceAccountKey {
        try ServiceAccountKey(pem: privateKey, privateKeyID: privateKeyID)
    }

    /// The file as pretty-printed JSON, in the shape Google's console downloads.
    public func encodedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Decodes a file's JSON.
    public static func decode(from data: Data) throws -> ServiceAccountJSON {
        try JSONDecoder().decode(ServiceAccountJSON.self, from: data)
    }
}
