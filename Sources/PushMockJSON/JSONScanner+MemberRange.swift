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

    /// The range of the top-level value of a *valid* document: its bytes without the whitespace
    /// around them. No scan of the value itself.
    public static func rangeOfDocument(in bytes: [UInt8]) -> Range<Int> {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        let start = bytes.firstIndex { !isWhitespace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isWhitespace($0) }.map { $0 + 1 } ?? start
        return start..<max(start, end)
    }

    /// The range of member `key`'s value in the object whose bytes are `object` (a range such as
    /// ``rangeOfDocument(in:)`` or this function returns), the last occurrence winning. Scans
    /// that object once, and nothing before or after it: readers that need several members of
    /// nested objects start from the nearest object they already located, instead of from the
    /// top as ``rangeOfValue(atKeyPath:in:)-(_,[UInt8])`` does. `nil` when there is no such
    /// member or `object` is not an object.
    public static func rangeOfMember(named key: String, inObjectAt object: Range<Int>, in bytes: [UInt8]) -> Range<Int>? {
        guard bytes.indices.contains(object.lowerBound), object.upperBound <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { buffer in
            var navigator = MemberNavigator(bytes: UnsafeRawBufferPointer(rebasing: buffer[..<object.upperBound]))
            return navigator.member(named: key, inObjectAt: object)
        }
    }

    /// The value ranges of every member of the object at `object`, by name, the last occurrence
    /// of a name winning: one scan for all of them. `nil` when `object` is not an object.
    public static func memberValueRanges(inObjectAt object: Range<Int>, in bytes: [UInt8]) -> [String: Range<Int>]? {
        guard bytes.indices.contains(object.lowerBound), object.upperBound <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { buffer in
            var navigator = MemberNavigator(bytes: UnsafeRawBufferPointer(rebasing: buffer[..<object.upperBound]))
            return navigator.members(inObjectAt: object)
        }
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

    /// Every member's value range by name (the last occurrence wins), or `nil` when the bytes
    /// at `object` do not hold an object.
    mutating func members(inObjectAt object: Range<Int>) -> [String: Range<Int>]? {
        guard bytes[object.lowerBound] == UInt8(ascii: "{") else { return nil }
        position = object.lowerBound + 1
        skipWhitespace()
        var found: [String: Range<Int>] = [:]
        guard current != UInt8(ascii: "}") else { return found }
        while current == UInt8(ascii: "\"") {
            let nameStart = position
            guard skipString() else { return nil }
            let name = self.name(quoted: nameStart..<position)
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            position += 1
            skipWhitespace()
            guard let value = skipValue(), let name else { return nil }
            found[name] = value
            skipWhitespace()
            guard current == UInt8(ascii: ",") else { break }
            position += 1
            skipWhitespace()
        }
        return found
    }

    /// The member name between the quotes at `quoted`, unescaped.
    func name(quoted: Range<Int>) -> String? {
        let raw = UnsafeRawBufferPointer(rebasing: bytes[(quoted.lowerBound + 1)..<(quoted.upperBound - 1)])
        if !raw.contains(UInt8(ascii: "\\")) {
            return String(decoding: raw, as: UTF8.self)
        }
        return JSONParser.decodeString(bytes, openingQuoteAt: quoted.lowerBound)
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
