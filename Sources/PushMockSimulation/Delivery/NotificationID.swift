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
        // The digits in groups (offset, count): 8-4-4 make the high word, 4-12 the low one.
        var letters = Letters()
        guard let first = hexValue(base, 0, 8, &letters), let second = hexValue(base + 9, 0, 4, &letters),
            let third = hexValue(base + 14, 0, 4, &letters), let fourth = hexValue(base + 19, 0, 4, &letters),
            let fifth = hexValue(base + 24, 0, 12, &letters), !(letters.lower && letters.upper)
        else { return nil }
        return .uuid(high: first << 32 | second << 16 | third, low: fourth << 48 | fifth, uppercase: letters.upper)
    }

    private struct Letters {
        var lower = false
        var upper = false
    }

    /// `count` hex digits from `start` as a number, noting the case of letters; `nil` if any
    /// byte is not a hex digit.
    @inline(__always)
    private static func hexValue(_ base: UnsafePointer<UInt8>, _ start: Int, _ count: Int, _ letters: inout Letters) -> UInt64? {
        var value: UInt64 = 0
        for offset in start..<(start + count) {
            let byte = base[offset]
            let digit = byte &- UInt8(ascii: "0")
            if digit < 10 {
                value = value << 4 | UInt64(digit)
                continue
            }
            // Setting bit 5 lowers `A`–`F`; it is already set in `a`–`f`.
            let lowered = byte | 0x20
            let letter = lowered &- UInt8(ascii: "a")
            guard letter < 6 else { return nil }
            if byte == lowered { letters.lower = true } else { letters.upper = true }
            value = value << 4 | UInt64(letter &+ 10)
        }
        return value
    }
}
