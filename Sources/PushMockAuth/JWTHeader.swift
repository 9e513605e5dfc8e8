/// The registered parameters of a JOSE header that PushMock looks at.
///
/// Only the three fields any gateway decision depends on are modelled; the raw header JSON stays
/// available on ``CompactJWS`` for recording.
public struct JWTHeader: Sendable, Hashable {
    /// `alg`: the signature algorithm the client claims to have used, e.g. `ES256`.
    public let algorithm: String
    /// `kid`: which key signed the token. APNs looks the key up by this; Google puts the
    /// service account's `private_key_id` here.
    public let keyID: String?
    /// `typ`: usually `JWT` or absent; APNs accepts both, so nothing checks it.
    public let type: String?

    /// Creates a header value, e.g. for comparisons in tests.
    public init(algorithm: String, keyID: String?, type: String?) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
    }

    /// Reads the header from decoded header JSON.
    ///
    /// - Throws: ``JWTError/invalidHeaderJSON`` when the bytes are not a JSON object;
    ///   ``JWTError/missingAlgorithm`` when there is no string `alg`.
    public init(json: [UInt8]) throws(JWTError) {
        guard let object = JWTJSON.object(from: json) else { throw .invalidHeaderJSON }
        guard let algorithm = object["alg"] as? String else { throw .missingAlgorithm }
        self.algorithm = algorithm
        self.keyID = object["kid"] as? String
        self.type = object["typ"] as? String
    }
}
