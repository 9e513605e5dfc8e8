import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockRecording
import PushMockToolkit

/// `pushmock expect`: fail a CI step unless the gateway received what it should have.
struct ExpectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expect",
        abstract: "Check that matching notifications were received (exit 0), or show what was and the nearest misses (exit 1).",
        discussion: """
            The query flags are those of `pushmock recordings` (docs/queries.md). Without a
            count flag the expectation is "exactly one". Exit status: 0 met, 1 not met, 2
            the check could not run (gateway unreachable, unreadable journal, bad flags).

            Examples:
              pushmock expect --token 00fc13ad… --count 1 --within 5s \\
                  --json-path '$.aps.alert.title=Time for your BPC-157'
              pushmock expect --token 7a1e… --none --within 2s   # nothing was sent to it
              pushmock expect --namespace ci-42 --at-least 3 --junit reports/push.xml
              pushmock expect --file expectations.json   # as POST /_pushmock/expectations
              pushmock expect --journal Recordings/journal.jsonl --reason BadDeviceToken \\
                  --none
              pushmock expect --token 00fc13ad… \\
                  --json-path '$.aps.alert.title=Time for your BPC-157' \\
                  --routes Examples/LoopHealth/pushmock/routes.json \\
                  --opens /protocols/p1/log
            """
    )

    @OptionGroup var query: QueryOptions
    @OptionGroup var source: RecordingSourceOptions

    @Option(help: "Exactly this many matching exchanges (the default is exactly 1).")
    var count: Int?

    @Option(name: .customLong("at-least"), help: "At least this many.")
    var atLeast: Int?

    @Option(name: .customLong("at-most"), help: "At most this many.")
    var atMost: Int?

    @Flag(help: "None at all (\"nothing was sent to token Y\").")
    var none = false

    @Option(help: "Wait up to this long (e.g. 5s) for the count to be reached; with --none/--at-most, watch this long.")
    var within: String?

    @Option(
        help: ArgumentHelp("A route table (JSON, docs/deep-links.md) for --opens, --link-parameter and --link-route.", valueName: "file"))
    var routes: String?

    @Option(
        help: ArgumentHelp(
            "The notification's deep link must open this screen (/protocols/p1/log, or /protocols/{id}/log).", valueName: "screen"))
    var opens: String?

    @Option(
        name: .customLong("link-parameter"),
        help: ArgumentHelp("A parameter the resolved link must carry, repeatable.", valueName: "name=value"))
    var linkParameters: [String] = []

    @Option(name: .customLong("link-route"), help: ArgumentHelp("The route the link must match, by name.", valueName: "name"))
    var linkRoute: String?

    @Option(help: "A name for the expectation in reports.")
    var name: String?

    @Option(
        help: ArgumentHelp(
            "Expectations as JSON (one, an array, or {\"expectations\": […], \"order\": […]}) instead of flags.", valueName: "file"))
    var file: String?

    @Option(
        help: ArgumentHelp("Also write a JUnit XML report to this file (directories created; - for standard output).", valueName: "file"))
    var junit: String?

    func validate() throws {
        let rules = [count != nil, atLeast != nil || atMost != nil, none].filter { $0 }.count
        guard rules <= 1 else { throw ValidationError("use one of --count, --at-least/--at-most, --none") }
        for value in [count, atLeast, atMost].compactMap({ $0 }) where value < 0 {
            throw ValidationError("counts are not negative")
        }
        if let atLeast, let atMost, atLeast > atMost { throw ValidationError("--at-least is more than --at-most") }
        if let within {
            guard let duration = DurationText.parse(within), duration <= ExpectationBatch.longestWithin else {
                throw ValidationError("--within takes a duration up to \(ExpectationBatch.longestWithin.components.seconds)s, such as 5s")
            }
        }
        let wantsLink = opens != nil || !linkParameters.isEmpty || linkRoute != nil
        if wantsLink, routes == nil { throw ValidationError("--opens, --link-parameter and --link-route need --routes FILE") }
        for parameter in linkParameters where !parameter.contains("=") {
            throw ValidationError("--link-parameter takes name=value, not \(parameter)")
        }
        if file != nil {
            guard query.queryItems.isEmpty, rules == 0, within == nil, name == nil, routes == nil, !wantsLink else {
                throw ValidationError("--file replaces the query, count, --within, --name and deep-link flags")
            }
        } else {
            _ = try query.makeQuery()
        }
    }

    func run() async throws {
        var passed = false
        try await runCheck {
            // The gateway judges the query as JSON, where times are absolute: a relative
            // --since is resolved here, against the gateway's clock (which may be virtual).
            var now = SystemClock().now()
            if source.journal == nil, file == nil, query.needsClock {
                now = try await withControlClient(source.control, waiting: .zero) { client in
                    try await client.call("GET", "clock").decode(ClockReading.self).timestamp
                }
            }
            let batch = try makeBatch(now: now)
            let results: [ExpectationResult]
            if let journal = source.journal {
                results = try await judgeJournal(journal, batch)
            } else {
                results = try await judgeOnGateway(batch)
            }
            try report(results)
            passed = results.allSatisfy(\.passed)
        }
        if !passed { throw CheckExit.failed }
    }

    // MARK: - What is expected

    private var countRule: CountRule {
        if let count { return .exactly(count) }
        if none { return .none }
        if atLeast != nil || atMost != nil { return CountRule(minimum: atLeast ?? 0, maximum: atMost) }
        return .exactly(1)
    }

    private func makeBatch(now: Timestamp) throws -> ExpectationBatch {
        guard let file else {
            var expectation = Expectation(
                name: name, query: try query.makeQuery(now: now), count: countRule, within: within.flatMap(DurationText.parse))
            expectation.deepLink = try deepLinkRequirement()
            return ExpectationBatch(expectations: [expectation])
        }
        let data: Data
        do {
            data = try FileContents.read(file)
        } catch {
            throw CheckError(error.description)
        }
        var batch: ExpectationBatch
        do {
            batch = try ExpectationBatch(json: data)
        } catch {
            throw CheckError("\(file): \(readable: error)")
        }
        // Route tables named by path were read here, relative to this directory: send them
        // inline, so the gateway (another working directory, its own --checks-dir) judges with
        // the same routes.
        for index in batch.expectations.indices {
            batch.expectations[index].deepLink?.routesFile = nil
        }
        return batch
    }

    /// The deep-link flags as a requirement. The table is read here and sent inline, so a
    /// gateway with another working directory judges with the same routes.
    private func deepLinkRequirement() throws -> DeepLinkRequirement? {
        guard let routes else { return nil }
        let table: RouteTable
        do {
            table = try RouteTable(contentsOfFile: routes)
        } catch {
            throw CheckError("\(routes): \(readable: error)")
        }
        var parameters: [String: String] = [:]
        for parameter in linkParameters {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            parameters[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return DeepLinkRequirement(routes: table, screen: opens, parameters: parameters, route: linkRoute)
    }

    // MARK: - Judging

    private func judgeOnGateway(_ batch: ExpectationBatch) async throws -> [ExpectationResult] {
        let body = Array(try JSONEncoder().encode(batch))
        let response = try await withControlClient(source.control, waiting: batch.longestWait) { client in
            try await client.request("POST", "expectations", query: [("format", "json")], json: body)
        }
        guard response.status == 200 || response.status == 417 else {
            throw CheckError("the gateway answered \(response.status): \(response.errorMessage ?? response.text)")
        }
        do {
            return try JSONDecoder().decode(ExpectationReport.self, from: Data(response.body)).results
        } catch {
            throw CheckError("cannot read the gateway's report: \(readable: error)")
        }
    }

    /// Judges a journal file, re-reading it until each expectation is met or its `within` ends
    /// (the file may still be growing while a sender finishes).
    private func judgeJournal(_ path: String, _ batch: ExpectationBatch) async throws -> [ExpectationResult] {
        let start = ContinuousClock.now
        var results: [ExpectationResult] = []
        for expectation in batch.expectations {
            let deadline = start + (expectation.within ?? .zero)
            while true {
                let records = try source.journalRecords(path, matching: RecordingQuery())
                let result = ExpectationEvaluator.evaluate(expectation, records: records)
                let settled = expectation.waitsForWholeWindow ? false : result.passed
                if settled || ContinuousClock.now >= deadline {
                    results.append(result)
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        if !batch.order.isEmpty {
            let records = try source.journalRecords(path, matching: RecordingQuery())
            results += batch.order.map { ExpectationEvaluator.evaluate($0, records: records) }
        }
        return results
    }

    // MARK: - Reporting

    private func report(_ results: [ExpectationResult]) throws {
        // The verdict first: a report file that cannot be written must not hide it.
        if JUnitFile.isStandardOutput(junit) {
            // Standard output carries the JUnit report alone.
        } else if source.control.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(ExpectationReport(results: results))
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(results.map(\.message).joined(separator: "\n\n"))
            if results.count > 1 {
                print("\n\(results.filter(\.passed).count) of \(results.count) expectations met")
            }
        }
        if let junit {
            try JUnitFile.write(JUnitReport.render(JUnitReport.testCases(results)), to: junit)
        }
    }
}
