/// Small byte-level helpers shared by the FCM validators (no Foundation, no locale).
enum FCMASCII {
    /// Whether two strings are equal when ASCII letters are compared case-insensitively.
    static func equalsIgnoringCase(_ left: String, _ right: String) -> Bool {
        left.utf8.count == right.utf8.count
            && zip(left.utf8, right.utf8).allSatisfy { lower($0) == lower($1) }
    }

    /// Whether `text` starts with `prefix`, ASCII case-insensitively.
    static func hasPrefixIgnoringCase(_ text: String, _ prefix: String) -> Bool {
        let bytes = Array(text.utf8)
        let wanted = Array(prefix.utf8)
        guard bytes.count >= wanted.count else { return false }
        return zip(bytes, wanted).allSatisfy { lower($0) == lower($1) }
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// `[a-zA-Z0-9-_.~%]` — the characters of an FCM topic name (and of an analytics label).
    static func isTopicCharacter(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "%")
    }

    /// The lowerCamelCase JSON name protoc derives from a snake_case field name.
    static func lowerCamelCase(_ snake: String) -> String {
        var result = ""
        var upperNext = false
        for character in snake {
            if character == "_" {
                upperNext = true
            } else if upperNext {
                result += character.uppercased()
                upperNext = false
            } else {
                result.append(character)
            }
        }
        return result
    }
}
