import Foundation
import PushMockTestSupport
import Testing

/// Hostile HTTP/2 and connection behaviour against `pushmock serve` (a real process, so its
/// RSS is measured alone): raw frames written by `scripts/abuse/h2_abuse.py` with the `h2`
/// and `hpack` packages from PyPI (installed by `scripts/test` into `.build/python-venv`).
/// For each case a well-behaved HTTP/2 client keeps getting 200 on its connection while the
/// attack runs, a new client gets in afterwards, the server's RSS grows by less than 200 MB,
/// and the abusive connection gets the answer nghttp2 (or APNs) would give — see the
/// expectations in the script and docs/SECURITY.md.
@Suite("HTTP/2 abuse against pushmock serve (process)", .serialized)
struct HTTP2AbuseTests {
    static let cases = [
        "rapid-reset", "continuation-flood", "hpack-bomb", "oversized-header", "settings-flood", "ping-flood",
        "zero-window", "never-reading", "slowloris", "idle-flood", "idle-goaway", "big-body", "invalid-preface", "http1-garbage",
        "tls-garbage",
    ]

    /// Short timeouts only for the cases that test them. Every other case keeps long ones: on
    /// a loaded machine a 1-second handshake timeout can cut the well-behaved client before
    /// its preface is read, and a 2-second idle timeout can end an attack before it is answered.
    static func timeouts(for name: String) -> [String] {
        switch name {
        case "slowloris", "idle-flood": ["--handshake-timeout", "3s", "--idle-timeout", "120s"]
        case "idle-goaway": ["--handshake-timeout", "120s", "--idle-timeout", "2s"]
        default: ["--handshake-timeout", "120s", "--idle-timeout", "120s"]
        }
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var python: String { virtualEnvironmentPython(override: "PUSHMOCK_ABUSE_PYTHON") }

    @Test("the server holds and stays responsive", arguments: cases)
    func abuse(_ name: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            Issue.record("no Python virtual environment at \(Self.python): run scripts/test (it installs h2 from PyPI)")
            return
        }
        // Authentication off so an oversized APNs body reaches the payload check, and a small
        // connection cap so the idle flood takes seconds.
        let server = try await ServeProcess(
            arguments: ["--auth", "none", "--max-connections", "200"] + Self.timeouts(for: name))
        defer { server.removeDirectory() }
        let result = try await run(
            Self.python,
            [
                Self.packageRoot.appendingPathComponent("scripts/abuse/h2_abuse.py").path, name, "127.0.0.1",
                String(server.cleartextPort), String(server.tlsPort), String(server.process.pid),
            ]
        )
        #expect(result.status == 0, "\(name): \(result.output)\(result.error)")
        #expect(result.output.contains(#""ok": true"#), "\(name): \(result.output)")
        #expect(server.process.isRunning, "the server died during \(name)")
        // Killed, not drained: nothing after the attack is checked on this server.
        server.kill()
    }
}
