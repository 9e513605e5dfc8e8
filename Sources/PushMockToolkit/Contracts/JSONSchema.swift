import Foundation
public import PushMockJSON

/// A JSON Schema (draft 2020-12): the core and validation vocabularies, applied to one
/// instance at a time. Written for PushMock (no third-party code); its verdicts are compared
/// with Python's `jsonschema` on generated cases in the tests.
///
/// Supported: `type`, `enum`, `const`, `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`,
/// `exclusiveMinimum`, `maxLength`, `minLength`, `pattern`, `maxItems`, `minItems`,
/// `uniqueItems`, `maxContains`, `minContains`, `maxProperties`, `minProperties`, `required`,
/// `dependentRequired`, `properties`, `patternProperties`, `additionalProperties`,
/// `propertyNames`, `dependentSchemas`, `prefixItems`, `items`, `contains`, `allOf`, `anyOf`,
/// `oneOf`, `not`, `if`/`then`/`else`, `unevaluatedProperties`, `unevaluatedItems`, `$ref` to
/// `#`, `#/json/pointer` and `#anchor` within the document, `$defs`, `$anchor`. `format` is an
/// annotation (never fails), as the specification's default says. Not supported: `$ref` to
/// other documents, `$dynamicRef`, `$id`-relative resolution (refused when the schema is read).
///
/// ```swift
/// let schema = try JSONSchema(["type": "object", "required": ["entityId"]])
/// schema.validate(["entityId": "42"]).isEmpty   // true
/// ```
public struct JSONSchema: Sendable, Hashable {
    public let root: JSONValue
    /// `$anchor` name → JSON pointer of the schema carrying it.
    let anchors: [String: [String]]

    public init(_ root: JSONValue) throws(JSONSchemaError) {
        guard root.objectValue != nil || root.boolValue != nil else {
            throw JSONSchemaError(location: "", "a schema is an object or a boolean")
        }
        var anchors: [String: [String]] = [:]
        var refs: [(String, String)] = []
        try Self.survey(root, pointer: [], anchors: &anchors, refs: &refs)
        self.root = root
        self.anchors = anchors
        for (location, ref) in refs where resolve(ref) == nil {
            throw JSONSchemaError(
                location: location, "$ref \"\(ref)\" does not point into this schema (only #, #/pointer and #anchor refs are supported)")
        }
    }

    /// Every problem of `instance`, in document order; empty when it is valid.
    public func validate(_ instance: JSONValue) -> [JSONSchemaViolation] {
        var validator = Validator(schema: self)
        return validator.evaluate(instance, root, instancePath: [], schemaPath: [], depth: 0).errors
    }

    public func isValid(_ instance: JSONValue) -> Bool { validate(instance).isEmpty }

    // MARK: Reading

    /// Keywords whose value is a schema, an array of schemas, or an object of schemas.
    static let schemaKeywords: Set<String> = [
        "additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else", "unevaluatedProperties",
        "unevaluatedItems",
    ]
    static let schemaArrayKeywords: Set<String> = ["allOf", "anyOf", "oneOf", "prefixItems"]
    static let schemaMapKeywords: Set<String> = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"]

