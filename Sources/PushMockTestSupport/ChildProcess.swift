import CPushMockTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process for the test suites, started with `posix_spawn` rather than Foundation's
/// `Process`: on Linux (Swift 6.3.1) `Process.run()` over-reads the dirents of `/proc/self/fd`
/// and crashes now and then in a suite that starts many processes
/// (swift-corelibs-foundation PR #5472, "buffer over-read in findMaximumOpenFromProcSelfFD").
///
/// The child gets `/dev/null` as standard input, standard output and error on pipes (or a file,
/// or nothing), the default disposition and an empty mask for every signal (a test runner's
/// blocked signals are not inherited, so `terminate()` works), and no other descriptor of the
/// parent beyond those without close-on-exec.
package struct ChildProcess: Sendable {
    package let pid: Int32
    /// Read ends of the child's standard output and error; -1 when not captured.
    private let outputDescriptor: Int32
    private let errorDescriptor: Int32

    /// Where the child's standard output and error go.
    package enum OutputDestination: Sendable {
        /// Two pipes, read with ``readOutput()``.
        case capture
        /// One pipe for both, read with ``readOutput()`` (as `output`).
        case captureMerged
        /// A file, created or truncated.
        case file(String)
        /// `/dev/null`.
        case discard
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments`.
    /// `environment` entries are added to (and override) the parent's.
    package static func spawn(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        inheritEnvironment: Bool = true,
        directory: String? = nil,
        output destination: OutputDestination = .capture
    ) throws(Failure) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { throw Failure("posix_spawn_file_actions_init failed") }
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        guard posix_spawnattr_init(&attributes) == 0 else { throw Failure("posix_spawnattr_init failed") }
        defer { posix_spawnattr_destroy(&attributes) }

        var checked: [Int32] = []
        checked.append(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        func closeAll() {
            for descriptor in outputPipe + errorPipe where descriptor >= 0 { close(descriptor) }
        }
        switch destination {
        case .capture, .captureMerged:
            guard pushmock_pipe_cloexec(&outputPipe) == 0 else { throw Failure("pipe2 failed: errno \(errno)") }
            checked.append(posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1))
            if case .capture = destination {
                guard pushmock_pipe_cloexec(&errorPipe) == 0 else {
                    closeAll()
                    throw Failure("pipe2 failed: errno \(errno)")
                }
                checked.append(posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2))
            } else {
                checked.append(posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2))
            }
        case .file(let path):
            checked.append(posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644))
            checked.append(posix_spawn_file_actions_adddup2(&actions, 1, 2))
        case .discard:
            checked.append(posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0))
            checked.append(posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0))
        }
        // Nothing else of the parent's (sockets of other tests, their pipes) reaches the child.
        checked.append(pushmock_spawn_add_close_from(&actions, 3))
        if let directory {
            checked.append(pushmock_spawn_add_chdir(&actions, directory))
        }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        checked.append(posix_spawnattr_setsigmask(&attributes, &noSignals))
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        sigdelset(&allSignals, SIGKILL)
        sigdelset(&allSignals, SIGSTOP)
        checked.append(posix_spawnattr_setsigdefault(&attributes, &allSignals))
        checked.append(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)))
        if let failed = checked.first(where: { $0 != 0 }) {
            closeAll()
            throw Failure("preparing the child failed: error \(failed)")
        }

        var variables = inheritEnvironment ? ProcessInfo.processInfo.environment : [:]
        variables.merge(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result =
            executable.contains("/")
            ? posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            : posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        // The write ends belong to the child now.
        if outputPipe[1] >= 0 { close(outputPipe[1]) }
        if errorPipe[1] >= 0 { close(errorPipe[1]) }
        guard result == 0 else {
            if outputPipe[0] >= 0 { close(outputPipe[0]) }
            if errorPipe[0] >= 0 { close(errorPipe[0]) }
            throw Failure("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return ChildProcess(pid: pid, outputDescriptor: outputPipe[0], errorDescriptor: errorPipe[0])
    }

    /// Reads standard output and error to their ends, both at once (a child that fills one
    /// pipe is never blocked), and closes them. Call it once.
    package func readOutput() -> (output: [UInt8], error: [UInt8]) {
        var output: [UInt8] = []
        var error: [UInt8] = []
        var open = [outputDescriptor, errorDescriptor].filter { $0 >= 0 }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&polled, nfds_t(polled.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in polled where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if entry.fd == outputDescriptor {
                        output.append(contentsOf: buffer[0..<count])
                    } else {
                        error.append(contentsOf: buffer[0..<count])
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        return (output, error)
    }

    /// Waits for the child to end: its exit status, or 128 + the signal that ended it.
    @discardableResult
    package func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Whether the child is still running (it is not reaped: ``wait()`` still gets its status).
    package var isRunning: Bool {
        var info = siginfo_t()
        let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        return result == 0 && info._sifields._sigchld.si_pid == 0
    }

    /// Sends `signal` (default SIGTERM).
    package func terminate(_ signal: Int32 = SIGTERM) {
        kill(pid, signal)
    }

    /// Runs `executable` to the end: its status, standard output and error as text. Waits on a
    /// Dispatch thread (``offloaded(_:)``), never on one of the cooperative threads every test
    /// of the run shares.
    package static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        inheritEnvironment: Bool = true,
        directory: String? = nil
    ) async throws -> (status: Int32, output: String, error: String) {
        try await offloaded {
            try runBlocking(executable, arguments, environment: environment, inheritEnvironment: inheritEnvironment, directory: directory)
        }
    }

    /// Runs `executable` to the end, blocking the calling thread: only for synchronous code that
    /// is not on the cooperative pool (async code uses ``run(_:_:environment:inheritEnvironment:directory:)``).
    package static func runBlocking(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        inheritEnvironment: Bool = true,
        directory: String? = nil
    ) throws(Failure) -> (status: Int32, output: String, error: String) {
        let child = try spawn(
            executable, arguments, environment: environment, inheritEnvironment: inheritEnvironment, directory: directory)
        let (output, error) = child.readOutput()
        let status = child.wait()
        return (status, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }
}

/// Runs blocking work (waiting for a child process, reading its pipes) on a Dispatch thread, so
/// it never holds one of the few cooperative threads all tests share: on a 2-core machine two
/// tests blocked in `waitpid` stall every other test of the run, timers and long polls included.
package func offloaded<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
