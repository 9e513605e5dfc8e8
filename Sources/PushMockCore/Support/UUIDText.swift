/// The canonical text of a UUID (`8-4-4-4-12` hex digits) from its two 64-bit halves, built in
/// place (one allocation). Shared by the gateway's random apns-ids and the notification ids
/// devices keep inline.
package enum UUIDText {
    package static func string(high: UInt64, low: UInt64, uppercase: Bool = false) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            let letterBase = uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")
            var position = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = digit < 16 ? high : low
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (digit % 16))) & 0xF
                buffer[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : letterBase + nibble - 10
                position += 1
            }
            return 36
        }
    }
}
