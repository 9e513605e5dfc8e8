import Foundation
import PushMockControl
import PushMockGateway
import PushMockTesting
import Testing

/// docs/openapi.yaml describes the control API; this keeps it honest: every operation it lists
/// must reach a route of a running gateway (whatever the answer to a sample body, never
/// "no control endpoint" and never 405).
@Suite("docs/openapi.yaml")
struct OpenAPIDocumentTests {
    /// `(method, path)` of every operation, read from the document's `paths:` section.
    static func operations() throws -> [(method: String, path: String)] {
        try operationsWithBodies().map { ($0.method, $0.path) }
    }

    /// Every operation, and whether it documents a `requestBody`.
    static func operationsWithBodies() throws -> [(method: String, path: String, takesBody: Bool)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        var operations: [(method: String, path: String, takesBody: Bool)] = []
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
                    operations.append((key.uppercased(), path, false))
                }
            } else if line.hasPrefix("      requestBody:"), !operations.isEmpty {
                operations[operations.count - 1].takesBody = true
            }
        }
        return operations
    }

    /// Hostile input on the control API: a body that is not JSON (or not UTF-8, or a NUL byte)
    /// is the client's mistake, answered 4xx with `{"error": …}` by every operation that takes
    /// one, never a 500 (schemathesis found `PUT /users/{id}` answering 500).
    @Test(
        "every documented operation that takes a body answers a malformed one with 4xx",
        arguments: ["nope", "\u{0}", "{\"a\":", "[1,", "\u{FF}"])
    func malformedBodies(body: String) async throws {
        let operations = try Self.operationsWithBodies().filter(\.takesBody)
        #expect(operations.count >= 30, "the parser found \(operations.count) operations with a body")
        try await withPushMock { mock in
            let control = try mock.controlClient()
            for (method, template, _) in operations {
                let path = Self.concretePath(template)
                let response = try await control.request(method, path, json: Array(body.utf8))
                let answer = "\(method) \(template) with \(body.debugDescription): \(response.status) \(response.text)"
                #expect((400..<500).contains(response.status), "\(answer)")
                #expect((try? JSONValue(parsing: response.body))?["error"]?.stringValue != nil, "\(answer)")
            }
            await control.close()
        }
    }

    /// A documented path with sample values for its parameters.
    static func concretePath(_ template: String) -> String {
        template
            .replacingOccurrences(of: "/_pushmock/", with: "")
            .replacingOccurrences(of: "{sequence}", with: "1")
            .replacingOccurrences(of: "{service}", with: "apns")
            .replacingOccurrences(of: "{token}", with: PushMockHarness.sampleDeviceToken)
            .replacingOccurrences(of: "{keyId}", with: "UNKNOWNKEY")
            .replacingOccurrences(of: "{id}", with: "unknown-rule")
            .replacingOccurrences(of: "{name}", with: "outage")
    }

    /// The document loads where users load it (Swagger UI, code generators): valid YAML, valid
    /// OpenAPI 3.1, and no member that YAML read differently from what was meant (a plain
    /// `description: Cursor: …` is a syntax error; `{description: a, b}` makes `b` a key; a
    /// key written twice keeps only its second value).
    @Test("the document is valid YAML and OpenAPI 3.1 (openapi-spec-validator)")
    func validDocument() async throws {
        let python = venvPython
        let probe = try await run(python, ["-c", "import openapi_spec_validator"])
        try #require(probe.status == 0, "openapi-spec-validator is required in \(python) (scripts/test installs it): \(probe.error)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = #"""
            import sys, yaml
            from openapi_spec_validator import validate
            from openapi_spec_validator.readers import read_from_filename
            # PyYAML keeps the last of two equal keys without a word: a second `"404"` hides
            # whatever the first said.
            class Strict(yaml.SafeLoader):
                pass
            def mapping(loader, node, deep=False):
                keys = [loader.construct_object(key, deep=deep) for key, _ in node.value]
                repeated = sorted({str(key) for key in keys if keys.count(key) > 1})
                if repeated:
                    sys.exit(f"line {node.start_mark.line + 1}: the key {', '.join(repeated)} appears twice")
                return loader.construct_mapping(node, deep)
            Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
            yaml.load(open(sys.argv[1], encoding="utf-8"), Loader=Strict)
            spec, _ = read_from_filename(sys.argv[1])
            validate(spec)
            def nulls(value, path):
                if isinstance(value, dict):
                    for key, child in value.items():
                        if child is None:
                            yield "/".join(map(str, path + [key]))
                        yield from nulls(child, path + [key])
                elif isinstance(value, list):
                    for index, child in enumerate(value):
                        yield from nulls(child, path + [index])
            broken = list(nulls(spec, []))
            if broken:
                sys.exit("members without a value (a comma or colon in plain text?): " + "; ".join(broken))
            print("ok")
            """#
        let result = try await run(python, ["-c", script, root.appendingPathComponent("docs/openapi.yaml").path])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }

    /// schemathesis (PyPI) generates requests from the document — each operation's examples,
    /// and the boundary values of every schema and what the schemas forbid (its deterministic
    /// coverage phase) — sends them to a running gateway and checks each answer against the
    /// document: never a 5xx or a dropped connection, only documented status codes, content
    /// types, headers and bodies, 405 with `Allow` for methods a path does not take. Whether
    /// every schema-valid body is accepted is not asserted: some rules span members or need key
    /// material that JSON Schema cannot state. Left out: the event stream and expectations,
    /// whose cases wait (a stream never ends; `within` may be 300 s); `wait` is held at 1 s.
    @Test("schemathesis: every answer is one the document describes (examples and coverage phases)")
    func schemathesisConformance() async throws {
        let st = URL(fileURLWithPath: venvPython).deletingLastPathComponent().appendingPathComponent("st").path
        try #require(FileManager.default.isExecutableFile(atPath: st), "schemathesis is required at \(st) (scripts/test installs it)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/schemathesis.toml"
        // No cache: schemathesis would keep its state in `.schemathesis/` of the working tree.
        try """
        [cache]
        enabled = false

        [[operations]]
        include-name = "GET /_pushmock/recordings"
        parameters = { "wait" = "1s" }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        try await withPushMock { mock in
            let result = try await run(
                st,
                [
                    "--config-file", config, "run", root.appendingPathComponent("docs/openapi.yaml").path,
                    "--url", "http://127.0.0.1:\(mock.cleartextPort)", "--phases", "examples,coverage", "--generation-deterministic",
                    // Named one by one: `all` also limits the response time to 10 s, and tests never
                    // assert on elapsed time.
                    "--checks",
                    [
                        "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_headers_conformance",
                        "response_schema_conformance", "missing_required_header", "unsupported_method", "allow_header_conformance",
                        "use_after_free", "ensure_resource_availability",
                    ].joined(separator: ","),
                    "--exclude-path", "/_pushmock/recordings/stream", "--exclude-path", "/_pushmock/expectations",
                    "--workers", "1", "--request-timeout", "300", "--no-color",
                ])
            #expect(result.status == 0, "\(String(result.output.suffix(12_000)))\(result.error.suffix(2_000))")
            #expect(result.output.contains(" passed"), "\(String(result.output.suffix(2_000)))")
        }
    }

    /// The gateway's route table (for `Allow` and 404/405) is the document's, path for path
    /// and method for method.
    @Test("the route table lists exactly the documented operations")
    func routeTableIsTheDocument() throws {
        func template(_ path: String) -> String {
            path.dropFirst("/_pushmock/".count).split(separator: "/").map { $0.hasPrefix("{") ? "*" : String($0) }.joined(separator: "/")
        }
        let documented = Set(try Self.operations().map { "\($0.method) \(template($0.path))" })
        let table = Set(
            ControlRouteTable.routes.flatMap { route in route.methods.map { "\($0) \(route.template.joined(separator: "/"))" } })
        #expect(
            table == documented,
            "only in the table: \(table.subtracting(documented).sorted()); only documented: \(documented.subtracting(table).sorted())")
    }

    /// RFC 9110: a 405 names the methods the resource takes. A path no route has is 404.
    @Test("a method a documented path does not take: 405 with Allow; an unknown path: 404")
    func methodNotAllowed() async throws {
        let curl = "/usr/bin/curl"
        let operations = try Self.operations()
        try await withPushMock { mock in
            for path in Set(operations.map(\.path)).sorted() {
                let concrete = Self.concretePath(path)
                // The documented paths the concrete one matches add their methods; a concrete
                // segment wins over a parameter (OpenAPI: `/faults/presets` is not `/faults/{id}`).
                let matching = operations.filter { operation in
                    let template = operation.path.split(separator: "/")
                    let segments = ("/_pushmock/" + concrete).split(separator: "/")
                    return template.count == segments.count && zip(template, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
                }
                func parameters(_ path: String) -> Int { path.split(separator: "/").count { $0.hasPrefix("{") } }
                let fewest = matching.map { parameters($0.path) }.min()
                let allowed = Set(matching.filter { parameters($0.path) == fewest }.map(\.method))
                let expected = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter(allowed.contains).joined(separator: ", ")
                let result = try await run(
                    curl, ["-s", "-i", "-X", "TRACE", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/\(concrete)"])
                let head = result.output.lowercased()
                #expect(head.hasPrefix("http/1.1 405"), "TRACE \(path): \(result.output)")
                #expect(head.contains("\r\nallow: \(expected.lowercased())\r\n"), "TRACE \(path): \(result.output)")
            }
            // The method is judged before the path's parameters: a token no service would take
            // still gets 405, not 400 for the token.
            for (path, expected) in [("devices/apns/0", "GET, POST, PATCH, DELETE"), ("apns/tokens/zz", "GET, POST, PATCH, DELETE")] {
                let result = try await run(
                    curl, ["-s", "-i", "-X", "TRACE", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/\(path)"])
                #expect(result.output.hasPrefix("HTTP/1.1 405"), "TRACE \(path): \(result.output)")
                #expect(result.output.lowercased().contains("\r\nallow: \(expected.lowercased())\r\n"), "TRACE \(path): \(result.output)")
            }
            for unknown in ["apns/nothing-here", "clock/freeze/now", "users/a/b/c"] {
                let result = try await run(curl, ["-s", "-i", "http://127.0.0.1:\(mock.cleartextPort)/_pushmock/\(unknown)"])
                #expect(result.output.hasPrefix("HTTP/1.1 404"), "GET \(unknown): \(result.output)")
                #expect(!result.output.lowercased().contains("\r\nallow:"), "GET \(unknown): \(result.output)")
            }
        }
    }

    @Test("every documented operation reaches a route")
    func everyOperationIsRouted() async throws {
        let operations = try Self.operations()
        #expect(operations.count >= 50, "the parser found \(operations.count) operations")
        try await withPushMock { mock in
            let control = try mock.controlClient()
            // An event stream never ends on its own; InboxTests drives it.
            for (method, template) in operations where !template.hasSuffix("/stream") {
                let path = Self.concretePath(template)
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
