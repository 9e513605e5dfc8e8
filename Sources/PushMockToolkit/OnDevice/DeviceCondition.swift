/// A condition string of an in-app notification config (`scheduleCondition`,
/// `idealDeliveryConditions.condition`), parsed once and evaluated against a simulated
/// device's state (``DeviceState``) at a moment of the virtual clock.
///
/// The app's SDK evaluates these on the phone with a full expression language; PushMock
/// understands the subset configs use for notifications (`docs/on-device-scheduling.md`):
/// literals (`true`, `false`, `nil`, numbers, `'text'`/`"text"`, `[a, b]`), property names,
/// `== != < > <= >=`, `in` / `not in`, `! not && and || or`, `+ - * / %`, parentheses, and
/// `eventCount('name')`. Anything else is a parse error naming its position, so a condition
/// PushMock cannot judge is never silently taken as true or false.
public struct DeviceCondition: Sendable, Hashable, CustomStringConvertible {
    /// The condition as written.
    public let text: String
    let root: ConditionNode

    public init(_ text: String) throws(DeviceConditionError) {
        var parser = ConditionParser(text)
        self.text = text
        root = try parser.parseAll()
    }

    public var description: String { text }

    /// The property names the condition reads (for messages and docs).
    public var propertyNames: [String] { root.propertyNames }

    /// `true` or `false`, or why it could not be decided (a type mismatch, a non-boolean
    /// result). The SDK treats an undecidable condition as not met; so does PushMock.
    public func evaluate(in state: DeviceState) -> Result<Bool, DeviceConditionError> {
        do {
            let value = try root.evaluate(in: state)
            guard case .bool(let flag) = value else {
                return .failure(DeviceConditionError("\"\(text)\" gives \(value), not true or false"))
            }
            return .success(flag)
        } catch {
            return .failure(error)
        }
    }

    /// Whether the condition holds; an undecidable condition does not.
    public func holds(in state: DeviceState) -> Bool {
        (try? evaluate(in: state).get()) ?? false
    }
}

