/// Reads an ECMA-262 pattern under the `u` flag's grammar (§22.2.1), which is strict: an escape
/// that means nothing (`\a`, `\z`), a lone `{`, `}` or `]`, a quantifier with nothing to
/// repeat (`a**`, `a*+`), a group kind ECMA does not have (`(?>…)`, `(?i)`, `(?#…)`) or a
/// backreference to a group that does not exist is an error, never a literal.
struct RegexParser {
    /// How deep groups may nest. Parsing, matching and freeing a pattern all recurse through
    /// its groups, and 2,000 nested `(?:` in a contract (8 KB to `PUT /_pushmock/contracts`)
    /// overflowed the stack and took the gateway down; real patterns nest a handful.
    static let maximumGroupDepth = 100

    private let pattern: [UInt32]
    private var position = 0
    private(set) var captureCount = 0
    private var groupNames: [String: Int] = [:]
    /// Groups open around the current position.
    private var groupDepth = 0
    private let totalCaptures: Int
    private let declaredNames: Set<String>

    init(_ pattern: [UInt32]) {
        self.pattern = pattern
        (totalCaptures, declaredNames) = Self.survey(pattern)
    }

    mutating func parsePattern() throws(ECMARegexError) -> RegexNode {
        let node = try disjunction()
        if position < pattern.count {
            throw error(pattern[position] == 0x29 ? "unmatched )" : "unexpected \(Self.text(pattern[position]))")
        }
        return node
    }

    // MARK: Grammar

    private mutating func disjunction() throws(ECMARegexError) -> RegexNode {
        var alternatives = [try alternative()]
        while peek == 0x7C {  // |
            position += 1
            alternatives.append(try alternative())
        }
        if alternatives.count == 1 { return alternatives[0] }
        // `a|b|[0-9]`: each alternative takes exactly one code point and captures nothing, so
        // one set matches the same — and repeats without nesting (`(?:a|b)*`).
        if alternatives.allSatisfy(\.isSingleCodePoint) {
            return .set(CodePointSet(items: alternatives.map(singleItem)))
        }
        return .alternation(alternatives)
    }

    private func singleItem(_ node: RegexNode) -> CodePointSet.Item {
        switch node {
        case .character(let value): .range(value, value)
        case .set(let set): set.negated ? .complement(set.items) : contentsOf(set)
        default: .complement([])
        }
    }

    private mutating func alternative() throws(ECMARegexError) -> RegexNode {
        var terms: [RegexNode] = []
        while let next = peek, next != 0x7C, next != 0x29 {
            terms.append(try term())
        }
        switch terms.count {
        case 0: return .empty
        case 1: return terms[0]
        default: return .sequence(terms)
        }
    }

    private mutating func term() throws(ECMARegexError) -> RegexNode {
        let start = position
        let capturesBefore = captureCount
        guard let scalar = peek else { throw error("unexpected end") }
        var quantifiable = true
        let atom: RegexNode
        switch scalar {
        case 0x5E:  // ^
            position += 1
            atom = .inputStart
            quantifiable = false
        case 0x24:  // $
            position += 1
            atom = .inputEnd
            quantifiable = false
        case 0x5C where lookingAt("\\b") || lookingAt("\\B"):
            atom = .wordBoundary(negated: pattern[position + 1] == 0x42)
            position += 2
            quantifiable = false
        case 0x28:  // (
            (atom, quantifiable) = try group()
        case 0x2E:  // .
            position += 1
            atom = .set(CodePointSet.dot)
        case 0x5B:  // [
            atom = .set(try characterClass())
        case 0x5C:
            atom = try atomEscape()
        case 0x2A, 0x2B, 0x3F:  // * + ?
            throw error("nothing to repeat")
        case 0x7B:  // {
            throw error(quantifierAhead() ? "nothing to repeat" : "a lone { must be escaped")
        case 0x7D, 0x5D:  // } ]
            throw error("a lone \(Self.text(scalar)) must be escaped")
        default:
            position += 1
            atom = .character(scalar)
        }
        guard let (minimum, maximum, greedy) = try quantifier() else { return atom }
        guard quantifiable else {
            position = start
            throw error("nothing to repeat")
        }
        return .repetition(atom, min: minimum, max: maximum, greedy: greedy, captures: (capturesBefore + 1)..<(captureCount + 1))
    }

