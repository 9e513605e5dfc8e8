public import Crypto
import Foundation

/// An APNs token-signing key: the P-256 private key of a `.p8` file together with the key ID and
/// team ID that provider tokens must name.
///
/// PushMock plays both sides with it: the gateway registers the public half to verify tokens,
/// and tests and the CLI use the private half to mint tokens exactly as a real provider would.
public struct APNsSigningKey: Sendable {
    /// The P-256 private key.
    public let privateKey: P256.Signing.PrivateKey
    /// The key ID (`kid`) Apple assigned to the key: 10 upper-case alphanumerics.
    public let keyID: String
    /// The team ID (`iss`) the key belongs to: 10 upper-case alphanumerics.
    public let teamID: String

    /// Wraps an existing key.
    public init(privateKey: P256.Signing.PrivateKey, keyID: String, teamID: String) {
        self.privateKey = privateKey
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Reads a key from PEM text.
    ///
    /// Accepts PKCS#8 (a `PRIVATE KEY` PEM block, what Apple's `.p8` downloads contain) and
    /// SEC1 (an `EC PRIVATE KEY` PEM block, what `openssl ecparam -genkey` writes, possibly
    /// after an `EC PARAMETERS` block), with any line layout or line endings.
    ///
    /// - Throws: ``JWTError/invalidKey`` when the text is not a P-256 private key in either form.
    public init(pem: String, keyID: String, teamID: String) throws(JWTError) {
        do {
            self.privateKey = try PEM.p256PrivateKey(fromPEM: pem)
        } catch {
            throw .invalidKey
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Reads a key from a `.p8` (or other PEM) file; see ``init(pem:keyID:teamID:)``.
    ///
    /// - Throws: the file system's error when the file cannot be read, or ``JWTError/invalidKey``.
    public init(p8FilePath path: String, keyID: String, teamID: String) throws {
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        try self.init(pem: pem, keyID: keyID, teamID: teamID)
    }

    /// Generates a fresh key, e.g. for a test or the first run of `pushmock serve`.
    public static func generate(keyID: String, teamID: String) -> APNsSigningKey {
        APNsSigningKey(privateKey: P256.Signing.PrivateKey(), keyID: keyID, teamID: teamID)
    }

    /// The private key as PKCS#8 PEM, the same form as an Apple `.p8` file.
    public var pkcs8PEM: String {
        PEMText.terminated(privateKey.pemRepresentation)
    }

    /// The public key that verifies this key's tokens.
    public var publicKey: P256.Signing.PublicKey {
        privateKey.publicKey
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`), the form the
    /// gateway's key registry accepts.
    public var publicKeyPEM: String {
        PEMText.terminated(privateKey.publicKey.pemRepresentation)
    }
}