    private static func survey(
        _ schema: JSONValue, pointer: [String], anchors: inout [String: [String]], refs: inout [(String, String)]
    ) throws(JSONSchemaError) {
        guard case .object(let object) = schema else {
            guard schema.boolValue != nil else {
                throw JSONSchemaError(location: pointerText(pointer), "a schema is an object or a boolean")
            }
            return
        }
        let location = pointerText(pointer)
        for (key, value) in object {
            switch key {
            case "$anchor":
                guard let name = value.stringValue else { throw JSONSchemaError(location: location, "$anchor must be a string") }
                anchors[name] = pointer
            case "$ref":
                guard let ref = value.stringValue else { throw JSONSchemaError(location: location, "$ref must be a string") }
                refs.append((location, ref))
            case "$dynamicRef", "$recursiveRef":
                throw JSONSchemaError(location: location, "\(key) is not supported")
            case "type":
                let names = value.arrayValue ?? [value]
                for name in names {
                    guard let text = name.stringValue, Validator.typeNames.contains(text) else {
                        throw JSONSchemaError(
                            location: location, "type must be one of \(Validator.typeNames.sorted().joined(separator: ", "))")
                    }
                }
            case "required":
                guard let names = value.arrayValue, names.allSatisfy({ $0.stringValue != nil }) else {
                    throw JSONSchemaError(location: location, "required must be an array of strings")
                }
            case "enum":
                guard value.arrayValue != nil else { throw JSONSchemaError(location: location, "enum must be an array") }
            case "pattern":
                guard let text = value.stringValue, Validator.regex(text) != nil else {
                    throw JSONSchemaError(location: location, "pattern must be a regular expression")
                }
            case "multipleOf":
                guard let number = value.doubleValue, number > 0 else {
                    throw JSONSchemaError(location: location, "multipleOf must be > 0")
                }
            case "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum":
                guard value.doubleValue != nil else { throw JSONSchemaError(location: location, "\(key) must be a number") }
            case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties", "maxContains", "minContains":
                guard let number = value.doubleValue, number >= 0, number == number.rounded() else {
                    throw JSONSchemaError(location: location, "\(key) must be a non-negative integer")
                }
            case _ where schemaKeywords.contains(key):
                try survey(value, pointer: pointer + [key], anchors: &anchors, refs: &refs)
            case _ where schemaArrayKeywords.contains(key):
                guard let elements = value.arrayValue, !elements.isEmpty || key == "prefixItems" else {
                    throw JSONSchemaError(location: location, "\(key) must be a non-empty array of schemas")
                }
                for (index, element) in elements.enumerated() {
                    try survey(element, pointer: pointer + [key, String(index)], anchors: &anchors, refs: &refs)
                }
            case _ where schemaMapKeywords.contains(key):
                guard case .object(let members) = value else { throw JSONSchemaError(location: location, "\(key) must be an object") }
                for (name, member) in members {
                    if key == "patternProperties", Validator.regex(name) == nil {
                        throw JSONSchemaError(location: location, "patternProperties name \"\(name)\" is not a regular expression")
                    }
                    try survey(member, pointer: pointer + [key, name], anchors: &anchors, refs: &refs)
                }
            default:
                continue
            }
        }
    }

    /// The schema a `$ref` names, if it is inside this document.
    func resolve(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("#") else { return nil }
        let fragment = String(ref.dropFirst()).removingPercentEncoding ?? String(ref.dropFirst())
        if fragment.isEmpty { return root }
        if !fragment.hasPrefix("/") { return anchors[fragment].flatMap(value(at:)) }
        let tokens = fragment.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        return value(at: tokens)
    }

    private func value(at pointer: [String]) -> JSONValue? {
        var current = root
        for token in pointer {
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(token), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    static func pointerText(_ pointer: [String]) -> String {
        pointer.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
    }
}

/// A schema that cannot be used, and where in it.
public struct JSONSchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// JSON pointer into the schema.
    public var location: String
    public var message: String

    public init(location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { location.isEmpty ? message : "\(location): \(message)" }
}

/// One way an instance breaks its schema.
public struct JSONSchemaViolation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// JSON pointer into the instance (`/entityId`; empty for the whole instance).
    public var instancePath: String
    /// JSON pointer of the failing keyword in the schema (`/properties/entityId/type`).
    public var schemaPath: String
    public var keyword: String
    public var message: String

    public init(instancePath: String, schemaPath: String, keyword: String, message: String) {
        self.instancePath = instancePath
        self.schemaPath = schemaPath
        self.keyword = keyword
        self.message = message
    }

    /// `/entityId: 42 is not of type string (/properties/entityId/type)`.
    public var description: String {
        "\(instancePath.isEmpty ? "(root)" : instancePath): \(message) (\(schemaPath.isEmpty ? "#" : schemaPath))"
    }
}