    /// `(…)`, `(?:…)`, `(?<name>…)`, lookahead and lookbehind; lookarounds take no quantifier
    /// under the `u` flag.
    private mutating func group() throws(ECMARegexError) -> (RegexNode, quantifiable: Bool) {
        let open = position
        guard groupDepth < Self.maximumGroupDepth else { throw error("groups nest more than \(Self.maximumGroupDepth) levels deep") }
        groupDepth += 1
        defer { groupDepth -= 1 }
        position += 1
        var result: RegexNode
        var quantifiable = true
        if lookingAt("?:") {
            position += 2
            result = try disjunction()
        } else if lookingAt("?=") || lookingAt("?!") {
            let negated = pattern[position + 1] == 0x21
            position += 2
            result = .lookaround(try disjunction(), ahead: true, negated: negated)
            quantifiable = false
        } else if lookingAt("?<=") || lookingAt("?<!") {
            let negated = pattern[position + 2] == 0x21
            position += 3
            result = .lookaround(try disjunction(), ahead: false, negated: negated)
            quantifiable = false
        } else if lookingAt("?<") {
            position += 2
            let name = try groupName()
            captureCount += 1
            guard groupNames[name] == nil else { throw error("the group name \(name) is used twice") }
            groupNames[name] = captureCount
            let number = captureCount
            result = .capture(number, try disjunction())
        } else if peek == 0x3F {
            throw error("(? must be (?:, (?=, (?!, (?<=, (?<! or (?<name>: ECMA-262 has no other group kind")
        } else {
            captureCount += 1
            let number = captureCount
            result = .capture(number, try disjunction())
        }
        guard peek == 0x29 else {
            position = open
            throw error("unterminated group")
        }
        position += 1
        return (result, quantifiable)
    }

    private mutating func groupName() throws(ECMARegexError) -> String {
        var name = ""
        while let scalar = peek, scalar != 0x3E {
            guard let character = Unicode.Scalar(scalar),
                character.properties.isIDContinue || scalar == 0x24 || scalar == 0x5F || scalar == 0x200C || scalar == 0x200D,
                !name.isEmpty || character.properties.isIDStart || scalar == 0x24 || scalar == 0x5F
            else { throw error("invalid group name") }
            name.unicodeScalars.append(character)
            position += 1
        }
        guard peek == 0x3E, !name.isEmpty else { throw error("invalid group name") }
        position += 1
        return name
    }

    private mutating func quantifier() throws(ECMARegexError) -> (Int, Int, Bool)? {
        guard let scalar = peek else { return nil }
        var bounds: (Int, Int)
        switch scalar {
        case 0x2A: bounds = (0, .max)
        case 0x2B: bounds = (1, .max)
        case 0x3F: bounds = (0, 1)
        case 0x7B:
            guard quantifierAhead() else { throw error("a lone { must be escaped") }
            position += 1
            let low = number()!
            var high = low
            if peek == 0x2C {
                position += 1
                high = number() ?? .max
            }
            guard low <= high else { throw error("numbers out of order in {} quantifier") }
            bounds = (low, high)
        default:
            return nil
        }
        position += 1
        var greedy = true
        if peek == 0x3F {
            greedy = false
            position += 1
        }
        if let next = peek, [0x2A, 0x2B, 0x3F].contains(next) || (next == 0x7B && quantifierAhead()) {
            throw error("nothing to repeat (ECMA-262 has no possessive or double quantifier)")
        }
        return (bounds.0, bounds.1, greedy)
    }

    /// `{n}`, `{n,}` or `{n,m}` starts here.
    private func quantifierAhead() -> Bool {
        var index = position + 1
        func digits() -> Bool {
            let start = index
            while index < pattern.count, (0x30...0x39).contains(pattern[index]) { index += 1 }
            return index > start
        }
        guard digits() else { return false }
        if index < pattern.count, pattern[index] == 0x2C {
            index += 1
            _ = digits()
        }
        return index < pattern.count && pattern[index] == 0x7D
    }

    /// Decimal digits, saturating (a bound past `Int.max` means "unbounded" in practice).
    private mutating func number() -> Int? {
        var value: Int?
        while let scalar = peek, (0x30...0x39).contains(scalar) {
            let (product, overflow) = (value ?? 0).multipliedReportingOverflow(by: 10)
            value = overflow ? .max : product.addingReportingOverflow(Int(scalar - 0x30)).overflow ? .max : product + Int(scalar - 0x30)
            position += 1
        }
        return value
    }

    // MARK: Escapes

    private mutating func atomEscape() throws(ECMARegexError) -> RegexNode {
        position += 1
        guard let scalar = peek else { throw error("\\ at end of pattern") }
        switch scalar {
        case 0x31...0x39:
            let start = position
            let group = number()!
            guard group <= totalCaptures else {
                position = start
                throw error("backreference \\\(group) to a group that does not exist")
            }
            return .backreference(group)
        case 0x6B:  // k
            position += 1
            guard peek == 0x3C else { throw error("\\k must be followed by <name>") }
            position += 1
            let name = try groupName()
            guard declaredNames.contains(name) else { throw error("\\k<\(name)> names no group") }
            return .backreference(Self.groupNumber(of: name, in: pattern))
        default:
            if let set = try classEscape() { return .set(set) }
            return .character(try characterEscape(inClass: false))
        }
    }

