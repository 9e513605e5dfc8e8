import PushMockAuth
import Testing

@Suite("Compact JWS parsing")
struct CompactJWSTests {
    @Test func splitsAndDecodesTheThreeSegments() throws {
        let token = TokenSurgery.token(header: #"{"alg":"ES256"}"#, claims: #"{"iss":"T"}"#, signature: [1, 2, 3])
        let jws = try CompactJWS(parsing: token)

        #expect(jws.headerJSON == Array(#"{"alg":"ES256"}"#.utf8))
        #expect(jws.claimsJSON == Array(#"{"iss":"T"}"#.utf8))
        #expect(jws.signature == [1, 2, 3])
        let expectedSigningInput = token[..<token.lastIndex(of: ".")!]
        #expect(jws.signingInput == Array(expectedSigningInput.utf8))
        #expect(try jws.header() == JWTHeader(algorithm: "ES256", keyID: nil, type: nil))
    }

    @Test func acceptsPaddedSegmentsAndAnEmptySignature() throws {
        var header = Base64URL.encode(#"{"alg":"none"}"#)
        header += String(repeating: "=", count: (4 - header.count % 4) % 4)
        #expect(header.hasSuffix("="))
        let jws = try CompactJWS(parsing: header + "." + Base64URL.encode("{}") + ".")
        #expect(jws.signature.isEmpty)
    }

    @Test(arguments: [
        ("", JWTError.malformed),
        ("abc", .malformed),
        ("abc.def", .malformed),
        ("a.b.c.d", .malformed),
        (".e30.sig", .malformed),
        ("e30..sig", .malformed),
        ("e3+.e30.c2ln", .invalidBase64URL),
        ("e30.e30.c2ln!", .invalidBase64URL),
        ("e30.e 30.c2ln", .invalidBase64URL),
    ])
    func rejectsMalformedTokens(token: String, expected: JWTError) {
        #expect(throws: expected) {
            try CompactJWS(parsing: token)
        }
    }

    @Test(arguments: ["not json", "[1,2]", "\"text\"", "{\"alg\":"])
    func reportsAHeaderThatIsNotAJSONObject(header: String) throws {
        let jws = try CompactJWS(parsing: TokenSurgery.token(header: header, claims: "{}"))
        #expect(throws: JWTError.invalidHeaderJSON) {
            try jws.header()
        }
    }

    @Test func compactsWhitespaceButKeepsOrderAndStrings() throws {
        let jws = try CompactJWS(
            parsing: TokenSurgery.token(header: "{ \"kid\" : \"a b\",\n \"alg\": \"ES256\" }", claims: "{\"x\":\"\\\" y\"}")
        )
        #expect(jws.compactHeaderJSON == #"{"kid":"a b","alg":"ES256"}"#)
        #expect(jws.compactClaimsJSON == #"{"x":"\" y"}"#)
    }

    @Test func errorDescriptionsNameTheProblem() {
        #expect(JWTError.malformed.description.contains("three"))
        #expect(JWTError.invalidBase64URL.description.contains("base64url"))
        #expect(JWTError.unsupportedAlgorithm.description.contains("ES256"))
        #expect(JWTError.missingKeyID.description.contains("kid"))
        #expect(JWTError.missingIssuer.description.contains("iss"))
        #expect(JWTError.invalidIssuedAt.description.contains("iat"))
        #expect(JWTError.badSignature.description.contains("signature"))
    }
}
