/// Helpers for the textual numbers stored in ``JSONValue/number(_:)``.
///
/// Numbers are kept as their original text so nothing is lost (64-bit IDs, huge exponents,
/// trailing zeros), but `1`, `1.0` and `10e-1` must still compare equal. Comparing through
/// `Double` would be wrong for large integers, so equality uses an exact decimal canonical
/// form: sign, significant digits without leading/trailing zeros, and a power-of-ten exponent.
enum JSONNumberText {
    /// `true` when `text` matches the RFC 8259 number grammar.
    static func isValid(_ text: String) -> Bool {
        if case .invalid = analyze(text) { return false }
        return true
    }

    /// Exact canonical key for numeric equality: equal iff the two numbers are mathematically
    /// equal. Text that is not a JSON number (only constructible by hand) maps to itself with a
    /// prefix, so it equals only identical text. Exponents beyond ±10^15 also fall back to text.
    static func equalityKey(_ text: String) -> String {
        if case .canonical(let key) = analyze(text) { return key }
        return "text:" + text
    }

    enum Analysis {
        /// Not a JSON number.
        case invalid
        /// A JSON number whose exponent is too large to normalise exactly.
        case unnormalizable
        /// `[-]digits"e"exponent`, or `"0"` for any zero.
        case canonical(String)
    }

    static func analyze(_ text: String) -> Analysis {
        let bytes = Array(text.utf8)
        var index = 0
        func isDigit(_ position: Int) -> Bool {
            position < bytes.count && bytes[position] >= 0x30 && bytes[position] <= 0x39
        }
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard isDigit(index) else { return .invalid }
        let integerStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { return .invalid }
        } else {
            while isDigit(index) { index += 1 }
        }
        var digits = Array(bytes[integerStart..<index])
        var exponent = 0
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { return .invalid }
            let fractionStart = index
            while isDigit(index) { index += 1 }
            digits += bytes[fractionStart..<index]
            exponent -= index - fractionStart
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            var exponentNegative = false
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard isDigit(index) else { return .invalid }
            var value = 0
            var overflow = false
            while isDigit(index) {
                if value > 1_000_000_000_000_000 {
                    overflow = true
                } else {
                    value = value * 10 + Int(bytes[index] - 0x30)
                }
                index += 1
            }
            if overflow {
                return index == bytes.count ? .unnormalizable : .invalid
            }
            exponent += exponentNegative ? -value : value
        }
        guard index == bytes.count else { return .invalid }
        guard let firstSignificant = digits.firstIndex(where: { $0 != UInt8(ascii: "0") }) else {
            return .canonical("0")
        }
        digits.removeFirst(firstSignificant)
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        return .canonical((negative ? "-" : "") + String(decoding: digits, as: UTF8.self) + "e" + String(exponent))
    }
}
