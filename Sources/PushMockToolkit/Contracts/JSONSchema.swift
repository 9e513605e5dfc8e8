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
/// `oneOf`, `not`, `if`/`then`/`else`, `unevaluatedProperties`, `unevaluatedItems`, `$defs`,
/// `$id` (embedded resources, base URI changes), `$anchor`, `$dynamicAnchor`, `$ref` and
/// `$dynamicRef` (dynamic scope) to anything in this schema or in the schemas of `registry`.
/// `pattern` and `patternProperties` are ECMA-262 regular expressions (``ECMARegex``). `format`
/// is an annotation (never fails), as the specification's default says. Refused when the
/// schema is read: a `$ref` to a document that is not loaded (PushMock never fetches one from
/// the network), `$schema` other than draft 2020-12, `$recursiveRef`.
///
/// ```swift
/// let schema = try JSONSchema(["type": "object", "required": ["entityId"]])
/// schema.validate(["entityId": "42"]).isEmpty   // true
/// ```
public struct JSONSchema: Sendable, Hashable {
    public let root: JSONValue
    /// The other schemas this one may refer to.
    public let registry: JSONSchemaRegistry
    let index: SchemaIndex

    /// `root`, whose refs may name the schemas of `registry` by their `$id`; `uri` is where
    /// `root` came from (its base URI when it has no `$id`).
    public init(_ root: JSONValue, registry: JSONSchemaRegistry = JSONSchemaRegistry(), uri: String = "") throws(JSONSchemaError) {
        guard root.objectValue != nil || root.boolValue != nil else {
            throw JSONSchemaError(location: "", "a schema is an object or a boolean")
        }
        var builder = SchemaIndex.Builder()
        try builder.add(root, uri: uri, locationPrefix: "")
        for document in registry.documents {
            try builder.add(document.schema, uri: document.uri, locationPrefix: document.uri)
        }
        self.root = root
        self.registry = registry
        self.index = try builder.finish()
    }

    /// Every problem of `instance`, in document order; empty when it is valid.
    public func validate(_ instance: JSONValue) -> [JSONSchemaViolation] {
        var validator = Validator(index: index)
        return validator.evaluate(instance, root, base: index.rootURI, baseIsFinal: false, instancePath: [], schemaPath: [], depth: 0)
            .errors
    }

    public func isValid(_ instance: JSONValue) -> Bool { validate(instance).isEmpty }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.root == rhs.root && lhs.registry == rhs.registry }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(root)
        hasher.combine(registry)
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
