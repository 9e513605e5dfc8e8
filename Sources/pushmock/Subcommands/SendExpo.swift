import ArgumentParser
import Foundation
import PushMockCore
import PushMockJSON
import PushMockSender

/// `pushmock send expo`: messages to Expo push tokens through the Expo push service (the local
/// mock by default), then — with `--receipts` — their receipts.
struct SendExpo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expo",
        abstract: "Send Expo push messages (batches of 100, 6 requests at once, gzip over 1 KiB).",
        discussion: """
            Against the local mock nothing else is needed:
              pushmock send expo --token 'ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]' \\
                  --title Hi --receipts
            Many tokens, one per line:
              pushmock send expo --tokens-file tokens.txt --body "Time for your dose" \\
                  --receipts
            Prints the tickets' summary, the receipts' summary and the tokens to delete
            (DeviceNotRegistered). Access token: --access-token or EXPO_ACCESS_TOKEN.
            """
    )

    @Option(
        help:
            "The Expo base URL. Default: the local pushmock serve (its --ready-file's, else http://127.0.0.1:2198); production: https://exp.host."
    )
    var server: String?
    @Option(
        name: .customLong("ready-file"),
        help: "The ready file of a local `pushmock serve --ready-file` (its Expo base URL and CA). Env: PUSHMOCK_READY_FILE.")
    var readyFile: String?
    @Option(name: .customLong("ca"), help: "Trust this CA (PEM) for an https server, e.g. certs/ca.pem.")
    var caPath: String?
    @Option(name: .customLong("access-token"), help: "Enhanced push security access token. Env: EXPO_ACCESS_TOKEN.")
    var accessToken: String?

    @Option(name: .customLong("token"), help: "An ExponentPushToken[…]. Repeatable.")
    var tokens: [String] = []
    @Option(name: .customLong("tokens-file"), help: "A file with one token per line.")
    var tokensFile: String?

    @Option(help: "title.")
    var title: String?
    @Option(help: "body.")
    var body: String?
    @Option(name: .customLong("data"), help: "A data entry KEY=VALUE. Repeatable.")
    var data: [String] = []
    @Option(help: "default, normal or high.")
    var priority: String?
    @Option(help: "ttl in seconds.")
    var ttl: Int?
    @Option(help: "sound (\"default\" or a bundled file name).")
    var sound: String?
    @Option(help: "badge.")
    var badge: Int?
    @Option(name: .customLong("channel-id"), help: "Android channelId.")
    var channelID: String?

    @Option(help: "Requests in flight at most.")
    var concurrency = 6
    @Option(name: .customLong("max-attempts"), help: "Attempts per request, the first included (429 and 5xx are retried).")
    var maxAttempts = 3
    @Option(help: "Seconds to wait for each response.")
    var timeout: Double = 30
    @Flag(help: "Poll the receipts of the accepted messages until all are in (or --receipt-timeout).")
    var receipts = false
    @Option(name: .customLong("receipt-interval"), help: "Seconds between receipt polls.")
    var receiptInterval: Double = 1
    @Option(name: .customLong("receipt-timeout"), help: "Seconds to poll receipts at most.")
    var receiptTimeout: Double = 60
    @Flag(help: "Print the report as JSON.")
    var json = false

    /// The tickets that are not `ok`, one line per distinct code and message (at most five):
    /// the summary counts them, this says what they were.
    static func problemLines(_ tickets: [ExpoTicketResult]) -> [String] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for ticket in tickets {
            let line: String
            switch ticket.outcome {
            case .ok: continue
            case .error(let code, let message), .requestFailed(let code, let message): line = "\(code): \(message)"
            }
            if counts[line] == nil { order.append(line) }
            counts[line, default: 0] += 1
        }
        let shown = 5
        var lines = order.prefix(shown).map { line in
            let count = counts[line] ?? 1
            return "  \(line)\(count > 1 ? " (\(count) messages)" : "")"
        }
        if order.count > shown { lines.append("  … \(order.count - shown) more kinds of error (see --json)") }
        return lines
    }

    func validate() throws {
        if tokens.isEmpty, tokensFile == nil { throw ValidationError("give --token or --tokens-file") }
        for entry in data where !entry.contains("=") { throw ValidationError("--data takes KEY=VALUE (was \(entry))") }
        try SecondsOption.checkUpperBound(timeout, flag: "--timeout")
        guard timeout > 0 else { throw ValidationError("--timeout must be positive.") }
        guard receiptInterval > 0 else { throw ValidationError("--receipt-interval must be positive.") }
        try SecondsOption.checkUpperBound(receiptInterval, flag: "--receipt-interval")
        // The upper bound first: it also refuses NaN, which is not "negative".
        try SecondsOption.checkUpperBound(receiptTimeout, flag: "--receipt-timeout")
        guard receiptTimeout >= 0 else { throw ValidationError("--receipt-timeout must not be negative.") }
    }

    func run() async throws {
        var recipients = tokens
        if let tokensFile {
            let data: Data
            do {
                data = try FileContents.read(tokensFile)
            } catch {
                throw ValidationError("cannot read --tokens-file \(tokensFile): \(error.reason)")
            }
            var text = String(decoding: data, as: UTF8.self)
            // A byte-order mark is no part of the first token (it was sent, and called unregistered).
            if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
            let fromFile = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            // An empty file sent nothing and exited 0.
            guard !fromFile.isEmpty else { throw ValidationError("no tokens in --tokens-file \(tokensFile)") }
            recipients += fromFile
        }
        var dataObject = JSONObject()
        for entry in data {
            let parts = entry.split(separator: "=", maxSplits: 1)
            dataObject.append(key: String(parts[0]), value: .string(parts.count > 1 ? String(parts[1]) : ""))
        }
        let readyFile = self.readyFile ?? Environment.value("PUSHMOCK_READY_FILE")
        var configuration: ExpoSenderConfiguration
        if let server {
            configuration = ExpoSenderConfiguration(server: try SenderEndpoint(url: server))
        } else if let readyFile {
            configuration = try LocalPushMock(readyFile: readyFile).expoConfiguration()
        } else {
            configuration = ExpoSenderConfiguration(server: try SenderEndpoint(url: LocalPushMock.defaultExpoBaseURL))
        }
        configuration.accessToken = accessToken ?? ProcessInfo.processInfo.environment["EXPO_ACCESS_TOKEN"]
        if let caPath { configuration.trustRoots = .file(caPath) }
        configuration.concurrentRequests = concurrency
        configuration.retry.maximumAttempts = maxAttempts
        configuration.requestTimeout = .milliseconds(Int64(timeout * 1000))
        let sender = try ExpoSender(configuration: configuration)
        let messages = recipients.map {
            ExpoPushMessage(
                to: $0,
                title: title,
                body: body,
                data: data.isEmpty ? nil : dataObject,
                sound: sound,
                badge: badge,
                ttl: ttl,
                priority: priority,
                channelID: channelID
            )
        }
        let report = await sender.send(messages)
        var receiptReport: ExpoReceiptReport?
        if receipts {
            receiptReport = await sender.pollReceipts(
                for: report,
                interval: .milliseconds(Int64(receiptInterval * 1000)),
                timeout: .milliseconds(Int64(receiptTimeout * 1000))
            )
        }
        await sender.shutdown()
        let toDelete = receiptReport?.tokensToDelete ?? report.tokensToDelete
        if json {
            var object: JSONObject = [
                "messages": JSONValue(report.tickets.count),
                "requests": JSONValue(report.requests),
                "retries": JSONValue(report.retries),
                "ok": JSONValue(report.okCount),
                "errors": .object(JSONObject(report.errorCounts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) })),
                "tokensToDelete": .array(toDelete.map(JSONValue.string)),
            ]
            if let receiptReport {
                object.append(key: "receiptsOk", value: JSONValue(receiptReport.okCount))
                object.append(key: "receipts", value: JSONValue(receiptReport.receipts.count))
                object.append(key: "receiptsMissing", value: JSONValue(receiptReport.missing.count))
            }
            print(JSONValue.object(object).compactString)
        } else {
            // Codes and messages come from the server.
            print(TerminalText.line("tickets: \(report.summary)"))
            for line in Self.problemLines(report.tickets) { print(TerminalText.line(line)) }
            // Only when no request got an answer: a request error (an injected outage's 500, say)
            // is an answer.
            let unanswered = [SenderError.Code.connectionFailed, .timeout].map(\.description)
            if !report.tickets.isEmpty, server == nil,
                report.tickets.allSatisfy({
                    if case .requestFailed(let code, _) = $0.outcome { unanswered.contains(code) } else { false }
                })
            {
                print("  No answer from the gateway. Is `pushmock serve` running? (--server or --ready-file names another.)")
            }
            if let receiptReport { print(TerminalText.line("receipts: \(receiptReport.summary)")) }
            for token in toDelete { print(TerminalText.line("delete \(token)")) }
        }
        let allOK =
            report.okCount == report.tickets.count && (receiptReport.map { $0.okCount == report.okCount && $0.missing.isEmpty } ?? true)
        if !allOK { throw ExitCode(2) }
    }
}
