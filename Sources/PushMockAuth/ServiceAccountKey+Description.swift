extension ServiceAccountKey: CustomStringConvertible {
    /// Names the key without any key material, so logging a key can never leak it.
    public var description: String {
        "ServiceAccountKey(privateKeyID: \(privateKeyID))"
    }
}
