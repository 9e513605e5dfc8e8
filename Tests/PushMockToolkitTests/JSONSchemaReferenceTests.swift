import Foundation
import PushMockJSON
import PushMockToolkit
import Testing

/// `$id`, `$ref` across documents and what the validator refuses when a schema is read.
@Suite("JSON Schema references and refusals")
struct JSONSchemaReferenceTests {
    /// Each schema is refused when read, with a message naming why.
    static let refused: [(schema: String, message: String)] = [
        (##"{"$ref":"https://example.com/elsewhere.json"}"##, "never fetches schemas over the network"),
        (##"{"$id":"https://example.com/a.json","$ref":"b.json#/$defs/x"}"##, "https://example.com/b.json, which is not loaded"),
        (##"{"$ref":"#/$defs/missing"}"##, "points at nothing"),
        (##"{"$ref":"#nowhere"}"##, "points at nothing"),
        (##"{"$dynamicRef":"https://example.com/x.json#node"}"##, "never fetches"),
        (##"{"$id":"https://example.com/a.json#frag"}"##, "must not have a fragment"),
        (##"{"$anchor":"1abc"}"##, "must be a name"),
        (##"{"$schema":"http://json-schema.org/draft-07/schema#"}"##, "no other draft"),
        (##"{"$recursiveRef":"#"}"##, "draft 2019-09"),
        (##"{"pattern":"\\z"}"##, "not an ECMA-262 regular expression"),
    ]

    @Test("refused when read", arguments: refused)
    func refusedWhenRead(_ testCase: (schema: String, message: String)) throws {
        let error = try #require(throws: JSONSchemaError.self) { try JSONSchema(try JSONValue(parsing: testCase.schema)) }
        #expect(error.message.contains(testCase.message), "\(error)")
    }

    static let contracts = #"""
        {"version": 1, "typeField": "notificationType",
         "schemas": [{"$id": "https://example.com/shared.json",
                      "$defs": {"appPath": {"$anchor": "appPath", "type": "string", "pattern": "^/orders/[^/]+$"}}}],
         "contracts": [{"name": "order", "types": ["order"],
           "schema": {"properties": {"deepLinkPath": {"$ref": "https://example.com/shared.json#appPath"},
                                     "entityId": {"$ref": "https://example.com/common.json#/$defs/id"}}}}]}
        """#

    @Test("contracts refer to shared schemas: the file's schemas and *.schema.json beside it", arguments: ["/orders/7", "/orders/7/x"])
    func sharedSchemas(deepLinkPath: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-contracts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let common = #"{"$id": "https://example.com/common.json", "$defs": {"id": {"type": "string", "minLength": 2}}}"#
        try Data(common.utf8).write(to: directory.appendingPathComponent("common.schema.json"))
        let contractsPath = directory.appendingPathComponent("contracts.json").path
        try Data(Self.contracts.utf8).write(to: URL(fileURLWithPath: contractsPath))

        let file = try ContractFile(contentsOfFile: contractsPath)
        let schema = try #require(file.contracts.first?.schema)
        let violations = schema.validate(["notificationType": "order", "deepLinkPath": .string(deepLinkPath), "entityId": "1"])
        let expected = deepLinkPath == "/orders/7" ? ["minLength"] : ["pattern", "minLength"]
        #expect(violations.map(\.keyword) == expected, "\(violations)")
        #expect(violations.first?.schemaPath.hasPrefix("/properties/") == true)

        // Read from text, the directory is not there: the ref to common.json is refused.
        let error = try #require(throws: ContractError.self) { try ContractFile(parsing: Self.contracts) }
        #expect(error.code == .invalidSchema)
        #expect(error.description.contains("https://example.com/common.json, which is not loaded"), "\(error)")
    }

    /// Findings are keyed by the contract's name; two contracts of one name, or one without a
    /// name (`""`, which schemathesis found accepted), would make them ambiguous.
    @Test("a contract's name is neither empty nor taken", arguments: [("", "cannot be empty"), ("a", "another contract is named")])
    func contractNames(second: String, problem: String) throws {
        let text = #"{"version": 1, "contracts": [{"name": "a", "schema": {}}, {"name": "\#(second)", "schema": {}}]}"#
        let error = try #require(throws: ContractError.self) { try ContractFile(parsing: text) }
        #expect(error.description.contains(problem), "\(error)")
    }

    @Test("a contract refers to a schema file beside it by its file name")
    func relativeFileReference() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-contracts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"$defs": {"id": {"type": "string"}}}"#.utf8).write(to: directory.appendingPathComponent("ids.schema.json"))
        let contracts =
            #"{"version": 1, "contracts": [{"name": "all", "schema": {"properties": {"entityId": {"$ref": "ids.schema.json#/$defs/id"}}}}]}"#
        let path = directory.appendingPathComponent("contracts.json").path
        try Data(contracts.utf8).write(to: URL(fileURLWithPath: path))
        let schema = try #require(try ContractFile(contentsOfFile: path).contracts.first?.schema)
        #expect(schema.isValid(["entityId": "a"]))
        #expect(schema.validate(["entityId": 1]).map(\.keyword) == ["type"])
    }
}
