import Crypto
import Foundation
public import _CryptoExtras

/// RSASSA-PKCS1-v1_5 with SHA-256, the algorithm Google service accounts sign their OAuth2
/// assertions with (`alg: RS256`).
///
/// Exists mainly to pin the padding: swift-crypto's `_RSA` signing APIs default to PSS, which
/// would produce `PS256` signatures that Google (and PushMock's FCM OAuth2 endpoint) reject.
public enum RS256 {
    /// The JOSE `alg` value.
    public static let algorithmName = "RS256"

    /// Checks a PKCS#1 v1.5 / SHA-256 signature over `signingInput`.
    public static func isValidSignature(
        _ signature: [UInt8],
        signingInput: [UInt8],
        publicKey: _RSA.Signing.PublicKey
    ) -> Bool {
        publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature),
            for: SHA256.hash(data: signingInput),
            padding: .insecurePKCS1v1_5
        )
    }

    /// Like ``isValidSignature(_:signingInput:publicKey:)`` but throws
    /// ``JWTError/badSignature``.
    public static func verify(
        _ signature: [UInt8],
        signingInput: [UInt8],
        publicKey: _RSA.Signing.PublicKey
    ) throws(JWTError) {
        guard isValidSignature(signature, signingInput: signingInput, publicKey: publicKey) else {
            throw .badSignature
        }
    }

    /// Signs `signingInput` with PKCS#1 v1.5 padding over its SHA-256 digest.
    ///
    /// - Throws: ``JWTError/signingFailed`` if the crypto library fails.
    public static func sign(_ signingInput: [UInt8], with privateKey: _RSA.Signing.PrivateKey) throws(JWTError) -> [UInt8] {
        do {
            let signature = try privateKey.signature(for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5)
            return Array(signature.rawRepresentation)
        } catch {
            throw .signingFailed
        }
    }
}
