import Foundation
import PushMockJSON
import PushMockToolkit
import Testing

/// The official JSON-Schema-Test-Suite, when a checkout is named by
/// `PUSHMOCK_JSON_SCHEMA_TEST_SUITE` (it is not part of this repository). Its `remotes/` are
/// loaded as shared schemas under `http://localhost:1234/`, as the suite's README asks, so
/// `refRemote` runs without a network. A schema the validator refuses (a ref to the
/// meta-schema, which PushMock does not load) is counted, not failed; every verdict on a
/// schema it accepts must equal the suite's.
@Suite("JSON-Schema-Test-Suite (draft 2020-12)")
struct JSONSchemaTestSuiteTests {
    static let suite = ProcessInfo.processInfo.environment["PUSHMOCK_JSON_SCHEMA_TEST_SUITE"]

    static let files = [
        "ref.json", "refRemote.json", "dynamicRef.json", "anchor.json", "id.json", "defs.json", "pattern.json",
        "patternProperties.json", "optional/ecmascript-regex.json", "optional/id.json", "optional/anchor.json",
        "optional/dynamicRef.json", "optional/non-bmp-regex.json", "optional/refOfUnknownKeyword.json",
    ]

    @Test(
        "every accepted schema gives the suite's verdicts", .enabled(if: suite != nil, "set PUSHMOCK_JSON_SCHEMA_TEST_SUITE to a checkout"),
        arguments: files)
    func suiteFile(_ name: String) throws {
        let root = URL(fileURLWithPath: try #require(Self.suite))
        let path = root.appendingPathComponent("tests/draft2020-12/\(name)")
        guard let data = FileManager.default.contents(atPath: path.path) else { return }  // not in this version of the suite
        let registry = try Self.remotes(root.appendingPathComponent("remotes"))
        var mismatches: [String] = []
        var refused: [String] = []
        var checked = 0
        for group in try #require(try JSONValue(parsing: [UInt8](data)).arrayValue) {
            let description = group["description"]?.stringValue ?? "?"
            let schema: JSONSchema
            do {
                schema = try JSONSchema(try #require(group["schema"]), registry: registry)
            } catch {
                refused.append("\(description): \(error)")
                continue
            }
            for test in group["tests"]?.arrayValue ?? [] {
                checked += 1
                let expected = test["valid"]?.boolValue ?? false
                if schema.isValid(test["data"] ?? .null) != expected {
                    mismatches.append("\(description) / \(test["description"]?.stringValue ?? "?"): expected \(expected)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches.count) of \(checked) differ:\n\(mismatches.joined(separator: "\n"))")
        if !refused.isEmpty { print("\(name): \(checked) verdicts checked; refused schemas:\n  \(refused.joined(separator: "\n  "))") }
    }

    static func remotes(_ directory: URL) throws -> JSONSchemaRegistry {
        var registry = JSONSchemaRegistry()
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return registry }
        for case let relative as String in walker where relative.hasSuffix(".json") {
            // Remotes of other drafts would be read as 2020-12; only these and the neutral ones.
            if relative.hasPrefix("draft") && !relative.hasPrefix("draft2020-12/") { continue }
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(relative).path),
                let document = try? JSONValue(parsing: [UInt8](data)),
                document["$schema"].map({ $0.stringValue?.contains("2020-12") == true }) ?? true
            else { continue }
            try? registry.add(document, uri: "http://localhost:1234/\(relative)")
        }
        return registry
    }
}
