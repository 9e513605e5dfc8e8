/// A single-pass, allocation-free validator for RFC 8259 JSON.
///
/// The gateway must check every request body (~200k/s on two cores) before answering, and
/// building a tree with Foundation costs several microseconds per body. The scanner instead
/// walks the bytes once, keeps container nesting in a bit stack (one bit per level, in a small
/// temporary allocation that normally lives on the stack) and never recurses, so deeply nested
/// hostile input cannot overflow the stack.
///
/// Accepted: exactly one JSON value with optional surrounding whitespace (space, tab, LF, CR);
/// numbers of any length (they are not converted); strings that are well-formed UTF-8.
///
/// Rejected: empty input, trailing commas, leading zeros (`01`), bare `-`, `.5`, `1.`, `1e`,
/// escapes other than `\" \\ \/ \b \f \n \r \t \uXXXX`, unescaped bytes below 0x20 in strings,
/// ill-formed UTF-8 (overlong forms, UTF-8-encoded surrogates, code points above U+10FFFF,
/// bytes C0, C1, F5–FF, truncated sequences), nesting deeper than `maxDepth` containers, and any
/// non-whitespace after the value.
///
/// Escaped surrogates: `\uD800` without a following low surrogate (and a lone `\uDC00`) are
/// *accepted*. RFC 8259 §8.2 says such strings are syntactically valid though their behaviour is
/// unpredictable; most parsers (JavaScript, Foundation, Go) accept them, and rejecting them
/// would make the mock stricter than the real gateways. ``JSONValue`` decodes them as U+FFFD.
public enum JSONScanner {
    /// The default limit on nested objects/arrays. A document with exactly this many nested
    /// containers is valid; one more is rejected with ``JSONSyntaxError/Reason/nestingTooDeep(limit:)``.
    public static let defaultMaxDepth = 512

    /// Validates any byte collection; uses the contiguous storage when available (arrays,
    /// slices, `Data`), otherwise copies once.
    @inlinable
    public static func scan(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth) -> JSONScanResult {
        if let result = bytes.withContiguousStorageIfAvailable({ buffer in
            scan(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
        }) {
            return result
        }
        let copy = Array(bytes)
        return copy.withUnsafeBytes { scan($0, maxDepth: maxDepth) }
    }

    /// Validates the bytes in `buffer`. This is the primitive every other entry point uses.
    public static func scan(_ buffer: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth) -> JSONScanResult {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return JSONScanResult(
                error: JSONSyntaxError(offset: 0, reason: .emptyInput),
                topLevelKind: nil,
                hasInsignificantWhitespace: false,
                hasLineBreak: false
            )
        }
        let limit = max(maxDepth, 0)
        let words = limit / 64 + 1
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: words) { stack in
            var core = ScannerCore(
                base: base.assumingMemoryBound(to: UInt8.self),
                count: buffer.count,
                stack: stack,
                maxDepth: limit
            )
            let error = core.run()
            return JSONScanResult(
                error: error,
                topLevelKind: error == nil ? core.topLevelKind : nil,
                hasInsignificantWhitespace: core.sawWhitespace,
                hasLineBreak: core.sawLineBreak
            )
        }
    }
}

/// The scanner's mutable state; a separate struct so the hot loop works on locals.
private struct ScannerCore {
    let base: UnsafePointer<UInt8>
    let count: Int
    let stack: UnsafeMutableBufferPointer<UInt64>
    let maxDepth: Int
    var index = 0
    var depth = 0
    var sawWhitespace = false
    var sawLineBreak = false
    var topLevelKind: JSONKind = .null

    init(base: UnsafePointer<UInt8>, count: Int, stack: UnsafeMutableBufferPointer<UInt64>, maxDepth: Int) {
        self.base = base
        self.count = count
        self.stack = stack
        self.maxDepth = maxDepth
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < count {
            let byte = base[index]
            if byte == 0x20 || byte == 0x09 {
                sawWhitespace = true
            } else if byte == 0x0A || byte == 0x0D {
                sawWhitespace = true
                sawLineBreak = true
            } else {
                return
            }
            index += 1
        }
    }

