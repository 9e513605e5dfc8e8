/// Rules for the device token in `/3/device/<token>`.
///
/// Device tokens are the hex form of the bytes iOS hands the app (`%02x` per byte). Today they
/// are 32 bytes (64 hex digits), but Apple says not to assume a size, so by default any
/// even-length hex string of 8 to 200 bytes is well-formed; ``strictLength`` pins it to 64 digits
/// as some mocks (pushy's) do.
public struct APNsDeviceTokenFormat: Sendable, Hashable, Codable {
    /// Require exactly 64 hex digits.
    public var strictLength: Bool
    /// Smallest accepted token, in bytes (hex digits / 2).
    public var minimumBytes: Int
    /// Largest accepted token, in bytes.
    public var maximumBytes: Int

    /// Variable length: 8 to 200 bytes.
    public init(strictLength: Bool = false, minimumBytes: Int = 8, maximumBytes: Int = 200) {
        self.strictLength = strictLength
        self.minimumBytes = minimumBytes
        self.maximumBytes = maximumBytes
    }

    /// The default, variable-length rule.
    public static let variable = APNsDeviceTokenFormat()
    /// Exactly 64 hex digits.
    public static let strict64 = APNsDeviceTokenFormat(strictLength: true)

    /// Whether `token` (the raw path segment) is well-formed. Hex digits may be upper or lower case.
    @inlinable
    public func accepts(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { accepts(UnsafeRawBufferPointer($0)) }
    }

    /// Whether `token` (the raw path segment) is well-formed. Hex digits may be upper or lower case.
    @inlinable
    public func accepts(_ token: some Collection<UInt8>) -> Bool {
        let count = token.count
        if strictLength {
            guard count == 64 else { return false }
        } else {
            guard count % 2 == 0, count >= minimumBytes * 2, count <= maximumBytes * 2 else { return false }
        }
        if let allHex = token.withContiguousStorageIfAvailable({ HexDigit.allHex(UnsafeRawBufferPointer($0)) }) {
            return allHex
        }
        for byte in token where !HexDigit.isHex(byte) {
            return false
        }
        return true
    }

