/// An ECMA-262 regular expression with the `u` flag and no other flag: the dialect JSON Schema
/// requires for `pattern` and `patternProperties`. A small backtracking engine over code points,
/// written for PushMock, because ICU (`NSRegularExpression`) differs where it matters: its `\d`,
/// `\w`, `\s` and `\b` are Unicode-wide, its `$` matches before a final newline, its `.` skips
/// U+0085, it accepts `\z`, `\A`, `(?>…)`, `a*+`, `(?i)` that ECMA rejects, it fails a
/// backreference to a group that did not take part (ECMA matches it empty), keeps captures
/// across iterations (ECMA resets them) and needs lookbehind of bounded length.
///
/// Searches like `RegExp.prototype.test`: unanchored unless the pattern says `^`/`$`.
package struct ECMARegex: Sendable, Hashable {
    package let source: String
    let program: RegexNode
    let captureCount: Int
    let startsAnchored: Bool

    package init(_ pattern: String) throws(ECMARegexError) {
        var parser = RegexParser(Array(pattern.unicodeScalars).map(\.value))
        let node = try parser.parsePattern()
        source = pattern
        program = node
        captureCount = parser.captureCount
        startsAnchored = node.startsAnchored
    }

    /// Backtracking steps, and stack bytes, one search may take before it gives up: a pattern
    /// like `^(a+)+$` on a long string, or a quantified group over thousands of characters
    /// (each iteration nests deeper), must neither stall the event loop nor overflow a
    /// thread's stack (512 KiB for some).
    package static let stepLimit = 1_000_000
    package static let stackLimit = 256 * 1024

    /// Whether the pattern matches somewhere in `text`; `nil` when the search gave up
    /// (``stepLimit``, ``stackLimit``).
    package func firstMatch(in text: String) -> Bool? {
        let input = text.unicodeScalars.map(\.value)
        let matcher = RegexMatcher(input: input, budget: RegexBudget())
        let captures = [Int](repeating: -1, count: 2 * (captureCount + 1))
        for start in 0...input.count {
            if matcher.match(program, start, captures, backward: false, { _, _ in true }) { return true }
            if matcher.budget.exhausted { return nil }
            if startsAnchored { break }
        }
        return matcher.budget.exhausted ? nil : false
    }

    /// Whether the pattern matches somewhere in `text` (`false` when the search gave up).
    package func matches(_ text: String) -> Bool { firstMatch(in: text) ?? false }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.source == rhs.source }
    package func hash(into hasher: inout Hasher) { hasher.combine(source) }
}

/// Why a pattern is not an ECMA-262 regular expression, and at which code point.
package struct ECMARegexError: Error, Sendable, Hashable, CustomStringConvertible {
    package var offset: Int
    package var message: String
    package var description: String { "\(message) (at character \(offset))" }
}

// MARK: - The program

/// One set of code points: ranges, Unicode properties, or the complement of either.
struct CodePointSet: Sendable, Hashable {
    enum Item: Sendable, Hashable {
        case range(UInt32, UInt32)
        case property(UnicodeProperty, negated: Bool)
        case complement([Item])
    }

    var items: [Item]
    var negated = false

    func contains(_ value: UInt32) -> Bool { Self.anyContains(items, value) != negated }

    private static func anyContains(_ items: [Item], _ value: UInt32) -> Bool {
        for item in items {
            switch item {
            case .range(let low, let high): if value >= low && value <= high { return true }
            case .property(let property, let negated): if property.contains(value) != negated { return true }
            case .complement(let inner): if !anyContains(inner, value) { return true }
            }
        }
        return false
    }

    static let digitItems: [Item] = [.range(0x30, 0x39)]
    static let wordItems: [Item] = [.range(0x30, 0x39), .range(0x41, 0x5A), .range(0x5F, 0x5F), .range(0x61, 0x7A)]
    /// WhiteSpace and LineTerminator of ECMA-262 (§12.2, §12.3): not ICU's `\s`.
    static let spaceItems: [Item] = [
        .range(0x09, 0x0D), .range(0x20, 0x20), .range(0xA0, 0xA0), .range(0x1680, 0x1680), .range(0x2000, 0x200A),
        .range(0x2028, 0x2029), .range(0x202F, 0x202F), .range(0x205F, 0x205F), .range(0x3000, 0x3000), .range(0xFEFF, 0xFEFF),
    ]
    /// `.` without the `s` flag: anything but a line terminator.
    static let dot = CodePointSet(items: [.range(0x0A, 0x0A), .range(0x0D, 0x0D), .range(0x2028, 0x2029)], negated: true)

