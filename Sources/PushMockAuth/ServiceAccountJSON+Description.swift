extension ServiceAccountJSON: CustomStringConvertible {
    /// Identifies the account with `private_key` redacted, so logging or recording the file's
    /// value never leaks the key.
    public var description: String {
        "ServiceAccountJSON(projectID: \(projectID), clientEmail: \(clientEmail), privateKeyID: \(privateKeyID), tokenURI: \(tokenURI), privateKey: <redacted>)"
    }
}
