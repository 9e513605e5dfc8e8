/// The canonical text of a UUID (`8-4-4-4-12` hex digits): built from its two 64-bit halves in
/// place (one allocation), and parsed back. Shared by the gateway's random apns-ids, the
/// `apns-id` check and the notification ids devices keep inline.
package enum UUIDText {
    /// A parsed UUID text: its digits as two words, most significant first, and which letter
    /// cases its digits used.
    package struct Parsed: Hashable, Sendable {
        package var high: UInt64
        package var low: UInt64
        /// Some digit is `a`–`f`.
        package var hasLowercase: Bool
        /// Some digit is `A`–`F`.
        package var hasUppercase: Bool
    }

    /// `8-4-4-4-12` hex digits in either case (mixed too), or `nil`.
    ///
    /// Eight digits at a time in a 64-bit word: every request to the APNs endpoint checks its
    /// `apns-id` and every delivery keeps it, and one table load and branch per digit was
    /// ≈ 280 instructions a UUID (`Benchmarks/README.md`, twentieth session).
    @inlinable
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> Parsed? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"), bytes[18] == UInt8(ascii: "-"),
            bytes[23] == UInt8(ascii: "-")
        else { return nil }
        // The 32 digits as four words of eight: 0–7, then 9–12 with 14–17, 19–22 with 24–27,
        // and 28–35.
        let first = word(bytes, 0)
        let second = UInt64(halfWord(bytes, 9)) | UInt64(halfWord(bytes, 14)) << 32
        let third = UInt64(halfWord(bytes, 19)) | UInt64(halfWord(bytes, 24)) << 32
        let fourth = word(bytes, 28)
        let digits = (
            HexDigit.eightDigits(first), HexDigit.eightDigits(second), HexDigit.eightDigits(third), HexDigit.eightDigits(fourth)
        )
        let invalid = digits.0.invalid | digits.1.invalid | digits.2.invalid | digits.3.invalid
        guard invalid == 0 else { return nil }
        return Parsed(
            high: UInt64(digits.0.value) << 32 | UInt64(digits.1.value),
            low: UInt64(digits.2.value) << 32 | UInt64(digits.3.value),
            hasLowercase: digits.0.lower | digits.1.lower | digits.2.lower | digits.3.lower != 0,
            hasUppercase: digits.0.upper | digits.1.upper | digits.2.upper | digits.3.upper != 0
        )
    }

    /// Whether some digit of the UUID whose digits are `high` then `low` is a letter (`a`–`f`
    /// in its text): a nibble of 10 or more has its top bit and one of the next two set.
    package static func hasLetterDigit(high: UInt64, low: UInt64) -> Bool {
        let ones: UInt64 = 0x1111_1111_1111_1111
        func letters(_ word: UInt64) -> UInt64 { (word >> 3) & ((word >> 2) | (word >> 1)) & ones }
        return letters(high) | letters(low) != 0
    }

    @inlinable @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inlinable @inline(__always)
    static func halfWord(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// The text of the UUID whose digits are `high` then `low`, in one case, eight digits at a
    /// time (the gateway makes one for every request that comes without an `apns-id`).
    package static func string(high: UInt64, low: UInt64, uppercase: Bool = false) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            write(high: high, low: low, uppercase: uppercase, to: UnsafeMutableRawBufferPointer(buffer))
            return 36
        }
    }

    /// Writes the canonical text of the UUID `high`/`low` into the first 36 bytes of `bytes`
    /// (which must have room for them).
    package static func write(high: UInt64, low: UInt64, uppercase: Bool = false, to bytes: UnsafeMutableRawBufferPointer) {
        precondition(bytes.count >= 36, "a UUID's text is 36 bytes")
        let groups = (
            HexDigit.eightASCII(UInt32(truncatingIfNeeded: high >> 32), uppercase: uppercase),
            HexDigit.eightASCII(UInt32(truncatingIfNeeded: high), uppercase: uppercase),
            HexDigit.eightASCII(UInt32(truncatingIfNeeded: low >> 32), uppercase: uppercase),
            HexDigit.eightASCII(UInt32(truncatingIfNeeded: low), uppercase: uppercase)
        )
        bytes.storeBytes(of: groups.0.littleEndian, toByteOffset: 0, as: UInt64.self)
        bytes.storeBytes(of: UInt32(truncatingIfNeeded: groups.1).littleEndian, toByteOffset: 9, as: UInt32.self)
        bytes.storeBytes(of: UInt32(truncatingIfNeeded: groups.1 >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
        bytes.storeBytes(of: UInt32(truncatingIfNeeded: groups.2).littleEndian, toByteOffset: 19, as: UInt32.self)
        bytes.storeBytes(of: UInt32(truncatingIfNeeded: groups.2 >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
        bytes.storeBytes(of: groups.3.littleEndian, toByteOffset: 28, as: UInt64.self)
        bytes[8] = UInt8(ascii: "-")
        bytes[13] = UInt8(ascii: "-")
        bytes[18] = UInt8(ascii: "-")
        bytes[23] = UInt8(ascii: "-")
    }
}
