package import PushMockCore

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

    /// The identifier `text`, whose UUID the caller already parsed: `uuid` must be what
    /// `UUIDText.parse` gives for `text`. (The gateway parses every `apns-id` when it checks
    /// the header, or makes it from its value; parsing it again here was ≈ 200 instructions
    /// per request.)
    package init(_ text: String, uuid: UUIDText.Parsed) {
        storage = uuid.hasLowercase && uuid.hasUppercase ? .text(text) : .uuid(high: uuid.high, low: uuid.low, uppercase: uuid.hasUppercase)
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
        guard let uuid = UUIDText.parse(UnsafeRawBufferPointer(bytes)), !(uuid.hasLowercase && uuid.hasUppercase) else { return nil }
        return .uuid(high: uuid.high, low: uuid.low, uppercase: uuid.hasUppercase)
    }
}
