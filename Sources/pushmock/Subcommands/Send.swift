import ArgumentParser
import Foundation
import PushMockCore
import PushMockJSON
import PushMockSender

/// `pushmock send`: push one notification, or a file of thousands, through APNs or FCM (the
/// local mock by default) and print what happened.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send notifications through APNs, FCM or Expo (the local mock unless told otherwise).",
        discussion: """
            With no credentials and no --environment, `pushmock send` talks to the
            `pushmock serve` in this directory (certs/ca.pem, the sample APNs key, the
            sample service account) at https://127.0.0.1:2197. Real gateways need
            --environment sandbox|production and credentials from flags, files or
            environment variables.

            Exit status: 0 when every notification was accepted, 2 when some were not (see
            --fail-on), 1 on a runtime error (unreadable credentials, …), 64 on a usage
            error.
            """,
        subcommands: [SendAPNs.self, SendFCM.self, SendExpo.self]
    )
}

/// When a run counts as failed.
enum FailOn: String, ExpressibleByArgument, CaseIterable {
    /// Any notification not accepted (rejected, invalid token, or failed).
    case any
    /// Only deliveries that failed after retries (transport faults, 5xx, 429).
    case failed
    /// Never: exit 0 whatever happened.
    case never
}

/// Whether to draw a progress bar.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    case auto
    case always
    case never
}

/// Options shared by `send apns` and `send fcm`.
struct SendOptions: ParsableArguments {
    @Option(
        name: .customLong("recipients"),
        help: "CSV (token column + data columns) or JSON Lines file of recipients with per-row template data.")
    var recipientsFile: String?

    @Option(name: .customLong("vars"), help: "Template data for every recipient, as a JSON object (row data wins).")
    var variables: String?

    @Option(help: "Notifications in flight at most, over all connections.")
    var concurrency = 100

    @Option(help: "HTTP/2 connections at most (more open only when the first ones are full).")
    var connections = 1

    @Option(help: "Seconds to wait for each response.")
    var timeout: Double = 30

    @Option(
        name: .customLong("connect-timeout"),
        help: "Seconds to open a connection: TCP, TLS and the server's first HTTP/2 SETTINGS together.")
    var connectTimeout: Double = 10

    @Option(name: .customLong("max-attempts"), help: "Attempts per notification, the first included (1 = no retries).")
    var maxAttempts = 5

    @Option(
        name: .customLong("url"), help: "Gateway base URL (default: the mock at https://127.0.0.1:2197, or the real host of --environment)."
    )
    var url: String?

    @Option(name: .customLong("ca"), help: "PEM file of the CA to trust (default: the mock's certs/ca.pem, or the system roots).")
    var caPath: String?

    @Option(name: .customLong("certs-dir"), help: "Where the local `pushmock serve` keeps its certificates and sample credentials.")
    var certificatesDirectory = "certs"

    @Option(
        name: .customLong("ready-file"),
        help: "The ready file of a local `pushmock serve --ready-file` (ports and credentials). Env: PUSHMOCK_READY_FILE.")
    var readyFile: String?

    @Flag(help: "Print the summary as JSON on stdout.")
    var json = false

    @Option(name: .customLong("results"), help: "Write every result as a JSON line to this file.")
    var resultsFile: String?

    @Option(help: "Progress bar on stderr: auto (when stderr is a terminal), always or never.")
    var progress: ProgressMode = .auto

    @Flag(name: .shortAndLong, help: "No summary; only the exit status (and --json / --results if given).")
    var quiet = false

    @Option(
        name: .customLong("fail-on"),
        help: "Exit 2 when: any (a notification was not accepted), failed (only failures after retries), never.")
    var failOn: FailOn = .any

    @Option(help: "Send the recipient list this many times (load testing).")
    var `repeat` = 1

    @Option(help: "Keep cycling through the recipients for this many seconds (load testing).")
    var duration: Double?

