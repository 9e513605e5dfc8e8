/// Standard Base64 (RFC 4648 §4, with padding) without Foundation.
///
/// The journal stores binary bodies as Base64; encoding happens on the hot path, so it writes
/// straight into the output array instead of going through `Data.base64EncodedString()`.
/// Decoding is the cold path (reading journals) but is provided here too so both directions
/// share one alphabet and one definition of "valid".
public enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends the Base64 encoding of `input` to `output`.
    public static func encode(_ input: some Collection<UInt8>, into output: inout [UInt8]) {
        alphabet.withUnsafeBufferPointer { table in
            var iterator = input.makeIterator()
            while let b0 = iterator.next() {
                let b1 = iterator.next()
                let b2 = iterator.next()
                output.append(table[Int(b0 >> 2)])
                output.append(table[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
                if let b1 {
                    output.append(table[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
                } else {
                    output.append(UInt8(ascii: "="))
                }
                if let b2 {
                    output.append(table[Int(b2 & 0x3F)])
                } else {
                    output.append(UInt8(ascii: "="))
                }
            }
        }
    }

    /// Returns the Base64 encoding of `input` as a string.
    public static func encodedString(_ input: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        encode(input, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes padded standard Base64; returns `nil` for any other character, wrong padding or
    /// a length that is not a multiple of four.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var values: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            var padding = 0
            for offset in 0..<4 {
                let character = input[index + offset]
                let value: UInt8
                if character == UInt8(ascii: "=") {
                    // Padding only in the last quantum, only in the last two positions, and
                    // nothing but padding after it.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                    value = 0
                } else {
                    guard padding == 0, let decoded = decodeCharacter(character) else { return nil }
                    value = decoded
                }
                switch offset {
                case 0: values.0 = value
                case 1: values.1 = value
                case 2: values.2 = value
                default: values.3 = value
                }
            }
            output.append(values.0 << 2 | values.1 >> 4)
            if padding < 2 { output.append(values.1 << 4 | values.2 >> 2) }
            if padding < 1 { output.append(values.2 << 6 | values.3) }
            index += 4
        }
        return output
    }

    static func decodeCharacter(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
