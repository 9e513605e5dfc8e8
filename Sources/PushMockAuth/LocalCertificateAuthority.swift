public import Crypto
import SwiftASN1
public import X509

/// The self-signed certificate authority PushMock creates on first run and issues its server and
/// test client certificates from.
///
/// A separate CA (rather than a self-signed server certificate) lets a user trust PushMock once
/// (`curl --cacert ca.pem`, a `NIOSSLTrustRoots` entry) and then reissue server certificates for
/// new host names without re-trusting anything.
public struct LocalCertificateAuthority: Sendable {
    /// The CA certificate.
    public let certificate: Certificate
    /// The CA's signing key.
    public let privateKey: P256.Signing.PrivateKey
    /// ``certificate`` as DER, e.g. for `NIOSSLCertificate(bytes:format: .der)`.
    public let certificateDER: [UInt8]
    /// ``certificate`` as PEM, e.g. for `ca.pem`.
    public let certificatePEM: String

    /// ``privateKey`` as PKCS#8 PEM, e.g. for `ca-key.pem` (write it with
    /// ``PEM/writePrivateKeyPEM(_:to:)``).
    public var privateKeyPEM: String {
        PEM.pem(for: privateKey)
    }

    /// Pairs a CA certificate with its key, e.g. after loading both from disk.
    ///
    /// - Throws: ``PKIError/keyDoesNotMatchCertificate`` if the key is not the certificate's,
    ///   ``PKIError/invalidCertificate`` if the certificate is not a CA (BasicConstraints CA:true).
    public init(certificate: Certificate, privateKey: P256.Signing.PrivateKey) throws(PKIError) {
        guard certificate.publicKey == Certificate.PublicKey(privateKey.publicKey) else {
            throw PKIError.keyDoesNotMatchCertificate
        }
        let basicConstraints: BasicConstraints?
        do {
            basicConstraints = try certificate.extensions.basicConstraints
        } catch {
            throw PKIError.invalidCertificate.with(detail: "unreadable BasicConstraints: \(error)")
        }
        guard case .isCertificateAuthority = basicConstraints else {
            throw PKIError.invalidCertificate.with(detail: "not a CA certificate (BasicConstraints CA:true missing)")
        }
        self.certificate = certificate
        self.privateKey = privateKey
        self.certificateDER = try certificate.derEncoded()
        self.certificatePEM = try PEM.pem(for: certificate)
    }

    /// Loads a CA from the PEM files a previous run wrote.
    ///
    /// - Throws: ``PKIError/invalidPEM``, ``PKIError/invalidCertificate``,
    ///   ``PKIError/unsupportedKey`` or ``PKIError/keyDoesNotMatchCertificate``.
    public init(certificatePEM: String, privateKeyPEM: String) throws(PKIError) {
        try self.init(
            certificate: PEM.certificate(fromPEM: certificatePEM),
            privateKey: PEM.p256PrivateKey(fromPEM: privateKeyPEM)
        )
    }

    /// The key identifier that certificates issued by this CA name in AuthorityKeyIdentifier:
    /// the CA's own SubjectKeyIdentifier when it has one, else the RFC 5280 SHA-1 hash of its key.
    var keyIdentifier: ArraySlice<UInt8> {
        if let subjectKeyIdentifier = try? certificate.extensions.subjectKeyIdentifier {
            return subjectKeyIdentifier.keyIdentifier
        }
        return SubjectKeyIdentifier(hash: certificate.publicKey).keyIdentifier
    }
}
