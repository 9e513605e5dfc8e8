import Foundation
public import PushMockJSON

/// A JSON payload (or FCM message) with `{{ variable }}` placeholders, filled per recipient
/// from JSON data — like the workflow templates of notification services:
///
/// ```swift
/// let template = try NotificationTemplate(json: #"{"aps":{"alert":{"body":"Time for your {{ compound_name }}"},"badge":"{{ count }}"}}"#)
/// let payload = try template.render(["compound_name": "vitamin D", "count": 2])
/// // {"aps":{"alert":{"body":"Time for your vitamin D"},"badge":2}}
/// ```
///
/// Rules:
/// * Placeholders may appear in any string value and in object keys; whitespace inside the
///   braces is ignored; names may be dotted paths into nested data (`{{ user.first_name }}`).
/// * A string that is exactly one placeholder takes the data's JSON value as is (a number stays
///   a number, an object is inserted whole); inside longer text, values are written as text
///   (strings verbatim, other values as compact JSON).
/// * A variable the data does not have is an error (``SenderError/Code/templateVariableMissing``)
///   naming it — unless the placeholder gives a default: `{{ name | default: "there" }}`.
/// * `{{` without a matching `}}`, or an empty name, is a syntax error when the template is
///   made.
public struct NotificationTemplate: Sendable, Hashable {
    /// A string split into literal text and placeholders.
    struct Text: Sendable, Hashable {
        enum Part: Sendable, Hashable {
            case literal(String)
            case variable(Placeholder)
        }

        var parts: [Part]

        var isLiteral: Bool {
            parts.allSatisfy { if case .literal = $0 { true } else { false } }
        }

        var singlePlaceholder: Placeholder? {
            if parts.count == 1, case .variable(let placeholder) = parts[0] { return placeholder }
            return nil
        }
    }

    struct Placeholder: Sendable, Hashable {
        var path: [String]
        var defaultValue: String?

        var name: String { path.joined(separator: ".") }
    }

    indirect enum Node: Sendable, Hashable {
        case constant(JSONValue)
        case text(Text)
        case array([Node])
        case object([(key: Text, value: Node)])

        static func == (lhs: Node, rhs: Node) -> Bool {
            switch (lhs, rhs) {
            case (.constant(let a), .constant(let b)): return a == b
            case (.text(let a), .text(let b)): return a == b
            case (.array(let a), .array(let b)): return a == b
            case (.object(let a), .object(let b)):
                return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: return false
            }
        }

        func hash(into hasher: inout Hasher) {
            switch self {
            case .constant(let value): hasher.combine(value)
            case .text(let text): hasher.combine(text)
            case .array(let nodes): hasher.combine(nodes)
            case .object(let members):
                for member in members {
                    hasher.combine(member.key)
                    hasher.combine(member.value)
                }
            }
        }
    }

    let root: Node

    /// The variables the template uses (dotted names), in first-use order.
    public let variables: [String]

    /// Whether the template has any placeholder at all.
    public var hasPlaceholders: Bool { !variables.isEmpty }

