import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit

/// `pushmock recordings`: list, show and clear what the gateway recorded.
struct RecordingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recordings",
        abstract: "List, show or clear recorded exchanges (from a running gateway or a journal).",
        discussion: """
            The flags are the query language of GET /_pushmock/recordings
            (docs/queries.md).

            Examples:
              pushmock recordings --token 00fc13ad… \\
                  --json-path '$.aps.alert.title~Time for*'
              pushmock recordings --status 4xx --limit 5
              pushmock recordings --platform fcm --wait 5s --count 3   # three FCM sends
              pushmock recordings --journal Recordings/journal.jsonl \\
                  --reason BadDeviceToken
              pushmock recordings show 42
              pushmock recordings clear --namespace com.example.app
            """,
        subcommands: [List.self, Show.self, Clear.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List recorded exchanges matching a query (newest first).")

        @OptionGroup var query: QueryOptions
        @OptionGroup var source: RecordingSourceOptions

        @Option(help: "At most this many (default 100).")
        var limit = 100

        @Option(help: "newest (default) or oldest first.")
        var order = "newest"

        @Option(help: "Continue after this sequence number (the `next` of the previous page).")
        var after: UInt64?

        @Option(help: "Wait up to this long (e.g. 5s) until --count matches exist.")
        var wait: String?

        @Option(help: "With --wait: how many matches to wait for (default 1).")
        var count = 1

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be positive") }
            guard ["newest", "oldest"].contains(order) else { throw ValidationError("--order is newest or oldest") }
            guard count > 0 else { throw ValidationError("--count must be positive") }
            if let wait, DurationText.parse(wait) == nil { throw ValidationError("--wait takes a duration such as 5s") }
            _ = try query.makeQuery()
        }

        func run() async throws {
            try await runCheck {
                let records: [ExchangeRecord]
                if let path = source.journal {
                    records = try await journalPage(path)
                } else {
                    var items = query.queryItems.map { ($0.name, $0.value) }
                    items += [("limit", String(limit)), ("order", order)]
                    if let after { items.append(("after", String(after))) }
                    if let wait { items += [("wait", wait), ("count", String(count))] }
                    let waiting = wait.flatMap(DurationText.parse) ?? .zero
                    let response = try await withControlClient(source.control, waiting: waiting) { client in
                        try await client.request("GET", "recordings", query: items)
                    }
                    guard response.status == 200 else { throw CheckError("the gateway answered \(response.status): \(response.text)") }
                    if source.control.json { return source.control.printJSON(response) }
                    records = try RecordPage(response.body).records
                }
                if source.control.json, source.journal != nil {
                    printRecordsJSON(records)
                } else {
                    for record in records { print(RecordSummary(record)) }
                    if records.isEmpty { printError("no recorded exchange matches") }
                }
            }
        }

        /// A page of a journal, waiting (re-reading the file) for `count` matches when asked.
        private func journalPage(_ path: String) async throws -> [ExchangeRecord] {
            let filter = try query.makeQuery()
            let deadline = ContinuousClock.now + (wait.flatMap(DurationText.parse) ?? .zero)
            var matching = try source.journalRecords(path, matching: filter)
            while matching.count < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                matching = try source.journalRecords(path, matching: filter)
            }
            if let after {
                matching = matching.filter { order == "newest" ? $0.sequence < after : $0.sequence > after }
            }
            if order == "newest" { matching.reverse() }
            return Array(matching.prefix(limit))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one recorded exchange in full (JSON).")

        @Argument(help: "The sequence number.")
        var sequence: UInt64

        @OptionGroup var source: RecordingSourceOptions

        func run() async throws {
            try await runCheck {
                if let path = source.journal {
                    guard let record = try source.journalRecords(path, matching: RecordingQuery()).first(where: { $0.sequence == sequence })
                    else {
                        throw CheckError("no recording with sequence \(sequence) in \(path)")
                    }
                    printPrettyJSON(record.jsonLine)
                    return
                }
                let response = try await withControlClient(source.control) { client in
                    try await client.request("GET", "recordings/\(sequence)")
                }
                guard response.status == 200 else { throw CheckError("the gateway answered \(response.status): \(response.text)") }
                printPrettyJSON(response.body)
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget recorded exchanges in memory (all, or one namespace). The journal file is kept.")

        @Option(help: "Only this namespace (the x-pushmock-namespace header, else the app).")
        var namespace: String?

        @OptionGroup var control: ControlOptions

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("DELETE", "recordings", query: namespace.map { [("namespace", $0)] } ?? [])
                if control.json { return control.printJSON(response) }
                let cleared = (try? JSONValue(parsing: response.body))?["cleared"]?.intValue ?? 0
                print("cleared \(cleared) recorded exchange\(cleared == 1 ? "" : "s")")
            }
        }
    }
}

/// `{"records": [...], "count": N}`, the shape of the REST answer.
func printRecordsJSON(_ records: [ExchangeRecord]) {
    var bytes = Array(#"{"records":["#.utf8)
    for (index, record) in records.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        bytes += record.jsonLine
    }
    bytes += Array(#"],"count":\#(records.count)}"#.utf8)
    printPrettyJSON(bytes)
}

func printPrettyJSON(_ bytes: [UInt8]) {
    if let object = try? JSONSerialization.jsonObject(with: Data(bytes)),
        let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    {
        print(String(decoding: pretty, as: UTF8.self))
    } else {
        print(String(decoding: bytes, as: UTF8.self))
    }
}
