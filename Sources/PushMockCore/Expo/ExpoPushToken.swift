/// An Expo push token as it appears in a message's `to`: `ExponentPushToken[…]` (what
/// `getExpoPushTokenAsync` returns) or the newer spelling `ExpoPushToken[…]`.
///
/// How strictly the part between the brackets is checked is a ``ExpoTokenSyntax`` choice: the
/// service refuses tokens the SDKs let through (an observed ticket said
/// `"ExponentPushToken[RZBS31.Q2-143-27-25]" is not a valid Expo push token`), but Expo does not
/// document the exact alphabet (docs/expo.md, section 3).
package struct ExpoPushToken: Hashable, Sendable, CustomStringConvertible {
    /// The two bracketed spellings and the bare UUID the Node SDK also accepts.
    package enum Form: String, Hashable, Sendable {
        case exponentPushToken = "ExponentPushToken"
        case expoPushToken = "ExpoPushToken"
        /// A bare `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (Node `isExpoPushToken` accepts it).
        case uuid
    }

    /// The token exactly as sent.
    package let rawValue: String
    /// Which spelling it uses.
    package let form: Form
    /// The identifier between the brackets (the whole value for ``Form/uuid``).
    package let identifier: Substring

    /// Parses `text`; `nil` when `syntax` does not accept it.
    package init?(_ text: String, syntax: ExpoTokenSyntax = .service) {
        if let (form, identifier) = Self.bracketed(text) {
            guard syntax.accepts(identifier: identifier) else { return nil }
            self.rawValue = text
            self.form = form
            self.identifier = identifier
        } else if syntax.acceptsBareUUID, Self.isUUID(text.utf8) {
            self.rawValue = text
            self.form = .uuid
            self.identifier = text[...]
        } else {
            return nil
        }
    }

    package var description: String { rawValue }

    private static func bracketed(_ text: String) -> (Form, Substring)? {
        guard text.hasSuffix("]") else { return nil }
        for form in [Form.exponentPushToken, .expoPushToken] {
            let prefix = form.rawValue + "["
            if text.hasPrefix(prefix), text.utf8.count > prefix.utf8.count {
                let start = text.index(text.startIndex, offsetBy: prefix.count)
                let end = text.index(before: text.endIndex)
                return (form, start <= end ? text[start..<end] : text[start..<start])
            }
        }
        return nil
    }

    /// The 8-4-4-4-12 hex layout, either case (the Node SDK's regular expression).
    private static func isUUID(_ bytes: String.UTF8View) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                // The SDK's pattern is `[a-z\d]` with the `i` flag, so any letter passes.
                let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
                let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
                guard isDigit || isLetter else { return false }
            }
        }
        return true
    }
}

/// How strictly ``ExpoPushToken`` reads a token.
package struct ExpoTokenSyntax: Hashable, Sendable {
    private enum Rule: Hashable, Sendable {
        case service
        case sdk
    }

    private let rule: Rule

    /// What the mock assumes the service accepts (UNVERIFIED, docs/expo.md §3): a bracketed
    /// token whose identifier is 1…256 characters of `A–Z a–z 0–9 - _`. Real identifiers are
    /// 22 such characters; the service refused one containing `.`.
    package static let service = ExpoTokenSyntax(rule: .service)
    /// What `Expo.isExpoPushToken` in expo-server-sdk-node accepts: either bracketed prefix with a
    /// trailing `]` and anything in between, or a bare UUID.
    package static let sdk = ExpoTokenSyntax(rule: .sdk)

    /// The longest identifier ``service`` accepts (our choice).
    package static let maximumIdentifierLength = 256

    fileprivate var acceptsBareUUID: Bool { rule == .sdk }

    fileprivate func accepts(identifier: Substring) -> Bool {
        switch rule {
        case .sdk:
            return true
        case .service:
            let bytes = identifier.utf8
            guard !bytes.isEmpty, bytes.count <= Self.maximumIdentifierLength else { return false }
            return bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    return true
                default:
                    return false
                }
            }
        }
    }
}
