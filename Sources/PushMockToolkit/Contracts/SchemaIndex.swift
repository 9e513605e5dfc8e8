import Foundation
public import PushMockJSON

/// Schemas that a ``JSONSchema`` may `$ref` by URI: shared definitions in the contract file's
/// `schemas`, or the `*.schema.json` files beside it. Nothing is ever fetched from the network.
public struct JSONSchemaRegistry: Sendable, Hashable {
    public struct Document: Sendable, Hashable {
        /// Where the schema came from (its base URI when it has no `$id`).
        public let uri: String
        public let schema: JSONValue
    }

    public private(set) var documents: [Document] = []

    public init() {}

    /// Adds `schema`, found under its `$id`, and under `uri` too when given (a file's URL).
    public mutating func add(_ schema: JSONValue, uri: String? = nil) throws(JSONSchemaError) {
        let id = schema["$id"]?.stringValue
        guard let name = uri ?? id, !name.isEmpty else {
            throw JSONSchemaError(location: "", "a shared schema needs an absolute $id to be referred to")
        }
        if uri == nil, SchemaURI.Parts(name).scheme == nil {
            throw JSONSchemaError(location: "", "the $id \"\(name)\" of a shared schema must be an absolute URI (https://…, urn:…)")
        }
        documents.append(Document(uri: name, schema: schema))
    }

    /// Every `*.schema.json` file in `directory`, under its `$id` and its `file://` URL.
    public init(directory: String) throws(JSONSchemaError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".schema.json") }.sorted()
        } catch {
            throw JSONSchemaError(location: directory, "cannot list the directory")
        }
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path), let schema = try? JSONValue(parsing: [UInt8](data)) else {
                throw JSONSchemaError(location: path, "not a readable JSON file")
            }
            try add(schema, uri: URL(fileURLWithPath: path).absoluteString)
        }
    }
}

/// A schema and the base URI in effect inside it (its own `$id` applied).
struct SchemaLocation: Sendable {
    let schema: JSONValue
    let base: String
}

/// Everything a validation run looks up by URI, built once when the schema is read: schema
/// resources, anchors, each `$ref`'s target, `$id` base changes and compiled patterns.
struct SchemaIndex: Sendable {
    struct DynamicTarget: Sendable {
        let initial: SchemaLocation
        /// The anchor name when the initial target carries a matching `$dynamicAnchor`
        /// (the "bookend"): only then does the dynamic scope decide the target.
        let dynamicAnchor: String?
    }

    var rootURI = ""
    var resources: [String: SchemaLocation] = [:]
    /// `uri#name` → the schema carrying `$anchor` or `$dynamicAnchor` `name`.
    var anchors: [String: SchemaLocation] = [:]
    var dynamicAnchors: Set<String> = []
    /// Parent base and `$id` → the new base.
    var ids: [String: String] = [:]
    var refs: [String: SchemaLocation] = [:]
    var dynamicRefs: [String: DynamicTarget] = [:]
    var patterns: [String: ECMARegex] = [:]

    static func key(_ base: String, _ text: String) -> String { base + "\u{1}" + text }

    func base(for id: String, inside parent: String) -> String {
        ids[Self.key(parent, id)] ?? Self.withoutFragment(SchemaURI.resolve(id, against: parent))
    }

    static func withoutFragment(_ uri: String) -> String { SchemaURI.split(uri).resource }

