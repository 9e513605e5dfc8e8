import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockRecording
import PushMockToolkit

/// Which exchanges a check looks at: a journal file or a running gateway, narrowed by a query.
struct CheckSourceOptions: ParsableArguments {
    @OptionGroup var source: RecordingSourceOptions
    @OptionGroup var query: QueryOptions

    @Option(
        name: .customLong("junit"),
        help: ArgumentHelp("Also write a JUnit XML report to this file (directories created; - for standard output).", valueName: "file"))
    var junit: String?

    var journal: String? { source.journal }
    var control: ControlOptions { source.control }

    /// The query; a bad flag is a usage error.
    func recordingQuery() throws -> RecordingQuery {
        do {
            return try RecordingQuery(queryItems: query.queryItems)
        } catch {
            throw CheckError(error.description)
        }
    }

    /// The journal's records matching the query, in sequence order. Unreadable lines are
    /// reported on standard error and skipped, as everywhere else journals are read.
    func journalRecords(_ path: String) throws -> [ExchangeRecord] {
        try source.journalRecords(path, matching: try recordingQuery()).sorted { $0.sequence < $1.sequence }
    }

    /// Asks the gateway to run a check (`POST /_pushmock/checks/<check>`) and decodes its
    /// ``CheckOutcome``; 200 and 417 are answers, anything else is an error.
    func askGateway<Report: Sendable & Hashable & Codable>(_ check: String, body: [UInt8], as type: Report.Type) async throws
        -> CheckOutcome<Report>
    {
        _ = try recordingQuery()
        let client = try control.makeClient()
        let response: ControlResponse
        do {
            response = try await client.request("POST", "checks/" + check, query: query.queryItems.map { ($0.name, $0.value) }, json: body)
            await client.close()
        } catch {
            await client.close()
            throw CheckError("\(readable: error)")
        }
        guard response.status == 200 || response.status == 417 else {
            throw CheckError("POST /_pushmock/checks/\(check): \(response.status) \(response.errorMessage ?? response.text)")
        }
        do {
            return try response.decode(CheckOutcome<Report>.self)
        } catch {
            throw CheckError("the gateway's answer is not a \(check) report: \(readable: error)")
        }
    }

    /// Prints the outcome (text, or JSON with --json), writes --junit, and exits 1 when the
    /// check failed.
    func finish<Report: Sendable & Hashable & Codable>(
        _ outcome: CheckOutcome<Report>, text: String, junit cases: [JUnitReport.TestCase], suite: String
    ) throws {
        // The verdict first: a report file that cannot be written must not hide it.
        if control.json, !JUnitFile.isStandardOutput(junit) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(outcome), as: UTF8.self))
        } else if !JUnitFile.isStandardOutput(junit) {
            print(text)
        }
        if let junit {
            try JUnitFile.write(JUnitReport.render(cases, suite: suite), to: junit)
        }
        if !outcome.passed { throw ExitCode.failure }
    }
}
