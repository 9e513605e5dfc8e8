import Foundation
import PushMockAuth
import Testing

@Suite("APNs signing keys")
struct APNsSigningKeyTests {
    @Test func exportsPKCS8AndReadsItBack() throws {
        let key = APNsSigningKey.generate(keyID: "KEYID00001", teamID: "TEAMID0001")
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))

        let reloaded = try APNsSigningKey(pem: key.pkcs8PEM, keyID: key.keyID, teamID: key.teamID)
        #expect(reloaded.publicKeyPEM == key.publicKeyPEM)

        // A token from the reloaded key verifies with the original public key.
        let token = try APNsProviderToken(parsing: reloaded.makeProviderToken(issuedAt: 1))
        #expect(token.isSigned(by: key.publicKey))
    }

    @Test func acceptsCRLFLineEndingsAndSurroundingWhitespace() throws {
        let key = APNsSigningKey.generate(keyID: "K", teamID: "T")
        let windowsPEM = "\n  " + key.pkcs8PEM.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n\r\n"
        let reloaded = try APNsSigningKey(pem: windowsPEM, keyID: "K", teamID: "T")
        #expect(reloaded.publicKeyPEM == key.publicKeyPEM)
    }

    @Test func loadsAP8File() throws {
        let directory = try TemporaryDirectory()
        let key = APNsSigningKey.generate(keyID: "K", teamID: "T")
        try directory.write(key.pkcs8PEM, to: "AuthKey_K.p8")

        let loaded = try APNsSigningKey(p8FilePath: directory.path("AuthKey_K.p8"), keyID: "K", teamID: "T")
        #expect(loaded.publicKeyPEM == key.publicKeyPEM)
        #expect(throws: (any Error).self) {
            try APNsSigningKey(p8FilePath: directory.path("missing.p8"), keyID: "K", teamID: "T")
        }
    }

    @Test(arguments: [
        "",
        "not a pem",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
        "-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----",
    ])
    func rejectsTextThatIsNotAP256Key(pem: String) {
        #expect(throws: JWTError.invalidKey) {
            try APNsSigningKey(pem: pem, keyID: "K", teamID: "T")
        }
    }

    @Test func rejectsAnRSAKey() throws {
        let rsaKey = try ServiceAccountKey.generate(privateKeyID: "rsa")
        #expect(throws: JWTError.invalidKey) {
            try APNsSigningKey(pem: rsaKey.pkcs8PEM, keyID: "K", teamID: "T")
        }
    }

    @Test func escapesIdentifiersInTheTokenJSON() throws {
        let key = APNsSigningKey.generate(keyID: #"K"1"#, teamID: #"T\2"#)
        let token = try APNsProviderToken(parsing: key.makeProviderToken(issuedAt: 5))
        #expect(token.keyID == #"K"1"#)
        #expect(token.teamID == #"T\2"#)
    }
}

@Suite("Key descriptions")
struct KeyDescriptionTests {
    @Test func descriptionsNeverContainKeyMaterial() throws {
        let apnsKey = APNsSigningKey.generate(keyID: "KEYID00001", teamID: "TEAMID0001")
        #expect(String(describing: apnsKey) == "APNsSigningKey(keyID: KEYID00001, teamID: TEAMID0001)")

        let sample = try ServiceAccountJSON.makeSample(projectID: "p", clientEmail: "a@p.iam.gserviceaccount.com", tokenURI: "https://t")
        let pemBody = sample.privateKey.split(separator: "\n")[1]
        #expect(!String(describing: sample).contains(pemBody))
        #expect(!String(describing: try sample.signingKey()).contains(pemBody))
    }
}
