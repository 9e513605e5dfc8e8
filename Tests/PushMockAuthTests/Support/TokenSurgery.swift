import PushMockAuth

/// Helpers that take a compact JWS apart and put it back together with one piece changed, for
/// tampering and malformed-token tests.
enum TokenSurgery {
    static func segments(of token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The token with its claims segment replaced by `claimsJSON`, signature kept.
    static func replacingClaims(of token: String, with claimsJSON: String) -> String {
        var parts = segments(of: token)
        parts[1] = Base64URL.encode(claimsJSON)
        return parts.joined(separator: ".")
    }

    /// The token with one bit of its signature flipped.
    static func flippingSignatureBit(of token: String) -> String {
        var parts = segments(of: token)
        var signature = Base64URL.decode(parts[2]) ?? []
        signature[signature.count / 2] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        return parts.joined(separator: ".")
    }

    /// The token with its signature replaced by `signature`.
    static func replacingSignature(of token: String, with signature: [UInt8]) -> String {
        var parts = segments(of: token)
        parts[2] = Base64URL.encode(signature)
        return parts.joined(separator: ".")
    }

    /// An unsigned-looking token assembled from JSON texts, with a dummy signature.
    static func token(header: String, claims: String, signature: [UInt8] = Array(repeating: 7, count: 64)) -> String {
        Base64URL.encode(header) + "." + Base64URL.encode(claims) + "." + Base64URL.encode(signature)
    }
}
