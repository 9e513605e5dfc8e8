import Foundation
public import NIOSSL
public import PushMockAuth
import PushMockCore

/// How a sender proves itself to APNs.
public struct APNsAuthentication: Sendable {
    enum Storage: Sendable {
        case token(APNsSigningKey)
        case certificate(ClientIdentity)
    }

    let storage: Storage

    /// Token-based: ES256 provider tokens signed with a `.p8` key (its key ID and team ID
    /// inside). Works for every push type and topic of the team.
    public static func token(_ key: APNsSigningKey) -> APNsAuthentication {
        APNsAuthentication(storage: .token(key))
    }

    /// Token-based, reading the `.p8` file.
    public static func token(p8Path: String, keyID: String, teamID: String) throws(SenderError) -> APNsAuthentication {
        do {
            return .token(try APNsSigningKey(p8FilePath: p8Path, keyID: keyID, teamID: teamID))
        } catch {
            throw SenderError(.invalidCredentials, "cannot read the APNs signing key \(p8Path): \(error)", cause: error)
        }
    }

    /// Certificate-based: the TLS client certificate Apple issued for the app (PEM or PKCS#12).
    public static func certificate(_ identity: ClientIdentity) -> APNsAuthentication {
        APNsAuthentication(storage: .certificate(identity))
    }

    /// The signing key, for token-based authentication.
    public var signingKey: APNsSigningKey? {
        if case .token(let key) = storage { return key }
        return nil
    }
}

/// A TLS client certificate with its private key.
public struct ClientIdentity: Sendable {
    /// The certificate chain, leaf first.
    public let certificateChain: [NIOSSLCertificate]
    /// The private key.
    public let privateKey: NIOSSLPrivateKey

    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// A certificate chain and a private key in PEM text (the key may be encrypted with
    /// `passphrase`).
    public static func pem(certificateChain: String, privateKey: String, passphrase: String? = nil) throws(SenderError) -> ClientIdentity {
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificateChain.utf8))
            guard !chain.isEmpty else {
                throw SenderError(.invalidCredentials, "the certificate PEM holds no certificate")
            }
            let key: NIOSSLPrivateKey
            if let passphrase {
                key = try NIOSSLPrivateKey(bytes: Array(privateKey.utf8), format: .pem) { completion in
                    completion(Array(passphrase.utf8))
                }
            } else {
                key = try NIOSSLPrivateKey(bytes: Array(privateKey.utf8), format: .pem)
            }
            return ClientIdentity(certificateChain: chain, privateKey: key)
        } catch let error as SenderError {
            throw error
        } catch {
            throw SenderError(.invalidCredentials, "cannot read the client certificate or key: \(error)", cause: error)
        }
    }

    /// A certificate (chain) file and a key file, both PEM. The key may also be in the
    /// certificate file (pass the same path twice).
    public static func pemFiles(certificate: String, privateKey: String, passphrase: String? = nil) throws(SenderError) -> ClientIdentity {
        let certificateText: String
        let keyText: String
        do {
            certificateText = try String(contentsOfFile: certificate, encoding: .utf8)
            keyText = try String(contentsOfFile: privateKey, encoding: .utf8)
        } catch {
            throw SenderError(.invalidCredentials, "cannot read \(certificate) / \(privateKey): \(error)", cause: error)
        }
        return try pem(certificateChain: certificateText, privateKey: keyText, passphrase: passphrase)
    }

    /// A PKCS#12 (`.p12`) bundle, as Keychain Access exports an APNs certificate.
    public static func pkcs12(bytes: [UInt8], passphrase: String) throws(SenderError) -> ClientIdentity {
        do {
            let bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: Array(passphrase.utf8))
            return ClientIdentity(certificateChain: bundle.certificateChain, privateKey: bundle.privateKey)
        } catch {
            throw SenderError(.invalidCredentials, "cannot open the PKCS#12 bundle (wrong passphrase?): \(error)", cause: error)
        }
    }

    /// A PKCS#12 (`.p12`) file.
    public static func pkcs12(path: String, passphrase: String) throws(SenderError) -> ClientIdentity {
        let data: Data
        do {
            data = try FileContents.read(path)
        } catch {
            throw SenderError(.invalidCredentials, error.description)
        }
        return try pkcs12(bytes: Array(data), passphrase: passphrase)
    }
}
