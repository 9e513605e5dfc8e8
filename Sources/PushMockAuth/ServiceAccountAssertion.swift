public import _CryptoExtras

/// A Google service-account JWT assertion as posted to the OAuth2 token endpoint, parsed and
/// checked for shape but not yet verified.
///
/// Like ``APNsProviderToken``, parsing comes first because the verifying key is looked up by the
/// token's own `iss` (client email) and `kid`. Numeric claims may be integers or floats (some
/// libraries write `iat` as a float), or strings of digits.
public struct ServiceAccountAssertion: Sendable, Hashable, CustomStringConvertible {
    /// Header `kid`: the service account's `private_key_id`, when the client sent one.
    public let keyID: String?
    /// Header `alg`; always `RS256` for an assertion that parsed.
    public let algorithm: String
    /// Claim `iss`: the service account's `client_email`.
    public let issuer: String
    /// Claim `scope`: space-separated OAuth2 scopes, when present. Absent for ID-token requests.
    public let scope: String?
    /// Claim `aud`: who the assertion is for; must equal the JSON's `token_uri`.
    public let audience: String
    /// Claim `iat`, in whole seconds since 1970.
    public let issuedAt: Int64
    /// Claim `exp`, in whole seconds since 1970. Google requires `exp - iat <= 3600`.
    public let expiresAt: Int64
    /// Claim `sub`: the user to impersonate with domain-wide delegation, when present.
    public let subject: String?
    /// The decoded header JSON, whitespace removed, for recording.
    public let headerJSON: String
    /// The decoded claims JSON, whitespace removed, for recording.
    public let claimsJSON: String

    private let signingInput: [UInt8]
    private let signature: [UInt8]

    /// The individual scopes of ``scope``.
    public var scopes: [String] {
        scope.map { $0.split(separator: " ").map(String.init) } ?? []
    }

    /// Parses an assertion.
    ///
    /// - Throws: ``JWTError/malformed``, ``JWTError/invalidBase64URL``,
    ///   ``JWTError/invalidHeaderJSON``, ``JWTError/missingAlgorithm``,
    ///   ``JWTError/unsupportedAlgorithm`` (anything but `RS256`), ``JWTError/invalidClaimsJSON``,
    ///   ``JWTError/missingIssuer``, ``JWTError/missingAudience`` (no string `aud`, nor a
    ///   one-element array of one), ``JWTError/missingIssuedAt``, ``JWTError/invalidIssuedAt``,
    ///   ``JWTError/missingExpiration`` or ``JWTError/invalidExpiration``.
    public init(parsing token: some StringProtocol) throws(JWTError) {
        let jws = try CompactJWS(parsing: token)
        let header = try jws.header()
        guard header.algorithm == RS256.algorithmName else { throw .unsupportedAlgorithm }
        guard let claims = JWTJSON.object(from: jws.claimsJSON) else { throw .invalidClaimsJSON }
        guard let issuer = claims["iss"] as? String else { throw .missingIssuer }

        let audience: String
        if let single = claims["aud"] as? String {
            audience = single
        } else if let list = claims["aud"] as? [Any], list.count == 1, let single = list[0] as? String {
            audience = single
        } else {
            throw .missingAudience
        }

        switch JWTJSON.numericDate(claims["iat"]) {
        case .absent: throw .missingIssuedAt
        case .invalid: throw .invalidIssuedAt
        case .seconds(let seconds): self.issuedAt = seconds
        }
        switch JWTJSON.numericDate(claims["exp"]) {
        case .absent: throw .missingExpiration
        case .invalid: throw .invalidExpiration
        case .seconds(let seconds): self.expiresAt = seconds
        }

        self.keyID = header.keyID
        self.algorithm = header.algorithm
        self.issuer = issuer
        self.scope = claims["scope"] as? String
        self.audience = audience
        self.subject = claims["sub"] as? String
        self.headerJSON = jws.compactHeaderJSON
        self.claimsJSON = jws.compactClaimsJSON
        self.signingInput = jws.signingInput
        self.signature = jws.signature
    }

    /// Whether the assertion was signed (RS256) by the private key matching `publicKey`.
    public func isSigned(by publicKey: _RSA.Signing.PublicKey) -> Bool {
        RS256.isValidSignature(signature, signingInput: signingInput, publicKey: publicKey)
    }

    /// Throws ``JWTError/badSignature`` unless ``isSigned(by:)``.
    public func verifySignature(with publicKey: _RSA.Signing.PublicKey) throws(JWTError) {
        try RS256.verify(signature, signingInput: signingInput, publicKey: publicKey)
    }

    /// A summary that identifies the assertion without exposing its signature.
    public var description: String {
        "ServiceAccountAssertion(issuer: \(issuer), audience: \(audience), issuedAt: \(issuedAt), expiresAt: \(expiresAt))"
    }
}
