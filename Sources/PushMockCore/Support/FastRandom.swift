/// A small, fast, non-cryptographic random number generator (wyrand).
///
/// The gateway generates an `apns-id` (and in the sandbox an `apns-unique-id`) for most
/// responses. Foundation's `UUID()` reads `/dev/urandom` on every call on Linux (3–4 µs, which
/// halved throughput when measured here); identifiers only need to be unique, not secret. Each
/// connection owns one generator seeded from the system generator, so no locking is needed.
/// It is also the generator behind seeded fault probabilities, where repeatable sequences matter.
public struct FastRandom: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    /// A generator seeded from the system's secure generator.
    public init() {
        var system = SystemRandomNumberGenerator()
        self.state = system.next()
    }

    /// A generator with a fixed seed: the same seed gives the same sequence.
    public init(seed: UInt64) {
        self.state = seed
    }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0xa076_1d64_78bd_642f
        let product = state.multipliedFullWidth(by: state ^ 0xe703_7ed1_a0b4_28db)
        return product.high ^ product.low
    }

    /// Writes a random version-4 UUID in canonical lower-case form (8-4-4-4-12, 36 bytes).
    @inlinable
    public mutating func appendUUID(to bytes: inout [UInt8], uppercase: Bool = false) {
        var high = next()
        var low = next()
        // Version 4 and the RFC 4122 variant bits.
        high = (high & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000
        low = (low & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        digits.withUTF8Buffer { table in
            for index in 0..<32 {
                if index == 8 || index == 12 || index == 16 || index == 20 {
                    bytes.append(UInt8(ascii: "-"))
                }
                let word = index < 16 ? high : low
                let shift = UInt64(60 - (index % 16) * 4)
                bytes.append(table[Int((word >> shift) & 0xf)])
            }
        }
    }

    /// A random version-4 UUID string in canonical lower-case form, built in place (one
    /// allocation).
    public mutating func uuidString() -> String {
        uuid().text
    }

    /// The 128 bits of a random version-4 UUID (version and variant bits set).
    package mutating func uuidBits() -> (high: UInt64, low: UInt64) {
        let high = next()
        let low = next()
        return ((high & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000, (low & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000)
    }

    /// A random version-4 UUID: its text in canonical lower-case form, and the value that
    /// text parses to (so that whoever keeps the UUID need not parse the text again).
    package mutating func uuid() -> (text: String, value: UUIDText.Parsed) {
        let (high, low) = uuidBits()
        let value = UUIDText.Parsed(
            high: high, low: low, hasLowercase: UUIDText.hasLetterDigit(high: high, low: low), hasUppercase: false)
        return (UUIDText.string(high: high, low: low), value)
    }
}
