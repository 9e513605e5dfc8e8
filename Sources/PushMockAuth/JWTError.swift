/// Why a JSON Web Token was rejected.
///
/// A struct over a private enum, rather than a public enum, so that new failure reasons can be added
/// without breaking callers that switch over them; compare against the `static let` members
/// (`error == .badSignature`). Each reason maps to one distinct problem so that the APNs and FCM
/// services can answer with the same error a real gateway would (`MissingProviderToken`,
/// `InvalidProviderToken`, `invalid_grant`, ...), and each ``description`` names what was wrong so
/// that a recorded exchange explains itself.
public struct JWTError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case malformed
        case invalidBase64URL
        case invalidHeaderJSON
        case invalidClaimsJSON
        case missingAlgorithm
        case unsupportedAlgorithm
        case missingKeyID
        case missingIssuer
        case missingIssuedAt
        case invalidIssuedAt
        case missingExpiration
        case invalidExpiration
        case missingAudience
        case badSignature
        case invalidKey
        case signingFailed
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The token is not `header.claims.signature`: wrong number of `.`-separated segments, or an
    /// empty header or claims segment.
    public static let malformed = JWTError(.malformed)
    /// A segment contains characters outside the base64url alphabet or has an impossible length.
    public static let invalidBase64URL = JWTError(.invalidBase64URL)
    /// The decoded header is not a JSON object.
    public static let invalidHeaderJSON = JWTError(.invalidHeaderJSON)
    /// The decoded claims are not a JSON object.
    public static let invalidClaimsJSON = JWTError(.invalidClaimsJSON)
    /// The header has no string `alg`.
    public static let missingAlgorithm = JWTError(.missingAlgorithm)
    /// The header's `alg` is not the one this kind of token must use (ES256 for APNs provider
    /// tokens, RS256 for Google service-account assertions). `none` and HMAC land here too.
    public static let unsupportedAlgorithm = JWTError(.unsupportedAlgorithm)
    /// The header has no string `kid` (for APNs: the 10-character key ID of the `.p8` key).
    public static let missingKeyID = JWTError(.missingKeyID)
    /// The claims have no string `iss` (for APNs: the team ID; for Google: the client email).
    public static let missingIssuer = JWTError(.missingIssuer)
    /// The claims have no `iat`.
    public static let missingIssuedAt = JWTError(.missingIssuedAt)
    /// `iat` is present but is neither a JSON number nor a string of decimal digits that fits in
    /// 64 bits.
    public static let invalidIssuedAt = JWTError(.invalidIssuedAt)
    /// The claims have no `exp`.
    public static let missingExpiration = JWTError(.missingExpiration)
    /// `exp` is present but is neither a JSON number nor a string of decimal digits.
    public static let invalidExpiration = JWTError(.invalidExpiration)
    /// The claims have no string `aud`.
    public static let missingAudience = JWTError(.missingAudience)
    /// The signature does not verify against the key (or is not in any accepted encoding).
    public static let badSignature = JWTError(.badSignature)
    /// Key material could not be read: not PEM, not the expected PEM type, or not the expected
    /// key algorithm or size.
    public static let invalidKey = JWTError(.invalidKey)
    /// The cryptographic library refused to produce a signature.
    public static let signingFailed = JWTError(.signingFailed)

    /// A sentence naming what was wrong with the token, suitable for logs and recordings.
    public var description: String {
        switch code {
        case .malformed:
            "malformed token: expected three '.'-separated base64url segments (header.claims.signature) with non-empty header and claims"
        case .invalidBase64URL:
            "malformed token: a segment is not valid base64url (only A-Z a-z 0-9 - _ are allowed, padding optional)"
        case .invalidHeaderJSON:
            "malformed token: the decoded header is not a JSON object"
        case .invalidClaimsJSON:
            "malformed token: the decoded claims are not a JSON object"
        case .missingAlgorithm:
            "the token header has no string \"alg\""
        case .unsupportedAlgorithm:
            "the token header's \"alg\" is not the algorithm this token type requires (ES256 for APNs, RS256 for Google service accounts)"
        case .missingKeyID:
            "the token header has no string \"kid\" (key ID)"
        case .missingIssuer:
            "the token claims have no string \"iss\" (issuer: team ID or client email)"
        case .missingIssuedAt:
            "the token claims have no \"iat\" (issued-at time)"
        case .invalidIssuedAt:
            "the token's \"iat\" is not a number of seconds (integer, float or string of digits)"
        case .missingExpiration:
            "the token claims have no \"exp\" (expiry time)"
        case .invalidExpiration:
            "the token's \"exp\" is not a number of seconds (integer, float or string of digits)"
        case .missingAudience:
            "the token claims have no string \"aud\" (audience)"
        case .badSignature:
            "the token signature does not verify against the key"
        case .invalidKey:
            "the key could not be read (expected a PEM private or public key of the right algorithm)"
        case .signingFailed:
            "the token could not be signed"
        }
    }
}
