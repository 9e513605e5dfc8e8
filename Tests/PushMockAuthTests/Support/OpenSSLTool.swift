import Foundation
import PushMockTestSupport
import Testing

/// Runs the system `openssl` binary, the independent implementation the tests check
/// PushMockAuth's output against.
enum OpenSSLTool {
    static let executablePath = "/usr/bin/openssl"

    /// Whether `openssl` is installed; suites that need it are skipped (with this reason) if not.
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: executablePath)
    }

    static let unavailableReason: Comment = "requires /usr/bin/openssl (apt-get install openssl); skipped because it is not installed"

    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String

        var succeeded: Bool { status == 0 }
        var combinedOutput: String { standardOutput + standardError }
    }

    /// Runs `openssl <arguments>` with `directory` as the working directory; both pipes are
    /// read at once, so a chatty command can never block on a full pipe.
    static func run(_ arguments: [String], in directory: TemporaryDirectory) async throws -> Outcome {
        // posix_spawn, not Foundation's Process (see ChildProcess).
        let result = try await ChildProcess.run(executablePath, arguments, directory: directory.url.path)
        return Outcome(status: result.status, standardOutput: result.output, standardError: result.error)
    }
}