/// A condition that does not parse or cannot be decided.
public struct DeviceConditionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A value inside a condition.
public enum ConditionValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([ConditionValue])

    /// How a property posted as text (`POST /_pushmock/users/{id}/events` properties are
    /// strings) reads in a condition: `true`/`false` are booleans, numbers are numbers,
    /// anything else is a string.
    public init(propertyText text: String) {
        if text == "true" {
            self = .bool(true)
        } else if text == "false" {
            self = .bool(false)
        } else if let number = Double(text), !text.isEmpty, text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }) {
            self = .number(number)
        } else {
            self = .string(text)
        }
    }

    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let flag): "\(flag)"
        case .number(let number): number.rounded() == number && abs(number) < 1e15 ? "\(Int64(number))" : "\(number)"
        case .string(let text): "'\(text)'"
        case .list(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

indirect enum ConditionNode: Sendable, Hashable {
    enum BinaryOperator: String, Sendable, Hashable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case greater = ">"
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case and = "&&"
        case or = "||"
        case member = "in"
        case notMember = "not in"
        case add = "+"
        case subtract = "-"
        case multiply = "*"
        case divide = "/"
        case remainder = "%"
    }

    case literal(ConditionValue)
    case property(String)
    case list([ConditionNode])
    case not(ConditionNode)
    case negate(ConditionNode)
    case binary(BinaryOperator, ConditionNode, ConditionNode)
    case eventCount(ConditionNode)

    var propertyNames: [String] {
        switch self {
        case .literal: []
        case .property(let name): [name]
        case .list(let nodes): nodes.flatMap(\.propertyNames)
        case .not(let node), .negate(let node), .eventCount(let node): node.propertyNames
        case .binary(_, let left, let right): left.propertyNames + right.propertyNames
        }
    }

    func evaluate(in state: DeviceState) throws(DeviceConditionError) -> ConditionValue {
        switch self {
        case .literal(let value):
            return value
        case .property(let name):
            return state.properties[name] ?? .null
        case .list(let nodes):
            var values: [ConditionValue] = []
            for node in nodes { values.append(try node.evaluate(in: state)) }
            return .list(values)
        case .not(let node):
            guard case .bool(let flag) = try node.evaluate(in: state) else {
                throw DeviceConditionError("! needs true or false")
            }
            return .bool(!flag)
        case .negate(let node):
            guard case .number(let number) = try node.evaluate(in: state) else {
                throw DeviceConditionError("- needs a number")
            }
            return .number(-number)
        case .eventCount(let node):
            guard case .string(let name) = try node.evaluate(in: state) else {
                throw DeviceConditionError("eventCount needs an event name")
            }
            return .number(Double(state.eventCounts[name] ?? 0))
        case .binary(let operation, let leftNode, let rightNode):
            if operation == .and || operation == .or {
                guard case .bool(let left) = try leftNode.evaluate(in: state) else {
                    throw DeviceConditionError("\(operation.rawValue) needs true or false on its left")
                }
                if operation == .and && !left { return .bool(false) }
                if operation == .or && left { return .bool(true) }
                guard case .bool(let right) = try rightNode.evaluate(in: state) else {
                    throw DeviceConditionError("\(operation.rawValue) needs true or false on its right")
                }
                return .bool(right)
            }
            return try Self.apply(operation, try leftNode.evaluate(in: state), try rightNode.evaluate(in: state))
        }
    }

    private static func apply(_ operation: BinaryOperator, _ left: ConditionValue, _ right: ConditionValue) throws(DeviceConditionError)
        -> ConditionValue
    {
        switch operation {
        case .equal: return .bool(left == right)
        case .notEqual: return .bool(left != right)
        case .member, .notMember:
            guard case .list(let values) = right else { throw DeviceConditionError("in needs a list on its right, found \(right)") }
            return .bool(values.contains(left) == (operation == .member))
        case .less, .greater, .lessOrEqual, .greaterOrEqual:
            let order: Int
            switch (left, right) {
            case (.number(let a), .number(let b)): order = a < b ? -1 : (a > b ? 1 : 0)
            case (.string(let a), .string(let b)): order = a < b ? -1 : (a > b ? 1 : 0)
            default: throw DeviceConditionError("cannot compare \(left) \(operation.rawValue) \(right)")
            }
            switch operation {
            case .less: return .bool(order < 0)
            case .greater: return .bool(order > 0)
            case .lessOrEqual: return .bool(order <= 0)
            default: return .bool(order >= 0)
            }
        default:
            if operation == .add, case .string(let a) = left, case .string(let b) = right { return .string(a + b) }
            guard case .number(let a) = left, case .number(let b) = right else {
                throw DeviceConditionError("cannot compute \(left) \(operation.rawValue) \(right)")
            }
            switch operation {
            case .add: return .number(a + b)
            case .subtract: return .number(a - b)
            case .multiply: return .number(a * b)
            case .divide:
                guard b != 0 else { throw DeviceConditionError("division by zero") }
                return .number(a / b)
            default:
                guard b != 0 else { throw DeviceConditionError("division by zero") }
                return .number(a.truncatingRemainder(dividingBy: b))
            }
        }
    }
}

/// Recursive descent over the condition subset; precedence from loosest: `||`, `&&`, `!`,
/// comparisons and `in`, `+ -`, `* / %`, unary `-`.
private struct ConditionParser {
    private let characters: [Character]
    private var position = 0

    init(_ text: String) { characters = Array(text) }

    mutating func parseAll() throws(DeviceConditionError) -> ConditionNode {
        skipSpace()
        guard position < characters.count else { throw DeviceConditionError("the condition is empty") }
        let node = try parseOr()
        skipSpace()
        guard position == characters.count else { throw problem("unexpected \"\(String(characters[position...]).prefix(12))\"") }
        return node
    }

    private func problem(_ message: String) -> DeviceConditionError {
        DeviceConditionError("\(message) at character \(position + 1) of \"\(String(characters))\"")
    }

    private mutating func skipSpace() {
        while position < characters.count, characters[position].isWhitespace { position += 1 }
    }

