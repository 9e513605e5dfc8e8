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
    static func containsUpperCaseASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if word & highBits != 0 {
                // Not ASCII: the sums below would carry between bytes; byte by byte instead.
                if containsUpperCaseByteWise(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 8)])) { return true }
            } else {
                // Each byte is below 0x80, so adding 0x3F (0x80 − `A`) sets its high bit exactly
                // when it is ≥ `A`, and adding 0x25 (0x80 − `[`) exactly when it is > `Z`.
                let atLeastA = word &+ 0x3F3F_3F3F_3F3F_3F3F
                let beyondZ = word &+ 0x2525_2525_2525_2525
                if atLeastA & ~beyondZ & highBits != 0 { return true }
            }
            offset += 8
        }
        return containsUpperCaseByteWise(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }

    private static func containsUpperCaseByteWise(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }
}

/// Checks for the `apns-id` header: a canonical UUID, `8-4-4-4-12` hex digits.
public enum APNsMessageID {
    /// Whether `value` is a canonical UUID. Apple documents lower case; upper case is accepted
    /// because every UUID parser accepts it and several client libraries send it.
    @inlinable
    public static func isValid(_ value: some Collection<UInt8>) -> Bool {
        guard value.count == 36 else { return false }
        var index = 0
        for byte in value {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                    UInt8(ascii: "A")...UInt8(ascii: "F"):
                    break
                default:
                    return false
                }
            }
            index += 1
        }
        return true
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
}

/// One APNs device token, in canonical form (lower-case hex): the key the gateway's registries
/// and device simulation use, whatever case the path spelled it in.
public struct APNsDeviceToken: StringIdentifier {
    public let rawValue: String

    public init(_ text: String) { self.rawValue = APNsDeviceTokenFormat.canonical(text) }
}
