import Foundation
import PushMockJSON

/// One validation run: walks schema and instance together, collecting errors and the
/// annotations `unevaluatedProperties`/`unevaluatedItems` need (which properties and items the
/// valid subschemas looked at).
struct Validator {
    struct Outcome {
        var errors: [JSONSchemaViolation] = []
        var properties: Set<String> = []
        var items: Set<Int> = []
        var isValid: Bool { errors.isEmpty }

        /// Takes a subschema's result: its errors, and its annotations when it is valid.
        mutating func merge(_ other: Outcome) {
            errors += other.errors
            if other.isValid {
                properties.formUnion(other.properties)
                items.formUnion(other.items)
            }
        }
    }

    static let typeNames: Set<String> = ["null", "boolean", "object", "array", "number", "string", "integer"]
    /// Guards against `$ref` cycles that never consume the instance.
    static let maximumDepth = 200

    let index: SchemaIndex
    /// The schema resources evaluation has entered, outermost first: where `$dynamicRef`
    /// looks for its `$dynamicAnchor`.
    var dynamicScope: [String] = []

    init(index: SchemaIndex) { self.index = index }

    func regex(_ pattern: String) -> ECMARegex? { index.patterns[pattern] ?? (try? ECMARegex(pattern)) }

    mutating func evaluate(
        _ instance: JSONValue, _ subschema: JSONValue, base parentBase: String, baseIsFinal: Bool, instancePath: [String],
        schemaPath: [String], depth: Int
    ) -> Outcome {
        var out = Outcome()
        func fail(_ keyword: String, _ message: String) {
            out.errors.append(
                JSONSchemaViolation(
                    instancePath: JSONSchema.pointerText(instancePath),
                    schemaPath: JSONSchema.pointerText(schemaPath + [keyword]),
                    keyword: keyword,
                    message: message))
        }
        if let allowed = subschema.boolValue {
            if !allowed {
                out.errors.append(
                    JSONSchemaViolation(
                        instancePath: JSONSchema.pointerText(instancePath), schemaPath: JSONSchema.pointerText(schemaPath),
                        keyword: "false", message: "no value is allowed here"))
            }
            return out
        }
        guard case .object(let keywords) = subschema else { return out }
        guard depth < Self.maximumDepth else {
            fail("$ref", "the schema refers to itself without end")
            return out
        }
        var base = parentBase
        if !baseIsFinal, let id = keywords["$id"]?.stringValue { base = index.base(for: id, inside: parentBase) }
        let entersResource = dynamicScope.last != base
        if entersResource { dynamicScope.append(base) }
        defer { if entersResource { dynamicScope.removeLast() } }

        func sub(_ value: JSONValue, _ schemaValue: JSONValue, _ extraInstance: [String], _ extraSchema: [String]) -> Outcome {
            evaluate(
                value, schemaValue, base: base, baseIsFinal: false, instancePath: instancePath + extraInstance,
                schemaPath: schemaPath + extraSchema, depth: depth + 1)
        }
        func follow(_ target: SchemaLocation, _ keyword: String) -> Outcome {
            evaluate(
                instance, target.schema, base: target.base, baseIsFinal: true, instancePath: instancePath,
                schemaPath: schemaPath + [keyword],
                depth: depth + 1)
        }

        // In-place applicators first: their annotations feed unevaluated*.
        if let ref = keywords["$ref"]?.stringValue {
            if let target = index.refs[SchemaIndex.key(base, ref)] ?? index.locate(ref, base: base) {
                out.merge(follow(target, "$ref"))
            } else {
                fail("$ref", "$ref \"\(ref)\" points at nothing loaded")
            }
        }
        if let ref = keywords["$dynamicRef"]?.stringValue {
            if let target = index.dynamicRefs[SchemaIndex.key(base, ref)] ?? index.dynamicTarget(ref, base: base) {
                var location = target.initial
                if let name = target.dynamicAnchor,
                    let outermost = dynamicScope.first(where: { index.dynamicAnchors.contains($0 + "#" + name) }),
                    let found = index.anchors[outermost + "#" + name]
                {
                    location = found
                }
                out.merge(follow(location, "$dynamicRef"))
            } else {
                fail("$dynamicRef", "$dynamicRef \"\(ref)\" points at nothing loaded")
            }
        }
        if let all = keywords["allOf"]?.arrayValue {
            for (index, element) in all.enumerated() { out.merge(sub(instance, element, [], ["allOf", String(index)])) }
        }
        if let any = keywords["anyOf"]?.arrayValue {
            let results = any.enumerated().map { sub(instance, $0.element, [], ["anyOf", String($0.offset)]) }
            if results.contains(where: \.isValid) {
                for result in results where result.isValid { out.merge(result) }
            } else {
                fail("anyOf", "matches none of the \(any.count) anyOf schemas")
            }
        }
        if let one = keywords["oneOf"]?.arrayValue {
            let results = one.enumerated().map { sub(instance, $0.element, [], ["oneOf", String($0.offset)]) }
            let valid = results.filter(\.isValid)
            if valid.count == 1 {
                out.merge(valid[0])
            } else {
                fail("oneOf", valid.isEmpty ? "matches none of the oneOf schemas" : "matches \(valid.count) oneOf schemas, not exactly one")
            }
        }
        if let not = keywords["not"] {
            if sub(instance, not, [], ["not"]).isValid { fail("not", "must not match the \"not\" schema") }
        }
        if let condition = keywords["if"] {
            let result = sub(instance, condition, [], ["if"])
            if result.isValid {
                out.merge(result)
                if let then = keywords["then"] { out.merge(sub(instance, then, [], ["then"])) }
            } else if let otherwise = keywords["else"] {
                out.merge(sub(instance, otherwise, [], ["else"]))
            }
        }

        // Any instance type.
        if let type = keywords["type"] {
            let names = (type.arrayValue ?? [type]).compactMap(\.stringValue)
            if !names.contains(where: { Self.hasType(instance, $0) }) {
                fail("type", "\(Self.brief(instance)) is not of type \(names.joined(separator: ", "))")
            }
        }
        if let values = keywords["enum"]?.arrayValue, !values.contains(instance) {
            fail("enum", "\(Self.brief(instance)) is not one of \(Self.brief(.array(values)))")
        }
        if let constant = keywords["const"], constant != instance {
            fail("const", "\(Self.brief(instance)) is not \(Self.brief(constant))")
        }

        switch instance {
        case .number(let text):
            checkNumber(text, keywords, fail)
        case .string(let text):
            let length = text.unicodeScalars.count
            if let maximum = keywords["maxLength"]?.doubleValue, Double(length) > maximum {
                fail("maxLength", "is longer than \(Int(maximum)) characters")
            }
            if let minimum = keywords["minLength"]?.doubleValue, Double(length) < minimum {
                fail("minLength", "is shorter than \(Int(minimum)) characters")
            }
            if let pattern = keywords["pattern"]?.stringValue, let regex = regex(pattern) {
                switch regex.firstMatch(in: text) {
                case true?: break
                case false?: fail("pattern", "\(Self.brief(instance)) does not match \(pattern)")
                case nil: fail("pattern", "matching \(pattern) gave up (too much backtracking)")
                }
            }
        case .array(let elements):
            if let maximum = keywords["maxItems"]?.doubleValue, Double(elements.count) > maximum {
                fail("maxItems", "has more than \(Int(maximum)) items")
            }
            if let minimum = keywords["minItems"]?.doubleValue, Double(elements.count) < minimum {
                fail("minItems", "has fewer than \(Int(minimum)) items")
            }
            if keywords["uniqueItems"]?.boolValue == true {
                outer: for first in elements.indices {
                    for second in elements.indices where second > first && elements[first] == elements[second] {
                        fail("uniqueItems", "items \(first) and \(second) are equal")
                        break outer
                    }
                }
            }
            let prefix = keywords["prefixItems"]?.arrayValue ?? []
            for (index, element) in elements.enumerated() where index < prefix.count {
                out.merge(sub(element, prefix[index], [String(index)], ["prefixItems", String(index)]))
                out.items.insert(index)
            }
            if let items = keywords["items"] {
                for (index, element) in elements.enumerated() where index >= prefix.count {
                    out.merge(sub(element, items, [String(index)], ["items"]))
                    out.items.insert(index)
                }
            }
            if let contains = keywords["contains"] {
                var matching: [Int] = []
                for (index, element) in elements.enumerated() where sub(element, contains, [String(index)], ["contains"]).isValid {
                    matching.append(index)
                }
                let minimum = keywords["minContains"]?.doubleValue ?? 1
                if Double(matching.count) < minimum {
                    fail(
                        keywords["minContains"] == nil ? "contains" : "minContains",
                        "contains \(matching.count) matching items, fewer than \(Int(minimum))")
                }
                if let maximum = keywords["maxContains"]?.doubleValue, Double(matching.count) > maximum {
                    fail("maxContains", "contains \(matching.count) matching items, more than \(Int(maximum))")
                }
                out.items.formUnion(matching)
            }
            if let unevaluated = keywords["unevaluatedItems"] {
                for (index, element) in elements.enumerated() where !out.items.contains(index) {
                    out.merge(sub(element, unevaluated, [String(index)], ["unevaluatedItems"]))
                    out.items.insert(index)
                }
            }
        case .object(let object):
            var names: [String] = []
            var seen = Set<String>()
            for member in object.members where seen.insert(member.key).inserted { names.append(member.key) }
            if let maximum = keywords["maxProperties"]?.doubleValue, Double(names.count) > maximum {
                fail("maxProperties", "has more than \(Int(maximum)) properties")
            }
            if let minimum = keywords["minProperties"]?.doubleValue, Double(names.count) < minimum {
                fail("minProperties", "has fewer than \(Int(minimum)) properties")
            }
            for name in (keywords["required"]?.arrayValue ?? []).compactMap(\.stringValue) where !seen.contains(name) {
                fail("required", "\"\(name)\" is required")
            }
            if case .object(let dependencies)? = keywords["dependentRequired"] {
                for (name, needed) in dependencies where seen.contains(name) {
                    for other in (needed.arrayValue ?? []).compactMap(\.stringValue) where !seen.contains(other) {
                        fail("dependentRequired", "\"\(other)\" is required when \"\(name)\" is present")
                    }
                }
            }
            if case .object(let dependencies)? = keywords["dependentSchemas"] {
                for (name, dependent) in dependencies where seen.contains(name) {
                    out.merge(sub(instance, dependent, [], ["dependentSchemas", name]))
                }
            }
            let properties = keywords["properties"]?.objectValue
            var patterns: [(String, ECMARegex, JSONValue)] = []
            if case .object(let patternObject)? = keywords["patternProperties"] {
                for (pattern, value) in patternObject {
                    if let regex = regex(pattern) { patterns.append((pattern, regex, value)) }
                }
            }
            let additional = keywords["additionalProperties"]
            for name in names {
                let value = object[name]!
                var matched = false
                if let propertySchema = properties?[name] {
                    matched = true
                    out.merge(sub(value, propertySchema, [name], ["properties", name]))
                }
                for (pattern, regex, patternSchema) in patterns {
                    guard let found = regex.firstMatch(in: name) else {
                        fail("patternProperties", "matching \(pattern) against \"\(name)\" gave up (too much backtracking)")
                        continue
                    }
                    guard found else { continue }
                    matched = true
                    out.merge(sub(value, patternSchema, [name], ["patternProperties", pattern]))
                }
                if !matched, let additional {
                    let result = sub(value, additional, [name], ["additionalProperties"])
                    if !result.isValid, additional.boolValue == false {
                        fail("additionalProperties", "\"\(name)\" is not allowed")
                    } else {
                        out.merge(result)
                    }
                    matched = true
                }
                if matched { out.properties.insert(name) }
            }
            if let propertyNames = keywords["propertyNames"] {
                for name in names {
                    let result = sub(.string(name), propertyNames, [name], ["propertyNames"])
                    if !result.isValid { fail("propertyNames", "the name \"\(name)\" is not allowed") }
                }
            }
            if let unevaluated = keywords["unevaluatedProperties"] {
                for name in names where !out.properties.contains(name) {
                    let result = sub(object[name]!, unevaluated, [name], ["unevaluatedProperties"])
                    if !result.isValid, unevaluated.boolValue == false {
                        fail("unevaluatedProperties", "\"\(name)\" is not allowed (unevaluated)")
                    } else {
                        out.merge(result)
                    }
                    out.properties.insert(name)
                }
            }
        default:
            break
        }
        return out
    }

