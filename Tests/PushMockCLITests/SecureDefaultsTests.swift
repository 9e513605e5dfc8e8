import Foundation
import Testing

/// `pushmock serve` on a non-loopback address: never with an unauthenticated control API.
@Suite("Secure defaults of pushmock serve (process)", .serialized)
struct SecureDefaultsTests {
    @Test("a public --host without --control-token refuses to start")
    func publicBindNeedsToken() async throws {
        let directory = NSTemporaryDirectory() + "pushmock-public-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await run(
            ServeProcess.binary,
            ["serve", "--host", "0.0.0.0", "--tls-port", "0", "--port", "0", "--certs-dir", directory + "/certs", "--no-journal"],
            directory: directory
        )
        #expect(result.status != 0)
        #expect((result.output + result.error).contains("--control-token"), "\(result.output)\(result.error)")
    }

    @Test("with --control-token a public bind starts, warns, and the control API wants the token")
    func publicBindWithToken() async throws {
        let server = try await ServeProcess(arguments: ["--host", "0.0.0.0", "--control-token", "t0ken"])
        defer { server.removeDirectory() }
        let url = "http://127.0.0.1:\(server.cleartextPort)/_pushmock/health"
        let without = try await run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", url])
        #expect(without.output == "401")
        let with = try await run(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "authorization: Bearer t0ken", url])
        #expect(with.output == "200")
        // Reached by another name (a shared test network): the token is what counts.
        let byName = try await run(
            "/usr/bin/curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "authorization: Bearer t0ken", "-H", "host: testbox.lan:1", url])
        #expect(byName.output == "200")
        let stopped = await server.stop()
        #expect(stopped.output.contains("non-loopback"), "\(stopped.output)")
    }
}
