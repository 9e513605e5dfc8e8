import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit

/// `pushmock golden verify|record`: compare recordings with a golden file, or write one.
///
/// Exit status (documented in docs/golden-files.md): 0 the recording matches (or was recorded),
/// 1 it differs or the file is missing, 2 a usage error, an unreadable journal or golden file,
/// an unreachable gateway, or recording refused in CI. ArgumentParser's own usage errors are
/// mapped to 2 by ``PushMockCommand/main()``.
struct GoldenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "golden",
        abstract: "Compare recorded notifications with a golden file, or (re-)record one.",
        discussion: """
            The recording comes from a journal file (--journal, no gateway needed) or from
            a running gateway (--server, default $PUSHMOCK_URL or http://127.0.0.1:2198).
            The query flags choose which exchanges count. Volatile values (tokens, apns-id,
            FCM message names, expiration, JWTs) are normalised; see docs/golden-files.md.

            Examples:
              pushmock golden verify Recordings/golden/dose.json \\
                  --journal Recordings/run.jsonl --platform apns
              pushmock golden verify Recordings/golden/dose.json \\
                  --server http://127.0.0.1:2198 --json
              pushmock golden record Recordings/golden/dose.json \\
                  --journal Recordings/run.jsonl

            Exit status: 0 match (or recorded), 1 mismatch or missing file, 2 usage or I/O
            error.
            """,
        subcommands: [Verify.self, Record.self]
    )

    /// Exit status for a usage, I/O or environment problem.
    static let usageOrIOError = ExitCode(2)
    /// Exit status for a recording that differs from the file (or a missing file).
    static let mismatch = ExitCode(1)

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare the recording with GOLDEN. Never writes GOLDEN, whatever the environment says."
        )

        @OptionGroup var options: GoldenOptions

        @Option(
            name: .customLong("junit"), help: "Also write a JUnit XML report to this file (directories created; - for standard output).")
        var junitPath: String?

        func run() async throws {
            let (file, document) = try await options.load()
            let outcome: GoldenOutcome
            do {
                outcome = try file.verify(document, mode: .never)
            } catch {
                throw options.fail(error.description)
            }
            if !JUnitFile.isStandardOutput(junitPath) {
                options.report(outcome, file: file, document: document)
            }
            if let junitPath {
                let failure: String? =
                    switch outcome {
                    case .matched, .recorded: nil
                    case .mismatched(let mismatch): mismatch.report()
                    case .missing: file.missingFileMessage(environment: .process)
                    }
                let testCase = JUnitReport.TestCase(name: file.path, className: "pushmock.golden", failure: failure)
                do {
                    try JUnitFile.write(JUnitReport.render([testCase], suite: "pushmock golden"), to: junitPath)
                } catch {
                    throw options.fail(error.description)
                }
            }
            switch outcome {
            case .matched, .recorded: return
            case .mismatched, .missing: throw GoldenCommand.mismatch
            }
        }
    }

    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the recording to GOLDEN (only if it differs). Refused in CI unless --force.",
            discussion: """
                Golden files are what reviewers approved; a CI run must compare them, not
                rewrite them. Record locally, review the file's diff and commit it.
                """
        )

        @OptionGroup var options: GoldenOptions

        @Flag(help: "Record even in a CI run (for a job whose purpose is to produce golden files).")
        var force = false

        func run() async throws {
            let environment = GoldenEnvironment.process
            if !force, let indicator = environment.continuousIntegrationIndicator {
                throw options.fail(
                    """
                    refusing to record \(options.golden) in a CI run (\(indicator)): CI must compare golden files, not rewrite them. \
                    Re-record locally with `pushmock golden record \(options.golden) …` (or PUSHMOCK_RECORD_GOLDEN=1 swift test), \
                    review the diff and commit it; pass --force only in a job that exists to produce golden files.
                    """
                )
            }
            let (file, document) = try await options.load()
            let outcome: GoldenOutcome
            do {
                outcome = try file.verify(document, mode: .all)
            } catch {
                throw options.fail(error.description)
            }
            options.report(outcome, file: file, document: document)
        }
    }
}

/// What `verify` and `record` share: the golden file, the source of the recording, the query
/// and the normalisation choices.
struct GoldenOptions: ParsableArguments {
    @Argument(help: "The golden file (JSON), e.g. Recordings/golden/dose-reminder.json.")
    var golden: String

    @OptionGroup var source: RecordingSourceOptions
    /// The query: the flags of `pushmock recordings` (docs/queries.md).
    @OptionGroup var filter: QueryOptions

    var journalPath: String? { source.journal }
    var control: ControlOptions { source.control }

