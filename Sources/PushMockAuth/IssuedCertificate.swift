public import Crypto
public import X509

/// A leaf certificate issued by a ``LocalCertificateAuthority``, with its freshly generated key:
/// everything a TLS endpoint (the gateway's server side, or a test client presenting an APNs
/// certificate) needs.
public struct IssuedCertificate: Sendable {
    /// The leaf certificate.
    public let certificate: Certificate
    /// The leaf's private key.
    public let privateKey: P256.Signing.PrivateKey
    /// ``certificate`` as DER, e.g. for `NIOSSLCertificate(bytes:format: .der)`.
    public let certificateDER: [UInt8]
    /// ``certificate`` as PEM.
    public let certificatePEM: String

    /// ``privateKey`` as PKCS#8 PEM.
    public var privateKeyPEM: String {
        PEM.pem(for: privateKey)
    }

    /// Pairs a leaf certificate with its key, e.g. after loading both from disk.
    ///
    /// - Throws: ``PKIError/keyDoesNotMatchCertificate`` if the key is not the certificate's.
    public init(certificate: Certificate, privateKey: P256.Signing.PrivateKey) throws(PKIError) {
        guard certificate.publicKey == Certificate.PublicKey(privateKey.publicKey) else {
            throw PKIError.keyDoesNotMatchCertificate
        }
        self.certificate = certificate
        self.privateKey = privateKey
        self.certificateDER = try certificate.derEncoded()
        self.certificatePEM = try PEM.pem(for: certificate)
    }

    /// Loads a leaf and its key from PEM.
    ///
    /// - Throws: ``PKIError/invalidPEM``, ``PKIError/invalidCertificate``,
    ///   ``PKIError/unsupportedKey`` or ``PKIError/keyDoesNotMatchCertificate``.
    public init(certificatePEM: String, privateKeyPEM: String) throws(PKIError) {
        try self.init(
            certificate: PEM.certificate(fromPEM: certificatePEM),
            privateKey: PEM.p256PrivateKey(fromPEM: privateKeyPEM)
        )
    }
}