    /// The canonical (lower-case) form used as the registry key, so `ABCD…` and `abcd…` are the
    /// same device. Tokens are hex, so an ASCII lower-casing suffices; the common all-lower-case
    /// token is returned as is, without allocating.
    public static func canonical(_ token: String) -> String {
        var copy = token
        let needsLowering = copy.withUTF8 { containsUpperCaseASCII(UnsafeRawBufferPointer($0)) }
        guard needsLowering else { return token }
        return String(decoding: token.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// Whether any byte is `A`–`Z`, eight bytes at a time: every delivery to a simulated APNs
    /// device asks (the byte-wise `contains` was 7 % of delivery simulation's instructions).
    /// One pass that only accumulates (no branch per word); a non-ASCII byte anywhere sends
    /// the whole buffer to the byte-wise check.
    static func containsUpperCaseASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var seenBits: UInt64 = 0
        var upperCase: UInt64 = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            seenBits |= word
            // For a byte below 0x80, adding 0x3F (0x80 − `A`) sets its high bit exactly when it
            // is ≥ `A`, and adding 0x25 (0x80 − `[`) exactly when it is > `Z`. (A byte of 0x80
            // or more can carry into the next; such buffers are checked byte by byte below.)
            upperCase |= (word &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(word &+ 0x2525_2525_2525_2525)
            offset += 8
        }
        if seenBits & highBits != 0 { return containsUpperCaseByteWise(bytes) }
        return upperCase & highBits != 0 || containsUpperCaseByteWise(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }

    private static func containsUpperCaseByteWise(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }
}

/// Checks for the `apns-id` header: a canonical UUID, `8-4-4-4-12` hex digits.
public enum APNsMessageID {
    /// Whether `value` is a canonical UUID. Apple documents lower case; upper case is accepted
    /// because every UUID parser accepts it and several client libraries send it.
    public static func isValid(_ value: some Collection<UInt8>) -> Bool {
        guard value.count == 36 else { return false }
        if let valid = value.withContiguousStorageIfAvailable({ UUIDText.parse(UnsafeRawBufferPointer($0)) != nil }) {
            return valid
        }
        return Array(value).withUnsafeBytes { UUIDText.parse($0) != nil }
    }

    /// `isValid(_:)` for a header value as the gateway holds it.
    public static func isValid(_ value: ArraySlice<UInt8>) -> Bool {
        parse(value) != nil
    }

    /// The UUID a valid header value spells, or `nil` when it is not valid.
    package static func parse(_ value: ArraySlice<UInt8>) -> UUIDText.Parsed? {
        value.withUnsafeBytes { UUIDText.parse($0) }
    }
}

/// Hex-digit classification by arithmetic (device tokens are checked on every request; a table
/// in a global would cost a lazy-initialisation check and a retain per lookup).
@usableFromInline
enum HexDigit {
    @inlinable @inline(__always)
    static func isHex(_ byte: UInt8) -> Bool {
        let lowered = byte | 0x20
        return (byte &- 0x30) < 10 || (lowered &- 0x61) < 6
    }

    /// Whether every byte is a hex digit, eight at a time (a 64-digit token is checked on
    /// every request; byte by byte it was ≈ 400 instructions).
    @inlinable
    static func allHex(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var invalid: UInt64 = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            invalid |= eightDigits(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))).invalid
            offset += 8
        }
        while offset < bytes.count {
            if !isHex(bytes[offset]) { return false }
            offset += 1
        }
        return invalid == 0
    }

    /// Eight hex digits, the first in the lowest byte of `word`: their value (the first digit
    /// most significant), and per-byte flags (nonzero: some byte is not a hex digit, some
    /// digit is a lower-case or an upper-case letter).
    @inlinable @inline(__always)
    static func eightDigits(_ word: UInt64) -> (value: UInt32, invalid: UInt64, lower: UInt64, upper: UInt64) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        // Each byte below 0x80 (bytes that are not are flagged invalid), so adding a constant
        // below 0x80 never carries into the next byte: x + (0x80 − lo) has its high bit set
        // exactly when x ≥ lo, and x + (0x7F − hi) exactly when x > hi.
        let decimal = (word &+ 0x50 &* ones) & ~(word &+ 0x46 &* ones) & highBits  // 0x30–0x39
        let lower = (word &+ 0x1F &* ones) & ~(word &+ 0x19 &* ones) & highBits  // 0x61–0x66
        let upper = (word &+ 0x3F &* ones) & ~(word &+ 0x39 &* ones) & highBits  // 0x41–0x46
        let invalid = (word & highBits) | ((decimal | lower | upper) ^ highBits)
        // A digit's value is its low four bits, plus 9 for a letter (`a` and `A` end in 1).
        var value = (word & (ones &* 0x0F)) &+ ((lower | upper) >> 7) &* 9
        // Pairs of digits into bytes, bytes into 16-bit halves, halves into the result.
        value = ((value << 4) | (value >> 8)) & 0x00FF_00FF_00FF_00FF
        value = ((value << 8) | (value >> 16)) & 0x0000_FFFF_0000_FFFF
        value = ((value << 16) | (value >> 32)) & 0xFFFF_FFFF
        return (UInt32(truncatingIfNeeded: value), invalid, lower, upper)
    }

    /// The eight hex digits of `value` as ASCII, the most significant in the lowest byte (the
    /// inverse of ``eightDigits(_:)``).
    @inlinable @inline(__always)
    static func eightASCII(_ value: UInt32, uppercase: Bool) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var digits = UInt64(value)
        // Halves, then bytes, then digits, each into its own lane, the first one lowest.
        digits = (digits >> 16) | ((digits & 0xFFFF) << 32)
        digits = ((digits >> 8) & 0x0000_00FF_0000_00FF) | ((digits & 0x0000_00FF_0000_00FF) << 16)
        digits = ((digits >> 4) & 0x000F_000F_000F_000F) | ((digits & 0x000F_000F_000F_000F) << 8)
        // A digit of 10 or more gets its high bit set by adding 0x76; letters then start at `a`
        // (or `A`) instead of right after `9`.
        let letters = ((digits &+ 0x76 &* ones) & (0x80 &* ones)) >> 7
        let letterOffset: UInt64 = uppercase ? 0x07 : 0x27
        return digits &+ 0x30 &* ones &+ letters &* letterOffset
    }
}

/// One APNs device token, in canonical form (lower-case hex): the key the gateway's registries
/// and device simulation use, whatever case the path spelled it in.
public struct APNsDeviceToken: StringIdentifier {
    public let rawValue: String

    public init(_ text: String) { self.rawValue = APNsDeviceTokenFormat.canonical(text) }
}
