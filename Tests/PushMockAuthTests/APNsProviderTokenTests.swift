import PushMockAuth
import Testing

@Suite("APNs provider tokens (ES256)")
struct APNsProviderTokenTests {
    let signingKey = APNsSigningKey.generate(keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
    let issuedAt: Int64 = 1_700_000_000

    @Test(arguments: ES256.SignatureEncoding.allCases, APNsSigningKey.IssuedAtEncoding.allCases)
    func roundTrips(signatureEncoding: ES256.SignatureEncoding, issuedAtEncoding: APNsSigningKey.IssuedAtEncoding) throws {
        let token = try signingKey.makeProviderToken(
            issuedAt: issuedAt,
            signatureEncoding: signatureEncoding,
            issuedAtEncoding: issuedAtEncoding
        )
        let parsed = try APNsProviderToken(parsing: token)

        #expect(parsed.keyID == "ABC123DEFG")
        #expect(parsed.teamID == "DEF123GHIJ")
        #expect(parsed.issuedAt == issuedAt)
        #expect(parsed.algorithm == "ES256")
        #expect(parsed.isSigned(by: signingKey.publicKey))
        try parsed.verifySignature(with: signingKey.publicKey)
    }

    @Test func signatureEncodingsHaveTheirExpectedShape() throws {
        let raw = try signingKey.makeProviderToken(issuedAt: issuedAt, signatureEncoding: .raw)
        let der = try signingKey.makeProviderToken(issuedAt: issuedAt, signatureEncoding: .der)
        #expect(try CompactJWS(parsing: raw).signature.count == 64)
        let derSignature = try CompactJWS(parsing: der).signature
        #expect(derSignature.first == 0x30)
        #expect((68...72).contains(derSignature.count))
    }

    @Test(arguments: [false, true])
    func headerMayCarryTyp(includeType: Bool) throws {
        let token = try signingKey.makeProviderToken(issuedAt: issuedAt, includeType: includeType)
        let parsed = try APNsProviderToken(parsing: token)
        #expect(parsed.headerJSON.contains(#""typ":"JWT""#) == includeType)
        #expect(parsed.isSigned(by: signingKey.publicKey))
    }

    @Test func recordsCompactJSONButNotTheSignature() throws {
        let token = try signingKey.makeProviderToken(issuedAt: issuedAt)
        let parsed = try APNsProviderToken(parsing: token)
        let signatureSegment = TokenSurgery.segments(of: token)[2]

        #expect(parsed.headerJSON == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(parsed.claimsJSON == #"{"iss":"DEF123GHIJ","iat":1700000000}"#)
        #expect(!parsed.description.contains(signatureSegment))
        #expect(!String(reflecting: parsed).contains(signatureSegment))
    }

    @Test(arguments: [
        (#"1700000000"#, Int64(1_700_000_000)),
        (#"1700000000.999"#, 1_700_000_000),
        (#"1.7e9"#, 1_700_000_000),
        (#""1700000000""#, 1_700_000_000),
        (#"0"#, 0),
    ])
    func acceptsEveryIssuedAtSpellingClientsUse(iatJSON: String, expected: Int64) throws {
        let token = TokenSurgery.token(
            header: #"{"alg":"ES256","kid":"K"}"#,
            claims: #"{"iss":"T","iat":"# + iatJSON + "}"
        )
        #expect(try APNsProviderToken(parsing: token).issuedAt == expected)
    }

    @Test func rejectsATamperedSignature() throws {
        let token = try signingKey.makeProviderToken(issuedAt: issuedAt)
        let tampered = try APNsProviderToken(parsing: TokenSurgery.flippingSignatureBit(of: token))
        #expect(!tampered.isSigned(by: signingKey.publicKey))
        #expect(throws: JWTError.badSignature) {
            try tampered.verifySignature(with: signingKey.publicKey)
        }
    }

    @Test(arguments: ES256.SignatureEncoding.allCases)
    func rejectsTamperedClaims(signatureEncoding: ES256.SignatureEncoding) throws {
        let token = try signingKey.makeProviderToken(issuedAt: issuedAt, signatureEncoding: signatureEncoding)
        let forged = TokenSurgery.replacingClaims(of: token, with: #"{"iss":"OTHERTEAM0","iat":1700000000}"#)
        let parsed = try APNsProviderToken(parsing: forged)
        #expect(parsed.teamID == "OTHERTEAM0")
        #expect(!parsed.isSigned(by: signingKey.publicKey))
    }

    @Test(arguments: ES256.SignatureEncoding.allCases)
    func rejectsAnotherKeysSignature(signatureEncoding: ES256.SignatureEncoding) throws {
        let otherKey = APNsSigningKey.generate(keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let token = try otherKey.makeProviderToken(issuedAt: issuedAt, signatureEncoding: signatureEncoding)
        let parsed = try APNsProviderToken(parsing: token)
        #expect(!parsed.isSigned(by: signingKey.publicKey))
        #expect(parsed.isSigned(by: otherKey.publicKey))
    }

    @Test(arguments: [[], Array(repeating: UInt8(1), count: 63), Array(repeating: UInt8(1), count: 65), [0x30, 0x03, 0x02, 0x01, 0x01]])
    func rejectsSignaturesInNeitherEncoding(signature: [UInt8]) throws {
        let token = try signingKey.makeProviderToken(issuedAt: issuedAt)
        let parsed = try APNsProviderToken(parsing: TokenSurgery.replacingSignature(of: token, with: signature))
        #expect(!parsed.isSigned(by: signingKey.publicKey))
    }

    @Test(arguments: [
        ("abc", JWTError.malformed),
        ("abc.def", .malformed),
        ("a.b.c.d", .malformed),
        ("e30.e30.%%%", .invalidBase64URL),
        (TokenSurgery.token(header: "ES256", claims: "{}"), .invalidHeaderJSON),
        (TokenSurgery.token(header: #"{"kid":"K"}"#, claims: #"{"iss":"T","iat":1}"#), .missingAlgorithm),
        (TokenSurgery.token(header: #"{"alg":"HS256","kid":"K"}"#, claims: #"{"iss":"T","iat":1}"#), .unsupportedAlgorithm),
        (TokenSurgery.token(header: #"{"alg":"none","kid":"K"}"#, claims: #"{"iss":"T","iat":1}"#, signature: []), .unsupportedAlgorithm),
        (TokenSurgery.token(header: #"{"alg":"RS256","kid":"K"}"#, claims: #"{"iss":"T","iat":1}"#), .unsupportedAlgorithm),
        (TokenSurgery.token(header: #"{"alg":"ES256"}"#, claims: #"{"iss":"T","iat":1}"#), .missingKeyID),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":42}"#, claims: #"{"iss":"T","iat":1}"#), .missingKeyID),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: "iss=T"), .invalidClaimsJSON),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iat":1}"#), .missingIssuer),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T"}"#), .missingIssuedAt),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":"soon"}"#), .invalidIssuedAt),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":"-5"}"#), .invalidIssuedAt),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":true}"#), .invalidIssuedAt),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":null}"#), .invalidIssuedAt),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":1e300}"#), .invalidIssuedAt),
        (TokenSurgery.token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":99999999999999999999}"#), .invalidIssuedAt),
    ])
    func rejectsMalformedTokensWithTheRightError(token: String, expected: JWTError) {
        #expect(throws: expected) {
            try APNsProviderToken(parsing: token)
        }
    }
}
