import Foundation
import PushMockAuth
import Testing

/// PEM as people actually paste it: PushMock must read what other tools accept.
@Suite("Lenient PEM reading")
struct PEMTextTests {
    let authority: LocalCertificateAuthority

    init() throws {
        authority = try LocalPKI.makeCertificateAuthority()
    }

    @Test func writtenPEMEndsWithExactlyOneNewline() throws {
        let apnsKey = APNsSigningKey.generate(keyID: "K", teamID: "T")
        let rsaKey = try ServiceAccountKey.generate(privateKeyID: "r")
        for pem in [
            authority.certificatePEM, authority.privateKeyPEM, apnsKey.pkcs8PEM, apnsKey.publicKeyPEM, rsaKey.pkcs8PEM, rsaKey.publicKeyPEM,
        ] {
            #expect(pem.hasSuffix("-----\n"))
        }
        // So concatenation gives a valid chain file.
        let chain = authority.certificatePEM + authority.certificatePEM
        #expect(try PEM.certificates(fromPEM: chain).count == 2)
    }

    @Test func readsCertificatesAfterPKCS12BagAttributes() throws {
        let pem = """
            Bag Attributes
                friendlyName: Apple Push Services: com.example.app
                localKeyID: 01 02 03
            subject=UID = com.example.app, CN = Apple Push Services: com.example.app
            issuer=CN = Apple Worldwide Developer Relations Certification Authority
            \(authority.certificatePEM)
            """
        #expect(try PEM.certificate(fromPEM: pem) == authority.certificate)
    }

    @Test func readsKeysWithAnyLineLayout() throws {
        let key = APNsSigningKey.generate(keyID: "K", teamID: "T")
        let lines = key.pkcs8PEM.split(separator: "\n")
        let body = lines.dropFirst().dropLast().joined()

        let singleLine = "\(lines.first!) \(body) \(lines.last!)"
        let escaped = "\(lines.first!)\\n\(body)\\n\(lines.last!)\\n"
        let crlfShortLines =
            ([String(lines.first!)]
            + stride(from: 0, to: body.count, by: 20).map { offset in
                String(body.dropFirst(offset).prefix(20))
            } + [String(lines.last!)]).joined(separator: "\r\n")

        for variant in [singleLine, escaped, crlfShortLines] {
            #expect(try APNsSigningKey(pem: variant, keyID: "K", teamID: "T").publicKeyPEM == key.publicKeyPEM)
            #expect(
                try APNsSigningKey(privateKey: PEM.p256PrivateKey(fromPEM: variant), keyID: "K", teamID: "T").publicKeyPEM
                    == key.publicKeyPEM)
        }

        let rsaKey = try ServiceAccountKey.generate(privateKeyID: "r")
        let rsaEscaped = rsaKey.pkcs8PEM.replacingOccurrences(of: "\n", with: "\\n")
        #expect(try ServiceAccountKey(pem: rsaEscaped, privateKeyID: "r").publicKeyPEM == rsaKey.publicKeyPEM)
    }

    @Test func reportsBrokenPEM() {
        #expect(throws: PKIError.invalidPEM) {
            try PEM.certificate(fromPEM: "-----BEGIN CERTIFICATE-----\nMIIB\n")
        }
        #expect(throws: PKIError.invalidPEM) {
            try PEM.certificate(fromPEM: "-----BEGIN CERTIFICATE-----\n*not base64*\n-----END CERTIFICATE-----\n")
        }
        #expect(throws: PKIError.invalidPEM) {
            try PEM.p256PrivateKey(fromPEM: authority.certificatePEM)
        }
        #expect(throws: PKIError.invalidCertificate) {
            try PEM.certificate(fromPEM: "-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n")
        }
    }
}