    static func isWord(_ value: UInt32) -> Bool {
        (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || value == 0x5F || (value >= 0x61 && value <= 0x7A)
    }
}

indirect enum RegexNode: Sendable, Hashable {
    case empty
    case character(UInt32)
    case set(CodePointSet)
    case sequence([RegexNode])
    case alternation([RegexNode])
    case capture(Int, RegexNode)
    case lookaround(RegexNode, ahead: Bool, negated: Bool)
    /// `captures`: the groups inside, cleared at each iteration as ECMA-262 says.
    case repetition(RegexNode, min: Int, max: Int, greedy: Bool, captures: Range<Int>)
    case backreference(Int)
    case inputStart, inputEnd
    case wordBoundary(negated: Bool)

    var startsAnchored: Bool {
        switch self {
        case .inputStart: true
        case .sequence(let nodes): nodes.first?.startsAnchored ?? false
        case .capture(_, let node): node.startsAnchored
        case .alternation(let nodes): nodes.allSatisfy(\.startsAnchored)
        default: false
        }
    }

    /// One code point, no captures: repeated without recursion.
    var isSingleCodePoint: Bool {
        switch self {
        case .character, .set: true
        default: false
        }
    }

    /// Whether a single-code-point node accepts `value`.
    func accepts(_ value: UInt32) -> Bool {
        switch self {
        case .character(let character): value == character
        case .set(let set): set.contains(value)
        default: false
        }
    }
}

// MARK: - Matching

/// What one search may still spend; once exhausted every step fails at once, so the search
/// unwinds quickly.
final class RegexBudget {
    var steps = ECMARegex.stepLimit
    var exhausted = false
    private let stackStart = RegexBudget.stackAddress()

    func enter() -> Bool {
        steps -= 1
        if steps < 0 { exhausted = true }
        return !exhausted
    }

    /// Only a repeated group nests without bound (the rest nests as deep as the pattern is
    /// long), so only its iterations look at the stack.
    func enterIteration() -> Bool {
        let here = Self.stackAddress()
        // Stacks grow down on every platform Swift runs PushMock on.
        if stackStart > here && stackStart - here > ECMARegex.stackLimit { exhausted = true }
        return !exhausted
    }

    @inline(never)
    private static func stackAddress() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }
}
/// Backtracking in continuation-passing style: each node calls `next` with where it ended and
/// the captures, and returns whether the rest of the pattern matched from there.
struct RegexMatcher {
    let input: [UInt32]
    let budget: RegexBudget
    typealias Next = (Int, [Int]) -> Bool

    /// A thin dispatcher: each kind of node has its own function, so the frame that every
    /// nesting level pays for stays small.
    func match(_ node: RegexNode, _ index: Int, _ captures: [Int], backward: Bool, _ next: Next) -> Bool {
        guard budget.enter() else { return false }
        switch node {
        case .empty:
            return next(index, captures)
        case .character, .set:
            return single(node, index, captures, backward: backward, next)
        case .sequence(let nodes):
            return sequence(nodes, 0, index, captures, backward: backward, next)
        case .alternation(let nodes):
            for alternative in nodes where match(alternative, index, captures, backward: backward, next) { return true }
            return false
        case .capture(let number, let inner):
            return capture(number, inner, index, captures, backward: backward, next)
        case .lookaround(let inner, let ahead, let negated):
            return lookaround(inner, ahead: ahead, negated: negated, index, captures, next)
        case .repetition(let inner, let minimum, let maximum, let greedy, let groups):
            if inner.isSingleCodePoint {
                return repeatSingle(inner, minimum, maximum, greedy, index, captures, backward: backward, next)
            }
            return repetition(inner, minimum, maximum, greedy, groups, 0, index, captures, backward: backward, next)
        case .backreference(let number):
            return backreference(number, index, captures, backward: backward, next)
        case .inputStart:
            return index == 0 ? next(index, captures) : false
        case .inputEnd:
            return index == input.count ? next(index, captures) : false
        case .wordBoundary(let negated):
            let before = index > 0 && CodePointSet.isWord(input[index - 1])
            let after = index < input.count && CodePointSet.isWord(input[index])
            return (before != after) != negated ? next(index, captures) : false
        }
    }