    /// `\d \D \w \W \s \S \p{…} \P{…}`, or nil for another escape (position unchanged).
    private mutating func classEscape() throws(ECMARegexError) -> CodePointSet? {
        guard let scalar = peek else { return nil }
        switch scalar {
        case 0x64: position += 1; return CodePointSet(items: CodePointSet.digitItems)
        case 0x44: position += 1; return CodePointSet(items: CodePointSet.digitItems, negated: true)
        case 0x77: position += 1; return CodePointSet(items: CodePointSet.wordItems)
        case 0x57: position += 1; return CodePointSet(items: CodePointSet.wordItems, negated: true)
        case 0x73: position += 1; return CodePointSet(items: CodePointSet.spaceItems)
        case 0x53: position += 1; return CodePointSet(items: CodePointSet.spaceItems, negated: true)
        case 0x70, 0x50:  // p P
            position += 1
            guard peek == 0x7B else { throw error("\\p must be followed by {property}") }
            position += 1
            var text = ""
            while let next = peek, next != 0x7D {
                guard let character = Unicode.Scalar(next) else { break }
                text.unicodeScalars.append(character)
                position += 1
            }
            guard peek == 0x7D else { throw error("unterminated \\p{") }
            position += 1
            guard let property = UnicodeProperty(ecmaName: text) else {
                throw error("\\p{\(text)} is not a Unicode property ECMA-262 knows (or not one PushMock supports)")
            }
            return CodePointSet(items: [.property(property, negated: scalar == 0x50)])
        default:
            return nil
        }
    }

