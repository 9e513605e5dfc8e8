import Foundation
import PushMockAuth
import Testing

/// Independent confirmation, with OpenSSL 3 (what curl and nghttp use), that the local PKI's
/// certificates chain, carry the right names and purposes, and pass strict checks.
@Suite("Local PKI interoperability with openssl", .enabled(if: OpenSSLTool.isAvailable, OpenSSLTool.unavailableReason))
struct OpenSSLCertificateInteropTests {
    let directory: TemporaryDirectory
    let authority: LocalCertificateAuthority

    init() throws {
        directory = try TemporaryDirectory()
        authority = try LocalPKI.makeCertificateAuthority()
        try PEM.writeCertificatePEM(authority.certificatePEM, to: directory.path("ca.pem"))
        try PEM.writePrivateKeyPEM(authority.privateKeyPEM, to: directory.path("ca-key.pem"))
    }

    @Test func opensslVerifiesTheServerCertificate() async throws {
        let server = try LocalPKI.makeServerCertificate(issuer: authority, dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"])
        try PEM.writeCertificatePEM(server.certificatePEM, to: directory.path("server.pem"))

        let plain = try await OpenSSLTool.run(["verify", "-CAfile", "ca.pem", "server.pem"], in: directory)
        #expect(plain.succeeded, "openssl verify failed: \(plain.combinedOutput)")
        #expect(plain.standardOutput.contains("server.pem: OK"))

        for identity in [["-verify_hostname", "localhost"], ["-verify_ip", "127.0.0.1"], ["-verify_ip", "::1"]] {
            let strict = try await OpenSSLTool.run(
                ["verify", "-x509_strict", "-purpose", "sslserver", "-CAfile", "ca.pem"] + identity + ["server.pem"],
                in: directory
            )
            #expect(strict.succeeded, "strict verify with \(identity) failed: \(strict.combinedOutput)")
        }

        let wrongName = try await OpenSSLTool.run(
            ["verify", "-CAfile", "ca.pem", "-verify_hostname", "example.com", "server.pem"], in: directory)
        #expect(!wrongName.succeeded)
    }

    @Test func opensslShowsTheSubjectAlternativeNames() async throws {
        let server = try LocalPKI.makeServerCertificate(
            issuer: authority,
            dnsNames: ["localhost", "api.push.apple.com"],
            ipAddresses: ["127.0.0.1", "::1"]
        )
        try PEM.writeCertificatePEM(server.certificatePEM, to: directory.path("server.pem"))

        let text = try await OpenSSLTool.run(["x509", "-noout", "-text", "-in", "server.pem"], in: directory)
        try #require(text.succeeded, "openssl x509 failed: \(text.combinedOutput)")
        let output = text.standardOutput
        #expect(output.contains("DNS:localhost"))
        #expect(output.contains("DNS:api.push.apple.com"))
        #expect(output.contains("IP Address:127.0.0.1"))
        #expect(output.contains("IP Address:0:0:0:0:0:0:0:1"))
        #expect(output.contains("TLS Web Server Authentication"))
        #expect(output.contains("CA:FALSE"))
        #expect(output.contains("X509v3 Authority Key Identifier"))
        #expect(output.contains("ecdsa-with-SHA256"))

        let caText = try await OpenSSLTool.run(["x509", "-noout", "-text", "-in", "ca.pem"], in: directory)
        #expect(caText.standardOutput.contains("CA:TRUE"))
        #expect(caText.standardOutput.contains("Certificate Sign, CRL Sign"))
    }

    @Test func opensslReadsTheWrittenKeys() async throws {
        let server = try LocalPKI.makeServerCertificate(issuer: authority, dnsNames: ["localhost"], ipAddresses: [])
        try PEM.writeCertificatePEM(server.certificatePEM, to: directory.path("server.pem"))
        try PEM.writePrivateKeyPEM(server.privateKeyPEM, to: directory.path("server-key.pem"))

        // The key matches the certificate: both give the same public key.
        let fromKey = try await OpenSSLTool.run(["pkey", "-in", "server-key.pem", "-pubout"], in: directory)
        let fromCertificate = try await OpenSSLTool.run(["x509", "-in", "server.pem", "-noout", "-pubkey"], in: directory)
        #expect(fromKey.succeeded && fromCertificate.succeeded)
        #expect(fromKey.standardOutput == fromCertificate.standardOutput)
        let caKey = try await OpenSSLTool.run(["pkey", "-in", "ca-key.pem", "-noout"], in: directory)
        #expect(caKey.succeeded)
    }

    @Test(arguments: [false, true])
    func opensslAcceptsTheAPNsClientCertificateForClientAuth(multiTopic: Bool) async throws {
        let client = try LocalPKI.makeAPNsClientCertificate(
            issuer: authority,
            bundleID: "com.example.app",
            multiTopics: multiTopic
                ? [
                    APNsCertificateTopic(topic: "com.example.app", kinds: ["app"]),
                    APNsCertificateTopic(topic: "com.example.app.voip", kinds: ["voip"]),
                ]
                : nil,
            includeVoIPExtension: multiTopic
        )
        try PEM.writeCertificatePEM(client.certificatePEM, to: directory.path("client.pem"))

        let verify = try await OpenSSLTool.run(
            ["verify", "-x509_strict", "-purpose", "sslclient", "-CAfile", "ca.pem", "client.pem"],
            in: directory
        )
        #expect(verify.succeeded, "openssl verify -purpose sslclient failed: \(verify.combinedOutput)")

        let asServer = try await OpenSSLTool.run(["verify", "-purpose", "sslserver", "-CAfile", "ca.pem", "client.pem"], in: directory)
        #expect(!asServer.succeeded, "a client-auth-only certificate must not pass as a server certificate")

        let subject = try await OpenSSLTool.run(["x509", "-noout", "-subject", "-nameopt", "compat", "-in", "client.pem"], in: directory)
        #expect(subject.standardOutput.contains("UID=com.example.app/CN=Apple Push Services: com.example.app/OU=PUSHMOCK00"))

        let text = try await OpenSSLTool.run(["x509", "-noout", "-text", "-in", "client.pem"], in: directory)
        #expect(text.standardOutput.contains("1.2.840.113635.100.6.3.1"))
        #expect(text.standardOutput.contains("1.2.840.113635.100.6.3.2"))
        #expect(text.standardOutput.contains("1.2.840.113635.100.6.3.6") == multiTopic)
        #expect(text.standardOutput.contains("TLS Web Client Authentication"))
    }
}
