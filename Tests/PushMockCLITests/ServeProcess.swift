import Foundation
import Glibc
import PushMockGateway
import PushMockTestSupport
import Testing

/// A `pushmock serve` child process on free ports, with its own certs and journal in a
/// temporary directory.
/// Used from one test task only (not Sendable).
final class ServeProcess {
    let directory: String
    let process: ChildProcess
    /// Standard output and error of `pushmock serve` (a file: a busy log never blocks it).
    let logPath: String
    let info: GatewayServerInfo

    var tlsPort: Int { info.tls?.port ?? 0 }
    var cleartextPort: Int { info.cleartext?.port ?? 0 }
    var caPath: String { info.caCertificatePath ?? "" }
    var journalPath: String { directory + "/journal.jsonl" }

    /// The built `pushmock` executable, next to the test bundle (override with PUSHMOCK_BINARY).
    static var binary: String {
        if let override = ProcessInfo.processInfo.environment["PUSHMOCK_BINARY"] {
            return override
        }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("pushmock").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/pushmock").path
    }

    /// `launcher`: a command that runs `pushmock` as its last arguments (e.g.
    /// `["/usr/bin/prlimit", "--nofile=256:"]` for a lower descriptor limit in the child).
    init(arguments extra: [String] = [], directory: String? = nil, certsDirectory: String? = nil, launcher: [String] = [])
        async throws
    {
        _ = Self.orphansReaped
        let directory = directory ?? (NSTemporaryDirectory() + "pushmock-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        let readyFile = directory + "/ready.json"
        try? FileManager.default.removeItem(atPath: readyFile)
        let logPath = directory + "/serve.log"
        let arguments =
            [
                "serve", "--tls-port", "0", "--port", "0",
                "--certs-dir", certsDirectory ?? directory + "/certs",
                "--journal", directory + "/journal.jsonl",
                "--ready-file", readyFile,
                "--log-level", "warning",
            ]
            // A long TLS handshake timeout unless the test sets its own: the default 10 s can cut
            // a client (curl, nghttp, Chromium) that a loaded CI machine has not yet scheduled,
            // as `GatewayConfiguration.testing` does for the in-process tests.
            + (extra.contains("--handshake-timeout") ? [] : ["--handshake-timeout", "120s"])
            + extra
        let process = try ChildProcess.spawn(
            launcher.first ?? Self.binary,
            launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [Self.binary] + arguments,
            directory: directory,
            output: .file(logPath)
        )
        self.process = process
        self.logPath = logPath
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            if let data = FileManager.default.contents(atPath: readyFile),
                let info = try? JSONDecoder().decode(GatewayServerInfo.self, from: data)
            {
                self.info = info
                break
            }
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.terminate(SIGKILL)
                process.wait()
                let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw ServeProcessError("pushmock serve did not become ready: \(text)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Gateways an earlier test process started and then left behind by crashing: a child does
    /// not die with its parent, and `deinit` never ran. One crash here left 27 running, each
    /// with its memory and ports, until killed by hand. Reaped once per test process, before
    /// its first gateway starts; see ``isLeftOverGateway(_:)`` for how one is told apart.
    static let orphansReaped = reapOrphans()

    /// Kills every left-over gateway; returns how many.
    static func reapOrphans() -> Int {
        var reaped = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid(), isLeftOverGateway(pid) else { continue }
            if Glibc.kill(pid, SIGKILL) == 0 { reaped += 1 }
        }
        return reaped
    }

    /// A process running this build's `pushmock serve` with a ready file in a test's temporary
    /// directory (as every test starts it; a person's own `swift run pushmock serve` is not
    /// told to), whose parent is not a test process: the one that started it is gone.
    static func isLeftOverGateway(_ pid: Int32) -> Bool {
        func executablePath(_ pid: Int32) -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") }
        guard let executable = executablePath(pid),
            executable == URL(fileURLWithPath: binary).resolvingSymlinksInPath().path,
            let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
        else { return false }
        let arguments = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard arguments.dropFirst().first == "serve",
            let flag = arguments.firstIndex(of: "--ready-file"), flag + 1 < arguments.count,
            arguments[flag + 1].hasPrefix(NSTemporaryDirectory() + "pushmock-")
        else { return false }
        // The parent: field 4 of /proc/<pid>/stat, counted after the command name's ")".
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            let parent = stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap({ Int32($0) })
        else { return false }
        let parentExecutable = executablePath(parent) ?? ""
        return !parentExecutable.hasSuffix(".xctest") && !parentExecutable.hasSuffix("swiftpm-testing-helper")
    }

    /// Sends a signal and waits for the exit status and the log. The wait is on a Dispatch
    /// thread: a SIGTERM drains connections first, and on a loaded 2-core machine a blocking
    /// `waitpid` on one of the two cooperative threads stalls every other test of the run.
    func stop(signal: Int32 = SIGTERM) async -> (status: Int32, output: String) {
        let process = self.process
        let logPath = self.logPath
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.terminate(signal)
                let status = process.wait()
                continuation.resume(returning: (status, (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""))
            }
        }
    }

    /// Ends the server at once, for `defer` (which cannot await): SIGKILL has no drain, so
    /// reaping the child takes no time on whichever thread runs the `defer`.
    func kill() {
        guard process.isRunning else { return }
        process.terminate(SIGKILL)
        process.wait()
    }

    func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A server a test did not stop is killed (see `kill()`), not drained.
    deinit { kill() }
}

struct ServeProcessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs a command and returns its exit status and output.
@discardableResult
func run(
    _ executable: String,
    _ arguments: [String],
    directory: String? = nil,
    environment: [String: String] = [:]
) async throws -> (status: Int32, output: String, error: String) {
    try await ChildProcess.run(executable, arguments, environment: environment, directory: directory)
}

/// The interpreter of the Python virtual environment `scripts/test` prepares (h2, hpack,
/// exponent_server_sdk, google-auth…), or the one the environment variable `override` names.
func virtualEnvironmentPython(override: String) -> String {
    if let path = ProcessInfo.processInfo.environment[override] { return path }
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return packageRoot.appendingPathComponent(".build/python-venv/bin/python3").path
}

/// Where Debian installs a tool, or `nil` (the test then reports it as missing).
func tool(_ name: String) -> String? {
    for directory in ["/usr/bin", "/usr/sbin", "/usr/local/bin"] {
        let path = directory + "/" + name
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}
