import Foundation
import PushMockTestSupport
import Testing

/// `pushmock serve` running out of file descriptors (EMFILE) while clients wait to connect:
/// the child starts under `prlimit --nofile=256` (so the connection cap is 256 − 64), holds 120
/// established HTTP/2 connections, and then its soft limit is lowered below the descriptors it
/// holds, so every accept fails. `scripts/abuse/h2_abuse.py descriptor-exhaustion` checks that
/// a connection it had keeps answering throughout, that the process burns no CPU while out of
/// descriptors (`AcceptBackoff` turns accepting off for 250 ms after each failure; NIO's own
/// `AcceptBackoffHandler` left the listener spinning on `accept4` here), and
/// that a new client gets in once descriptors are free again; this test checks that the
/// condition is logged (rate-limited) and the process survives. docs/SECURITY.md.
@Suite("Descriptor exhaustion against pushmock serve (process)")
struct DescriptorExhaustionTests {
    @Test("out of descriptors: existing connections keep working, no busy loop, logged, accepting again after")
    func emfile() async throws {
        guard FileManager.default.isExecutableFile(atPath: HTTP2AbuseTests.python) else {
            Issue.record("no Python virtual environment at \(HTTP2AbuseTests.python): run scripts/test (it installs h2 from PyPI)")
            return
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
            Issue.record("prlimit (util-linux) is missing")
            return
        }
        let server = try await ServeProcess(
            arguments: ["--auth", "none", "--handshake-timeout", "60s", "--idle-timeout", "120s"],
            launcher: ["/usr/bin/prlimit", "--nofile=256:"]
        )
        defer { server.removeDirectory() }
        let result = try await run(
            HTTP2AbuseTests.python,
            [
                HTTP2AbuseTests.packageRoot.appendingPathComponent("scripts/abuse/h2_abuse.py").path, "descriptor-exhaustion",
                "127.0.0.1", String(server.cleartextPort), String(server.tlsPort), String(server.process.pid),
            ]
        )
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains(#""ok": true"#), "\(result.output)")
        #expect(server.process.isRunning, "the server died while out of descriptors")
        let (_, log) = await server.stop(signal: SIGKILL)
        #expect(log.contains("cannot accept connections"), "\(log)")
        // Rate-limited: a handful of lines for several seconds of failures, not one per attempt.
        let lines = log.split(separator: "\n").filter { $0.contains("cannot accept connections") }
        #expect((1...5).contains(lines.count), "\(lines.count) log lines: \(log)")
    }
}