    /// Consumes `symbol` (an operator, or a keyword that must not run into a name).
    private mutating func take(_ symbol: String) -> Bool {
        skipSpace()
        let symbolCharacters = Array(symbol)
        guard position + symbolCharacters.count <= characters.count,
            Array(characters[position..<position + symbolCharacters.count]) == symbolCharacters
        else { return false }
        let end = position + symbolCharacters.count
        if symbol.first!.isLetter, end < characters.count, Self.isNameCharacter(characters[end]) { return false }
        // `=` alone, `&` alone and `|` alone are not operators of the subset; `<` must not eat `<=`.
        if symbol == "<" || symbol == ">" || symbol == "!", end < characters.count, characters[end] == "=" { return false }
        position = end
        return true
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    private mutating func parseOr() throws(DeviceConditionError) -> ConditionNode {
        var node = try parseAnd()
        while take("||") || take("or") { node = .binary(.or, node, try parseAnd()) }
        return node
    }

    private mutating func parseAnd() throws(DeviceConditionError) -> ConditionNode {
        var node = try parseNot()
        while take("&&") || take("and") { node = .binary(.and, node, try parseNot()) }
        return node
    }

    private mutating func parseNot() throws(DeviceConditionError) -> ConditionNode {
        if take("!") || take("not") { return .not(try parseNot()) }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(DeviceConditionError) -> ConditionNode {
        let left = try parseAdditive()
        let operators: [(String, ConditionNode.BinaryOperator)] = [
            ("==", .equal), ("!=", .notEqual), ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("<", .less), (">", .greater),
            ("in", .member),
        ]
        for (symbol, operation) in operators where take(symbol) {
            return .binary(operation, left, try parseAdditive())
        }
        let saved = position
        if take("not") {
            if take("in") { return .binary(.notMember, left, try parseAdditive()) }
            position = saved
        }
        return left
    }

    private mutating func parseAdditive() throws(DeviceConditionError) -> ConditionNode {
        var node = try parseMultiplicative()
        while true {
            if take("+") {
                node = .binary(.add, node, try parseMultiplicative())
            } else if take("-") {
                node = .binary(.subtract, node, try parseMultiplicative())
            } else {
                return node
            }
        }
    }

    private mutating func parseMultiplicative() throws(DeviceConditionError) -> ConditionNode {
        var node = try parseUnary()
        while true {
            if take("*") {
                node = .binary(.multiply, node, try parseUnary())
            } else if take("/") {
                node = .binary(.divide, node, try parseUnary())
            } else if take("%") {
                node = .binary(.remainder, node, try parseUnary())
            } else {
                return node
            }
        }
    }

    private mutating func parseUnary() throws(DeviceConditionError) -> ConditionNode {
        if take("-") { return .negate(try parseUnary()) }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(DeviceConditionError) -> ConditionNode {
        skipSpace()
        guard position < characters.count else { throw problem("the condition ends too early") }
        let character = characters[position]
        if take("(") {
            let node = try parseOr()
            guard take(")") else { throw problem("expected )") }
            return node
        }
        if take("[") {
            var elements: [ConditionNode] = []
            if take("]") { return .list(elements) }
            repeat { elements.append(try parseOr()) } while take(",")
            guard take("]") else { throw problem("expected ] or ,") }
            return .list(elements)
        }
        if character == "'" || character == "\"" { return .literal(.string(try parseString(quote: character))) }
        if character.isNumber || character == "." { return .literal(.number(try parseNumber())) }
        guard character.isLetter || character == "_" else { throw problem("unexpected \"\(character)\"") }
        let start = position
        while position < characters.count, Self.isNameCharacter(characters[position]) { position += 1 }
        let name = String(characters[start..<position])
        switch name {
        case "true": return .literal(.bool(true))
        case "false": return .literal(.bool(false))
        case "nil": return .literal(.null)
        default: break
        }
        if take("(") {
            guard name == "eventCount" else {
                position = start
                throw problem("the function \(name)() is not one PushMock evaluates (only eventCount('name'))")
            }
            let argument = try parseOr()
            guard take(")") else { throw problem("expected ) after eventCount's argument") }
            return .eventCount(argument)
        }
        return .property(name)
    }

    private mutating func parseString(quote: Character) throws(DeviceConditionError) -> String {
        position += 1
        var text = ""
        while position < characters.count {
            let character = characters[position]
            position += 1
            if character == quote { return text }
            if character == "\\", position < characters.count {
                text.append(characters[position])
                position += 1
            } else {
                text.append(character)
            }
        }
        throw problem("the string is not closed")
    }

    private mutating func parseNumber() throws(DeviceConditionError) -> Double {
        let start = position
        while position < characters.count, characters[position].isNumber || characters[position] == "." { position += 1 }
        guard let number = Double(String(characters[start..<position])) else {
            position = start
            throw problem("not a number")
        }
        return number
    }
}
