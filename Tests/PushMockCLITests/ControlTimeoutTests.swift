import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--timeout` and `$PUSHMOCK_TIMEOUT` of the control commands, against a gateway that never
/// answers: a socket that listens but never accepts, so the kernel completes every handshake
/// and the request waits in its queue forever.
@Suite("pushmock control commands: --timeout")
struct ControlTimeoutTests {
    /// A listening TCP socket on 127.0.0.1 that never accepts; closed by `close()`.
    final class SilentListener {
        let descriptor: Int32
        let port: Int

        init() throws {
            let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard listening >= 0 else { throw ServeProcessError("socket() failed: \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(listening, 16) == 0 else {
                Glibc.close(listening)
                throw ServeProcessError("bind/listen failed: \(errno)")
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
            }
            descriptor = listening
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { Glibc.close(descriptor) }
    }

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
