/// The URL- and filename-safe base64 alphabet of RFC 4648 §5, as JOSE uses it.
///
/// JWTs, Web Push keys and several FCM fields carry base64url text without `=` padding, and
/// Foundation's `Data(base64Encoded:)` accepts neither the `-`/`_` alphabet nor missing padding.
/// These helpers exist so every part of PushMock decodes such text the same strict way: padding is
/// optional, anything outside the alphabet (including `+`, `/` and whitespace) is rejected, and so
/// is a length that no encoder could have produced.
public enum Base64URL {
    /// Encodes bytes as base64url without padding, the form JOSE requires.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)

        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
            output.append(alphabet[Int(chunk >> 6 & 0x3F)])
            output.append(alphabet[Int(chunk & 0x3F)])
            index += 3
        }

        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
            output.append(alphabet[Int(chunk >> 6 & 0x3F)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes the UTF-8 bytes of a string as base64url without padding.
    public static func encode(_ text: String) -> String {
        encode(text.utf8)
    }

    /// Decodes base64url text, with or without trailing `=` padding.
    ///
    /// - Returns: the decoded bytes, or `nil` when the text contains a character outside the
    ///   base64url alphabet, has misplaced or excess padding, or has a length (mod 4 equal to 1)
    ///   that cannot come from any encoder. Returning `nil` rather than throwing lets each caller
    ///   report the failure in its own error vocabulary.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(utf8: Array(text.utf8))
    }

    /// Decodes base64url given as raw ASCII bytes; see ``decode(_:)``.
    public static func decode(utf8 encoded: some Collection<UInt8>) -> [UInt8]? {
        var symbols = Array(encoded)

        // Strip well-formed padding: at most two `=`, and only so that the padded length is a
        // multiple of four.
        var paddingCount = 0
        while let last = symbols.last, last == UInt8(ascii: "=") {
            symbols.removeLast()
            paddingCount += 1
        }
        if paddingCount > 0 {
            guard paddingCount <= 2, (symbols.count + paddingCount) % 4 == 0 else { return nil }
        }
        guard symbols.count % 4 != 1 else { return nil }

        var output = [UInt8]()
        output.reserveCapacity(symbols.count * 3 / 4)

        var accumulator: UInt32 = 0
        var accumulatedBits = 0
        for symbol in symbols {
            let value = decodingTable[Int(symbol)]
            guard value != invalidSymbol else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            accumulatedBits += 6
            if accumulatedBits >= 8 {
                accumulatedBits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(accumulatedBits)))
            }
        }
        return output
    }

    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8
    )

    private static let invalidSymbol: UInt8 = 0xFF

    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: invalidSymbol, count: 256)
        for (value, symbol) in alphabet.enumerated() {
            table[Int(symbol)] = UInt8(value)
        }
        return table
    }()
}
