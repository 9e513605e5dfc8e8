import Foundation
import PushMockJSON
import PushMockTestSupport
import PushMockToolkit
import Testing

/// The payload-contract validator against an independent implementation: Python's `jsonschema`
/// (`Draft202012Validator`, installed by `scripts/test` into `.build/python-venv`) judges the
/// same generated schema/instance pairs, and every verdict must agree.
@Suite("JSON Schema validator against Python jsonschema")
struct JSONSchemaOracleTests {
    static var python: String {
        if let override = ProcessInfo.processInfo.environment["PUSHMOCK_EXPO_PYTHON"] { return override }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/python-venv/bin/python3").path
    }

    static let oracleScript = #"""
        import json, sys
        from jsonschema import Draft202012Validator
        from referencing import Registry
        from referencing.jsonschema import DRAFT202012
        cases = json.load(open(sys.argv[1]))
        verdicts = []
        for case in cases:
            Draft202012Validator.check_schema(case["schema"])
            if "registry" in case:
                registry = Registry().with_resources(
                    [(uri, DRAFT202012.create_resource(document)) for uri, document in case["registry"]])
                validator = Draft202012Validator(case["schema"], registry=registry)
            else:
                validator = Draft202012Validator(case["schema"])
            verdicts.append(validator.is_valid(case["instance"]))
        json.dump(verdicts, sys.stdout)
        """#

    @Test("generated schemas and instances: same verdicts as jsonschema", arguments: [1 as UInt64, 2, 3, 4])
    func agreesWithJSONSchema(seed: UInt64) async throws {
        var generator = SchemaCaseGenerator(seed: seed)
        var cases: [OracleCase] = []
        for round in 0..<500 {
            // Every fourth schema exercises $id, $anchor, $dynamicRef and shared schemas.
            let (schema, registry) = round % 4 == 3 ? generator.referencingSchema() : (generator.rootSchema(), [])
            for _ in 0..<8 { cases.append(OracleCase(schema: schema, instance: generator.instance(depth: 0), registry: registry)) }
        }
        // Hand-written boundaries beside the generated cases, so every keyword's edge is met.
        for (schemaText, instanceText) in Self.boundaries {
            cases.append(OracleCase(schema: try JSONValue(parsing: schemaText), instance: try JSONValue(parsing: instanceText)))
        }
        for (schemaText, registryTexts, instanceText) in Self.referenceBoundaries {
            let registry = try registryTexts.map { text in
                let document = try JSONValue(parsing: text)
                return (uri: document["$id"]?.stringValue ?? "", schema: document)
            }
            cases.append(
                OracleCase(schema: try JSONValue(parsing: schemaText), instance: try JSONValue(parsing: instanceText), registry: registry))
        }
        let document = JSONValue.array(cases.map(\.json))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let casesFile = directory.appendingPathComponent("cases.json")
        let scriptFile = directory.appendingPathComponent("oracle.py")
        try Data(document.compactBytes).write(to: casesFile)
        try Data(Self.oracleScript.utf8).write(to: scriptFile)

        let output = try await Self.run(Self.python, [scriptFile.path, casesFile.path])
        try #require(output.status == 0, "jsonschema is required in \(Self.python) (scripts/test installs it): \(output.error)")
        let verdicts = try #require(try JSONValue(parsing: output.output).arrayValue)
        try #require(verdicts.count == cases.count)

        var mismatches: [String] = []
        var validCount = 0
        for (index, testCase) in cases.enumerated() {
            var registry = JSONSchemaRegistry()
            for shared in testCase.registry { try registry.add(shared.schema, uri: shared.uri) }
            let schema = try JSONSchema(testCase.schema, registry: registry)
            let ours = schema.isValid(testCase.instance)
            let theirs = verdicts[index].boolValue ?? false
            if theirs { validCount += 1 }
            if ours != theirs {
                mismatches.append(
                    "schema \(testCase.schema)\ninstance \(testCase.instance)\njsonschema: \(theirs), ours: \(ours) \(schema.validate(testCase.instance))"
                )
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(cases.count) differ:\n\(mismatches.prefix(5).joined(separator: "\n\n"))")
        // The generator must produce both outcomes in earnest, or the comparison proves little.
        #expect(validCount > cases.count / 10 && validCount < cases.count * 9 / 10, "\(validCount) of \(cases.count) valid")
    }

    static let boundaries: [(String, String)] = [
        (##"{"exclusiveMaximum":3}"##, "3"), (##"{"exclusiveMaximum":3}"##, "2.5"), (##"{"maximum":3}"##, "3"),
        (##"{"exclusiveMinimum":3}"##, "3"),
        (##"{"minimum":3}"##, "3.0"), (##"{"multipleOf":3}"##, "6.0"), (##"{"multipleOf":3}"##, "4.5"), (##"{"type":"integer"}"##, "1.0"),
        (##"{"type":"integer"}"##, "1.5"), (##"{"type":"number"}"##, "true"), (##"{"maxLength":2}"##, ##""🙂🙂""##),
        (##"{"minLength":3}"##, ##""🙂🙂""##),
        (##"{"pattern":"^a"}"##, ##""ba""##), (##"{"pattern":"b"}"##, ##""abc""##), (##"{"enum":[1]}"##, "1.0"),
        (##"{"enum":[1]}"##, "true"),
        (##"{"const":{"a":[1,2]}}"##, ##"{"a":[1,2.0]}"##), (##"{"uniqueItems":true}"##, "[1,1.0]"),
        (##"{"uniqueItems":true}"##, "[1,true]"),
        (##"{"contains":{"type":"string"},"minContains":2}"##, ##"["a",1]"##),
        (##"{"contains":{"type":"string"},"maxContains":1}"##, ##"["a","b"]"##),
        (##"{"contains":{"type":"string"},"minContains":0}"##, "[]"),
        (##"{"prefixItems":[{"type":"string"}],"items":false}"##, ##"["a",1]"##),
        (##"{"prefixItems":[{"type":"string"}],"unevaluatedItems":false}"##, ##"["a"]"##),
        (##"{"contains":{"type":"string"},"unevaluatedItems":false}"##, ##"["a",1]"##),
        (##"{"properties":{"a":true},"unevaluatedProperties":false}"##, ##"{"a":1,"b":2}"##),
        (##"{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}"##, ##"{"a":1}"##),
        (##"{"anyOf":[{"properties":{"a":true}},{"properties":{"b":true}}],"unevaluatedProperties":false}"##, ##"{"a":1,"b":2}"##),
        (##"{"oneOf":[{"required":["a"]},{"required":["b"]}]}"##, ##"{"a":1,"b":2}"##),
        (##"{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}"##, ##"{"a":1}"##),
        (##"{"if":{"properties":{"a":true}},"unevaluatedProperties":false}"##, ##"{"a":1}"##),
        (##"{"dependentRequired":{"a":["b"]}}"##, ##"{"a":1}"##), (##"{"dependentSchemas":{"a":{"required":["c"]}}}"##, ##"{"a":1}"##),
        (##"{"patternProperties":{"^x":{"type":"integer"}},"additionalProperties":false}"##, ##"{"x1":1,"y":2}"##),
        (##"{"propertyNames":{"maxLength":1}}"##, ##"{"ab":1}"##), (##"{"not":{"type":"null"}}"##, "null"),
        (##"{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}"##, "1"),
        (##"{"$ref":"#n","$defs":{"a":{"$anchor":"n","minimum":2}}}"##, "1"),
        (##"{"properties":{"next":{"$ref":"#"}},"required":["v"]}"##, ##"{"v":1,"next":{"next":{}}}"##), (##"false"##, "1"),
        (##"{"format":"date-time"}"##, ##""not a date""##), (##"{"minProperties":2}"##, ##"{"a":1,"a":2}"##),
    ]

    struct OracleCase {
        var schema: JSONValue
        var instance: JSONValue
        var registry: [(uri: String, schema: JSONValue)] = []

        var json: JSONValue {
            var object: JSONObject = ["schema": schema, "instance": instance]
            if !registry.isEmpty { object["registry"] = .array(registry.map { .array([.string($0.uri), $0.schema]) }) }
            return .object(object)
        }
    }

    /// `$id`, `$anchor`, `$dynamicRef`, JSON Pointer escapes and shared schemas, after the
    /// situations of the JSON-Schema-Test-Suite (draft 2020-12 ref, anchor, id, dynamicRef):
    /// schema, shared schemas (each under its `$id`), instance.
    static let referenceBoundaries: [(String, [String], String)] = [
        // JSON Pointer escapes: ~0, ~1 and percent-encoding.
        (
            ##"{"$defs":{"t~f":{"type":"integer"},"s/f":{"type":"integer"},"p%f":{"type":"integer"}},"properties":{"t":{"$ref":"#/$defs/t~0f"},"s":{"$ref":"#/$defs/s~1f"},"p":{"$ref":"#/$defs/p%25f"}}}"##,
            [], ##"{"t":"x"}"##
        ),
        (
            ##"{"$defs":{"t~f":{"type":"integer"},"s/f":{"type":"integer"},"p%f":{"type":"integer"}},"properties":{"t":{"$ref":"#/$defs/t~0f"},"s":{"$ref":"#/$defs/s~1f"},"p":{"$ref":"#/$defs/p%25f"}}}"##,
            [], ##"{"s":"x"}"##
        ),
        (
            ##"{"$defs":{"t~f":{"type":"integer"},"s/f":{"type":"integer"},"p%f":{"type":"integer"}},"properties":{"t":{"$ref":"#/$defs/t~0f"},"s":{"$ref":"#/$defs/s~1f"},"p":{"$ref":"#/$defs/p%25f"}}}"##,
            [], ##"{"p":"x","t":1,"s":2}"##
        ),
        (##"{"properties":{"foo\"bar":{"$ref":"#/$defs/foo%22bar"}},"$defs":{"foo\"bar":{"type":"number"}}}"##, [], ##"{"foo\"bar":"1"}"##),
        (##"{"prefixItems":[{"type":"integer"},{"$ref":"#/prefixItems/0"}]}"##, [], ##"[1,"a"]"##),
        // Base URI changes: embedded resources, relative refs against the current base.
        (
            ##"{"$id":"http://example.com/r1.json","properties":{"foo":{"$id":"r2.json","$defs":{"inner":{"properties":{"bar":{"type":"string"}}}},"$ref":"#/$defs/inner"}},"$ref":"r2.json"}"##,
            [], ##"{"foo":{"bar":1},"bar":"a"}"##
        ),
        (
            ##"{"$id":"http://example.com/r1.json","properties":{"foo":{"$id":"r2.json","$defs":{"inner":{"properties":{"bar":{"type":"string"}}}},"$ref":"#/$defs/inner"}},"$ref":"r2.json"}"##,
            [], ##"{"foo":{"bar":"a"},"bar":1}"##
        ),
        (
            ##"{"$id":"http://example.com/r1.json","properties":{"foo":{"$id":"r2.json","$defs":{"inner":{"properties":{"bar":{"type":"string"}}}},"$ref":"#/$defs/inner"}},"$ref":"r2.json"}"##,
            [], ##"{"foo":{"bar":"a"},"bar":"b"}"##
        ),
        (
            ##"{"$id":"http://localhost:1234/tree","type":"object","properties":{"nodes":{"type":"array","items":{"$ref":"node"}}},"required":["nodes"],"$defs":{"node":{"$id":"http://localhost:1234/node","properties":{"value":{"type":"number"},"subtree":{"$ref":"tree"}},"required":["value"]}}}"##,
            [], ##"{"nodes":[{"value":1,"subtree":{"nodes":[{"value":"x"}]}}]}"##
        ),
        (
            ##"{"$id":"http://localhost:1234/tree","type":"object","properties":{"nodes":{"type":"array","items":{"$ref":"node"}}},"required":["nodes"],"$defs":{"node":{"$id":"http://localhost:1234/node","properties":{"value":{"type":"number"},"subtree":{"$ref":"tree"}},"required":["value"]}}}"##,
            [], ##"{"nodes":[{"value":1,"subtree":{"nodes":[{"value":2}]}}]}"##
        ),
        (
            ##"{"$id":"http://example.com/a/b/c.json","$defs":{"x":{"$id":"../d/e.json","type":"string"}},"$ref":"http://example.com/a/d/e.json"}"##,
            [], "1"
        ),
        (
            ##"{"$id":"http://example.com/a/b/c.json","$defs":{"x":{"$id":"../d/e.json","type":"string"}},"$ref":"/a/d/e.json"}"##, [],
            ##""s""##
        ),
        (##"{"$id":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed","$defs":{"bar":{"type":"string"}},"$ref":"#/$defs/bar"}"##, [], "1"),
        (
            ##"{"$id":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed","$defs":{"bar":{"$anchor":"b","type":"string"}},"$ref":"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#b"}"##,
            [], ##""x""##
        ),
        // $anchor: in the root, in an embedded resource, by absolute URI.
        (##"{"$ref":"#foo","$defs":{"A":{"$anchor":"foo","type":"integer"}}}"##, [], ##""a""##),
        (
            ##"{"$id":"http://example.com/root","$ref":"http://example.com/nested.json#foo","$defs":{"A":{"$id":"nested.json","$defs":{"B":{"$anchor":"foo","type":"integer"}}}}}"##,
            [], "1"
        ),
        (
            ##"{"$id":"http://example.com/root","$ref":"http://example.com/nested.json#foo","$defs":{"A":{"$id":"nested.json","$defs":{"B":{"$anchor":"foo","type":"integer"}}}}}"##,
            [], "true"
        ),
        (
            ##"{"$id":"http://example.com/root","allOf":[{"$ref":"#foo"}],"$defs":{"A":{"$anchor":"foo","type":"integer"},"B":{"$id":"child1","allOf":[{"$ref":"#foo"}],"$defs":{"c":{"$anchor":"foo","type":"string"}}}}}"##,
            [], "1"
        ),
        (
            ##"{"$id":"http://example.com/root","$ref":"child1#foo","$defs":{"A":{"$anchor":"foo","type":"integer"},"B":{"$id":"child1","$defs":{"c":{"$anchor":"foo","type":"string"}}}}}"##,
            [], "1"
        ),
        // Shared schemas, by $id (pointer, anchor, whole document, a ref inside them).
        (
            ##"{"$ref":"https://example.com/shared/defs.json#/$defs/id"}"##,
            [##"{"$id":"https://example.com/shared/defs.json","$defs":{"id":{"type":"string","minLength":2}}}"##], ##""a""##
        ),
        (
            ##"{"$ref":"https://example.com/shared/defs.json#/$defs/id"}"##,
            [##"{"$id":"https://example.com/shared/defs.json","$defs":{"id":{"type":"string","minLength":2}}}"##], ##""ab""##
        ),
        (
            ##"{"$id":"https://example.com/app/order.json","properties":{"path":{"$ref":"../shared/defs.json#path"}}}"##,
            [
                ##"{"$id":"https://example.com/shared/defs.json","$defs":{"p":{"$anchor":"path","$ref":"#/$defs/s","pattern":"^/orders/"},"s":{"type":"string"}}}"##
            ], ##"{"path":"/orders/1"}"##
        ),
        (
            ##"{"$id":"https://example.com/app/order.json","properties":{"path":{"$ref":"../shared/defs.json#path"}}}"##,
            [
                ##"{"$id":"https://example.com/shared/defs.json","$defs":{"p":{"$anchor":"path","$ref":"#/$defs/s","pattern":"^/orders/"},"s":{"type":"string"}}}"##
            ], ##"{"path":7}"##
        ),
        (
            ##"{"$ref":"https://example.com/a.json"}"##,
            [
                ##"{"$id":"https://example.com/a.json","properties":{"b":{"$ref":"b.json"}}}"##,
                ##"{"$id":"https://example.com/b.json","type":"integer"}"##,
            ], ##"{"b":"x"}"##
        ),
        // $dynamicRef: like $ref without a bookend; else the outermost $dynamicAnchor in scope.
        (
            ##"{"$id":"https://t.example/d1/root","type":"array","items":{"$dynamicRef":"#items"},"$defs":{"foo":{"$dynamicAnchor":"items","type":"string"}}}"##,
            [], ##"["a",1]"##
        ),
        (
            ##"{"$id":"https://t.example/d2/root","$ref":"list","$defs":{"foo":{"$dynamicAnchor":"items","type":"string"},"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#items"},"$defs":{"items":{"$dynamicAnchor":"items"}}}}}"##,
            [], ##"["a",1]"##
        ),
        (
            ##"{"$id":"https://t.example/d2/root","$ref":"list","$defs":{"foo":{"$dynamicAnchor":"items","type":"string"},"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#items"},"$defs":{"items":{"$dynamicAnchor":"items"}}}}}"##,
            [], ##"["a","b"]"##
        ),
        (
            ##"{"$id":"https://t.example/d3/root","$ref":"list","$defs":{"foo":{"$dynamicAnchor":"items","type":"string"},"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#/$defs/items"},"$defs":{"items":{"$dynamicAnchor":"items","type":"number"}}}}}"##,
            [], ##"["a"]"##
        ),
        (
            ##"{"$id":"https://t.example/d4/root","$ref":"mid","$defs":{"foo":{"$dynamicAnchor":"items","type":"string"},"mid":{"$id":"mid","$ref":"list"},"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#items"},"$defs":{"items":{"$dynamicAnchor":"items"}}}}}"##,
            [], ##"["a",1]"##
        ),
        (
            ##"{"$id":"https://t.example/d5/root","$ref":"list","$defs":{"foo":{"$anchor":"items","type":"string"},"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#items"},"$defs":{"items":{"$dynamicAnchor":"items"}}}}}"##,
            [], ##"["a",1]"##
        ),
        (
            ##"{"$id":"https://t.example/d6/root","$ref":"list","$defs":{"foo":{"$dynamicAnchor":"items","type":"string"},"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#items"},"$defs":{"items":{"$anchor":"items"}}}}}"##,
            [], ##"["a",1]"##
        ),
        (
            ##"{"$id":"https://t.example/d7/root","$dynamicAnchor":"meta","type":"object","properties":{"foo":{"const":"pass"}},"$ref":"extended","$defs":{"extended":{"$id":"extended","$dynamicAnchor":"meta","type":"object","properties":{"bar":{"$ref":"bar"}}},"bar":{"$id":"bar","type":"object","properties":{"baz":{"$dynamicRef":"extended#meta"}}}}}"##,
            [], ##"{"foo":"pass","bar":{"baz":{"foo":"fail"}}}"##
        ),
        (
            ##"{"$id":"https://t.example/d8/root","$dynamicAnchor":"meta","type":"object","properties":{"foo":{"const":"pass"}},"$ref":"extended","$defs":{"extended":{"$id":"extended","$anchor":"meta","type":"object","properties":{"bar":{"$ref":"bar"}}},"bar":{"$id":"bar","type":"object","properties":{"baz":{"$dynamicRef":"extended#meta"}}}}}"##,
            [], ##"{"foo":"pass","bar":{"baz":{"foo":"fail"}}}"##
        ),
        (
            ##"{"$id":"https://t.example/d9/main","if":{"properties":{"kind":{"const":"numbers"}},"required":["kind"]},"then":{"$ref":"numberList"},"else":{"$ref":"stringList"},"$defs":{"genericList":{"$id":"genericList","properties":{"list":{"items":{"$dynamicRef":"#itemType"}}},"$defs":{"d":{"$dynamicAnchor":"itemType"}}},"numberList":{"$id":"numberList","$defs":{"t":{"$dynamicAnchor":"itemType","type":"number"}},"$ref":"genericList"},"stringList":{"$id":"stringList","$defs":{"t":{"$dynamicAnchor":"itemType","type":"string"}},"$ref":"genericList"}}}"##,
            [], ##"{"kind":"numbers","list":["a"]}"##
        ),
        (
            ##"{"$id":"https://t.example/d9/main","if":{"properties":{"kind":{"const":"numbers"}},"required":["kind"]},"then":{"$ref":"numberList"},"else":{"$ref":"stringList"},"$defs":{"genericList":{"$id":"genericList","properties":{"list":{"items":{"$dynamicRef":"#itemType"}}},"$defs":{"d":{"$dynamicAnchor":"itemType"}}},"numberList":{"$id":"numberList","$defs":{"t":{"$dynamicAnchor":"itemType","type":"number"}},"$ref":"genericList"},"stringList":{"$id":"stringList","$defs":{"t":{"$dynamicAnchor":"itemType","type":"string"}},"$ref":"genericList"}}}"##,
            [], ##"{"kind":"strings","list":["a"]}"##
        ),
        // A strict tree through a shared, extensible schema (the suite's strict-tree case).
        (
            ##"{"$id":"https://t.example/strict-tree.json","$dynamicAnchor":"node","$ref":"tree.json","unevaluatedProperties":false}"##,
            [
                ##"{"$id":"https://t.example/tree.json","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}"##
            ], ##"{"children":[{"daat":1}]}"##
        ),
        (
            ##"{"$id":"https://t.example/strict-tree.json","$dynamicAnchor":"node","$ref":"tree.json","unevaluatedProperties":false}"##,
            [
                ##"{"$id":"https://t.example/tree.json","$dynamicAnchor":"node","type":"object","properties":{"data":true,"children":{"type":"array","items":{"$dynamicRef":"#node"}}}}"##
            ], ##"{"children":[{"data":1}]}"##
        ),
        // ECMA and Python agree on these patterns (code points, lookaround, backreferences).
        (##"{"pattern":"^.{2}$"}"##, [], ##""🙂🙂""##), (##"{"pattern":"^(a|b)\\1$"}"##, [], ##""aa""##),
        (##"{"pattern":"(?<=x)a"}"##, [], ##""xa""##), (##"{"pattern":"^(?!a)\\w+$"}"##, [], ##""ab""##),
        (##"{"patternProperties":{"^\\d+$":{"type":"string"}}}"##, [], ##"{"12":1}"##),
    ]

    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        let result = try await ChildProcess.run(executable, arguments)
        return (result.status, result.output, String(result.error.suffix(4000)))
    }
}

/// Random schemas over the supported vocabulary and instances shaped to hit them (small key
/// and value sets, so properties, enums and patterns often match). Seeded, so a failure
/// reproduces.
struct SchemaCaseGenerator {
    private var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15) }

    mutating func next() -> UInt64 { random.next() }

    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }

    static let keys = ["a", "b", "c", "ab", "x1"]
    static let strings = ["", "a", "ab", "abc", "b", "xay", "x1", "123", "héllo", "🙂🙂", "aaaa"]
    /// Patterns on which ECMA-262 and Python's `re` agree for the generated strings (no `\\w`
    /// on non-ASCII letters, no trailing newline): the oracle speaks Python's dialect.
    static let patterns = [
        "^a", "b$", "^[a-c]+$", "[0-9]", "^x.*y$", "^.{2}$", "^\\d+$", "^(a|b)\\1", "^(?:ab|a)b?$", "a{2,}", "(?<=x)a", "^(?!a)",
        "^[^a]*$", "^\\S+$", "\\u00e9", "^.*?c$", "^(?=.*1)",
    ]
    static let types = ["null", "boolean", "object", "array", "number", "string", "integer"]

    mutating func scalar() -> JSONValue {
        switch int(0...6) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return JSONValue(int(-1...6))
        case 3: return .number(pick(["1.0", "2.5", "-0.5", "6.0", "3", "4.5", "10", "1e1"]))
        default: return .string(pick(Self.strings))
        }
    }

    mutating func instance(depth: Int) -> JSONValue {
        guard depth < 3 else { return scalar() }
        switch int(0...9) {
        case 0...4: return scalar()
        case 5...6:
            return .array((0..<int(0...4)).map { _ in chance(60) ? scalar() : instance(depth: depth + 1) })
        default:
            var members: [JSONObject.Member] = []
            for key in Self.keys where chance(45) {
                members.append((key, chance(65) ? scalar() : instance(depth: depth + 1)))
            }
            return .object(JSONObject(members))
        }
    }

    /// A root schema: some keywords, plus `$defs` the refs can reach.
    mutating func rootSchema() -> JSONValue {
        guard case .object(var object) = schemaObject(depth: 0) else { return .bool(true) }
        // Definitions use no refs themselves, so no reference cycle can arise.
        var d1 = schemaObject(depth: 3).objectValue ?? JSONObject()
        d1.members.append(("$anchor", "anc"))
        object.members.append(("$defs", .object(["d0": schema(depth: 3), "d1": .object(d1)])))
        return .object(object)
    }

    /// A schema built around references: a root with an `$id`, an embedded resource (relative
    /// `$id`, `$anchor`), a shared schema in the registry, and the dynamic-scope shapes of
    /// `$dynamicRef` (bookended or not, anchors in outer resources or not).
    mutating func referencingSchema() -> (JSONValue, [(uri: String, schema: JSONValue)]) {
        let sharedID = "https://example.com/shared/defs.json"
        let shared: JSONValue = .object([
            "$id": .string(sharedID),
            "$defs": .object([
                "s": schema(depth: 3), "t": .object(JSONObject([("$anchor", "t")] + (schemaObject(depth: 3).objectValue?.members ?? []))),
            ]),
        ])
        let registry: [(uri: String, schema: JSONValue)] = chance(50) ? [(sharedID, shared)] : []
        if chance(40) {
            // The dynamic-scope shapes.
            let bookend: JSONObject.Member = chance(70) ? ("$dynamicAnchor", "node") : ("$anchor", "node")
            var list = JSONObject([
                ("$id", "list"),
                ("items", .object(["$dynamicRef": .string(chance(80) ? "#node" : "#/$defs/default")])),
                ("$defs", .object(["default": .object(JSONObject([bookend] + (schemaObject(depth: 3).objectValue?.members ?? [])))])),
            ])
            if chance(30) { list.members.append(("type", "array")) }
            var root = JSONObject([("$id", "https://example.com/dyn/root.json")])
            var defs: [JSONObject.Member] = [("list", .object(list))]
            if chance(70) {
                defs.append(
                    (
                        "outer",
                        .object(
                            JSONObject(
                                [(chance(80) ? "$dynamicAnchor" : "$anchor", "node")] + (schemaObject(depth: 3).objectValue?.members ?? []))
                        )
                    ))
            }
            if chance(40) {
                defs.append(("mid", .object(["$id": "mid", "$ref": "list"])))
                root.members.append(("$ref", "mid"))
            } else {
                root.members.append(("$ref", "list"))
            }
            root.members.append(("$defs", .object(JSONObject(defs))))
            return (.object(root), [])
        }
        var refs = [
            "sub/item.json", "sub/item.json#it", "https://example.com/root/sub/item.json#/$defs/inner", "#/$defs/d2/$defs/inner", "#top",
        ]
        if !registry.isEmpty { refs += ["\(sharedID)#/$defs/s", "\(sharedID)#t", "../shared/defs.json#t"] }
        var root = schemaObject(depth: 1).objectValue ?? JSONObject()
        root.members.removeAll { $0.key == "$ref" }
        root.members.insert(("$id", "https://example.com/root/main.json"), at: 0)
        root.members.append(("$ref", .string(pick(refs))))
        var item = schemaObject(depth: 3).objectValue ?? JSONObject()
        item.members.removeAll { $0.key == "$ref" }
        item.members += [
            ("$id", "sub/item.json"), ("$anchor", "it"),
            ("$defs", .object(["inner": schema(depth: 3), "top": .object(["$anchor": "top", "type": .string(pick(Self.types))])])),
        ]
        if chance(50) {
            item.members.append(
                (
                    "properties",
                    .object(JSONObject([(pick(Self.keys), .object(["$ref": .string(pick(["#top", "#/$defs/inner", "item.json#it"]))]))]))
                ))
        }
        // d0, d1 and #anc: the targets of the refs the ordinary keyword generator writes.
        var d1 = schemaObject(depth: 3).objectValue ?? JSONObject()
        d1.members.append(("$anchor", "anc"))
        root.members.append(
            (
                "$defs",
                .object(["d0": schema(depth: 3), "d1": .object(d1), "d2": .object(item), "x": .object(["$anchor": "top", "minimum": 2])])
            ))
        return (.object(root), registry)
    }

    mutating func schema(depth: Int) -> JSONValue {
        if chance(8) { return .bool(chance(60)) }
        return schemaObject(depth: depth)
    }

    mutating func schemaObject(depth: Int) -> JSONValue {
        var members: [JSONObject.Member] = []
        let count = int(1...3)
        for _ in 0..<count {
            members += keyword(depth: depth)
        }
        var seen = Set<String>()
        // One of each keyword: later duplicates would be ambiguous in JSON.
        return .object(JSONObject(members.filter { seen.insert($0.key).inserted }))
    }

    mutating func subschemas(_ depth: Int, _ range: ClosedRange<Int>) -> JSONValue {
        .array((0..<int(range)).map { _ in schema(depth: depth + 1) })
    }

    mutating func keyword(depth: Int) -> [JSONObject.Member] {
        let deep = depth >= 3
        switch deep ? int(0...9) : int(0...27) {
        case 0:
            let first = pick(Self.types)
            let second = pick(Self.types.filter { $0 != first })
            return [("type", chance(70) ? .string(first) : .array([.string(first), .string(second)]))]
        case 1: return [("enum", .array((0..<int(1...3)).map { _ in scalar() }))]
        case 2: return [("const", scalar())]
        case 3: return [(pick(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]), JSONValue(int(-1...6)))]
        case 4: return [("multipleOf", JSONValue(pick([2, 3, 5])))]
        case 5: return [(pick(["minLength", "maxLength"]), JSONValue(int(0...3)))]
        case 6: return [("pattern", .string(pick(Self.patterns)))]
        case 7:
            let first = pick(Self.keys)
            let names = chance(50) ? [first] : [first, pick(Self.keys.filter { $0 != first })]
            return [("required", .array(names.map { .string($0) }))]
        case 8: return [(pick(["minItems", "maxItems", "minProperties", "maxProperties"]), JSONValue(int(0...3)))]
        case 9: return [("uniqueItems", .bool(chance(80)))]
        case 10:
            var properties: [JSONObject.Member] = []
            for key in Self.keys where chance(40) { properties.append((key, schema(depth: depth + 1))) }
            return [("properties", .object(JSONObject(properties)))]
        case 11: return [("additionalProperties", schema(depth: depth + 1))]
        case 12: return [("patternProperties", .object(JSONObject([(pick(["^a", "1$", "^[bc]"]), schema(depth: depth + 1))])))]
        case 13: return [("propertyNames", .object(JSONObject([("pattern", .string(pick(["^[a-c]+$", "^a"])))])))]
        case 14: return [("dependentRequired", .object(JSONObject([(pick(Self.keys), .array([.string(pick(Self.keys))]))])))]
        case 15: return [("dependentSchemas", .object(JSONObject([(pick(Self.keys), schema(depth: depth + 1))])))]
        case 16: return [("items", schema(depth: depth + 1))]
        case 17: return [("prefixItems", subschemas(depth, 1...2))]
        case 18:
            var members: [JSONObject.Member] = [("contains", schema(depth: depth + 1))]
            if chance(40) { members.append((pick(["minContains", "maxContains"]), JSONValue(int(0...2)))) }
            return members
        case 19: return [("allOf", subschemas(depth, 1...2))]
        case 20: return [("anyOf", subschemas(depth, 1...3))]
        case 21: return [("oneOf", subschemas(depth, 1...3))]
        case 22: return [("not", schema(depth: depth + 1))]
        case 23:
            var members: [JSONObject.Member] = [("if", schema(depth: depth + 1))]
            if chance(70) { members.append(("then", schema(depth: depth + 1))) }
            if chance(70) { members.append(("else", schema(depth: depth + 1))) }
            return members
        case 24: return [("unevaluatedProperties", chance(60) ? .bool(false) : schema(depth: depth + 1))]
        case 25: return [("unevaluatedItems", chance(60) ? .bool(false) : schema(depth: depth + 1))]
        case 26: return [("$ref", .string(pick(["#/$defs/d0", "#/$defs/d1", "#anc"])))]
        default:
            // A recursive reference, only where it consumes the instance.
            return [
                (
                    "properties",
                    .object(JSONObject([(pick(Self.keys), depth > 0 ? .object(JSONObject([("$ref", "#")])) : schema(depth: depth + 1))]))
                )
            ]
        }
    }
}
