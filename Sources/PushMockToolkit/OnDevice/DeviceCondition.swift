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
///
/// Trees are at most ``maximumDepth`` levels deep, counted as the parser descends (parentheses,
/// lists, `!`, unary `-`, `eventCount(…)`) and as operator chains grow (`a || b || c` is a
/// level per operator). Parsing, evaluating and freeing a tree all recurse, and a condition of
/// 3,000 nested parentheses, sent to `POST /_pushmock/checks/schedule` in 10 KB, overflowed
/// the stack and took the gateway down.
private struct ConditionParser {
    /// Conditions in real configs nest a handful of levels.
    static let maximumDepth = 100

    /// A subtree and how many levels deep it is (a leaf is 1).
    private struct Parsed {
        var node: ConditionNode
        var depth: Int
    }

    private let characters: [Character]
    private var position = 0
    /// Levels of the tree above the part being parsed.
    private var enclosingDepth = 0

    init(_ text: String) { characters = Array(text) }

    mutating func parseAll() throws(DeviceConditionError) -> ConditionNode {
        skipSpace()
        guard position < characters.count else { throw DeviceConditionError("the condition is empty") }
        let parsed = try parseOr()
        skipSpace()
        guard position == characters.count else { throw problem("unexpected \"\(String(characters[position...]).prefix(12))\"") }
        return parsed.node
    }

    private func problem(_ message: String) -> DeviceConditionError {
        let shown = characters.count > 120 ? String(characters.prefix(120)) + "…" : String(characters)
        return DeviceConditionError("\(message) at character \(position + 1) of \"\(shown)\"")
    }

    private var tooDeep: DeviceConditionError {
        problem("the condition nests more than \(Self.maximumDepth) levels deep")
    }

    /// Parses one level further down (inside parentheses, a list, `!`, `-`, `eventCount`).
    private mutating func descending(
        _ parse: (inout Self) throws(DeviceConditionError) -> Parsed
    ) throws(DeviceConditionError) -> Parsed {
        guard enclosingDepth < Self.maximumDepth else { throw tooDeep }
        enclosingDepth += 1
        defer { enclosingDepth -= 1 }
        return try parse(&self)
    }

    /// `node` over `children`, one level deeper than the deepest of them.
    private func joining(_ node: ConditionNode, _ children: Parsed...) throws(DeviceConditionError) -> Parsed {
        let depth = (children.map(\.depth).max() ?? 0) + 1
        guard enclosingDepth + depth <= Self.maximumDepth else { throw tooDeep }
        return Parsed(node: node, depth: depth)
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

    private mutating func parseOr() throws(DeviceConditionError) -> Parsed {
        var parsed = try parseAnd()
        while take("||") || take("or") {
            let right = try parseAnd()
            parsed = try joining(.binary(.or, parsed.node, right.node), parsed, right)
        }
        return parsed
    }

    private mutating func parseAnd() throws(DeviceConditionError) -> Parsed {
        var parsed = try parseNot()
        while take("&&") || take("and") {
            let right = try parseNot()
            parsed = try joining(.binary(.and, parsed.node, right.node), parsed, right)
        }
        return parsed
    }

    private mutating func parseNot() throws(DeviceConditionError) -> Parsed {
        if take("!") || take("not") {
            let operand = try descending { parser throws(DeviceConditionError) in try parser.parseNot() }
            return try joining(.not(operand.node), operand)
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(DeviceConditionError) -> Parsed {
        let left = try parseAdditive()
        let operators: [(String, ConditionNode.BinaryOperator)] = [
            ("==", .equal), ("!=", .notEqual), ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("<", .less), (">", .greater),
            ("in", .member),
        ]
        for (symbol, operation) in operators where take(symbol) {
            let right = try parseAdditive()
            return try joining(.binary(operation, left.node, right.node), left, right)
        }
        let saved = position
        if take("not") {
            if take("in") {
                let right = try parseAdditive()
                return try joining(.binary(.notMember, left.node, right.node), left, right)
            }
            position = saved
        }
        return left
    }

    private mutating func parseAdditive() throws(DeviceConditionError) -> Parsed {
        var parsed = try parseMultiplicative()
        while true {
            let operation: ConditionNode.BinaryOperator
            if take("+") {
                operation = .add
            } else if take("-") {
                operation = .subtract
            } else {
                return parsed
            }
            let right = try parseMultiplicative()
            parsed = try joining(.binary(operation, parsed.node, right.node), parsed, right)
        }
    }

    private mutating func parseMultiplicative() throws(DeviceConditionError) -> Parsed {
        var parsed = try parseUnary()
        while true {
            let operation: ConditionNode.BinaryOperator
            if take("*") {
                operation = .multiply
            } else if take("/") {
                operation = .divide
            } else if take("%") {
                operation = .remainder
            } else {
                return parsed
            }
            let right = try parseUnary()
            parsed = try joining(.binary(operation, parsed.node, right.node), parsed, right)
        }
    }

    private mutating func parseUnary() throws(DeviceConditionError) -> Parsed {
        if take("-") {
            let operand = try descending { parser throws(DeviceConditionError) in try parser.parseUnary() }
            return try joining(.negate(operand.node), operand)
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(DeviceConditionError) -> Parsed {
        skipSpace()
        guard position < characters.count else { throw problem("the condition ends too early") }
        let character = characters[position]
        if take("(") {
            let inner = try descending { parser throws(DeviceConditionError) in try parser.parseOr() }
            guard take(")") else { throw problem("expected )") }
            return inner
        }
        if take("[") {
            var elements: [Parsed] = []
            if take("]") { return try joining(.list([])) }
            repeat {
                elements.append(try descending { parser throws(DeviceConditionError) in try parser.parseOr() })
            } while take(",")
            guard take("]") else { throw problem("expected ] or ,") }
            let depth = (elements.map(\.depth).max() ?? 0) + 1
            return Parsed(node: .list(elements.map(\.node)), depth: depth)
        }
        if character == "'" || character == "\"" { return try joining(.literal(.string(try parseString(quote: character)))) }
        if character.isNumber || character == "." { return try joining(.literal(.number(try parseNumber()))) }
        guard character.isLetter || character == "_" else { throw problem("unexpected \"\(character)\"") }
        let start = position
        while position < characters.count, Self.isNameCharacter(characters[position]) { position += 1 }
        let name = String(characters[start..<position])
        switch name {
        case "true": return try joining(.literal(.bool(true)))
        case "false": return try joining(.literal(.bool(false)))
        case "nil": return try joining(.literal(.null))
        default: break
        }
        if take("(") {
            guard name == "eventCount" else {
                position = start
                throw problem("the function \(name)() is not one PushMock evaluates (only eventCount('name'))")
            }
            let argument = try descending { parser throws(DeviceConditionError) in try parser.parseOr() }
            guard take(")") else { throw problem("expected ) after eventCount's argument") }
            return try joining(.eventCount(argument.node), argument)
        }
        return try joining(.property(name))
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
