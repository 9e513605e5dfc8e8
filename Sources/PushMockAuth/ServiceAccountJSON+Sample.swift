import Foundation

extension ServiceAccountJSON {
    /// Generates a complete, realistic service-account file with a fresh 2048-bit key, a random
    /// 40-hex-digit `private_key_id` and a random 21-digit `client_id`.
    ///
    /// PushMock writes one at first run so that FCM clients can be pointed at it without any real
    /// Google credential; only `token_uri` differs in purpose from a real file, pointing at the
    /// mock's OAuth2 endpoint.
    ///
    /// - Throws: ``JWTError/signingFailed`` if the key cannot be generated.
    public static func makeSample(projectID: String, clientEmail: String, tokenURI: String) throws(JWTError) -> ServiceAccountJSON {
        var generator = SystemRandomNumberGenerator()
        let privateKeyID = (0..<20).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
        let clientID =
            String(Int.random(in: 1...9, using: &generator))
            + (0..<20).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()

        let key = try ServiceAccountKey.generate(privateKeyID: privateKeyID)
        let unreservedCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let escapedEmail = clientEmail.addingPercentEncoding(withAllowedCharacters: unreservedCharacters) ?? clientEmail

        return ServiceAccountJSON(
            projectID: projectID,
            privateKeyID: privateKeyID,
            privateKey: key.pkcs8PEM,
            clientEmail: clientEmail,
            clientID: clientID,
            authURI: "https://accounts.google.com/o/oauth2/auth",
            tokenURI: tokenURI,
            authProviderX509CertURL: "https://www.googleapis.com/oauth2/v1/certs",
            clientX509CertURL: "https://www.googleapis.com/robot/v1/metadata/x509/\(escapedEmail)",
            universeDomain: "googleapis.com"
        )
    }
}
