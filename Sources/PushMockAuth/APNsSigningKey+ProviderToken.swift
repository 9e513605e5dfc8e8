extension APNsSigningKey {
    /// How the `iat` claim is written, to reproduce each real client's habit.
    public enum IssuedAtEncoding: String, Sendable, Hashable, CaseIterable {
        /// A JSON integer, as the JWT spec and most libraries write it.
        case integer
        /// A JSON number with a fractional part (`1700000000.123`), as clients that compute the
        /// time in milliseconds do. The fraction is always `.123`, so it truncates back to
        /// `issuedAt`.
        case float
        /// A JSON string of digits (`"1700000000"`), as APNSwift writes it. Only meaningful for
        /// non-negative times.
        case string
    }

    /// Mints a provider token signed with this key.
    ///
    /// The header is `{"alg":"ES256","kid":"<keyID>"}` (plus `"typ":"JWT"` when `includeType`)
    /// and the claims are `{"iss":"<teamID>","iat":<issuedAt>}`, which is everything APNs reads.
    /// The encodings let tests exercise every variation real clients produce.
    ///
    /// - Parameters:
    ///   - issuedAt: seconds since 1970; usually the current time.
    ///   - signatureEncoding: raw `R || S` (JOSE) or DER (OpenSSL, Java).
    ///   - issuedAtEncoding: how `iat` is spelled.
    ///   - includeType: whether the header carries `"typ":"JWT"`.
    /// - Throws: ``JWTError/signingFailed`` only if the crypto library fails.
    public func makeProviderToken(
        issuedAt: Int64,
        signatureEncoding: ES256.SignatureEncoding = .raw,
        issuedAtEncoding: IssuedAtEncoding = .integer,
        includeType: Bool = false
    ) throws(JWTError) -> String {
        var header = "{\"alg\":\"ES256\",\"kid\":\(JWTJSON.quoted(keyID))"
        if includeType {
            header += ",\"typ\":\"JWT\""
        }
        header += "}"

        let issuedAtJSON: String
        switch issuedAtEncoding {
        case .integer: issuedAtJSON = String(issuedAt)
        case .float: issuedAtJSON = "\(issuedAt).123"
        case .string: issuedAtJSON = JWTJSON.quoted(String(issuedAt))
        }
        let claims = "{\"iss\":\(JWTJSON.quoted(teamID)),\"iat\":\(issuedAtJSON)}"

        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try ES256.sign(Array(signingInput.utf8), with: privateKey, encoding: signatureEncoding)
        return signingInput + "." + Base64URL.encode(signature)
    }
}
