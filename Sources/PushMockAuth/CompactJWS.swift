/// A JSON Web Signature in compact serialisation (`header.claims.signature`), split and decoded
/// but not yet interpreted or verified.
///
/// This is the common first step for APNs provider tokens (ES256) and Google service-account
/// assertions (RS256): both arrive as compact JWS text, and both need the exact bytes that were
/// signed (the ASCII `header.claims` prefix, not a re-encoding of the decoded JSON) to check the
/// signature. Interpretation of the header and claims lives in the token-specific types so that
/// each can reject what its real gateway rejects.
public struct CompactJWS: Sendable, Hashable {
    /// The decoded JOSE header: JSON text exactly as the client sent it.
    public let headerJSON: [UInt8]
    /// The decoded claims set: JSON text exactly as the client sent it.
    public let claimsJSON: [UInt8]
    /// The ASCII bytes `header.claims` (still base64url-encoded): what the signature covers.
    public let signingInput: [UInt8]
    /// The decoded signature bytes. May be empty (unsigned tokens); such a token never verifies.
    public let signature: [UInt8]

    /// Splits and base64url-decodes a compact JWS.
    ///
    /// - Throws: ``JWTError/malformed`` unless there are exactly three segments with non-empty
    ///   header and claims; ``JWTError/invalidBase64URL`` when a segment is not base64url.
    public init(parsing token: some StringProtocol) throws(JWTError) {
        let tokenBytes = Array(token.utf8)
        let segments = tokenBytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty else {
            throw .malformed
        }
        guard let header = Base64URL.decode(utf8: segments[0]),
            let claims = Base64URL.decode(utf8: segments[1]),
            let signature = Base64URL.decode(utf8: segments[2])
        else {
            throw .invalidBase64URL
        }
        self.headerJSON = header
        self.claimsJSON = claims
        self.signingInput = Array(tokenBytes[segments[0].startIndex..<segments[1].endIndex])
        self.signature = signature
    }

    /// Interprets the header's registered parameters (`alg`, `kid`, `typ`).
    ///
    /// - Throws: ``JWTError/invalidHeaderJSON`` when the header is not a JSON object;
    ///   ``JWTError/missingAlgorithm`` when it has no string `alg`.
    public func header() throws(JWTError) -> JWTHeader {
        try JWTHeader(json: headerJSON)
    }

    /// The header JSON with insignificant whitespace removed, for recording.
    public var compactHeaderJSON: String {
        JWTJSON.compactText(headerJSON)
    }

    /// The claims JSON with insignificant whitespace removed, for recording.
    public var compactClaimsJSON: String {
        JWTJSON.compactText(claimsJSON)
    }
}
