import X509

extension Certificate.SerialNumber {
    /// Upper-case, colon-separated, two digits per byte (`0A:1B:...`), the form `openssl` and
    /// Keychain show. swift-certificates' own `description` drops leading zeros of each byte.
    var colonSeparatedHex: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