    private func checkNumber(_ text: String, _ keywords: JSONObject, _ fail: (String, String) -> Void) {
        guard let value = Double(text) else { return }
        if let maximum = keywords["maximum"]?.doubleValue, value > maximum { fail("maximum", "\(text) is greater than \(maximum.clean)") }
        if let maximum = keywords["exclusiveMaximum"]?.doubleValue, value >= maximum {
            fail("exclusiveMaximum", "\(text) is not less than \(maximum.clean)")
        }
        if let minimum = keywords["minimum"]?.doubleValue, value < minimum { fail("minimum", "\(text) is less than \(minimum.clean)") }
        if let minimum = keywords["exclusiveMinimum"]?.doubleValue, value <= minimum {
            fail("exclusiveMinimum", "\(text) is not greater than \(minimum.clean)")
        }
        if let divisorText = keywords["multipleOf"]?.numberText, !Self.isMultiple(text, of: divisorText) {
            fail("multipleOf", "\(text) is not a multiple of \(divisorText)")
        }
    }

    /// Exact in decimal (`0.3` is a multiple of `0.1`), through `Decimal`'s 38 digits.
    static func isMultiple(_ text: String, of divisorText: String) -> Bool {
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
            let divisor = Decimal(string: divisorText, locale: Locale(identifier: "en_US_POSIX")), divisor != 0
        else {
            guard let value = Double(text), let divisor = Double(divisorText) else { return true }
            let quotient = value / divisor
            return quotient.isFinite ? quotient == quotient.rounded() : true
        }
        var quotient = value / divisor
        var whole = Decimal()
        NSDecimalRound(&whole, &quotient, 0, .down)
        return whole == quotient
    }

    static func hasType(_ instance: JSONValue, _ name: String) -> Bool {
        switch (instance, name) {
        case (.null, "null"), (.bool, "boolean"), (.object, "object"), (.array, "array"), (.string, "string"), (.number, "number"):
            return true
        case (.number(let text), "integer"):
            guard let value = Double(text), value.isFinite else { return false }
            if value == value.rounded() { return true }
            return false
        default:
            return false
        }
    }

    /// A short rendering of a value for messages.
    static func brief(_ value: JSONValue) -> String {
        let text = value.compactString
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}

extension Double {
    /// `5` rather than `5.0`.
    fileprivate var clean: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}
