import PushMockJSON

/// Turns a ``JSONSyntaxError`` into the text Google's JSON parser (protobuf's
/// `JsonStreamParser`) gives for the same mistake:
///
///     Invalid JSON payload received. Unexpected token.
///     association_score": NaN, "trial_weight":
///                         ^
///
/// The second line shows up to 20 bytes either side of the error, the third a caret under it;
/// when the input ended early the reason starts with "Unexpected end of string." and the context
/// line is empty. The reason texts are protobuf's; which one is chosen for a given mistake is
/// our approximation (the two parsers do not fail at exactly the same byte in every case).
enum FCMJSONSyntaxMessage {
    static func text(for error: JSONSyntaxError, in bytes: [UInt8]) -> String {
        var offset = min(max(error.offset, 0), bytes.count)
        // protobuf reports a bad literal or number at its first byte ("Unexpected token.\nnot json\n^").
        switch error.reason {
        case .invalidLiteral, .invalidNumber, .unexpectedByte:
            if offset < bytes.count, isTokenByte(bytes[offset]) {
                while offset > 0, isTokenByte(bytes[offset - 1]) {
                    offset -= 1
                }
            }
        default:
            break
        }
        let state = ParserState(scanning: bytes[..<offset])
        let reason: String
        switch error.reason {
        case .emptyInput:
            reason = "Unexpected end of string. Expected a value."
        case .unexpectedEndOfInput:
            reason = "Unexpected end of string. " + state.expectation
        case .unexpectedByte, .invalidLiteral, .controlCharacterInString:
            reason = "Unexpected token."
        case .invalidNumber:
            reason = "Unable to parse number."
        case .invalidEscape:
            reason = "Invalid escape sequence."
        case .invalidUTF8:
            reason = "Encountered non UTF-8 code points."
        case .nestingTooDeep:
            reason = "Message too deep. Max recursion depth reached."
        case .expectedKey:
            reason = "Expected an object key or }."
        case .expectedColon:
            reason = "Expected : between key:value pair."
        case .expectedCommaOrClose:
            reason = state.inArray ? "Expected , or ] after array value." : "Expected , or } after key:value pair."
        case .trailingData:
            reason = "Parsing terminated before end of input."
        }
        let atEnd = offset >= bytes.count
        var start = atEnd ? offset : max(0, offset - 20)
        var end = atEnd ? offset : min(bytes.count, offset + 20)
        // Keep whole UTF-8 sequences.
        while start < offset, bytes[start] & 0xC0 == 0x80 {
            start += 1
        }
        while end < bytes.count, end > offset, bytes[end] & 0xC0 == 0x80 {
            end -= 1
        }
        let context = String(decoding: bytes[start..<end], as: UTF8.self)
        let caretIndent = String(repeating: " ", count: offset - start)
        return "Invalid JSON payload received. \(reason)\n\(context)\n\(caretIndent)^"
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        FCMASCII.isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".")
    }

    /// What a JSON parser expects after reading a valid prefix.
    private struct ParserState {
        private enum Expect {
            case value, keyOrClose, key, colon, commaOrClose, valueOrClose
        }

        private var stack: [Bool] = []  // true = array
        private var expect = Expect.value
        private var inString = false

        var inArray: Bool { stack.last ?? false }

        init(scanning prefix: ArraySlice<UInt8>) {
            var escaped = false
            var inScalar = false
            for byte in prefix {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                        finishValueOrKey()
                    }
                    continue
                }
                if inScalar {
                    if Self.isScalarByte(byte) { continue }
                    inScalar = false
                    finishValue()
                }
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D:
                    break
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: "{"):
                    stack.append(false)
                    expect = .keyOrClose
                case UInt8(ascii: "["):
                    stack.append(true)
                    expect = .valueOrClose
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    _ = stack.popLast()
                    finishValue()
                case UInt8(ascii: ":"):
                    expect = .value
                case UInt8(ascii: ","):
                    expect = inArray ? .value : .key
                default:
                    inScalar = true
                }
            }
            if inScalar { finishValue() }
        }

        private mutating func finishValueOrKey() {
            if expect == .key || expect == .keyOrClose {
                expect = .colon
            } else {
                finishValue()
            }
        }

        private mutating func finishValue() {
            expect = stack.isEmpty ? .value : .commaOrClose
        }

        private static func isScalarByte(_ byte: UInt8) -> Bool {
            FCMASCII.isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".")
        }

        /// The second sentence after "Unexpected end of string."
        var expectation: String {
            if inString { return "Closing quote expected in string." }
            switch expect {
            case .value, .valueOrClose: return "Expected a value."
            case .keyOrClose, .key: return "Expected an object key or }."
            case .colon: return "Expected : between key:value pair."
            case .commaOrClose:
                return inArray ? "Expected , or ] after array value." : "Expected , or } after key:value pair."
            }
        }
    }
}
