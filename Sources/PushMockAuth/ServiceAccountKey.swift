import Foundation
public import _CryptoExtras

/// A Google service-account signing key: the RSA private key from a service-account JSON file's
/// `private_key`, plus the `private_key_id` that goes in the JWT header's `kid`.
///
/// FCM HTTP v1 clients exchange a JWT signed with this key for an OAuth2 access token; PushMock
/// generates such keys (so no real credential is ever needed), hands out the JSON file, and
/// verifies the assertions its fake token endpoint receives.
public struct ServiceAccountKey: Sendable {
    /// The RSA private key.
    public let privateKey: _RSA.Signing.PrivateKey
    /// The service account JSON's `private_key_id`, written as `kid` in signed JWTs.
    public let privateKeyID: String

    /// Wraps an existing key.
    public init(privateKey: _RSA.Signing.PrivateKey, privateKeyID: String) {
        self.privateKey = privateKey
        self.privateKeyID = privateKeyID
    }

    /// Reads a key from PEM text: PKCS#8 (a `PRIVATE KEY` PEM block, what Google puts in the
    /// JSON's `private_key`) or PKCS#1 (an `RSA PRIVATE KEY` PEM block), with any line layout,
    /// including the literal `\n` escapes a key picks up when passed through an environment
    /// variable.
    ///
    /// - Throws: ``JWTError/invalidKey`` when the text is not an RSA private key of at least 2048
    ///   bits.
    public init(pem: String, privateKeyID: String) throws(JWTError) {
        let block: PEMText.Block?
        do {
            block = try PEMText.firstBlock(in: pem, labelledOneOf: ["PRIVATE KEY", "RSA PRIVATE KEY"])
        } catch {
            throw .invalidKey
        }
        guard let block else { throw .invalidKey }
        do {
            self.privateKey = try _RSA.Signing.PrivateKey(derRepresentation: block.derBytes)
        } catch {
            throw .invalidKey
        }
        self.privateKeyID = privateKeyID
    }

    /// Generates a fresh 2048-bit key (the size Google issues). Takes tens of milliseconds.
    ///
    /// - Throws: ``JWTError/signingFailed`` if the crypto library cannot generate a key.
    public static func generate(privateKeyID: String) throws(JWTError) -> ServiceAccountKey {
        do {
            return ServiceAccountKey(privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048), privateKeyID: privateKeyID)
        } catch {
            throw .signingFailed
        }
    }

    /// The private key as PKCS#8 PEM, the form of a service account JSON's `private_key`.
    public var pkcs8PEM: String {
        PEMText.terminated(privateKey.pkcs8PEMRepresentation)
    }

    /// The public key that verifies this key's JWTs.
    public var publicKey: _RSA.Signing.PublicKey {
        privateKey.publicKey
    }

    /// The public key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public var publicKeyPEM: String {
        PEMText.terminated(privateKey.publicKey.pemRepresentation)
    }

    /// Signs an RS256 JWT with header `{"alg":"RS256","typ":"JWT","kid":"<privateKeyID>"}` — the
    /// header Google's client libraries send — and the given claims, in order.
    ///
    /// - Throws: ``JWTError/signingFailed`` if the crypto library fails.
    public func makeSignedJWT(claims: [JWTClaim]) throws(JWTError) -> String {
        let header = "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\(JWTJSON.quoted(privateKeyID))}"
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(JWTClaim.jsonObject(claims))
        let signature = try RS256.sign(Array(signingInput.utf8), with: privateKey)
        return signingInput + "." + Base64URL.encode(signature)
    }
}
