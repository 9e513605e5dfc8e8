import ArgumentParser
import Foundation
import PushMockControl
import PushMockRecording
import PushMockToolkit

/// Which exchanges a check looks at: a journal file or a running gateway, narrowed by a query.
struct CheckSourceOptions: ParsableArguments {
    @Option(name: .customLong("journal"), help: ArgumentHelp("Read this journal file (.jsonl) instead of asking a gateway.", valueName: "file"))
    var journal: String?

    @OptionGroup var control: ControlOptions

    @Option(help: "Only this platform: apns or fcm.")
    var platform: String?
    @Option(help: "Only this device token or FCM registration token (glob: 00fc*).")
    var token: String?
    @Option(help: "Only this APNs topic or FCM topic (glob).")
    var topic: String?
    @Option(help: "Only this FCM project (glob).")
    var project: String?
    @Option(help: "Only this namespace.")
    var namespace: String?
    @Option(help: "Only this response status: 200 or a class such as 4xx.")
    var status: String?
    @Option(name: .customLong("push-type"), help: "Only this APNs push type.")
    var pushType: String?
    @Option(help: "Only exchanges at or after this time (ISO 8601 or milliseconds).")
    var since: String?
    @Option(help: "Only exchanges before this time (ISO 8601 or milliseconds).")
    var until: String?
    @Option(name: .customLong("json-path"), help: ArgumentHelp("A payload condition such as '$.type=marketing' (repeatable).", valueName: "condition"))
    var jsonPaths: [String] = []

    @Option(name: .customLong("junit"), help: ArgumentHelp("Also write a JUnit XML report to this file.", valueName: "file"))
    var junit: String?

    /// The query flags as REST query items (the gateway and ``RecordingQuery`` parse the same).
    var queryItems: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        let flags: [(String, String?)] = [
            ("platform", platform), ("token", token), ("topic", topic), ("project", project), ("namespace", namespace),
            ("status", status), ("pushType", pushType), ("since", since), ("until", until),
        ]
        for (name, value) in flags {
            if let value { items.append((name, value)) }
        }
        items += jsonPaths.map { ("where", $0) }
        return items
    }

    /// The query; a bad flag is a usage error.
    func query() throws -> RecordingQuery {
        do {
            return try RecordingQuery(queryItems: queryItems)
        } catch {
            throw CheckUsageError(error.description)
        }
    }

    /// The journal's records matching the query, in sequence order. Unreadable lines are
    /// reported on standard error and skipped, as everywhere else journals are read.
    func journalRecords(_ path: String) throws -> [ExchangeRecord] {
        let query = try query()
        let read: (records: [ExchangeRecord], problems: [JournalProblem])
        do {
            read = try JournalReader.readAll(path: path)
        } catch {
            throw CheckUsageError("cannot read the journal: \(error)")
        }
        for problem in read.problems.prefix(5) {
            printError("pushmock: warning: \(path): \(problem)")
        }
        if read.problems.count > 5 {
            printError("pushmock: warning: \(path): \(read.problems.count - 5) more unreadable lines")
        }
        return read.records.filter(query.matches).sorted { $0.sequence < $1.sequence }
    }

    /// Asks the gateway to run a check (`POST /_pushmock/checks/<check>`) and decodes its
    /// ``CheckOutcome``; 200 and 417 are answers, anything else is an error.
    func askGateway<Report: Sendable & Hashable & Codable>(_ check: String, body: [UInt8], as type: Report.Type) async throws -> CheckOutcome<Report> {
        _ = try query()
        let client = try control.makeClient()
        let response: ControlResponse
        do {
            response = try await client.request("POST", "checks/" + check, query: queryItems.map { ($0.name, $0.value) }, json: body)
            await client.close()
        } catch {
            await client.close()
            throw CheckUsageError("\(error)")
        }
        guard response.status == 200 || response.status == 417 else {
            throw CheckUsageError("POST /_pushmock/checks/\(check): \(response.status) \(response.errorMessage ?? response.text)")
        }
        do {
            return try response.decode(CheckOutcome<Report>.self)
        } catch {
            throw CheckUsageError("the gateway's answer is not a \(check) report: \(error)")
        }
    }

    /// Prints the outcome (text, or JSON with --json), writes --junit, and exits 1 when the
    /// check failed.
    func finish<Report: Sendable & Hashable & Codable>(_ outcome: CheckOutcome<Report>, text: String, junit cases: [JUnitReport.TestCase], suite: String) throws {
        if control.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(outcome), as: UTF8.self))
        } else {
            print(text)
        }
        if let junit {
            do {
                try Data(JUnitReport.render(cases, suite: suite).utf8).write(to: URL(fileURLWithPath: junit))
            } catch {
                throw CheckUsageError("cannot write \(junit): \(error.localizedDescription)")
            }
        }
        if !outcome.passed { throw ExitCode.failure }
    }
}

/// Unusable input: printed as one line, exit status 2.
struct CheckUsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    static let exitCode = ExitCode(2)

    /// Runs a check; usage errors (including ArgumentParser's `ValidationError` thrown while
    /// running) become a message and exit status 2.
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CheckUsageError {
            printError("pushmock: \(error.description)")
            throw exitCode
        } catch let error as ValidationError {
            printError("pushmock: \(error.message)")
            throw exitCode
        }
    }
}
