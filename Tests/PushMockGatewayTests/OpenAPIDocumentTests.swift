import Foundation
import PushMockControl
import PushMockTesting
import Testing

/// docs/openapi.yaml describes the control API; this keeps it honest: every operation it lists
/// must reach a route of a running gateway (whatever the answer to a sample body, never
/// "no control endpoint" and never 405).
@Suite("docs/openapi.yaml")
struct OpenAPIDocumentTests {
    /// `(method, path)` of every operation, read from the document's `paths:` section.
    static func operations() throws -> [(method: String, path: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        var operations: [(String, String)] = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, !line.isEmpty, !line.hasPrefix(" ") { break }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.dropFirst(4).prefix { $0 != ":" }
                if ["get", "post", "put", "patch", "delete"].contains(key) {
                    operations.append((key.uppercased(), path))
                }
            }
        }
        return operations
    }

    @Test("every documented operation reaches a route")
    func everyOperationIsRouted() async throws {
        let operations = try Self.operations()
        #expect(operations.count >= 50, "the parser found \(operations.count) operations")
        try await withPushMock { mock in
            let control = try mock.controlClient()
            // An event stream never ends on its own; InboxTests drives it.
            for (method, template) in operations where !template.hasSuffix("/stream") {
                let path =
                    template
                    .replacingOccurrences(of: "/_pushmock/", with: "")
                    .replacingOccurrences(of: "{sequence}", with: "1")
                    .replacingOccurrences(of: "{service}", with: "apns")
                    .replacingOccurrences(of: "{token}", with: PushMockHarness.sampleDeviceToken)
                    .replacingOccurrences(of: "{keyId}", with: "UNKNOWNKEY")
                    .replacingOccurrences(of: "{id}", with: "unknown-rule")
                    .replacingOccurrences(of: "{name}", with: "outage")
                let body: [UInt8] = ["POST", "PATCH", "PUT"].contains(method) ? Array("{}".utf8) : []
                let response = try await control.request(method, path, json: body)
                let answer = "\(method) \(template): \(response.status) \(response.text)"
                #expect(response.status != 405, "\(answer)")
                #expect(!(response.status == 404 && response.text.contains("no control endpoint")), "\(answer)")
            }
            await control.close()
        }
    }
}
