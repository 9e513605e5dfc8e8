/// A topic condition (`message.condition`), parsed into an expression tree.
///
/// Grammar (whitespace allowed between tokens):
///
///     condition := or
///     or        := and ( "||" and )*
///     and       := unary ( "&&" unary )*
///     unary     := "!" unary | primary
///     primary   := "(" or ")" | topic "in" "topics"
///     topic     := "'" name "'" | "\"" name "\""      name: [a-zA-Z0-9-_.~%]+
///
/// Precedence: parentheses, then `!`, then `&&`, then `||` (both associate to the left).
/// Firebase's current documentation only shows `&&` and `||` and says conditions are evaluated
/// "from left to right" after parentheses; older copies of the same page list `!` too. The mock
/// accepts all three with the usual precedence, and at most five topic terms (each
/// `'x' in topics` counts, repeats included).
public struct FCMCondition: Sendable, Hashable, CustomStringConvertible {
    /// A node of the expression tree.
    public indirect enum Expression: Sendable, Hashable, CustomStringConvertible {
        /// `'name' in topics`.
        case topic(String)
        /// `!operand`.
        case not(Expression)
        /// `left && right`.
        case and(Expression, Expression)
        /// `left || right`.
        case or(Expression, Expression)

        /// Whether a device subscribed to `topics` matches.
        public func evaluate(_ topics: Set<String>) -> Bool {
            switch self {
            case .topic(let name): return topics.contains(name)
            case .not(let operand): return !operand.evaluate(topics)
            case .and(let left, let right): return left.evaluate(topics) && right.evaluate(topics)
            case .or(let left, let right): return left.evaluate(topics) || right.evaluate(topics)
            }
        }

        /// The topic terms in source order, repeats included.
        public var topicTerms: [String] {
            switch self {
            case .topic(let name): return [name]
            case .not(let operand): return operand.topicTerms
            case .and(let left, let right), .or(let left, let right): return left.topicTerms + right.topicTerms
            }
        }

        /// Fully parenthesised form, e.g. `('A' in topics && (!'B' in topics))`.
        public var description: String {
            switch self {
            case .topic(let name): return "'\(name)' in topics"
            case .not(let operand): return "(!\(operand))"
            case .and(let left, let right): return "(\(left) && \(right))"
            case .or(let left, let right): return "(\(left) || \(right))"
            }
        }
    }

    /// The default (and documented) limit on topic terms.
    public static let defaultMaximumTopics = 5
    /// Deepest nesting of parentheses and `!` accepted (keeps parsing and evaluation shallow).
    public static let maximumNesting = 100

    /// The condition exactly as sent.
    public let expression: String
    /// The parsed expression tree.
    public let root: Expression

    /// The condition exactly as sent (same as ``expression``).
    public var text: String { expression }

    /// Parses `text`; throws when it does not follow the grammar or has more than
    /// `maximumTopics` topic terms.
    public init(parsing text: String, maximumTopics: Int = defaultMaximumTopics) throws(FCMConditionError) {
        var parser = FCMConditionParser(text)
        let tree = try parser.parseCondition()
        let count = tree.topicTerms.count
        if count > maximumTopics {
            throw FCMConditionError(
                offset: 0,
                reason: "the condition has \(count) topics; at most \(maximumTopics) are allowed"
            )
        }
        self.expression = text
        self.root = tree
    }

    /// The distinct topics the condition names, in order of first appearance.
    public var topics: [String] {
        var seen: Set<String> = []
        return root.topicTerms.filter { seen.insert($0).inserted }
    }

    /// The number of topic terms (what the five-topic limit counts).
    public var topicCount: Int { root.topicTerms.count }

    /// Whether a device subscribed to `subscribedTopics` receives the message.
    public func evaluate(subscribedTopics: Set<String>) -> Bool {
        root.evaluate(subscribedTopics)
    }

    public var description: String { expression }
}
