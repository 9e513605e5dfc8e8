extension ServiceAccountKey {
    /// The OAuth2 scope FCM HTTP v1 requires.
    public static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"

    /// Signs the assertion a client posts to the token endpoint
    /// (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`), with the claims
    /// Google's libraries use: `iss`, `scope` (space-separated), `aud`, `iat`, `exp` and, for
    /// domain-wide delegation, `sub`.
    ///
    /// - Parameters:
    ///   - clientEmail: the service account's `client_email`, written as `iss`.
    ///   - scopes: OAuth2 scopes; defaults to FCM's.
    ///   - tokenURI: the JSON's `token_uri`, written as `aud`.
    ///   - issuedAt: seconds since 1970.
    ///   - lifetime: seconds until `exp`; Google allows at most 3600.
    ///   - subject: optional `sub`.
    /// - Throws: ``JWTError/signingFailed`` if the crypto library fails.
    public func makeTokenRequestAssertion(
        clientEmail: String,
        scopes: [String] = [firebaseMessagingScope],
        tokenURI: String,
        issuedAt: Int64,
        lifetime: Int64 = 3600,
        subject: String? = nil
    ) throws(JWTError) -> String {
        var claims = [
            JWTClaim("iss", .string(clientEmail)),
            JWTClaim("scope", .string(scopes.joined(separator: " "))),
            JWTClaim("aud", .string(tokenURI)),
            JWTClaim("iat", .integer(issuedAt)),
            JWTClaim("exp", .integer(issuedAt + lifetime)),
        ]
        if let subject {
            claims.append(JWTClaim("sub", .string(subject)))
        }
        return try makeSignedJWT(claims: claims)
    }
}
