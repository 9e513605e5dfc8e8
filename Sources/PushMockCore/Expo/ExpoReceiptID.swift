/// The id of a ticket, used later to fetch its receipt. The service sends lower-case UUIDs
/// (observed: `01975b8d-8352-7beb-a3f0-ca195f91842c`); the docs' placeholders are upper case.
package struct ExpoReceiptID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// A random version-4 UUID in lower case.
    package static func random(using generator: inout FastRandom) -> ExpoReceiptID {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        generator.appendUUID(to: &bytes)
        return ExpoReceiptID(String(decoding: bytes, as: UTF8.self))
    }

    package var description: String { rawValue }
}