    @Option(help: "With --duration: send for this many seconds first without counting (warm-up).")
    var warmup: Double = 0

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1.") }
        guard connections >= 1 else { throw ValidationError("--connections must be at least 1.") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
        guard connectTimeout > 0, connectTimeout <= 3600 else {
            throw ValidationError("--connect-timeout must be more than 0 and at most 3600 seconds.")
        }
        guard `repeat` >= 1 else { throw ValidationError("--repeat must be at least 1.") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive.") }
        try SecondsOption.checkUpperBound(timeout, flag: "--timeout")
        // The upper bound first: it also refuses NaN, which is not "negative".
        try SecondsOption.checkUpperBound(warmup, flag: "--warmup")
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative.") }
        if let duration { try SecondsOption.checkUpperBound(duration, flag: "--duration") }
    }

    /// The ready file from the flag or `PUSHMOCK_READY_FILE`.
    var effectiveReadyFile: String? {
        readyFile ?? Environment.value("PUSHMOCK_READY_FILE")
    }

    /// Connection settings from the flags.
    var connectionConfiguration: ConnectionConfiguration {
        ConnectionConfiguration(
            maximumConnections: connections,
            maximumConcurrentStreams: max(1, (concurrency + connections - 1) / connections),
            connectTimeout: .milliseconds(Int64(connectTimeout * 1000)),
            requestTimeout: .milliseconds(Int64(timeout * 1000))
        )
    }

    /// Retry settings from the flags.
    var retryPolicy: RetryPolicy {
        RetryPolicy(maximumAttempts: maxAttempts)
    }

    /// `--vars` as an object.
    func globalVariables() throws -> JSONObject {
        guard let variables else { return JSONObject() }
        guard case .object(let object) = try? JSONValue(parsing: variables) else {
            throw ValidationError("--vars must be a JSON object, e.g. '{\"name\":\"Ada\"}'.")
        }
        return object
    }

    /// The rows of `--recipients`; a file without any is a usage error (it sent nothing and
    /// exited 0, as if every notification had gone out).
    func fileRecipients() throws -> [Recipient] {
        guard let recipientsFile else { return [] }
        let recipients: [Recipient]
        do {
            recipients = try RecipientFile.load(path: recipientsFile)
        } catch {
            throw ValidationError(error.message)
        }
        guard !recipients.isEmpty else { throw ValidationError("no recipients in --recipients \(recipientsFile)") }
        return recipients
    }
}

/// Reads credentials and settings from the environment.
enum Environment {
    static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// A PEM or JSON credential given either inline (starts like the content) or as a path.
    static func contents(ofInlineOrPath value: String, inlinePrefix: String) throws -> String {
        if value.hasPrefix(inlinePrefix) { return value }
        let data: Data
        do {
            data = try FileContents.read(value)
        } catch {
            throw SenderError(.invalidCredentials, error.description)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A recipient list cycled `repeat` times, or until a deadline.
struct CycledRecipients<Element>: Sequence {
    let base: [Element]
    let rounds: Int
    let deadline: ContinuousClock.Instant?

    func makeIterator() -> Iterator { Iterator(base: base, rounds: rounds, deadline: deadline) }

    struct Iterator: IteratorProtocol {
        let base: [Element]
        let rounds: Int
        let deadline: ContinuousClock.Instant?
        var index = 0
        var round = 0
        var produced = 0

        mutating func next() -> Element? {
            guard !base.isEmpty else { return nil }
            if let deadline {
                // Check the clock every 64 elements (reading it per element costs throughput).
                if produced % 64 == 0, ContinuousClock.now >= deadline { return nil }
            } else if round >= rounds {
                return nil
            }
            let element = base[index]
            produced += 1
            index += 1
            if index == base.count {
                index = 0
                round += 1
            }
            return element
        }
    }
}

/// Turns input problems found while running into a clean message and exit status 64, and
/// sender errors into exit status 1 (ArgumentParser would print the root usage for a
/// `ValidationError` thrown from `run()`).
enum SendErrors {
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            throw ExitCode.validationFailure
        } catch let error as SenderError {
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}
