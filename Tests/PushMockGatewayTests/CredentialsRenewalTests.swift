import Foundation
import PushMockAuth
import PushMockGateway
import Testing

/// `certs/` outlives versions of the gateway: a server certificate written before a host name
/// joined `serverDNSNames` (as `exp.host` did) must be renewed on the next start, or a client
/// pointed at that host through /etc/hosts fails its host-name check.
@Suite("Local credentials")
struct CredentialsRenewalTests {
    @Test("a server certificate missing a host name is reissued by the same CA; a complete one is kept")
    func renewsForNewHostName() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(GatewayCredentials.serverDNSNames.contains("exp.host"))
        let first = try GatewayCredentials.prepare(directory: directory)
        let authority = try #require(first.certificateAuthority)

        // What an older gateway wrote: the same CA, every name but exp.host.
        let old = try LocalPKI.makeServerCertificate(
            issuer: authority,
            dnsNames: GatewayCredentials.serverDNSNames.filter { $0 != "exp.host" },
            ipAddresses: GatewayCredentials.serverIPAddresses
        )
        try PEM.writeCertificatePEM(old.certificatePEM, to: directory + "/server.pem")
        try PEM.writePrivateKeyPEM(old.privateKeyPEM, to: directory + "/server-key.pem")

        let renewed = try GatewayCredentials.prepare(directory: directory)
        #expect(renewed.certificateChainPEM != old.certificatePEM, "the incomplete certificate was kept")
        #expect(renewed.certificateAuthorityPEM == first.certificateAuthorityPEM, "clients keep trusting the same CA")
        // Kept from now on: only a certificate covering every name is reused.
        let again = try GatewayCredentials.prepare(directory: directory)
        #expect(again.certificateChainPEM == renewed.certificateChainPEM)
    }
}
