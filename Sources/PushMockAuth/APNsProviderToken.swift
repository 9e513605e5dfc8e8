public import Crypto

/// An APNs provider authentication token (the `authorization: bearer <JWT>` of token-based
/// APNs auth), parsed and checked for shape but not yet verified.
///
/// Parsing is separate from verification because APNs itself works that way: the key is found
/// by the token's `kid` and `iss`, so those must be read before any key is known. Parsing is
/// also what callers cache (APNs providers reuse one token for up to an hour), so it accepts
/// every encoding real clients are known to send rather than only the one the JWT spec
/// prescribes:
/// - `iat` as a JSON integer, a JSON float (truncated to whole seconds) or a string of digits
///   (APNSwift sends `"iat": "1700000000"`);
/// - a header with or without `"typ": "JWT"`;
/// - an ES256 signature as raw `R || S` or as DER (see ``ES256``).
public struct APNsProviderToken: Sendable, Hashable, CustomStringConvertible {
    /// Header `kid`: the 10-character ID of the `.p8` key that signed the token.
    public let keyID: String
    /// Claim `iss`: the 10-character team ID the key belongs to.
    public let teamID: String
    /// Claim `iat`, in whole seconds since 1970. APNs rejects tokens older than an hour
    /// (`ExpiredProviderToken`) and refuses to see them refreshed more often than every 20 minutes
    /// (`TooManyProviderTokenUpdates`); both decisions are the caller's.
    public let issuedAt: Int64
    /// Header `alg`; always `ES256` for a token that parsed.
    public let algorithm: String
    /// The decoded header JSON, whitespace removed, for recording.
    public let headerJSON: String
    /// The decoded claims JSON, whitespace removed, for recording. The signature is never kept in
    /// recordable form, so a recording cannot be replayed as a credential.
    public let claimsJSON: String

    private let signingInput: [UInt8]
    private let signature: [UInt8]

    /// Parses a provider token.
    ///
    /// - Throws: ``JWTError/malformed``, ``JWTError/invalidBase64URL``,
    ///   ``JWTError/invalidHeaderJSON``, ``JWTError/missingAlgorithm``,
    ///   ``JWTError/unsupportedAlgorithm`` (anything but `ES256`), ``JWTError/missingKeyID``,
    ///   ``JWTError/invalidClaimsJSON``, ``JWTError/missingIssuer``, ``JWTError/missingIssuedAt``
    ///   or ``JWTError/invalidIssuedAt``.
    public init(parsing token: some StringProtocol) throws(JWTError) {
        let jws = try CompactJWS(parsing: token)
        let header = try jws.header()
        guard header.algorithm == ES256.algorithmName else { throw .unsupportedAlgorithm }
        guard let keyID = header.keyID else { throw .missingKeyID }
        guard let claims = JWTJSON.object(from: jws.claimsJSON) else { throw .invalidClaimsJSON }
        guard let teamID = claims["iss"] as? String else { throw .missingIssuer }
        let issuedAt: Int64
        switch JWTJSON.numericDate(claims["iat"]) {
        case .absent: throw .missingIssuedAt
        case .invalid: throw .invalidIssuedAt
        case .seconds(let seconds): issuedAt = seconds
        }

        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.algorithm = header.algorithm
        self.headerJSON = jws.compactHeaderJSON
        self.claimsJSON = jws.compactClaimsJSON
        self.signingInput = jws.signingInput
        self.signature = jws.signature
    }

    /// Whether the token was signed by the private key matching `publicKey`, with either
    /// signature encoding.
    public func isSigned(by publicKey: P256.Signing.PublicKey) -> Bool {
        ES256.isValidSignature(signature, signingInput: signingInput, publicKey: publicKey)
    }

    /// Throws ``JWTError/badSignature`` unless ``isSigned(by:)``.
    public func verifySignature(with publicKey: P256.Signing.PublicKey) throws(JWTError) {
        try ES256.verify(signature, signingInput: signingInput, publicKey: publicKey)
    }

    /// A summary that identifies the token without exposing its signature.
    public var description: String {
        "APNsProviderToken(keyID: \(keyID), teamID: \(teamID), issuedAt: \(issuedAt))"
    }
}
