/// Recursive-descent parser for ``FCMCondition`` (grammar in its documentation).
struct FCMConditionParser {
    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    mutating func parseCondition() throws(FCMConditionError) -> FCMCondition.Expression {
        skipWhitespace()
        guard position < bytes.count else { throw error("the condition is empty") }
        let expression = try parseOr()
        skipWhitespace()
        guard position == bytes.count else { throw error("unexpected \(describeCurrent())") }
        return expression
    }

    private mutating func parseOr() throws(FCMConditionError) -> FCMCondition.Expression {
        var left = try parseAnd()
        while try consumeOperator(UInt8(ascii: "|")) {
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(FCMConditionError) -> FCMCondition.Expression {
        var left = try parseUnary()
        while try consumeOperator(UInt8(ascii: "&")) {
            left = .and(left, try parseUnary())
        }
        return left
    }

    private mutating func parseUnary() throws(FCMConditionError) -> FCMCondition.Expression {
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "!") {
            position += 1
            try enter()
            defer { depth -= 1 }
            return .not(try parseUnary())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(FCMConditionError) -> FCMCondition.Expression {
        skipWhitespace()
        guard position < bytes.count else {
            throw error("expected a quoted topic name, '(' or '!' but the condition ended")
        }
        let byte = bytes[position]
        if byte == UInt8(ascii: "(") {
            position += 1
            try enter()
            defer { depth -= 1 }
            let inner = try parseOr()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ")") else {
                throw error("expected ')' but found \(describeCurrent())")
            }
            position += 1
            return inner
        }
        guard byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") else {
            throw error("expected a quoted topic name, '(' or '!' but found \(describeCurrent())")
        }
        let name = try parseQuotedTopic(quote: byte)
        try expectWord("in")
        try expectWord("topics")
        return .topic(name)
    }

    private mutating func parseQuotedTopic(quote: UInt8) throws(FCMConditionError) -> String {
        let start = position
        position += 1
        let nameStart = position
        while position < bytes.count, bytes[position] != quote {
            position += 1
        }
        guard position < bytes.count else {
            throw FCMConditionError(offset: start, reason: "unterminated topic name")
        }
        let nameBytes = bytes[nameStart..<position]
        position += 1
        guard !nameBytes.isEmpty else { throw FCMConditionError(offset: start, reason: "empty topic name") }
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard nameBytes.allSatisfy(FCMASCII.isTopicCharacter) else {
            throw FCMConditionError(
                offset: nameStart,
                reason: "invalid topic name '\(name)'; topic names must match [a-zA-Z0-9-_.~%]+"
            )
        }
        return name
    }

    /// Consumes `&&` or `||` (the doubled `symbol`); a single one is an error.
    private mutating func consumeOperator(_ symbol: UInt8) throws(FCMConditionError) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == symbol else { return false }
        guard position + 1 < bytes.count, bytes[position + 1] == symbol else {
            let doubled = String(decoding: [symbol, symbol], as: UTF8.self)
            throw error("expected '\(doubled)'")
        }
        position += 2
        return true
    }

    private mutating func expectWord(_ word: String) throws(FCMConditionError) {
        skipWhitespace()
        let start = position
        while position < bytes.count, FCMASCII.isLetterOrDigit(bytes[position]) || bytes[position] == UInt8(ascii: "_") {
            position += 1
        }
        let found = bytes[start..<position]
        guard found.elementsEqual(word.utf8) else {
            if found.isEmpty {
                throw error("expected 'in topics' but found \(describeCurrent())")
            }
            throw FCMConditionError(
                offset: start,
                reason: "expected 'in topics' but found '\(String(decoding: found, as: UTF8.self))'"
            )
        }
    }

    private mutating func enter() throws(FCMConditionError) {
        depth += 1
        if depth > FCMCondition.maximumNesting {
            throw error("the condition is nested more than \(FCMCondition.maximumNesting) levels deep")
        }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count,
            bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A || bytes[position] == 0x0D
        {
            position += 1
        }
    }

    private func describeCurrent() -> String {
        guard position < bytes.count else { return "the end of the condition" }
        var end = position + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 {
            end += 1
        }
        return "'\(String(decoding: bytes[position..<end], as: UTF8.self))'"
    }

    private func error(_ reason: String) -> FCMConditionError {
        FCMConditionError(offset: position, reason: reason)
    }
}