    @inline(__always)
    mutating func push(object: Bool) {
        let word = depth >> 6
        let bit = UInt64(1) << UInt64(depth & 63)
        if object {
            stack[word] |= bit
        } else {
            stack[word] &= ~bit
        }
        depth += 1
    }

    @inline(__always)
    var topIsObject: Bool {
        let level = depth - 1
        return (stack[level >> 6] >> UInt64(level & 63)) & 1 == 1
    }

    @inline(__always)
    func fail(_ offset: Int, _ reason: JSONSyntaxError.Reason) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, reason: reason)
    }

    mutating func run() -> JSONSyntaxError? {
        skipWhitespace()
        guard index < count else { return fail(index, .emptyInput) }
        switch base[index] {
        case UInt8(ascii: "{"): topLevelKind = .object
        case UInt8(ascii: "["): topLevelKind = .array
        case UInt8(ascii: "\""): topLevelKind = .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): topLevelKind = .bool
        case UInt8(ascii: "n"): topLevelKind = .null
        default: topLevelKind = .number
        }

        valueLoop: while true {
            // Expecting a value at `index`.
            skipWhitespace()
            guard index < count else { return fail(count, .unexpectedEndOfInput) }
            let byte = base[index]
            switch byte {
            case UInt8(ascii: "{"):
                guard depth < maxDepth else { return fail(index, .nestingTooDeep(limit: maxDepth)) }
                push(object: true)
                index += 1
                skipWhitespace()
                guard index < count else { return fail(count, .unexpectedEndOfInput) }
                if base[index] == UInt8(ascii: "}") {
                    index += 1
                    depth -= 1
                } else {
                    if let error = scanMemberName() { return error }
                    continue valueLoop
                }
            case UInt8(ascii: "["):
                guard depth < maxDepth else { return fail(index, .nestingTooDeep(limit: maxDepth)) }
                push(object: false)
                index += 1
                skipWhitespace()
                guard index < count else { return fail(count, .unexpectedEndOfInput) }
                if base[index] == UInt8(ascii: "]") {
                    index += 1
                    depth -= 1
                } else {
                    continue valueLoop
                }
            case UInt8(ascii: "\""):
                index += 1
                if let error = scanString() { return error }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if let error = scanNumber() { return error }
            case UInt8(ascii: "t"):
                if let error = scanLiteral("true") { return error }
            case UInt8(ascii: "f"):
                if let error = scanLiteral("false") { return error }
            case UInt8(ascii: "n"):
                if let error = scanLiteral("null") { return error }
            default:
                return fail(index, .unexpectedByte(byte))
            }

            // A value just ended: close containers until one continues with a comma.
            while true {
                skipWhitespace()
                if depth == 0 {
                    return index == count ? nil : fail(index, .trailingData)
                }
                guard index < count else { return fail(count, .unexpectedEndOfInput) }
                let next = base[index]
                if next == UInt8(ascii: ",") {
                    index += 1
                    if topIsObject {
                        skipWhitespace()
                        if let error = scanMemberName() { return error }
                    }
                    continue valueLoop
                } else if next == UInt8(ascii: "}") && topIsObject {
                    index += 1
                    depth -= 1
                } else if next == UInt8(ascii: "]") && !topIsObject {
                    index += 1
                    depth -= 1
                } else {
                    return fail(index, .expectedCommaOrClose)
                }
            }
        }
    }

    /// Scans `"name"` followed by optional whitespace and `:`.
    @inline(__always)
    mutating func scanMemberName() -> JSONSyntaxError? {
        guard index < count else { return fail(count, .unexpectedEndOfInput) }
        guard base[index] == UInt8(ascii: "\"") else { return fail(index, .expectedKey) }
        index += 1
        if let error = scanString() { return error }
        skipWhitespace()
        guard index < count else { return fail(count, .unexpectedEndOfInput) }
        guard base[index] == UInt8(ascii: ":") else { return fail(index, .expectedColon) }
        index += 1
        return nil
    }

    /// Scans `true`, `false` or `null`; a correct prefix cut short by the end of input is
    /// reported as a premature end, anything else as a bad literal at its first byte.
    @inline(__always)
    mutating func scanLiteral(_ literal: StaticString) -> JSONSyntaxError? {
        let start = index
        let expected = literal.utf8Start
        for offset in 0..<literal.utf8CodeUnitCount {
            let position = start + offset
            guard position < count else { return fail(count, .unexpectedEndOfInput) }
            guard base[position] == expected[offset] else { return fail(start, .invalidLiteral) }
        }
        index = start + literal.utf8CodeUnitCount
        return nil
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    mutating func scanNumber() -> JSONSyntaxError? {
        if base[index] == UInt8(ascii: "-") {
            index += 1
        }
        guard index < count else { return fail(count, .invalidNumber) }
        let first = base[index]
        if first == UInt8(ascii: "0") {
            index += 1
            if index < count && Self.isDigit(base[index]) { return fail(index, .invalidNumber) }
        } else if Self.isDigit(first) {
            index += 1
            while index < count && Self.isDigit(base[index]) { index += 1 }
        } else {
            return fail(index, .invalidNumber)
        }
        if index < count && base[index] == UInt8(ascii: ".") {
            index += 1
            guard index < count && Self.isDigit(base[index]) else { return fail(index, .invalidNumber) }
            while index < count && Self.isDigit(base[index]) { index += 1 }
        }
        if index < count && (base[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            if index < count && (base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard index < count && Self.isDigit(base[index]) else { return fail(index, .invalidNumber) }
            while index < count && Self.isDigit(base[index]) { index += 1 }
        }
        return nil
    }

    @inline(__always)
    static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20) &- UInt8(ascii: "a") < 6
    }

    /// Scans a string body; `index` is just past the opening quote.
    mutating func scanString() -> JSONSyntaxError? {
        while index < count {
            if index + 8 <= count {
                // Skip plain printable ASCII eight bytes at a time.
                let mask = SWAR.stringSpecialMask(SWAR.load(base, index), includeNonASCII: true)
                if mask == 0 {
                    index += 8
                    continue
                }
                index += mask.trailingZeroBitCount >> 3
            }
            let byte = base[index]
            if byte < 0x80 {
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return nil
                }
                if byte == UInt8(ascii: "\\") {
                    if let error = scanEscape() { return error }
                    continue
                }
                if byte < 0x20 { return fail(index, .controlCharacterInString) }
                index += 1
                continue
            }
            if let error = scanMultiByteScalar(lead: byte) { return error }
        }
        return fail(count, .unexpectedEndOfInput)
    }

    /// `index` is at the backslash.
    @inline(__always)
    mutating func scanEscape() -> JSONSyntaxError? {
        let start = index
        index += 1
        guard index < count else { return fail(count, .unexpectedEndOfInput) }
        switch base[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
            return nil
        case UInt8(ascii: "u"):
            index += 1
            for _ in 0..<4 {
                guard index < count else { return fail(count, .unexpectedEndOfInput) }
                guard Self.isHexDigit(base[index]) else { return fail(start, .invalidEscape) }
                index += 1
            }
            return nil
        default:
            return fail(start, .invalidEscape)
        }
    }

    /// Validates one multi-byte UTF-8 sequence (Unicode Table 3-7 ranges); `index` is at `lead`.
    @inline(__always)
    mutating func scanMultiByteScalar(lead: UInt8) -> JSONSyntaxError? {
        let start = index
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return fail(start, .invalidUTF8)
        }
        guard start + 1 < count else { return fail(count, .unexpectedEndOfInput) }
        let second = base[start + 1]
        guard second >= low && second <= high else { return fail(start, .invalidUTF8) }
        var position = start + 2
        while position < start + length {
            guard position < count else { return fail(count, .unexpectedEndOfInput) }
            guard Self.isContinuation(base[position]) else { return fail(start, .invalidUTF8) }
            position += 1
        }
        index = position
        return nil
    }
}
