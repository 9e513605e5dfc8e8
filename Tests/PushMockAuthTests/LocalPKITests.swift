import Foundation
import PushMockAuth
import SwiftASN1
import Testing
import X509

@Suite("Local PKI")
struct LocalPKITests {
    let authority: LocalCertificateAuthority
    let server: IssuedCertificate

    init() throws {
        authority = try LocalPKI.makeCertificateAuthority(commonName: "PushMock Test CA")
        server = try LocalPKI.makeServerCertificate(
            issuer: authority,
            dnsNames: ["localhost", "api.sandbox.push.apple.com"],
            ipAddresses: ["127.0.0.1", "::1"]
        )
    }

    @Test func certificateAuthorityHasTheExtensionsVerifiersRequire() throws {
        let extensions = authority.certificate.extensions
        #expect(try extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(extensions[oid: .X509ExtensionID.basicConstraints]?.critical == true)
        #expect(try extensions.keyUsage == KeyUsage(keyCertSign: true, cRLSign: true))
        #expect(extensions[oid: .X509ExtensionID.keyUsage]?.critical == true)
        #expect(try extensions.subjectKeyIdentifier != nil)
        #expect(authority.certificate.issuer == authority.certificate.subject)
        #expect(authority.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(authority.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func serverCertificateHasTheExtensionsVerifiersRequire() throws {
        let extensions = server.certificate.extensions
        #expect(try extensions.basicConstraints == .notCertificateAuthority)
        #expect(try extensions.extendedKeyUsage == ExtendedKeyUsage([.serverAuth]))
        #expect(
            try extensions.authorityKeyIdentifier?.keyIdentifier == authority.certificate.extensions.subjectKeyIdentifier?.keyIdentifier)
        #expect(try extensions.subjectKeyIdentifier != nil)
        let alternativeNames = try #require(try extensions.subjectAlternativeNames)
        #expect(
            Array(alternativeNames) == [
                .dnsName("localhost"),
                .dnsName("api.sandbox.push.apple.com"),
                .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
            ])
        #expect(server.certificate.issuer == authority.certificate.subject)
    }

    @Test(arguments: [
        ("localhost", nil as String?),
        ("api.sandbox.push.apple.com", nil),
        (nil as String?, "127.0.0.1" as String?),
        (nil, "::1"),
        ("localhost", "127.0.0.1"),
    ])
    func swiftCertificatesVerifierAcceptsTheServerCertificate(hostname: String?, ipAddress: String?) async {
        var verifier = Verifier(rootCertificates: CertificateStore([authority.certificate])) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: hostname, serverIP: ipAddress)
        }
        let result = await verifier.validate(leaf: server.certificate, intermediates: CertificateStore())
        guard case .validCertificate(let chain) = result else {
            Issue.record("expected a valid chain, got \(result)")
            return
        }
        #expect(Array(chain) == [server.certificate, authority.certificate])
    }

    @Test(arguments: [("example.com", nil as String?), (nil as String?, "10.1.2.3" as String?)])
    func swiftCertificatesVerifierRejectsOtherIdentities(hostname: String?, ipAddress: String?) async {
        var verifier = Verifier(rootCertificates: CertificateStore([authority.certificate])) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: hostname, serverIP: ipAddress)
        }
        let result = await verifier.validate(leaf: server.certificate, intermediates: CertificateStore())
        guard case .couldNotValidate = result else {
            Issue.record("expected rejection, got \(result)")
            return
        }
    }

    @Test func swiftCertificatesVerifierRejectsAnotherAuthority() async throws {
        let otherAuthority = try LocalPKI.makeCertificateAuthority()
        var verifier = Verifier(rootCertificates: CertificateStore([otherAuthority.certificate])) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: "localhost", serverIP: nil)
        }
        let result = await verifier.validate(leaf: server.certificate, intermediates: CertificateStore())
        guard case .couldNotValidate = result else {
            Issue.record("expected rejection, got \(result)")
            return
        }
    }

    @Test func leafValidityIsCappedAtTheAuthoritysExpiry() throws {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let shortLivedAuthority = try LocalPKI.makeCertificateAuthority(validity: 3600, now: now)
        let leaf = try LocalPKI.makeServerCertificate(issuer: shortLivedAuthority, dnsNames: ["localhost"], ipAddresses: [], now: now)
        #expect(leaf.certificate.notValidAfter == shortLivedAuthority.certificate.notValidAfter)
        #expect(leaf.certificate.notValidBefore == now.addingTimeInterval(-LocalPKI.backdating))
    }

    @Test func validityBoundsAreWholeSeconds() throws {
        let now = Date(timeIntervalSince1970: 1_750_000_000.7)
        let leaf = try LocalPKI.makeServerCertificate(issuer: authority, dnsNames: ["localhost"], ipAddresses: [], validity: 60.5, now: now)
        #expect(leaf.certificate.notValidBefore == Date(timeIntervalSince1970: 1_749_996_400))
        #expect(leaf.certificate.notValidAfter == Date(timeIntervalSince1970: 1_750_000_061))
    }

    @Test func reloadsAnAuthorityAndALeafFromPEM() throws {
        let reloaded = try LocalCertificateAuthority(certificatePEM: authority.certificatePEM, privateKeyPEM: authority.privateKeyPEM)
        #expect(reloaded.certificate == authority.certificate)
        #expect(reloaded.certificateDER == authority.certificateDER)

        // A reloaded CA keeps issuing verifiable certificates with the same key identifier.
        let leaf = try LocalPKI.makeServerCertificate(issuer: reloaded, dnsNames: ["localhost"], ipAddresses: [])
        #expect(
            try leaf.certificate.extensions.authorityKeyIdentifier?.keyIdentifier
                == authority.certificate.extensions.subjectKeyIdentifier?.keyIdentifier)

        let reloadedLeaf = try IssuedCertificate(certificatePEM: server.certificatePEM, privateKeyPEM: server.privateKeyPEM)
        #expect(reloadedLeaf.certificate == server.certificate)
        #expect(
            try PEM.certificates(fromPEM: server.certificatePEM + authority.certificatePEM) == [server.certificate, authority.certificate])
    }

    @Test func rejectsMismatchedOrWrongKindOfMaterial() throws {
        #expect(throws: PKIError.keyDoesNotMatchCertificate) {
            try LocalCertificateAuthority(certificatePEM: authority.certificatePEM, privateKeyPEM: server.privateKeyPEM)
        }
        #expect(throws: PKIError.invalidCertificate) {
            try LocalCertificateAuthority(certificatePEM: server.certificatePEM, privateKeyPEM: server.privateKeyPEM)
        }
        #expect(throws: PKIError.keyDoesNotMatchCertificate) {
            try IssuedCertificate(certificatePEM: server.certificatePEM, privateKeyPEM: authority.privateKeyPEM)
        }
        let rsaPEM = try ServiceAccountKey.generate(privateKeyID: "x").pkcs8PEM
        #expect(throws: PKIError.unsupportedKey) {
            try LocalCertificateAuthority(certificatePEM: authority.certificatePEM, privateKeyPEM: rsaPEM)
        }
        #expect(throws: PKIError.invalidPEM) {
            try PEM.certificate(fromPEM: authority.privateKeyPEM)
        }
    }

    @Test(arguments: ["localhost", "1.2.3", "::g", "256.0.0.1", ""])
    func rejectsTextThatIsNotAnIPAddress(address: String) {
        #expect(throws: PKIError.invalidIPAddress) {
            try LocalPKI.makeServerCertificate(issuer: authority, dnsNames: ["localhost"], ipAddresses: [address])
        }
    }

    @Test func requiresAtLeastOneName() {
        #expect(throws: PKIError.certificateCreationFailed) {
            try LocalPKI.makeServerCertificate(issuer: authority, dnsNames: [], ipAddresses: [])
        }
    }

    @Test func writesKeysOwnerOnlyAndCertificatesWorldReadable() throws {
        let directory = try TemporaryDirectory()
        let keyPath = directory.path("server-key.pem")
        let certificatePath = directory.path("server.pem")

        // Pre-existing files with other permissions are replaced, not reused.
        try directory.write("old", to: "server-key.pem")
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: keyPath)

        try PEM.writePrivateKeyPEM(server.privateKeyPEM, to: keyPath)
        try PEM.writeCertificatePEM(server.certificatePEM, to: certificatePath)

        #expect(try permissions(of: keyPath) == 0o600)
        #expect(try permissions(of: certificatePath) == 0o644)
        #expect(try PEM.readText(at: keyPath) == server.privateKeyPEM)
        #expect(try PEM.readText(at: certificatePath) == server.certificatePEM)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["server-key.pem", "server.pem"])

        #expect(throws: PKIError.fileWriteFailed) {
            try PEM.writePrivateKeyPEM(server.privateKeyPEM, to: directory.path("missing-directory/key.pem"))
        }
    }

    @Test func errorsCompareByReasonAndDescribeTheDetail() throws {
        do {
            _ = try LocalPKI.makeServerCertificate(issuer: authority, dnsNames: ["localhost"], ipAddresses: ["nope"])
            Issue.record("expected an error")
        } catch {
            #expect(error == .invalidIPAddress)
            #expect(error.detail == "nope")
            #expect(error.description == "not an IPv4 or IPv6 address: nope")
        }
    }

    private func permissions(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }
}