    /// A single code point: control escapes, `\cX`, `\0`, `\xHH`, `\uHHHH` (pairs combined),
    /// `\u{…}`, or a syntax character escaped; `\b` and `\-` only inside a class.
    private mutating func characterEscape(inClass: Bool) throws(ECMARegexError) -> UInt32 {
        guard let scalar = peek else { throw error("\\ at end of pattern") }
        position += 1
        switch scalar {
        case 0x66: return 0x0C
        case 0x6E: return 0x0A
        case 0x72: return 0x0D
        case 0x74: return 0x09
        case 0x76: return 0x0B
        case 0x63:  // c
            guard let letter = peek, (0x41...0x5A).contains(letter) || (0x61...0x7A).contains(letter) else {
                throw error("\\c must be followed by a letter")
            }
            position += 1
            return letter % 32
        case 0x30:
            if let next = peek, (0x30...0x39).contains(next) { throw error("octal escapes are not allowed with the u flag") }
            return 0
        case 0x78:  // x
            guard let value = hexDigits(count: 2) else { throw error("\\x must be followed by two hex digits") }
            return value
        case 0x75:  // u
            if peek == 0x7B {
                position += 1
                var value: UInt32 = 0
                var digits = 0
                while let next = peek, let digit = Self.hexValue(next) {
                    value = value &* 16 &+ digit
                    digits += 1
                    guard value <= 0x10FFFF else { throw error("\\u{…} beyond U+10FFFF") }
                    position += 1
                }
                guard digits > 0, peek == 0x7D else { throw error("invalid \\u{…} escape") }
                position += 1
                return value
            }
            guard let value = hexDigits(count: 4) else { throw error("\\u must be followed by four hex digits or {…}") }
            // A surrogate pair written as two escapes is one code point under the u flag.
            if (0xD800...0xDBFF).contains(value), lookingAt("\\u") {
                let saved = position
                position += 2
                if let low = hexDigits(count: 4), (0xDC00...0xDFFF).contains(low) {
                    return 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                position = saved
            }
            return value
        case 0x62 where inClass: return 0x08
        case 0x2D where inClass: return 0x2D
        case 0x5E, 0x24, 0x5C, 0x2E, 0x2A, 0x2B, 0x3F, 0x28, 0x29, 0x5B, 0x5D, 0x7B, 0x7D, 0x7C, 0x2F:
            return scalar
        default:
            position -= 1
            throw error("\\\(Self.text(scalar)) is not an ECMA-262 escape")
        }
    }

    private mutating func hexDigits(count: Int) -> UInt32? {
        guard position + count <= pattern.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<count {
            guard let digit = Self.hexValue(pattern[position + offset]) else { return nil }
            value = value * 16 + digit
        }
        position += count
        return value
    }

    private static func hexValue(_ scalar: UInt32) -> UInt32? {
        switch scalar {
        case 0x30...0x39: scalar - 0x30
        case 0x41...0x46: scalar - 0x41 + 10
        case 0x61...0x66: scalar - 0x61 + 10
        default: nil
        }
    }

    // MARK: Classes

    private mutating func characterClass() throws(ECMARegexError) -> CodePointSet {
        let open = position
        position += 1
        var set = CodePointSet(items: [])
        if peek == 0x5E {
            set.negated = true
            position += 1
        }
        while true {
            guard let scalar = peek else {
                position = open
                throw error("unterminated character class")
            }
            if scalar == 0x5D {
                position += 1
                return set
            }
            let first = try classAtom()
            if peek == 0x2D, position + 1 < pattern.count, pattern[position + 1] != 0x5D {
                position += 1
                let second = try classAtom()
                guard case .single(let low) = first, case .single(let high) = second else {
                    throw error("a class escape cannot bound a range")
                }
                guard low <= high else { throw error("range out of order in character class") }
                set.items.append(.range(low, high))
            } else {
                switch first {
                case .single(let value): set.items.append(.range(value, value))
                case .set(let inner): set.items.append(inner.negated ? .complement(inner.items) : contentsOf(inner))
                }
            }
        }
    }

    private func contentsOf(_ set: CodePointSet) -> CodePointSet.Item {
        set.items.count == 1 ? set.items[0] : .complement([.complement(set.items)])
    }

    private enum ClassAtom {
        case single(UInt32)
        case set(CodePointSet)
    }

    private mutating func classAtom() throws(ECMARegexError) -> ClassAtom {
        let scalar = pattern[position]
        guard scalar == 0x5C else {
            position += 1
            return .single(scalar)
        }
        position += 1
        if let set = try classEscape() { return .set(set) }
        if let next = peek, (0x31...0x39).contains(next) { throw error("a backreference cannot be in a character class") }
        return .single(try characterEscape(inClass: true))
    }

    // MARK: Helpers

    private var peek: UInt32? { position < pattern.count ? pattern[position] : nil }

    private func lookingAt(_ text: String) -> Bool {
        let scalars = text.unicodeScalars.map(\.value)
        guard position + scalars.count <= pattern.count else { return false }
        return Array(pattern[position..<(position + scalars.count)]) == scalars
    }

    private func error(_ message: String) -> ECMARegexError { ECMARegexError(offset: position, message: message) }

    private static func text(_ scalar: UInt32) -> String { Unicode.Scalar(scalar).map { String(Character($0)) } ?? "?" }

    /// Capturing groups and group names in the whole pattern: a backreference may come before
    /// its group (`\1(a)`), and `\1` naming a group that does not exist is an error.
    private static func survey(_ pattern: [UInt32]) -> (Int, Set<String>) {
        var count = 0
        var names = Set<String>()
        var index = 0
        var inClass = false
        while index < pattern.count {
            let scalar = pattern[index]
            if scalar == 0x5C {
                index += 2
                continue
            }
            if inClass {
                if scalar == 0x5D { inClass = false }
            } else if scalar == 0x5B {
                inClass = true
            } else if scalar == 0x28 {
                let next = index + 1 < pattern.count ? pattern[index + 1] : 0
                if next != 0x3F {
                    count += 1
                } else if index + 2 < pattern.count, pattern[index + 2] == 0x3C, index + 3 < pattern.count,
                    pattern[index + 3] != 0x3D, pattern[index + 3] != 0x21
                {
                    count += 1
                    var name = ""
                    var end = index + 3
                    while end < pattern.count, pattern[end] != 0x3E, let character = Unicode.Scalar(pattern[end]) {
                        name.unicodeScalars.append(character)
                        end += 1
                    }
                    names.insert(name)
                }
            }
            index += 1
        }
        return (count, names)
    }

    private static func groupNumber(of name: String, in pattern: [UInt32]) -> Int {
        let target = Array("(?<\(name)>".unicodeScalars.map(\.value))
        var count = 0
        var index = 0
        var inClass = false
        while index < pattern.count {
            let scalar = pattern[index]
            if scalar == 0x5C {
                index += 2
                continue
            }
            if inClass {
                if scalar == 0x5D { inClass = false }
            } else if scalar == 0x5B {
                inClass = true
            } else if scalar == 0x28 {
                let next = index + 1 < pattern.count ? pattern[index + 1] : 0
                let named =
                    next == 0x3F && index + 3 < pattern.count && pattern[index + 2] == 0x3C && pattern[index + 3] != 0x3D
                    && pattern[index + 3] != 0x21
                if next != 0x3F || named { count += 1 }
                if named, index + target.count <= pattern.count, Array(pattern[index..<(index + target.count)]) == target {
                    return count
                }
            }
            index += 1
        }
        return 0
    }
}
