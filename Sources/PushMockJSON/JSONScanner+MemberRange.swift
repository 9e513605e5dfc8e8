extension JSONScanner {
    /// Finds the bytes of the value at `keyPath` (object member names, outermost first) inside a
    /// *valid* JSON document, without building a tree. An empty path returns the range of the
    /// top-level value. When a name occurs more than once, the last occurrence wins (as in
    /// ``JSONObject``).
    ///
    /// Exists so cold-path readers can recover embedded JSON *verbatim* — for example a request
    /// body stored in a journal line — which a parse-and-reserialise round trip could not
    /// guarantee (escapes like `\u00e9` or `\/` would be normalised). Returns `nil` when a name
    /// is missing or an intermediate value is not an object. Invalid input never crashes; the
    /// answer is then unspecified.
    public static func rangeOfValue(atKeyPath keyPath: [String], in buffer: UnsafeRawBufferPointer) -> Range<Int>? {
        var navigator = MemberNavigator(bytes: buffer)
        navigator.skipWhitespace()
        guard var range = navigator.skipValue() else { return nil }
        for key in keyPath {
            guard let found = navigator.member(named: key, inObjectAt: range) else { return nil }
            range = found
        }
        return range
    }

    /// ``rangeOfValue(atKeyPath:in:)-(_,UnsafeRawBufferPointer)`` for an array of bytes.
    public static func rangeOfValue(atKeyPath keyPath: [String], in bytes: [UInt8]) -> Range<Int>? {
        bytes.withUnsafeBytes { rangeOfValue(atKeyPath: keyPath, in: $0) }
    }
}

/// Skips over values of an already-validated document.
private struct MemberNavigator {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            position += 1
        }
    }

    /// `position` is at an opening quote; moves past the closing quote.
    mutating func skipString() -> Bool {
        position += 1
        while let byte = current {
            position += 1
            if byte == UInt8(ascii: "\\") {
                position += 1
            } else if byte == UInt8(ascii: "\"") {
                return position <= bytes.count
            }
        }
        return false
    }

    /// Skips the value starting at `position` and returns its range.
    mutating func skipValue() -> Range<Int>? {
        let start = position
        guard let first = current else { return nil }
        switch first {
        case UInt8(ascii: "\""):
            guard skipString() else { return nil }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            repeat {
                guard let byte = current else { return nil }
                switch byte {
                case UInt8(ascii: "\""):
                    guard skipString() else { return nil }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                default:
                    break
                }
                position += 1
            } while depth > 0
        default:
            while let byte = current {
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                    || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
                {
                    break
                }
                position += 1
            }
        }
        return position > start ? start..<position : nil
    }

    /// The range of the last member named `key` of the object occupying `object`.
    mutating func member(named key: String, inObjectAt object: Range<Int>) -> Range<Int>? {
        guard bytes[object.lowerBound] == UInt8(ascii: "{") else { return nil }
        position = object.lowerBound + 1
        skipWhitespace()
        guard current != UInt8(ascii: "}") else { return nil }
        var found: Range<Int>? = nil
        while current == UInt8(ascii: "\"") {
            let nameStart = position
            guard skipString() else { return nil }
            let matches = nameMatches(key, quoted: nameStart..<position)
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            position += 1
            skipWhitespace()
            guard let value = skipValue() else { return nil }
            if matches { found = value }
            skipWhitespace()
            guard current == UInt8(ascii: ",") else { break }
            position += 1
            skipWhitespace()
        }
        return found
    }

    func nameMatches(_ key: String, quoted: Range<Int>) -> Bool {
        let raw = UnsafeRawBufferPointer(rebasing: bytes[(quoted.lowerBound + 1)..<(quoted.upperBound - 1)])
        if !raw.contains(UInt8(ascii: "\\")) {
            return raw.elementsEqual(key.utf8)
        }
        guard let decoded = JSONParser.decodeString(bytes, openingQuoteAt: quoted.lowerBound) else { return false }
        return decoded.utf8.elementsEqual(key.utf8)
    }
}