    /// The schema `ref` names from a schema whose base is `base`, if it is loaded.
    func locate(_ ref: String, base: String) -> SchemaLocation? {
        let (resource, fragment) = SchemaURI.split(SchemaURI.resolve(ref, against: base))
        guard let document = resources[resource] else { return nil }
        guard let fragment, !fragment.isEmpty else { return document }
        guard fragment.hasPrefix("/") else { return anchors[document.base + "#" + fragment] }
        var current = document.schema
        var currentBase = document.base
        for token in fragment.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let name = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch current {
            case .object(let object):
                guard let next = object[name] else { return nil }
                current = next
            case .array(let elements):
                guard let position = Int(name), elements.indices.contains(position) else { return nil }
                current = elements[position]
            default:
                return nil
            }
            if let id = current["$id"]?.stringValue { currentBase = self.base(for: id, inside: currentBase) }
        }
        return SchemaLocation(schema: current, base: currentBase)
    }

    func dynamicTarget(_ ref: String, base: String) -> DynamicTarget? {
        guard let initial = locate(ref, base: base) else { return nil }
        let (resource, fragment) = SchemaURI.split(SchemaURI.resolve(ref, against: base))
        guard let fragment, !fragment.isEmpty, !fragment.hasPrefix("/"), let document = resources[resource],
            dynamicAnchors.contains(document.base + "#" + fragment)
        else { return DynamicTarget(initial: initial, dynamicAnchor: nil) }
        return DynamicTarget(initial: initial, dynamicAnchor: fragment)
    }

    // MARK: Building

    struct Builder {
        private var index = SchemaIndex()
        private var pendingRefs: [(base: String, ref: String, location: String, dynamic: Bool)] = []
        private var first = true

        static let draft202012: Set<String> = [
            "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#",
        ]

        mutating func add(_ document: JSONValue, uri: String, locationPrefix: String) throws(JSONSchemaError) {
            var base = uri
            if let id = document["$id"]?.stringValue {
                base = Self.withoutFragment(SchemaURI.resolve(id, against: uri))
            }
            if first {
                index.rootURI = uri
                first = false
            }
            index.resources[uri] = SchemaLocation(schema: document, base: base)
            try survey(document, parentBase: uri, pointer: [], prefix: locationPrefix)
        }

        func finish() throws(JSONSchemaError) -> SchemaIndex {
            var index = index
            for pending in pendingRefs {
                let key = SchemaIndex.key(pending.base, pending.ref)
                let found: Bool
                if pending.dynamic {
                    let target = index.dynamicTarget(pending.ref, base: pending.base)
                    index.dynamicRefs[key] = target
                    found = target != nil
                } else {
                    let target = index.locate(pending.ref, base: pending.base)
                    index.refs[key] = target
                    found = target != nil
                }
                if !found {
                    let keyword = pending.dynamic ? "$dynamicRef" : "$ref"
                    let absolute = SchemaURI.resolve(pending.ref, against: pending.base)
                    let resource = SchemaURI.split(absolute).resource
                    let message =
                        index.resources[resource] == nil && !resource.isEmpty
                        ? "\(keyword) \"\(pending.ref)\" refers to \(resource), which is not loaded: PushMock never fetches schemas over the network (put it in the contract file's schemas, or a *.schema.json file beside it, with that $id)"
                        : "\(keyword) \"\(pending.ref)\" points at nothing in \(resource.isEmpty ? "this schema" : resource)"
                    throw JSONSchemaError(location: pending.location, message)
                }
            }
            return index
        }

        private mutating func survey(_ schema: JSONValue, parentBase: String, pointer: [String], prefix: String) throws(JSONSchemaError) {
            let location = prefix + JSONSchema.pointerText(pointer)
            guard case .object(let object) = schema else {
                guard schema.boolValue != nil else { throw JSONSchemaError(location: location, "a schema is an object or a boolean") }
                return
            }
            var base = parentBase
            if let idValue = object["$id"] {
                guard let id = idValue.stringValue else { throw JSONSchemaError(location: location, "$id must be a string") }
                if let hash = id.firstIndex(of: "#"), id.index(after: hash) != id.endIndex {
                    throw JSONSchemaError(location: location, "$id must not have a fragment (use $anchor)")
                }
                base = Self.withoutFragment(SchemaURI.resolve(id, against: parentBase))
                index.ids[SchemaIndex.key(parentBase, id)] = base
                if let existing = index.resources[base], existing.schema != schema {
                    throw JSONSchemaError(location: location, "another schema already has the $id \(base)")
                }
                index.resources[base] = SchemaLocation(schema: schema, base: base)
            }
            for (key, value) in object {
                switch key {
                case "$schema":
                    guard let text = value.stringValue, Self.draft202012.contains(text) else {
                        throw JSONSchemaError(
                            location: location, "$schema must be https://json-schema.org/draft/2020-12/schema (no other draft is supported)"
                        )
                    }
                case "$anchor", "$dynamicAnchor":
                    guard let name = value.stringValue, Self.isAnchorName(name) else {
                        throw JSONSchemaError(location: location, "\(key) must be a name: a letter or _, then letters, digits, -, _ or .")
                    }
                    index.anchors[base + "#" + name] = SchemaLocation(schema: schema, base: base)
                    if key == "$dynamicAnchor" { index.dynamicAnchors.insert(base + "#" + name) }
                case "$ref", "$dynamicRef":
                    guard let ref = value.stringValue else { throw JSONSchemaError(location: location, "\(key) must be a string") }
                    pendingRefs.append((base, ref, location + "/" + key, key == "$dynamicRef"))
                case "$recursiveRef", "$recursiveAnchor":
                    throw JSONSchemaError(location: location, "\(key) is draft 2019-09; draft 2020-12 has $dynamicRef and $dynamicAnchor")
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
                    guard let text = value.stringValue else { throw JSONSchemaError(location: location, "pattern must be a string") }
                    try compile(text, location: location + "/pattern")
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
                case _ where Self.schemaKeywords.contains(key):
                    try survey(value, parentBase: base, pointer: pointer + [key], prefix: prefix)
                case _ where Self.schemaArrayKeywords.contains(key):
                    guard let elements = value.arrayValue, !elements.isEmpty || key == "prefixItems" else {
                        throw JSONSchemaError(location: location, "\(key) must be a non-empty array of schemas")
                    }
                    for (position, element) in elements.enumerated() {
                        try survey(element, parentBase: base, pointer: pointer + [key, String(position)], prefix: prefix)
                    }
                case _ where Self.schemaMapKeywords.contains(key):
                    guard case .object(let members) = value else { throw JSONSchemaError(location: location, "\(key) must be an object") }
                    for (name, member) in members {
                        if key == "patternProperties" {
                            try compile(name, location: location + "/patternProperties")
                        }
                        try survey(member, parentBase: base, pointer: pointer + [key, name], prefix: prefix)
                    }
                default:
                    continue
                }
            }
        }

        private mutating func compile(_ pattern: String, location: String) throws(JSONSchemaError) {
            guard index.patterns[pattern] == nil else { return }
            do {
                index.patterns[pattern] = try ECMARegex(pattern)
            } catch {
                throw JSONSchemaError(location: location, "\"\(pattern)\" is not an ECMA-262 regular expression: \(error)")
            }
        }

        static func isAnchorName(_ name: String) -> Bool {
            guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic || first == "_" else { return false }
            return name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
            }
        }

        static func withoutFragment(_ uri: String) -> String { SchemaIndex.withoutFragment(uri) }

        /// Keywords whose value is a schema, an array of schemas, or an object of schemas.
        static let schemaKeywords: Set<String> = [
            "additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else", "unevaluatedProperties",
            "unevaluatedItems",
        ]
        static let schemaArrayKeywords: Set<String> = ["allOf", "anyOf", "oneOf", "prefixItems"]
        static let schemaMapKeywords: Set<String> = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"]
    }
}
