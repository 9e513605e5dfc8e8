public import Foundation
import SwiftASN1
import X509

extension LocalPKI {
    /// Issues a TLS server certificate for the gateway.
    ///
    /// The leaf carries what strict verifiers (OpenSSL 3 with `X509_STRICT`, BoringSSL, Go,
    /// Python 3.13+) require: SubjectAlternativeName with every DNS name and IP address (host
    /// names are never matched against the CN), ExtendedKeyUsage serverAuth, BasicConstraints
    /// CA:false and KeyUsage digitalSignature (both critical), SubjectKeyIdentifier and
    /// AuthorityKeyIdentifier.
    ///
    /// - Parameters:
    ///   - issuer: the CA that signs it.
    ///   - dnsNames: host names, e.g. `["localhost", "api.sandbox.push.apple.com"]`.
    ///   - ipAddresses: IPv4 or IPv6 text, e.g. `["127.0.0.1", "::1"]`.
    ///   - validity: lifetime from `now`, capped at the CA's expiry.
    ///   - now: the issuance time; injectable for tests.
    /// - Throws: ``PKIError/invalidIPAddress`` for an unparsable address,
    ///   ``PKIError/certificateCreationFailed`` when there are no names at all or signing fails.
    public static func makeServerCertificate(
        issuer: LocalCertificateAuthority,
        dnsNames: [String],
        ipAddresses: [String],
        validity: TimeInterval = defaultLeafValidity,
        now: Date = Date()
    ) throws(PKIError) -> IssuedCertificate {
        var alternativeNames = dnsNames.map(GeneralName.dnsName)
        for address in ipAddresses {
            guard let bytes = IPAddressText.networkBytes(address) else {
                throw PKIError.invalidIPAddress.with(detail: address)
            }
            alternativeNames.append(.ipAddress(ASN1OctetString(contentBytes: bytes[...])))
        }
        guard let commonName = dnsNames.first ?? ipAddresses.first else {
            throw PKIError.certificateCreationFailed.with(detail: "a server certificate needs at least one DNS name or IP address")
        }

        let subject: DistinguishedName
        do {
            subject = try DistinguishedName {
                CommonName(commonName)
                OrganizationName("PushMock")
            }
        } catch {
            throw PKIError.certificateCreationFailed.with(detail: "\(error)")
        }

        return try issueLeaf(issuer: issuer, subject: subject, validity: validity, now: now) {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(alternativeNames)
        }
    }
}
