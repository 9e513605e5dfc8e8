import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit

/// Where recordings come from: a running gateway (the control API) or a journal file, so CI
/// can check what a finished run sent without a server.
struct RecordingSourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Read this journal (JSON Lines under Recordings/) instead of asking a running gateway.", valueName: "file"))
    var journal: String?

    @OptionGroup var control: ControlOptions

    /// Every record of the journal matching `query`, oldest first. Lines that do not decode are
    /// reported on standard error and skipped, like `JournalReader` does.
    func journalRecords(_ path: String, matching query: RecordingQuery) throws(CheckError) -> [ExchangeRecord] {
        let contents: (records: [ExchangeRecord], problems: [JournalProblem])
        do {
            contents = try JournalFiles.readAll(path: path)
        } catch {
            // "cannot open/read <path>: <reason>"
            throw CheckError(error.description)
        }
        for problem in contents.problems where !problem.isTornLastLine {
            printError("pushmock: \(path):\(problem.line): \(problem.message)")
        }
        return contents.records.filter(query.matches)
    }
}

/// The check could not be made (unreadable journal, unreachable gateway, bad answer): exit 2,
/// so CI can tell "the expectation failed" (1) from "the check did not run".
struct CheckError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Exit statuses of the commands that judge (`expect`): 0 passed, 1 failed, 2 could not check.
enum CheckExit {
    static let failed = ExitCode(1)
    static let couldNotCheck = ExitCode(2)
}

/// Runs a check command: a `CheckError`, a control-client error or a `ValidationError` prints
/// one line and exits 2.
func runCheck(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CheckError {
        printError("pushmock: \(error.description)")
        throw CheckExit.couldNotCheck
    } catch let error as ControlClientError {
        printError("pushmock: \(error.description)")
        throw CheckExit.couldNotCheck
    } catch let error as ValidationError {
        // A flag combination found wrong only while running is still a usage error.
        printError("pushmock: \(error.message)")
        throw CheckExit.couldNotCheck
    }
}

/// Runs `body` with a control client, closing it afterwards. `waiting` is how long the gateway
/// may hold the request (a long poll), added to the usual timeout.
func withControlClient<Result>(
    _ control: ControlOptions,
    waiting: Duration = .zero,
    _ body: (PushMockControlClient) async throws -> Result
) async throws -> Result {
    let client = try control.makeClient(waiting: waiting)
    do {
        let result = try await body(client)
        await client.close()
        return result
    } catch {
        await client.close()
        throw error
    }
}

/// One page of a `GET /_pushmock/recordings` answer (`{"records": [journal lines], "next": …}`).
struct RecordPage {
    var records: [ExchangeRecord]
    /// The cursor for `after` when the page was full.
    var next: UInt64?

    init(_ body: [UInt8]) throws(CheckError) {
        guard let page = try? JSONValue(parsing: body), let list = page["records"]?.arrayValue else {
            throw CheckError("the gateway's answer is not a record list: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        records = []
        for value in list {
            do {
                records.append(try ExchangeRecord.decode(jsonLine: value.compactBytes))
            } catch {
                throw CheckError("cannot decode a record from the gateway: \(readable: error)")
            }
        }
        next = page["next"]?.uint64Value
    }
}

/// Every record matching `query` from a running gateway, oldest first, page by page.
func fetchAllRecords(matching query: RecordingQuery, from client: PushMockControlClient) async throws -> [ExchangeRecord] {
    var records: [ExchangeRecord] = []
    var cursor: UInt64?
    repeat {
        var items = query.queryItems.map { ($0.name, $0.value) }
        items += [("order", "oldest"), ("limit", "500")]
        if let cursor { items.append(("after", String(cursor))) }
        let page = try RecordPage(try await client.call("GET", "recordings", query: items).body)
        records += page.records
        cursor = page.next
    } while cursor != nil
    return records
}
