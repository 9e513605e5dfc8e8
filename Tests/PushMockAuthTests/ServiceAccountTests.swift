import Foundation
import PushMockAuth
import Testing

@Suite("Google service accounts (RS256)")
struct ServiceAccountTests {
    let key: ServiceAccountKey
    let clientEmail = "pushmock@demo-project.iam.gserviceaccount.com"
    let tokenURI = "https://localhost:8443/token"

    init() throws {
        key = try ServiceAccountKey.generate(privateKeyID: "0123456789abcdef0123456789abcdef01234567")
    }

    @Test func tokenRequestAssertionRoundTrips() throws {
        let assertion = try key.makeTokenRequestAssertion(
            clientEmail: clientEmail,
            tokenURI: tokenURI,
            issuedAt: 1_700_000_000,
            subject: "user@example.com"
        )
        let parsed = try ServiceAccountAssertion(parsing: assertion)

        #expect(parsed.algorithm == "RS256")
        #expect(parsed.keyID == key.privateKeyID)
        #expect(parsed.issuer == clientEmail)
        #expect(parsed.scope == ServiceAccountKey.firebaseMessagingScope)
        #expect(parsed.scopes == [ServiceAccountKey.firebaseMessagingScope])
        #expect(parsed.audience == tokenURI)
        #expect(parsed.issuedAt == 1_700_000_000)
        #expect(parsed.expiresAt == 1_700_003_600)
        #expect(parsed.subject == "user@example.com")
        #expect(parsed.isSigned(by: key.publicKey))
        try parsed.verifySignature(with: key.publicKey)
    }

    @Test func writesGooglesHeader() throws {
        let jws = try CompactJWS(parsing: key.makeSignedJWT(claims: []))
        #expect(String(decoding: jws.headerJSON, as: UTF8.self) == #"{"alg":"RS256","typ":"JWT","kid":"\#(key.privateKeyID)"}"#)
        #expect(String(decoding: jws.claimsJSON, as: UTF8.self) == "{}")
        #expect(jws.signature.count == 256)
    }

    @Test func signsArbitraryClaimsInOrderAndAcceptsFloatTimes() throws {
        let token = try key.makeSignedJWT(claims: [
            JWTClaim("iss", .string(clientEmail)),
            JWTClaim("aud", .strings([tokenURI])),
            JWTClaim("iat", .number(1_700_000_000.75)),
            JWTClaim("exp", .string("1700003600")),
            JWTClaim("target_audience", .string("https://example.com")),
            JWTClaim("admin", .bool(false)),
            JWTClaim("nested\"quote", .integer(-3)),
        ])
        let parsed = try ServiceAccountAssertion(parsing: token)
        #expect(
            parsed.claimsJSON.hasPrefix(
                #"{"iss":"pushmock@demo-project.iam.gserviceaccount.com","aud":["https://localhost:8443/token"],"iat":1700000000.75,"#))
        #expect(parsed.audience == tokenURI)
        #expect(parsed.issuedAt == 1_700_000_000)
        #expect(parsed.expiresAt == 1_700_003_600)
        #expect(parsed.scope == nil)
        #expect(parsed.scopes.isEmpty)
        #expect(parsed.isSigned(by: key.publicKey))
    }

    @Test func rejectsTamperedClaims() throws {
        let assertion = try key.makeTokenRequestAssertion(clientEmail: clientEmail, tokenURI: tokenURI, issuedAt: 1_700_000_000)
        let forged = TokenSurgery.replacingClaims(
            of: assertion,
            with: #"{"iss":"attacker@example.com","aud":"https://localhost:8443/token","iat":1700000000,"exp":1700003600}"#
        )
        let parsed = try ServiceAccountAssertion(parsing: forged)
        #expect(!parsed.isSigned(by: key.publicKey))
        #expect(throws: JWTError.badSignature) {
            try parsed.verifySignature(with: key.publicKey)
        }
    }

    @Test func rejectsATamperedSignature() throws {
        let assertion = try key.makeTokenRequestAssertion(clientEmail: clientEmail, tokenURI: tokenURI, issuedAt: 1)
        let parsed = try ServiceAccountAssertion(parsing: TokenSurgery.flippingSignatureBit(of: assertion))
        #expect(!parsed.isSigned(by: key.publicKey))
    }

    @Test func rejectsAnotherKeysSignature() throws {
        let otherKey = try ServiceAccountKey.generate(privateKeyID: key.privateKeyID)
        let assertion = try otherKey.makeTokenRequestAssertion(clientEmail: clientEmail, tokenURI: tokenURI, issuedAt: 1)
        let parsed = try ServiceAccountAssertion(parsing: assertion)
        #expect(!parsed.isSigned(by: key.publicKey))
        #expect(parsed.isSigned(by: otherKey.publicKey))
    }