    // Normalisation.
    @Option(help: "Remove a payload value from the comparison, by JSON path (repeatable), e.g. '$.aps.badge'.")
    var ignore: [String] = []
    @Option(help: "Replace a payload value with <redacted>, by JSON path (repeatable).")
    var redact: [String] = []
    @Flag(name: .customLong("sort-by-content"), help: "Order entries by content instead of arrival (concurrent senders).")
    var sortsByContent = false
    @Flag(name: .customLong("all-platforms"), help: "Include token requests and topic management, not only APNs, FCM and Expo.")
    var allPlatforms = false

    /// The query; relative times (`--since -2h`) resolved against `now`.
    func query(now: Timestamp = SystemClock().now()) throws -> RecordingQuery {
        do {
            return try RecordingQuery(queryItems: filter.queryItems, now: now)
        } catch {
            throw fail("invalid query: \(readable: error)")
        }
    }

    var configuration: GoldenConfiguration {
        get throws {
            var configuration = GoldenConfiguration()
            if allPlatforms { configuration.platforms = nil }
            if sortsByContent { configuration.order = .byContent }
            do {
                configuration.rules = try ignore.map { try GoldenRule.ignore($0) } + redact.map { try GoldenRule.redact($0) }
            } catch {
                throw fail("\(readable: error)")
            }
            return configuration
        }
    }

    /// The golden file and the normalised recording.
    func load() async throws -> (GoldenFile, GoldenDocument) {
        let configuration = try configuration
        let records: [ExchangeRecord]
        if let journalPath {
            records = try readJournal(journalPath, query: try query())
        } else {
            records = try await fetch()
        }
        return (GoldenFile(path: golden), GoldenDocument(records: records, configuration: configuration))
    }

    private func readJournal(_ path: String, query: RecordingQuery) throws -> [ExchangeRecord] {
        let journal: (records: [ExchangeRecord], problems: [JournalProblem])
        do {
            journal = try JournalFiles.readAll(path: path)
        } catch {
            throw fail("\(readable: error)")
        }
        // A skipped line may hide a notification, so say so (the comparison still runs: a
        // torn last line after a crash should not block reading the rest).
        for problem in journal.problems {
            printError("pushmock: warning: \(path): \(problem)")
        }
        return journal.records.filter(query.matches)
    }

    /// Every matching record from the gateway, oldest first, page by page.
    private func fetch() async throws -> [ExchangeRecord] {
        _ = try query()
        let client: PushMockControlClient
        do {
            client = try control.makeClient()
        } catch {
            throw fail("\(readable: error)")
        }
        let records: [ExchangeRecord]
        do {
            // Relative times mean the gateway's clock, which may be virtual.
            let now = filter.needsClock ? try await client.call("GET", "clock").decode(ClockReading.self).timestamp : SystemClock().now()
            records = try await fetchAllRecords(matching: try query(now: now), from: client)
            await client.close()
        } catch {
            await client.close()
            throw fail("cannot read recordings from \(client.endpoint): \(readable: error)")
        }
        return records
    }

    /// Prints `message` and returns the exit status for usage and I/O problems.
    func fail(_ message: String) -> ExitCode {
        if control.json {
            let object: JSONObject = ["golden": .string(golden), "status": "error", "error": .string(message)]
            print(JSONValue.object(object).compactString)
        }
        printError("pushmock: \(message)")
        return GoldenCommand.usageOrIOError
    }

    /// Prints the outcome: one JSON object with `--json`, otherwise text (the diff on stdout,
    /// coloured on a terminal).
    func report(_ outcome: GoldenOutcome, file: GoldenFile, document: GoldenDocument) {
        if control.json {
            var object: JSONObject = ["golden": .string(file.path), "notifications": JSONValue(document.entries.count)]
            switch outcome {
            case .matched:
                object["status"] = "matched"
            case .missing:
                object["status"] = "missing"
                object["message"] = .string(file.missingFileMessage(environment: .process))
            case .mismatched(let mismatch):
                object["status"] = "mismatched"
                object["differences"] = .array(mismatch.differences.map(\.jsonValue))
                object["diff"] = .string(mismatch.textDiff.rendered(oldLabel: file.path, newLabel: "recorded", style: .plain))
            case .recorded(let recording):
                object["status"] = "recorded"
                object["message"] = .string(recording.description)
                if case .updated(let mismatch) = recording.change {
                    object["differences"] = .array(mismatch.differences.map(\.jsonValue))
                }
            }
            print(JSONValue.object(object).compactString)
            return
        }
        let notifications = document.entries.count == 1 ? "1 notification" : "\(document.entries.count) notifications"
        switch outcome {
        case .matched:
            print("Golden file \(file.path) matches (\(notifications)).")
        case .missing:
            print(file.missingFileMessage(environment: .process) + " Create it with `pushmock golden record \(file.path) …`.")
        case .mismatched(let mismatch):
            print(
                mismatch.report(
                    style: isatty(STDOUT_FILENO) == 1 ? TextStyle.automatic(environment: ProcessInfo.processInfo.environment) : .plain))
        case .recorded(let recording):
            print(recording.description)
        }
    }
}
