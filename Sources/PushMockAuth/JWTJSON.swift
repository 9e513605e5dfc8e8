import Foundation

/// The small amount of JSON handling JWTs need: reading header and claims objects with
/// Foundation (the results are cached by callers, so this path is not hot), interpreting
/// NumericDate values the way real clients send them, and writing the few JSON texts PushMock
/// signs itself.
enum JWTJSON {
    /// The outcome of reading a NumericDate claim such as `iat` or `exp`.
    enum NumericDate: Equatable {
        case absent
        case invalid
        case seconds(Int64)
    }

    /// Parses bytes as a JSON object, or returns `nil` if they are not one.
    static func object(from bytes: [UInt8]) -> [String: Any]? {
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes)) else { return nil }
        return value as? [String: Any]
    }

    /// Interprets a NumericDate as whole seconds since the epoch.
    ///
    /// Accepts a JSON integer, a JSON floating-point number (truncated toward zero: clients such
    /// as some Node libraries send milliseconds as a fraction) and a string of ASCII digits
    /// (APNSwift sends `"iat": "1700000000"`). Booleans, `null`, other strings and times outside
    /// ``secondsRange`` are invalid.
    static func numericDate(_ value: Any?) -> NumericDate {
        switch wholeSeconds(value) {
        case .seconds(let seconds) where !secondsRange.contains(seconds): .invalid
        case let date: date
        }
    }

    /// The NumericDates a JWT may carry: years 1 to 9999, the times every other part of the
    /// gateway takes. Beyond them no clock can be, and ages computed from `Int64.min` overflow
    /// (a signed token with `"iat": -9223372036854775808` once took the gateway down).
    static let secondsRange: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    private static func wholeSeconds(_ value: Any?) -> NumericDate {
        guard let value else { return .absent }
        if let text = value as? String {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let seconds = Int64(text)
            else { return .invalid }
            return .seconds(seconds)
        }
        guard let number = value as? NSNumber else { return .invalid }
        switch String(cString: number.objCType) {
        case "c", "B":
            // JSONSerialization represents `true` / `false` as a char-typed NSNumber.
            return .invalid
        case "d", "f":
            let double = number.doubleValue
            guard double.isFinite, let seconds = Int64(exactly: double.rounded(.towardZero)) else {
                return .invalid
            }
            return .seconds(seconds)
        case "Q", "L", "I", "S":
            guard let seconds = Int64(exactly: number.uint64Value) else { return .invalid }
            return .seconds(seconds)
        default:
            return .seconds(number.int64Value)
        }
    }

    /// Removes insignificant whitespace from (already validated) JSON text, keeping key order
    /// and number spelling exactly as sent, so that a recording shows what the client wrote.
    static func compactText(_ json: [UInt8]) -> String {
        var output = [UInt8]()
        output.reserveCapacity(json.count)
        var insideString = false
        var escaping = false
        for byte in json {
            if insideString {
                output.append(byte)
                if escaping {
                    escaping = false
                } else if byte == UInt8(ascii: "\\") {
                    escaping = true
                } else if byte == UInt8(ascii: "\"") {
                    insideString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "\""):
                insideString = true
                output.append(byte)
            default:
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A JSON string literal for `text`, with the escapes RFC 8259 requires.
    static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
