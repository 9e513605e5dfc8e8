import Foundation
import Testing

/// `--timeout` and `$PUSHMOCK_TIMEOUT` of the control commands, against a gateway that never
/// answers: a socket that listens but never accepts, so the kernel completes every handshake
/// and the request waits in its queue forever.
@Suite("pushmock control commands: --timeout")
struct ControlTimeoutTests {
    @Test(
        "the answer's deadline comes from --timeout, else $PUSHMOCK_TIMEOUT, else 10 s; a long poll adds its wait",
        arguments: [
            (["clock", "--timeout", "1s"], [:], 1, "within 1s"),
            (["clock", "--timeout", "1.5"], [:], 1, "within 1s500ms"),
            (["clock"], ["PUSHMOCK_TIMEOUT": "2s"], 1, "within 2s"),
            (["clock", "--timeout", "1s"], ["PUSHMOCK_TIMEOUT": "30s"], 1, "within 1s"),
            // The recordings family exits 2 when it could not look (1 means "looked, not found").
            (["recordings", "list", "--wait", "1s", "--timeout", "1s"], [:], 2, "within 2s"),
        ] as [([String], [String: String], Int32, String)]
    )
    func deadline(arguments: [String], environment: [String: String], status: Int32, expected: String) async throws {
        let listener = try SilentListener()
        let result = try await run(
            ServeProcess.binary, arguments + ["--server", "http://127.0.0.1:\(listener.port)"], environment: environment)
        #expect(result.status == status, "\(result.output) \(result.error)")
        #expect(result.error.contains(expected), "\(result.error)")
        withExtendedLifetime(listener) {}
    }

    @Test(
        "a timeout that is not a positive duration is a usage error",
        arguments: [
            (["--timeout", "soon"], [String: String](), "--timeout"),
            (["--timeout", "0s"], [:], "--timeout"),
            ([], ["PUSHMOCK_TIMEOUT": "-5s"], "PUSHMOCK_TIMEOUT"),
        ] as [([String], [String: String], String)]
    )
    func invalid(arguments: [String], environment: [String: String], named: String) async throws {
        let listener = try SilentListener()
        let result = try await run(
            ServeProcess.binary, ["clock"] + arguments + ["--server", "http://127.0.0.1:\(listener.port)"], environment: environment)
        #expect(result.status == 64, "\(result.output) \(result.error)")
        #expect(result.error.contains("\(named) takes a positive duration"), "\(result.error)")
        withExtendedLifetime(listener) {}
    }
}
