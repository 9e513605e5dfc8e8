/// Builds a ``JSONValue`` from bytes with the same rules as ``JSONScanner``.
///
/// Deliberately written independently of the scanner (explicit container stack instead of a
/// bit stack; UTF-8 checked by decoding code points instead of by byte ranges) so the test
/// suite's agreement checks compare two implementations rather than one with itself. It is
/// iterative, so nesting depth is bounded only by `maxDepth`, never by the thread's stack.
struct JSONParser {
    /// One open container.
    private struct Frame {
        var isObject: Bool
        var elements: [JSONValue] = []
        var object = JSONObject()
        var pendingKey = ""
    }

    private let bytes: UnsafeRawBufferPointer
    private let maxDepth: Int
    private var position = 0

    private init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = max(maxDepth, 0)
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) -> Result<JSONValue, JSONSyntaxError> {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        do {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }

    /// Decodes the string whose opening quote is at `quote` (used by the member locator).
    static func decodeString(_ bytes: UnsafeRawBufferPointer, openingQuoteAt quote: Int) -> String? {
        var parser = JSONParser(bytes: bytes, maxDepth: 0)
        parser.position = quote + 1
        return try? parser.parseStringBody()
    }

    private var count: Int { bytes.count }

    private func error(_ offset: Int, _ reason: JSONSyntaxError.Reason) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, reason: reason)
    }

    private mutating func skipWhitespace() {
        while position < count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard position < count else { throw error(position, .emptyInput) }
        var frames: [Frame] = []

        parsing: while true {
            skipWhitespace()
            guard position < count else { throw error(count, .unexpectedEndOfInput) }
            var value: JSONValue
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte == UInt8(ascii: "{")
                guard frames.count < maxDepth else { throw error(position, .nestingTooDeep(limit: maxDepth)) }
                position += 1
                skipWhitespace()
                guard position < count else { throw error(count, .unexpectedEndOfInput) }
                if isObject {
                    if bytes[position] == UInt8(ascii: "}") {
                        position += 1
                        value = .object(JSONObject())
                    } else {
                        var frame = Frame(isObject: true)
                        frame.pendingKey = try parseMemberName()
                        frames.append(frame)
                        continue parsing
                    }
                } else {
                    if bytes[position] == UInt8(ascii: "]") {
                        position += 1
                        value = .array([])
                    } else {
                        frames.append(Frame(isObject: false))
                        continue parsing
                    }
                }
            case UInt8(ascii: "\""):
                position += 1
                value = .string(try parseStringBody())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            default:
                throw error(position, .unexpectedByte(byte))
            }

            // Attach the finished value to its container; close containers as they end.
            while true {
                guard !frames.isEmpty else {
                    skipWhitespace()
                    guard position == count else { throw error(position, .trailingData) }
                    return value
                }
                let top = frames.count - 1
                if frames[top].isObject {
                    frames[top].object.append(key: frames[top].pendingKey, value: value)
                } else {
                    frames[top].elements.append(value)
                }
                skipWhitespace()
                guard position < count else { throw error(count, .unexpectedEndOfInput) }
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    if frames[top].isObject {
                        skipWhitespace()
                        frames[top].pendingKey = try parseMemberName()
                    }
                    continue parsing
                case UInt8(ascii: "}") where frames[top].isObject:
                    position += 1
                    value = .object(frames.removeLast().object)
                case UInt8(ascii: "]") where !frames[top].isObject:
                    position += 1
                    value = .array(frames.removeLast().elements)
                default:
                    throw error(position, .expectedCommaOrClose)
                }
            }
        }
    }

    private mutating func parseMemberName() throws(JSONSyntaxError) -> String {
        guard position < count else { throw error(count, .unexpectedEndOfInput) }
        guard bytes[position] == UInt8(ascii: "\"") else { throw error(position, .expectedKey) }
        position += 1
        let name = try parseStringBody()
        skipWhitespace()
        guard position < count else { throw error(count, .unexpectedEndOfInput) }
        guard bytes[position] == UInt8(ascii: ":") else { throw error(position, .expectedColon) }
        position += 1
        return name
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONSyntaxError) {
        let start = position
        for expected in literal.utf8 {
            guard position < count else { throw error(count, .unexpectedEndOfInput) }
            guard bytes[position] == expected else { throw error(start, .invalidLiteral) }
            position += 1
        }
    }

    private func digit(at offset: Int) -> Bool {
        offset < count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset])
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        // Integer part: "0" or a non-zero digit followed by digits.
        guard digit(at: position) else { throw error(min(position, count), .invalidNumber) }
        let leadingZero = bytes[position] == UInt8(ascii: "0")
        position += 1
        if leadingZero {
            if digit(at: position) { throw error(position, .invalidNumber) }
        } else {
            while digit(at: position) { position += 1 }
        }
        // Fraction: "." followed by at least one digit.
        if position < count && bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digit(at: position) else { throw error(position, .invalidNumber) }
            while digit(at: position) { position += 1 }
        }
        // Exponent: "e"/"E", optional sign, at least one digit.
        if position < count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            position += 1
            if position < count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) {
                position += 1
            }
            guard digit(at: position) else { throw error(position, .invalidNumber) }
            while digit(at: position) { position += 1 }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    /// Parses a string body; `position` is just past the opening quote.
    private mutating func parseStringBody() throws(JSONSyntaxError) -> String {
        var decoded: [UInt8]? = nil  // only allocated once an escape is seen
        var runStart = position
        while position < count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeRawBufferPointer(rebasing: bytes[runStart..<position])
                position += 1
                guard var decoded else { return String(decoding: run, as: UTF8.self) }
                decoded.append(contentsOf: run)
                return String(decoding: decoded, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                var buffer = decoded ?? []
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<position]))
                try parseEscape(into: &buffer)
                decoded = buffer
                runStart = position
            } else if byte < 0x20 {
                throw error(position, .controlCharacterInString)
            } else if byte < 0x80 {
                position += 1
            } else {
                try validateScalar()
            }
        }
        throw error(count, .unexpectedEndOfInput)
    }

    /// Decodes one UTF-8 sequence numerically and checks the code point; `position` is at the
    /// lead byte and ends after the sequence.
    private mutating func validateScalar() throws(JSONSyntaxError) {
        let lead = bytes[position]
        let length: Int
        var scalar: UInt32
        if lead & 0xE0 == 0xC0 {
            length = 2
            scalar = UInt32(lead & 0x1F)
        } else if lead & 0xF0 == 0xE0 {
            length = 3
            scalar = UInt32(lead & 0x0F)
        } else if lead & 0xF8 == 0xF0 {
            length = 4
            scalar = UInt32(lead & 0x07)
        } else {
            throw error(position, .invalidUTF8)
        }
        for offset in 1..<length {
            guard position + offset < count else { throw error(count, .unexpectedEndOfInput) }
            let continuation = bytes[position + offset]
            guard continuation & 0xC0 == 0x80 else { throw error(position, .invalidUTF8) }
            scalar = scalar << 6 | UInt32(continuation & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
            throw error(position, .invalidUTF8)
        }
        position += length
    }

    /// `position` is at a backslash; appends the decoded character's UTF-8.
    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONSyntaxError) {
        let start = position
        position += 1
        guard position < count else { throw error(count, .unexpectedEndOfInput) }
        let code = bytes[position]
        position += 1
        switch code {
        case UInt8(ascii: "\""): output.append(0x22)
        case UInt8(ascii: "\\"): output.append(0x5C)
        case UInt8(ascii: "/"): output.append(0x2F)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4(escapeStart: start)
            var scalar = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                // A high surrogate combines with an immediately following \uDC00–\uDFFF.
                // Otherwise it is unpaired: accepted, decoded as U+FFFD, and whatever follows
                // is parsed normally.
                if position + 1 < count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                    let secondStart = position
                    position += 2
                    let low = try parseHex4(escapeStart: secondStart)
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    } else {
                        scalar = 0xFFFD
                        position = secondStart
                    }
                } else {
                    scalar = 0xFFFD
                }
            } else if (0xDC00...0xDFFF).contains(unit) {
                scalar = 0xFFFD
            }
            appendUTF8(scalar, to: &output)
        default:
            throw error(start, .invalidEscape)
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard position < count else { throw error(count, .unexpectedEndOfInput) }
            let byte = bytes[position]
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: throw error(escapeStart, .invalidEscape)
            }
            value = value << 4 | UInt16(nibble)
            position += 1
        }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        let value = Unicode.Scalar(scalar) ?? "\u{FFFD}"
        output.append(contentsOf: UTF8.encode(value)!)
    }
}
