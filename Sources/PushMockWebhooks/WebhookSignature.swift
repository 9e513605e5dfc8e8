import Crypto

/// The signature a receiver checks: `X-PushMock-Signature-256: sha256=<hex>`, the HMAC-SHA256 of
/// the exact request body keyed with the webhook's secret (the scheme GitHub's webhooks use).
package enum WebhookSignature {
    package static let headerName = "X-PushMock-Signature-256"

    /// `sha256=` followed by the lower-case hex HMAC of `body`.
    package static func value(body: [UInt8], secret: String) -> String {
        let key = SymmetricKey(data: Array(secret.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: key)
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = Array("sha256=".utf8)
        for byte in mac {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
