import PushMockCore
import Testing

/// The word-at-a-time hex code — UUID parsing and printing, the device-token check, the
/// upper-case scan — must agree with the plain byte-by-byte definitions on every input: each
/// byte value at each position, both letter cases, and bytes of 0x80 and above (whose additions
/// would carry into the next byte of the word).
@Suite("Hex text, eight digits at a time")
struct HexTextTests {
    /// `8-4-4-4-12` hex digits, byte by byte: the two words and the letter cases seen.
    private static func referenceParse(_ bytes: [UInt8]) -> (high: UInt64, low: UInt64, lower: Bool, upper: Bool)? {
        guard bytes.count == 36 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var lower = false
        var upper = false
        var digit = 0
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                value = UInt64(byte - UInt8(ascii: "a") + 10)
                lower = true
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                value = UInt64(byte - UInt8(ascii: "A") + 10)
                upper = true
            default:
                return nil
            }
            if digit < 16 { high = high << 4 | value } else { low = low << 4 | value }
            digit += 1
        }
        return (high, low, lower, upper)
    }

    private static func parse(_ bytes: [UInt8]) -> (high: UInt64, low: UInt64, lower: Bool, upper: Bool)? {
        bytes.withUnsafeBytes { UUIDText.parse($0) }.map { ($0.high, $0.low, $0.hasLowercase, $0.hasUppercase) }
    }

    private static func hex(_ value: UInt64, uppercase: Bool) -> String {
        let digits = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    @Test("UUID text printed and parsed back, in both cases", arguments: [1, 2, 3, 4] as [UInt64])
    func roundTrip(seed: UInt64) {
        var random = FastRandom(seed: seed)
        var cases: [(UInt64, UInt64)] = [(0, 0), (.max, .max), (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210)]
        for _ in 0..<2_000 { cases.append((random.next(), random.next())) }
        for (high, low) in cases {
            for uppercase in [false, true] {
                let text = UUIDText.string(high: high, low: low, uppercase: uppercase)
                let digits = Self.hex(high, uppercase: uppercase) + Self.hex(low, uppercase: uppercase)
                let expected = [
                    digits.prefix(8), digits.dropFirst(8).prefix(4), digits.dropFirst(12).prefix(4),
                    digits.dropFirst(16).prefix(4), digits.dropFirst(20),
                ].joined(separator: "-")
                #expect(text == expected)
                let parsed = Self.parse(Array(text.utf8))
                #expect(parsed?.high == high && parsed?.low == low)
                #expect(parsed?.lower == (!uppercase && digits.contains(where: \.isLetter)))
                #expect(parsed?.upper == (uppercase && digits.contains(where: \.isLetter)))
            }
        }
    }

    @Test("a made UUID's value is what its text parses to", arguments: [1, 2, 3] as [UInt64])
    func madeUUIDValue(seed: UInt64) {
        var random = FastRandom(seed: seed)
        for _ in 0..<2_000 {
            let made = random.uuid()
            let parsed = Array(made.text.utf8).withUnsafeBytes { UUIDText.parse($0) }
            #expect(parsed == made.value)
        }
        // Digits only, and a single letter in either word: `hasLetterDigit` against the text.
        for (high, low) in [(0, 0), (0x1234_5678_9012_3456, 0x7890_1234_5678_9012), (0xA << 60, 0), (0, 0xF), (0x9999, 0x8888)]
            as [(UInt64, UInt64)]
        {
            let text = UUIDText.string(high: high, low: low)
            #expect(UUIDText.hasLetterDigit(high: high, low: low) == text.contains(where: \.isLetter))
        }
    }

    @Test("a UUID written into a buffer is its string, and nothing beyond 36 bytes is touched")
    func writtenUUID() {
        var random = FastRandom(seed: 7)
        for _ in 0..<1_000 {
            let (high, low) = random.uuidBits()
            var buffer = [UInt8](repeating: 0xEE, count: 40)
            buffer.withUnsafeMutableBytes { UUIDText.write(high: high, low: low, to: $0) }
            #expect(String(decoding: buffer[..<36], as: UTF8.self) == UUIDText.string(high: high, low: low))
            #expect(buffer[36...].allSatisfy { $0 == 0xEE })
            #expect(APNsMessageID.isValid(buffer[..<36]))
            #expect(buffer[14] == UInt8(ascii: "4") && Array("89ab".utf8).contains(buffer[19]))
        }
    }

    @Test("every byte value at every position of a UUID is judged as byte by byte")
    func everyByteEverywhere() {
        let valid = Array("0123abcd-ef45-6789-ABCD-ef0123456789".utf8)
        for position in valid.indices {
            for byte in UInt8.min...UInt8.max {
                var text = valid
                text[position] = byte
                let expected = Self.referenceParse(text)
                let parsed = Self.parse(text)
                #expect(parsed?.high == expected?.high && parsed?.low == expected?.low, "\(byte) at \(position)")
                #expect(parsed?.lower == expected?.lower && parsed?.upper == expected?.upper, "\(byte) at \(position)")
                #expect(APNsMessageID.isValid(text) == (expected != nil))
                #expect(APNsMessageID.isValid(text[...]) == (expected != nil))
                #expect(APNsMessageID.isValid(AnyCollection(text)) == (expected != nil))
            }
        }
        for length in [0, 35, 37] {
            #expect(Self.parse(Array(repeating: UInt8(ascii: "0"), count: length)) == nil)
        }
    }

    @Test("device tokens: every byte value at every position, every length", arguments: [16, 17, 24, 63, 64, 65, 71, 400, 402])
    func tokenDigits(length: Int) {
        let format = APNsDeviceTokenFormat()
        let lengthAllowed = length % 2 == 0 && length >= 16 && length <= 400
        var random = FastRandom(seed: UInt64(length))
        let digits = Array("0123456789abcdefABCDEF".utf8)
        let token = (0..<length).map { _ in digits[Int(random.next() % UInt64(digits.count))] }
        #expect(format.accepts(token) == lengthAllowed)
        #expect(format.accepts(String(decoding: token, as: UTF8.self)) == lengthAllowed)
        for position in Set([0, 1, 7, 8, 9, length / 2, length - 9, length - 8, length - 1]) where position >= 0 && position < length {
            for byte in UInt8.min...UInt8.max {
                var edited = token
                edited[position] = byte
                let isHex = digits.contains(byte)
                #expect(format.accepts(edited) == (lengthAllowed && isHex), "\(byte) at \(position)")
                #expect(format.accepts(AnyCollection(edited)) == (lengthAllowed && isHex), "\(byte) at \(position)")
            }
        }
    }

    @Test("canonical tokens: every ASCII byte and a non-ASCII letter at every position", arguments: [8, 9, 15, 16, 64, 70])
    func canonicalEverywhere(length: Int) {
        for position in 0..<length {
            for scalar in Array(0x01...0x7F).compactMap(Unicode.Scalar.init) + ["é"] {
                var characters = Array(repeating: Character("a"), count: length)
                characters[position] = Character(scalar)
                let token = String(characters)
                let expected = String(
                    decoding: token.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self)
                #expect(APNsDeviceTokenFormat.canonical(token) == expected, "\(scalar) at \(position)")
            }
        }
    }
}
