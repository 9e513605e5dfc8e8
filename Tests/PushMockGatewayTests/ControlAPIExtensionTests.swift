import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockTesting
import Testing

/// Answers `/_pushmock/echo…` with the method and path, later when asked to; also claims the
/// built-in `health` area, which it must not get.
private struct EchoExtension: ControlAPIExtension {
    var areas: Set<String> { ["echo", "health"] }

    func handle(_ request: ControlRequest, context: ControlAPIContext) throws -> ControlAPIReply {
        if request.query["fail"] != nil { throw ControlAPIError(418, "asked to fail") }
        let body = ControlAPI.json(status: 200, ["echo": .string("\(request.method) \(request.segments.joined(separator: "/"))")])
        if request.query["later"] != nil {
            return .later { body }
        }
        return .now(body)
    }
}

@Suite("Control API extension point")
struct ControlAPIExtensionTests {
    @Test("an installed extension gets its areas (now and later answers, its errors); built-in areas stay built in")
    func installedExtension() async throws {
        try await withPushMock(configure: { $0.controlAPIExtensions.append(EchoExtension()) }) { mock in
            let control = try mock.controlClient()
            let now = try await control.request("GET", "echo/a/b")
            #expect(now.status == 200)
            #expect(now.text == #"{"echo":"GET echo/a/b"}"#)
            let later = try await control.request("POST", "echo", query: [("later", "1")])
            #expect(later.text == #"{"echo":"POST echo"}"#)
            let failed = try await control.request("GET", "echo", query: [("fail", "1")])
            #expect(failed.status == 418)
            #expect(failed.errorMessage == "asked to fail")
            #expect(try await control.request("GET", "health").text == #"{"status":"ok"}"#)
            await control.close()
        }
    }

    @Test("without the check extension the judging endpoints do not exist; withPushMock installs it")
    func checksNeedTheExtension() async throws {
        try await withPushMock(configure: { $0.controlAPIExtensions.removeAll() }) { mock in
            let control = try mock.controlClient()
            let answer = try await control.request("POST", "expectations", json: Array(#"{"query":{},"count":0}"#.utf8))
            #expect(answer.status == 404, "\(answer.text)")
            await control.close()
        }
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let answer = try await control.request("POST", "expectations", json: Array(#"{"query":{},"count":0}"#.utf8))
            #expect(answer.status == 200, "\(answer.text)")
            await control.close()
        }
    }
}
