import PushMockCore

/// A notification's identifier as a device keeps it: a canonical UUID (every `apns-id`, Expo
/// ticket ids) as its 16 bytes, anything else (FCM message names) as the text.
///
/// Why not a `String`: a UUID is 36 characters, too long for Swift's inline small strings, so
/// each one is a heap object. A device remembers its notifications and timeline long after the
/// request (``DeliveryLimits``), and releasing those objects when the history is trimmed
/// missed the cache every time — most of what delivery simulation cost per request beyond the
/// simulator's own work (`Benchmarks/README.md`, fifth session).
///
/// The form is canonical (one text has one form, and the form gives the text back exactly),
/// so comparing identifiers compares the texts.
package struct NotificationID: Sendable, Hashable, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        /// The UUID's 32 hex digits, most significant first; `uppercase`: spelled with
        /// `A`–`F` (a UUID whose digits are all `0`–`9` is kept as lower case).
        case uuid(high: UInt64, low: UInt64, uppercase: Bool)
        case text(String)
    }

    private let storage: Storage

    package init(_ text: String) {
        var text = text
        storage = text.withUTF8 { Self.parseUUID($0) } ?? .text(text)
    }

    /// The identifier as sent (or as the gateway made it).
    package var description: String {
        switch storage {
        case .text(let text):
            return text
        case .uuid(let high, let low, let uppercase):
            return UUIDText.string(high: high, low: low, uppercase: uppercase)
        }
    }

    /// `8-4-4-4-12` hex digits in one case, or `nil` (mixed case would not round-trip).
    private static func parseUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> Storage? {
        guard bytes.count == 36, let base = bytes.baseAddress, base[8] == UInt8(ascii: "-"), base[13] == UInt8(ascii: "-"),
            base[18] == UInt8(ascii: "-"), base[23] == UInt8(ascii: "-")
        else { return nil }
        // The digits in groups: 8-4-4 make the high word, 4-12 the low one. Every entry's flag
        // bits are collected in `seen`, and checked once at the end.
        var seen: UInt8 = 0
        let high = hexValue(base, count: 8, &seen) << 32 | hexValue(base + 9, count: 4, &seen) << 16 | hexValue(base + 14, count: 4, &seen)
        let low = hexValue(base + 19, count: 4, &seen) << 48 | hexValue(base + 24, count: 12, &seen)
        guard seen & HexDigit.invalid == 0, seen & HexDigit.bothCases != HexDigit.bothCases else { return nil }
        return .uuid(high: high, low: low, uppercase: seen & HexDigit.upper != 0)
    }

    /// `count` hex digits from `start` as a number; each digit's table entry is or-ed into
    /// `seen` (its case, or that it is not a hex digit). One table load per digit: the
    /// branch per digit this replaced was 10 % of delivery simulation's instructions.
    @inline(__always)
    private static func hexValue(_ start: UnsafePointer<UInt8>, count: Int, _ seen: inout UInt8) -> UInt64 {
        HexDigit.table.withUnsafeBufferPointer { table in
            var value: UInt64 = 0
            for offset in 0..<count {
                let entry = table[Int(start[offset])]
                seen |= entry
                value = value << 4 | UInt64(entry & 0x0F)
            }
            return value
        }
    }

    /// A byte's meaning as a hex digit: its value in the low four bits, and flags above.
    private enum HexDigit {
        static let lower: UInt8 = 0x10
        static let upper: UInt8 = 0x20
        static let bothCases: UInt8 = lower | upper
        static let invalid: UInt8 = 0x80

        static let table: [UInt8] = (0...255).map { byte -> UInt8 in
            switch UInt8(byte) {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(byte) - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(byte) - UInt8(ascii: "a") + 10 | lower
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(byte) - UInt8(ascii: "A") + 10 | upper
            default: return invalid
            }
        }
    }
}
