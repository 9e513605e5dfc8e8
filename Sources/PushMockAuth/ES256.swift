public import Crypto
import Foundation

/// ECDSA P-256 with SHA-256, the only algorithm APNs accepts for provider tokens.
///
/// JOSE says an ES256 signature is the 64-byte concatenation `R || S`, and JWT libraries send
/// that. But Apple's own documentation signs with `openssl dgst -sha256 -sign`, and Java's
/// `SHA256withECDSA` does the same, both producing an ASN.1 DER `ECDSA-Sig-Value`. Real APNs
/// accepts both, so PushMock must too: verification detects DER by its structure (a SEQUENCE
/// that parses) and otherwise requires exactly 64 raw bytes.
public enum ES256 {
    /// How an ES256 signature is laid out on the wire.
    public enum SignatureEncoding: String, Sendable, Hashable, CaseIterable {
        /// `R || S`, 32 bytes each: the JOSE form (RFC 7518 §3.4).
        case raw
        /// ASN.1 DER `SEQUENCE { INTEGER r, INTEGER s }`: what OpenSSL and Java produce.
        case der
    }

    /// The JOSE `alg` value.
    public static let algorithmName = "ES256"

    /// Checks an ES256 signature in either encoding.
    ///
    /// A signature that starts with `0x30` and parses as DER is tried as DER; a 64-byte signature
    /// is (also) tried as raw, which covers the rare raw `R || S` whose first byte happens to be
    /// `0x30`. Anything else is rejected.
    public static func isValidSignature(
        _ signature: [UInt8],
        signingInput: [UInt8],
        publicKey: P256.Signing.PublicKey
    ) -> Bool {
        candidateSignatures(from: signature).contains { candidate in
            publicKey.isValidSignature(candidate, for: signingInput)
        }
    }

    /// Like ``isValidSignature(_:signingInput:publicKey:)`` but throws
    /// ``JWTError/badSignature``, for call sites that chain several checks with `try`.
    public static func verify(
        _ signature: [UInt8],
        signingInput: [UInt8],
        publicKey: P256.Signing.PublicKey
    ) throws(JWTError) {
        guard isValidSignature(signature, signingInput: signingInput, publicKey: publicKey) else {
            throw .badSignature
        }
    }

    /// Signs `signingInput` and returns the signature in the requested encoding.
    ///
    /// - Throws: ``JWTError/signingFailed`` if the crypto library fails (it only does so on
    ///   resource exhaustion).
    public static func sign(
        _ signingInput: [UInt8],
        with privateKey: P256.Signing.PrivateKey,
        encoding: SignatureEncoding
    ) throws(JWTError) -> [UInt8] {
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try privateKey.signature(for: signingInput)
        } catch {
            throw .signingFailed
        }
        switch encoding {
        case .raw: return Array(signature.rawRepresentation)
        case .der: return Array(signature.derRepresentation)
        }
    }

    private static func candidateSignatures(from bytes: [UInt8]) -> [P256.Signing.ECDSASignature] {
        var candidates: [P256.Signing.ECDSASignature] = []
        if bytes.first == 0x30, let der = try? P256.Signing.ECDSASignature(derRepresentation: bytes) {
            candidates.append(der)
        }
        if bytes.count == 64, let raw = try? P256.Signing.ECDSASignature(rawRepresentation: bytes) {
            candidates.append(raw)
        }
        return candidates
    }
}
