import Foundation
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockTestSupport
import PushMockTesting
import PushMockTransport
import Testing

extension PushMockHarness {
    /// Sends one request on a fresh TLS connection (APNs binds authentication state to a
    /// connection, so independent cases must not share one).
    func sendOnNewConnection(_ request: HTTPRequestMessage, authority: String? = nil) async throws -> HTTPResponseMessage {
        let connection = try await connect(authority: authority)
        defer { Task { await connection.close() } }
        return try await connection.send(request)
    }
}

/// Asserts an APNs error response exactly: status, `content-type`, an `apns-id` that is a UUID,
/// and the body `{"reason":"…"}` with nothing else in it (except `timestamp` on 410).
func expectAPNsError(
    _ response: HTTPResponseMessage,
    status: Int,
    reason: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, "status", sourceLocation: sourceLocation)
    #expect(response.apnsReason == reason, "reason in \(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
    #expect(response.header("content-type") == "application/json", sourceLocation: sourceLocation)
    let apnsID = response.header("apns-id") ?? ""
    #expect(APNsMessageID.isValid(apnsID.utf8), "apns-id \(apnsID)", sourceLocation: sourceLocation)
    if status != 410 {
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"\#(reason)"}"#, sourceLocation: sourceLocation)
    }
}

/// Asserts a success response: 200, an `apns-id`, no body.
func expectAccepted(_ response: HTTPResponseMessage, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == 200, "status (body \(String(decoding: response.body, as: UTF8.self)))", sourceLocation: sourceLocation)
    #expect(response.body.isEmpty, sourceLocation: sourceLocation)
    #expect(APNsMessageID.isValid((response.header("apns-id") ?? "").utf8), sourceLocation: sourceLocation)
}

/// Runs a command and returns its exit status, standard output and standard error.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> (
    status: Int32, output: String, error: String
) {
    try await ChildProcess.run(executable, arguments, environment: environment ?? [:])
}

/// A temporary directory removed when the value is deinitialised... by the caller.
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "pushmock-test-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
