/// The value of the `apns-priority` header: 10, 5 or 1. Omitted means 10.
public struct APNsPriority: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The numeric header value.
    public let rawValue: Int

    @usableFromInline
    init(uncheckedRawValue: Int) { self.rawValue = uncheckedRawValue }

    /// Accepts only the three documented values.
    public init?(rawValue: Int) {
        switch rawValue {
        case 10, 5, 1: self.rawValue = rawValue
        default: return nil
        }
    }

    /// Parses the header bytes: exactly `10`, `5` or `1`; anything else is `BadPriority`.
    @inlinable
    public init?(bytes: some Collection<UInt8>) {
        var iterator = bytes.makeIterator()
        guard let first = iterator.next() else { return nil }
        let second = iterator.next()
        guard iterator.next() == nil else { return nil }
        switch (first, second) {
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): self.init(uncheckedRawValue: 10)
        case (UInt8(ascii: "5"), nil): self.init(uncheckedRawValue: 5)
        case (UInt8(ascii: "1"), nil): self.init(uncheckedRawValue: 1)
        default: return nil
        }
    }

    public var description: String { String(rawValue) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Send immediately (the default when the header is omitted).
    public static let immediate = Self(uncheckedRawValue: 10)
    /// Send based on power considerations on the device.
    public static let considerPower = Self(uncheckedRawValue: 5)
    /// Prioritise the device's power over all other factors; never wakes the device.
    public static let prioritizePower = Self(uncheckedRawValue: 1)

    /// The three documented values.
    public static let all: [APNsPriority] = [.immediate, .considerPower, .prioritizePower]
}
