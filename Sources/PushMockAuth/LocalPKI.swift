import Crypto
public import Foundation
import SwiftASN1
import X509

/// Creates the certificates PushMock needs, entirely in memory: a local CA, TLS server
/// certificates for the gateway, and APNs-style client certificates for certificate-based auth
/// tests.
///
/// All keys are P-256 and all signatures ECDSA with SHA-256, which OpenSSL 3, BoringSSL
/// (swift-nio-ssl), Go and Java all accept. Certificates are backdated by an hour so that a client
/// whose clock is slightly behind still accepts a certificate created moments ago.
public enum LocalPKI {
    /// Default CA lifetime: ten years, so a trusted CA does not need re-trusting.
    public static let defaultAuthorityValidity: TimeInterval = 10 * 365 * 24 * 60 * 60
    /// Default leaf lifetime: 825 days, the longest macOS and iOS accept for TLS server
    /// certificates.
    public static let defaultLeafValidity: TimeInterval = 825 * 24 * 60 * 60
    /// How far before `now` certificates start being valid, to tolerate clock skew.
    public static let backdating: TimeInterval = 60 * 60

    /// Creates a self-signed CA: BasicConstraints CA:true (critical, path length 0 since it only
    /// issues leaves), KeyUsage keyCertSign + cRLSign (critical) and a SubjectKeyIdentifier.
    ///
    /// - Parameters:
    ///   - commonName: the CA's subject CN; `O=PushMock` is added.
    ///   - validity: lifetime from `now`.
    ///   - now: the issuance time; injectable for tests.
    /// - Throws: ``PKIError/certificateCreationFailed``.
    public static func makeCertificateAuthority(
        commonName: String = "PushMock Local CA",
        validity: TimeInterval = defaultAuthorityValidity,
        now: Date = Date()
    ) throws(PKIError) -> LocalCertificateAuthority {
        let privateKey = P256.Signing.PrivateKey()
        let certificateKey = Certificate.PrivateKey(privateKey)
        let start = validityStart(now)
        do {
            let name = try DistinguishedName {
                CommonName(commonName)
                OrganizationName("PushMock")
            }
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: certificateKey.publicKey)
            }
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: certificateKey.publicKey,
                notValidBefore: start,
                notValidAfter: validityEnd(now, validity),
                issuer: name,
                subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: extensions,
                issuerPrivateKey: certificateKey
            )
            return try LocalCertificateAuthority(certificate: certificate, privateKey: privateKey)
        } catch let error as PKIError {
            throw error
        } catch {
            throw PKIError.certificateCreationFailed.with(detail: "\(error)")
        }
    }

    /// Signs a leaf for `subject` with a fresh P-256 key. Shared by the server and APNs client
    /// factories, which differ only in subject and extensions.
    static func issueLeaf(
        issuer: LocalCertificateAuthority,
        subject: DistinguishedName,
        validity: TimeInterval,
        now: Date,
        @ExtensionsBuilder extensions: () throws -> Result<Certificate.Extensions, any Error>
    ) throws(PKIError) -> IssuedCertificate {
        let privateKey = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(privateKey.publicKey)
        do {
            var allExtensions = try extensions().get()
            try allExtensions.append(SubjectKeyIdentifier(hash: publicKey).makeCertificateExtension())
            try allExtensions.append(AuthorityKeyIdentifier(keyIdentifier: issuer.keyIdentifier).makeCertificateExtension())

            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: publicKey,
                notValidBefore: validityStart(now),
                notValidAfter: min(validityEnd(now, validity), issuer.certificate.notValidAfter),
                issuer: issuer.certificate.subject,
                subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: allExtensions,
                issuerPrivateKey: Certificate.PrivateKey(issuer.privateKey)
            )
            return try IssuedCertificate(certificate: certificate, privateKey: privateKey)
        } catch let error as PKIError {
            throw error
        } catch {
            throw PKIError.certificateCreationFailed.with(detail: "\(error)")
        }
    }

    /// `now` minus ``backdating``, truncated to whole seconds (certificate times have no
    /// fractions, so this keeps a parsed certificate's dates equal to the ones asked for).
    private static func validityStart(_ now: Date) -> Date {
        Date(timeIntervalSince1970: (now.timeIntervalSince1970 - backdating).rounded(.down))
    }

    /// `now + validity`, truncated to whole seconds for the same reason.
    private static func validityEnd(_ now: Date, _ validity: TimeInterval) -> Date {
        Date(timeIntervalSince1970: (now.timeIntervalSince1970 + validity).rounded(.down))
    }
}
