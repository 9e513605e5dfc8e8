/// A small subset of JSONPath for test assertions on recorded payloads.
///
/// Supported syntax (anything else is a parse error, never silently ignored):
///
/// | syntax            | meaning                                                        |
/// |-------------------|----------------------------------------------------------------|
/// | `$`               | the root (every path starts with it)                           |
/// | `.name`           | member `name`; may contain `-` and any character except `. [ ] ' "` and whitespace |
/// | `['name']`, `["name"]` | member with any name; `\\`, `\'`, `\"` escape inside quotes |
/// | `[3]`, `[-1]`     | array element; negative indices count from the end             |
/// | `.*`, `[*]`       | every member value of an object / every element of an array    |
///
/// Evaluation returns every match in document order; a step that does not apply (a name on an
/// array, an index out of range, anything on a scalar) simply yields no match. For duplicate
/// member names the last occurrence is used, as elsewhere in ``JSONObject``.
///
/// ```swift
/// let path = try JSONPath("$.aps[\"content-available\"]")
/// #expect(path.evaluate(payload) == [1])
/// ```
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
        case wildcard
    }

    /// The steps after `$`.
    public var components: [Component]

    /// Parses `expression`.
    public init(_ expression: String) throws(JSONPathError) {
        components = try Self.parse(expression)
    }

    /// A path made of the given steps.
    public init(components: [Component]) {
        self.components = components
    }

    /// All values the path selects in `root`, in document order.
    public func evaluate(_ root: JSONValue) -> [JSONValue] {
        var current = [root]
        for component in components {
            var next: [JSONValue] = []
            for value in current {
                switch (component, value) {
                case (.key(let name), .object(let object)):
                    if let member = object[name] { next.append(member) }
                case (.index(let index), .array(let elements)):
                    let resolved = index < 0 ? elements.count + index : index
                    if elements.indices.contains(resolved) { next.append(elements[resolved]) }
                case (.wildcard, .object(let object)):
                    next.append(contentsOf: object.members.map(\.value))
                case (.wildcard, .array(let elements)):
                    next.append(contentsOf: elements)
                default:
                    break
                }
            }
            current = next
        }
        return current
    }

    /// The normalised expression (`$['name'][0][*]`), which parses back to the same path.
    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .key(let name):
                text += "['"
                for character in name {
                    if character == "\\" || character == "'" { text += "\\" }
                    text.append(character)
                }
                text += "']"
            case .index(let index):
                text += "[\(index)]"
            case .wildcard:
                text += "[*]"
            }
        }
        return text
    }

    // MARK: Parsing

    private static func parse(_ expression: String) throws(JSONPathError) -> [Component] {
        let scalars = Array(expression.unicodeScalars)
        var position = 0
        func fail(_ message: String) -> JSONPathError {
            JSONPathError(expression: expression, offset: position, message: message)
        }
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace }

        guard position < scalars.count, scalars[position] == "$" else {
            throw fail("a path must start with '$'")
        }
        position += 1
        var components: [Component] = []
        while position < scalars.count {
            switch scalars[position] {
            case ".":
                position += 1
                guard position < scalars.count else { throw fail("expected a member name or '*' after '.'") }
                if scalars[position] == "." { throw fail("recursive descent ('..') is not supported") }
                if scalars[position] == "*" {
                    position += 1
                    components.append(.wildcard)
                    continue
                }
                var name = String.UnicodeScalarView()
                while position < scalars.count {
                    let scalar = scalars[position]
                    if scalar == "." || scalar == "[" || scalar == "]" || scalar == "'" || scalar == "\""
                        || isSpace(scalar)
                    {
                        break
                    }
                    name.append(scalar)
                    position += 1
                }
                guard !name.isEmpty else { throw fail("expected a member name or '*' after '.'") }
                components.append(.key(String(name)))
            case "[":
                position += 1
                while position < scalars.count && isSpace(scalars[position]) { position += 1 }
                guard position < scalars.count else { throw fail("unterminated '['") }
                let first = scalars[position]
                if first == "*" {
                    position += 1
                    components.append(.wildcard)
                } else if first == "'" || first == "\"" {
                    let quoteStart = position
                    position += 1
                    var name = String.UnicodeScalarView()
                    var closed = false
                    while position < scalars.count {
                        let scalar = scalars[position]
                        position += 1
                        if scalar == first {
                            closed = true
                            break
                        }
                        if scalar == "\\" {
                            guard position < scalars.count else { break }
                            let escaped = scalars[position]
                            guard escaped == "\\" || escaped == "'" || escaped == "\"" else {
                                throw fail("unsupported escape '\\\(escaped)' (only \\\\, \\' and \\\" are allowed)")
                            }
                            name.append(escaped)
                            position += 1
                        } else {
                            name.append(scalar)
                        }
                    }
                    guard closed else {
                        position = quoteStart
                        throw fail("unterminated quoted member name")
                    }
                    components.append(.key(String(name)))
                } else if first == "-" || ("0"..."9").contains(first) {
                    let indexStart = position
                    var digits = String(first)
                    position += 1
                    while position < scalars.count, ("0"..."9").contains(scalars[position]) {
                        digits.unicodeScalars.append(scalars[position])
                        position += 1
                    }
                    guard let index = Int(digits) else {
                        position = indexStart
                        throw fail("invalid array index '\(digits)'")
                    }
                    components.append(.index(index))
                } else {
                    throw fail("expected an index, a quoted member name or '*' after '['")
                }
                while position < scalars.count && isSpace(scalars[position]) { position += 1 }
                guard position < scalars.count, scalars[position] == "]" else { throw fail("expected ']'") }
                position += 1
            default:
                throw fail("expected '.' or '[' but found '\(scalars[position])'")
            }
        }
        return components
    }
}

extension JSONValue {
    /// Values selected by a ``JSONPath`` expression, e.g. `try payload.values(at: "$.aps.alert.title")`.
    public func values(at path: String) throws(JSONPathError) -> [JSONValue] {
        try JSONPath(path).evaluate(self)
    }

    /// Values selected by `path`.
    public func values(at path: JSONPath) -> [JSONValue] {
        path.evaluate(self)
    }
}
