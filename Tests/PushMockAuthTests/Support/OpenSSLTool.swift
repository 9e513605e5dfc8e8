import Foundation
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

    /// Runs `openssl <arguments>` with `directory` as the working directory, capturing output via
    /// files so that a chatty command can never block on a full pipe.
    static func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> Outcome {
        let outputURL = directory.url.appendingPathComponent("openssl-\(UUID().uuidString).out")
        let errorURL = directory.url.appendingPathComponent("openssl-\(UUID().uuidString).err")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let outputHandle = try FileHandle(forWritingTo: outputURL)
        let errorHandle = try FileHandle(forWritingTo: errorURL)
        defer {
            try? outputHandle.close()
            try? errorHandle.close()
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        try process.run()
        process.waitUntilExit()

        return Outcome(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8)
        )
    }
}