    @Test func rejectsAnRS256TokenPresentedAsAnAPNsToken() throws {
        let assertion = try key.makeTokenRequestAssertion(clientEmail: clientEmail, tokenURI: tokenURI, issuedAt: 1)
        #expect(throws: JWTError.unsupportedAlgorithm) {
            try APNsProviderToken(parsing: assertion)
        }
    }

    @Test(arguments: [
        (#"{"alg":"ES256","kid":"k"}"#, #"{"iss":"a","aud":"b","iat":1,"exp":2}"#, JWTError.unsupportedAlgorithm),
        (#"{"alg":"PS256"}"#, #"{"iss":"a","aud":"b","iat":1,"exp":2}"#, .unsupportedAlgorithm),
        (#"{"alg":"RS256"}"#, #"{"aud":"b","iat":1,"exp":2}"#, .missingIssuer),
        (#"{"alg":"RS256"}"#, #"{"iss":"a","iat":1,"exp":2}"#, .missingAudience),
        (#"{"alg":"RS256"}"#, #"{"iss":"a","aud":["b","c"],"iat":1,"exp":2}"#, .missingAudience),
        (#"{"alg":"RS256"}"#, #"{"iss":"a","aud":"b","exp":2}"#, .missingIssuedAt),
        (#"{"alg":"RS256"}"#, #"{"iss":"a","aud":"b","iat":"x","exp":2}"#, .invalidIssuedAt),
        (#"{"alg":"RS256"}"#, #"{"iss":"a","aud":"b","iat":1}"#, .missingExpiration),
        (#"{"alg":"RS256"}"#, #"{"iss":"a","aud":"b","iat":1,"exp":false}"#, .invalidExpiration),
        (#"{"alg":"RS256"}"#, #"["iss"]"#, .invalidClaimsJSON),
    ])
    func rejectsMalformedAssertions(header: String, claims: String, expected: JWTError) {
        #expect(throws: expected) {
            try ServiceAccountAssertion(parsing: TokenSurgery.token(header: header, claims: claims, signature: [1]))
        }
    }

    @Test func exportsPKCS8AndReadsItBack() throws {
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let reloaded = try ServiceAccountKey(pem: key.pkcs8PEM, privateKeyID: "reloaded")
        #expect(reloaded.publicKeyPEM == key.publicKeyPEM)

        let assertion = try reloaded.makeTokenRequestAssertion(clientEmail: clientEmail, tokenURI: tokenURI, issuedAt: 1)
        #expect(try ServiceAccountAssertion(parsing: assertion).isSigned(by: key.publicKey))

        #expect(throws: JWTError.invalidKey) {
            try ServiceAccountKey(pem: APNsSigningKey.generate(keyID: "K", teamID: "T").pkcs8PEM, privateKeyID: "x")
        }
    }
}

@Suite("Service account JSON")
struct ServiceAccountJSONTests {
    @Test func sampleRoundTripsThroughJSON() throws {
        let sample = try ServiceAccountJSON.makeSample(
            projectID: "demo-project",
            clientEmail: "pushmock@demo-project.iam.gserviceaccount.com",
            tokenURI: "https://127.0.0.1:8443/token"
        )
        #expect(sample.type == "service_account")
        #expect(sample.privateKeyID.count == 40)
        #expect(sample.privateKeyID.allSatisfy { $0.isHexDigit })
        #expect(sample.clientID.count == 21)
        #expect(sample.privateKey.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(
            sample.clientX509CertURL == "https://www.googleapis.com/robot/v1/metadata/x509/pushmock%40demo-project.iam.gserviceaccount.com")
        #expect(sample.universeDomain == "googleapis.com")

        let data = try sample.encodedJSON()
        #expect(try ServiceAccountJSON.decode(from: data) == sample)

        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "type", "project_id", "private_key_id", "private_key", "client_email", "client_id", "auth_uri",
                "token_uri", "auth_provider_x509_cert_url", "client_x509_cert_url", "universe_domain",
            ])
        #expect(object["token_uri"] as? String == "https://127.0.0.1:8443/token")
        #expect(String(decoding: data, as: UTF8.self).contains("https://"))  // slashes unescaped
    }

    @Test func sampleKeySignsAssertionsItsPublicKeyVerifies() throws {
        let sample = try ServiceAccountJSON.makeSample(projectID: "p", clientEmail: "a@p.iam.gserviceaccount.com", tokenURI: "https://t")
        let key = try sample.signingKey()
        #expect(key.privateKeyID == sample.privateKeyID)
        let assertion = try ServiceAccountAssertion(
            parsing: key.makeTokenRequestAssertion(clientEmail: sample.clientEmail, tokenURI: sample.tokenURI, issuedAt: 10)
        )
        #expect(assertion.keyID == sample.privateKeyID)
        #expect(assertion.isSigned(by: key.publicKey))
    }

    @Test func decodesAFileWithoutTheOptionalFields() throws {
        let json = #"""
            {"type":"service_account","project_id":"p","private_key_id":"k","private_key":"-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n",
             "client_email":"a@p.iam.gserviceaccount.com","client_id":"1","token_uri":"https://oauth2.googleapis.com/token"}
            """#
        let decoded = try ServiceAccountJSON.decode(from: Data(json.utf8))
        #expect(decoded.projectID == "p")
        #expect(decoded.universeDomain == nil)
        #expect(decoded.authURI == nil)
        #expect(throws: JWTError.invalidKey) {
            try decoded.signingKey()
        }
    }
}