    @inline(never)
    private func single(_ node: RegexNode, _ index: Int, _ captures: [Int], backward: Bool, _ next: Next) -> Bool {
        if backward {
            guard index > 0, node.accepts(input[index - 1]) else { return false }
            return next(index - 1, captures)
        }
        guard index < input.count, node.accepts(input[index]) else { return false }
        return next(index + 1, captures)
    }

    @inline(never)
    private func capture(_ number: Int, _ inner: RegexNode, _ index: Int, _ captures: [Int], backward: Bool, _ next: Next) -> Bool {
        match(inner, index, captures, backward: backward) { end, innerCaptures in
            var updated = innerCaptures
            updated[2 * number] = backward ? end : index
            updated[2 * number + 1] = backward ? index : end
            return next(end, updated)
        }
    }

    @inline(never)
    private func lookaround(_ inner: RegexNode, ahead: Bool, negated: Bool, _ index: Int, _ captures: [Int], _ next: Next) -> Bool {
        var found: [Int]?
        _ = match(inner, index, captures, backward: !ahead) { _, innerCaptures in
            found = innerCaptures
            return true
        }
        if negated { return found == nil ? next(index, captures) : false }
        guard let found else { return false }
        return next(index, found)
    }

    @inline(never)
    private func backreference(_ number: Int, _ index: Int, _ captures: [Int], backward: Bool, _ next: Next) -> Bool {
        let start = captures[2 * number]
        let end = captures[2 * number + 1]
        // A group that did not take part matches the empty string (ECMA-262 §22.2.2.9).
        guard start >= 0, end >= 0 else { return next(index, captures) }
        let length = end - start
        if backward {
            guard index - length >= 0, input[(index - length)..<index].elementsEqual(input[start..<end]) else { return false }
            return next(index - length, captures)
        }
        guard index + length <= input.count, input[index..<(index + length)].elementsEqual(input[start..<end]) else { return false }
        return next(index + length, captures)
    }

    private func sequence(_ nodes: [RegexNode], _ position: Int, _ index: Int, _ captures: [Int], backward: Bool, _ next: Next) -> Bool {
        guard position < nodes.count else { return next(index, captures) }
        // Lookbehind runs right to left, its terms in reverse order.
        let node = nodes[backward ? nodes.count - 1 - position : position]
        return match(node, index, captures, backward: backward) { end, updated in
            sequence(nodes, position + 1, end, updated, backward: backward, next)
        }
    }

    private func repeatSingle(
        _ single: RegexNode, _ minimum: Int, _ maximum: Int, _ greedy: Bool, _ index: Int, _ captures: [Int], backward: Bool,
        _ next: Next
    ) -> Bool {
        var count = 0
        var position = index
        while count < maximum {
            if backward {
                guard position > 0, single.accepts(input[position - 1]) else { break }
                position -= 1
            } else {
                guard position < input.count, single.accepts(input[position]) else { break }
                position += 1
            }
            count += 1
        }
        guard count >= minimum else { return false }
        let step = backward ? -1 : 1
        if greedy {
            for taken in stride(from: count, through: minimum, by: -1) where next(index + step * taken, captures) { return true }
        } else {
            for taken in minimum...count where next(index + step * taken, captures) { return true }
        }
        return false
    }

    private func repetition(
        _ inner: RegexNode, _ minimum: Int, _ maximum: Int, _ greedy: Bool, _ groups: Range<Int>, _ done: Int, _ index: Int,
        _ captures: [Int], backward: Bool, _ next: Next
    ) -> Bool {
        if done >= maximum { return next(index, captures) }
        func iterate() -> Bool {
            guard budget.enterIteration() else { return false }
            var cleared = captures
            for group in groups {
                cleared[2 * group] = -1
                cleared[2 * group + 1] = -1
            }
            return match(inner, index, cleared, backward: backward) { end, updated in
                // An optional iteration that consumed nothing ends the loop (ECMA-262 RepeatMatcher).
                if done >= minimum && end == index { return false }
                return repetition(inner, minimum, maximum, greedy, groups, done + 1, end, updated, backward: backward, next)
            }
        }
        if done < minimum { return iterate() }
        return greedy ? (iterate() || next(index, captures)) : (next(index, captures) || iterate())
    }
}