    /// Compiles a template from JSON text.
    ///
    /// - Throws: ``SenderError/Code/invalidPayload`` when it is not JSON,
    ///   ``SenderError/Code/templateSyntax`` for a malformed placeholder.
    public init(json text: String) throws(SenderError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            throw SenderError(.invalidPayload, "the template is not valid JSON: \(error)", cause: error)
        }
        try self.init(value)
    }

    /// Compiles a template from a JSON value.
    public init(_ value: JSONValue) throws(SenderError) {
        var variables: [String] = []
        self.root = try Self.compile(value, variables: &variables)
        self.variables = variables
    }

    /// The names in ``variables`` that `data` lacks and that have no default.
    public func missingVariables(in data: JSONObject) -> [String] {
        var missing: [String] = []
        Self.visitPlaceholders(root) { placeholder in
            if placeholder.defaultValue == nil, Self.lookup(placeholder.path, in: data) == nil, !missing.contains(placeholder.name) {
                missing.append(placeholder.name)
            }
        }
        return missing
    }

    /// Fills the placeholders from `data`.
    ///
    /// - Throws: ``SenderError/Code/templateVariableMissing`` naming the first variable `data`
    ///   lacks.
    public func render(_ data: JSONObject) throws(SenderError) -> JSONValue {
        try Self.render(root, data: data)
    }

    /// Fills the placeholders and returns compact JSON bytes.
    public func renderBytes(_ data: JSONObject) throws(SenderError) -> [UInt8] {
        try render(data).compactBytes
    }

    /// Fills the placeholders of plain text (not JSON): `"Hi {{ name }}"`.
    public static func renderText(_ text: String, data: JSONObject) throws(SenderError) -> String {
        var ignored: [String] = []
        let compiled = try compileText(text, variables: &ignored)
        return try renderText(compiled, data: data)
    }

    // MARK: Compiling

    private static func compile(_ value: JSONValue, variables: inout [String]) throws(SenderError) -> Node {
        switch value {
        case .string(let string):
            let text = try compileText(string, variables: &variables)
            return text.isLiteral ? .constant(value) : .text(text)
        case .array(let elements):
            var nodes: [Node] = []
            for element in elements { nodes.append(try compile(element, variables: &variables)) }
            return nodes.allSatisfy { if case .constant = $0 { true } else { false } } ? .constant(value) : .array(nodes)
        case .object(let object):
            var members: [(key: Text, value: Node)] = []
            var constant = true
            for member in object.members {
                let key = try compileText(member.key, variables: &variables)
                let node = try compile(member.value, variables: &variables)
                if !key.isLiteral { constant = false }
                if case .constant = node {} else { constant = false }
                members.append((key, node))
            }
            return constant ? .constant(value) : .object(members)
        default:
            return .constant(value)
        }
    }

    private static func compileText(_ string: String, variables: inout [String]) throws(SenderError) -> Text {
        var parts: [Text.Part] = []
        var rest = Substring(string)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex {
                parts.append(.literal(String(rest[..<open.lowerBound])))
            }
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: "}}") else {
                throw SenderError(.templateSyntax, "unterminated placeholder in \"\(string)\": \"{{\" without \"}}\"")
            }
            let placeholder = try parsePlaceholder(afterOpen[..<close.lowerBound], in: string)
            if !variables.contains(placeholder.name) { variables.append(placeholder.name) }
            parts.append(.variable(placeholder))
            rest = afterOpen[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        if parts.isEmpty { parts.append(.literal("")) }
        return Text(parts: parts)
    }

    /// `name`, `a.b.c`, `name | default: "text"`.
    private static func parsePlaceholder(_ inside: Substring, in string: String) throws(SenderError) -> Placeholder {
        var expression = inside
        var defaultValue: String?
        if let bar = inside.firstIndex(of: "|") {
            expression = inside[..<bar]
            let filter = inside[inside.index(after: bar)...].trimmingSpaces
            guard filter.hasPrefix("default:") else {
                throw SenderError(.templateSyntax, "unknown filter \"\(filter)\" in \"\(string)\" (only `default: \"…\"` exists)")
            }
            var literal = filter.dropFirst("default:".count).trimmingSpaces
            if literal.count >= 2, let first = literal.first, first == "\"" || first == "'", literal.last == first {
                literal = literal.dropFirst().dropLast()
            }
            defaultValue = String(literal)
        }
        let name = expression.trimmingSpaces
        guard !name.isEmpty else {
            throw SenderError(.templateSyntax, "empty placeholder \"{{}}\" in \"\(string)\"")
        }
        let path = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard path.allSatisfy({ !$0.isEmpty && !$0.contains(where: { $0 == " " || $0 == "{" || $0 == "}" }) }) else {
            throw SenderError(.templateSyntax, "bad variable name \"\(name)\" in \"\(string)\"")
        }
        return Placeholder(path: path, defaultValue: defaultValue)
    }

    // MARK: Rendering

    private static func render(_ node: Node, data: JSONObject) throws(SenderError) -> JSONValue {
        switch node {
        case .constant(let value):
            return value
        case .text(let text):
            if let placeholder = text.singlePlaceholder {
                if let value = lookup(placeholder.path, in: data) { return value }
                if let defaultValue = placeholder.defaultValue { return .string(defaultValue) }
                throw missing(placeholder)
            }
            return .string(try renderText(text, data: data))
        case .array(let nodes):
            var values: [JSONValue] = []
            values.reserveCapacity(nodes.count)
            for node in nodes { values.append(try render(node, data: data)) }
            return .array(values)
        case .object(let members):
            var object = JSONObject()
            object.members.reserveCapacity(members.count)
            for member in members {
                object.append(key: try renderText(member.key, data: data), value: try render(member.value, data: data))
            }
            return .object(object)
        }
    }

    private static func renderText(_ text: Text, data: JSONObject) throws(SenderError) -> String {
        var result = ""
        for part in text.parts {
            switch part {
            case .literal(let literal):
                result += literal
            case .variable(let placeholder):
                if let value = lookup(placeholder.path, in: data) {
                    result += value.stringValue ?? value.compactString
                } else if let defaultValue = placeholder.defaultValue {
                    result += defaultValue
                } else {
                    throw missing(placeholder)
                }
            }
        }
        return result
    }

    private static func missing(_ placeholder: Placeholder) -> SenderError {
        SenderError(.templateVariableMissing, "template variable \"\(placeholder.name)\" is missing from the data")
    }

    static func lookup(_ path: [String], in data: JSONObject) -> JSONValue? {
        guard let first = path.first, var value = data[first] else { return nil }
        for key in path.dropFirst() {
            guard let next = value[key] else { return nil }
            value = next
        }
        return value
    }

    private static func visitPlaceholders(_ node: Node, _ visit: (Placeholder) -> Void) {
        func visitText(_ text: Text) {
            for part in text.parts {
                if case .variable(let placeholder) = part { visit(placeholder) }
            }
        }
        switch node {
        case .constant: break
        case .text(let text): visitText(text)
        case .array(let nodes): for node in nodes { visitPlaceholders(node, visit) }
        case .object(let members):
            for member in members {
                visitText(member.key)
                visitPlaceholders(member.value, visit)
            }
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
