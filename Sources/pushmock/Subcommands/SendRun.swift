import ArgumentParser
import Foundation
@_spi(Locking) import PushMockCore
import PushMockJSON
import PushMockSender

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a send (one notification, a file, or a load test), draws the progress bar, writes the
/// results file, prints the summary and decides the exit status. Shared by `send apns` and
/// `send fcm`.
struct SendRun {
    let options: SendOptions
    let platform: Platform
    /// Where to, for the summary.
    let target: String

    /// Sends `items` (each `options.repeat` times, or cycling for `options.duration`) through
    /// `send` and reports.
    func run<Item: Sendable>(
        items: [Item],
        send: (CycledRecipients<Item>, @escaping @Sendable (SendResult) -> Void) async -> Void
    ) async throws {
        let writer = try options.resultsFile.map(ResultsWriter.init(path:))
        if options.duration != nil, options.warmup > 0 {
            // Warm-up: connections open, TLS and HPACK tables settle; nothing is counted.
            await send(CycledRecipients(base: items, rounds: .max, deadline: .now + .milliseconds(Int64(options.warmup * 1000)))) { _ in }
        }
        let tally = DeliveryTally()
        let deadline = options.duration.map { ContinuousClock.now + .milliseconds(Int64($0 * 1000)) }
        let expected = deadline == nil ? items.count * options.repeat : nil
        let bar = ProgressBar(enabled: showsProgress, total: expected)
        let drawing = Task { await bar.run(tally: tally) }
        await send(CycledRecipients(base: items, rounds: options.repeat, deadline: deadline)) { result in
            tally.record(result)
            writer?.write(result)
        }
        drawing.cancel()
        await drawing.value
        writer?.close()
        let summary = tally.summary()
        bar.finish(tally: tally)
        report(summary)
        if let code = exitCode(summary) {
            throw ExitCode(code)
        }
    }

    private var showsProgress: Bool {
        switch options.progress {
        case .always: return true
        case .never: return false
        case .auto: return !options.quiet && isatty(STDERR_FILENO) == 1
        }
    }

    private func exitCode(_ summary: DeliverySummary) -> Int32? {
        switch options.failOn {
        case .any: return summary.notAccepted > 0 ? 2 : nil
        case .failed: return summary.failed > 0 ? 2 : nil
        case .never: return nil
        }
    }

    private func report(_ summary: DeliverySummary) {
        if options.json {
            guard case .object(var object) = summary.jsonValue else { return }
            var head = JSONObject()
            head["platform"] = .string(platform.rawValue)
            head["target"] = .string(target)
            head["connections"] = JSONValue(options.connections)
            head["concurrency"] = JSONValue(options.concurrency)
            object.members.insert(contentsOf: head.members, at: 0)
            print(JSONValue.object(object).compactString)
            return
        }
        guard !options.quiet else { return }
        print(Self.humanSummary(summary, platform: platform, target: target))
    }

    /// What went wrong with one notification, after the line has said which kind of problem:
    /// the outcome's own description starts with that kind again.
    static func detail(_ outcome: SendOutcome) -> String {
        switch outcome {
        case .accepted(let acceptance): "accepted \(acceptance.id)"
        case .rejected(let rejection): "\(rejection)"
        case .tokenInvalid(let invalidation): "\(invalidation)"
        case .failed(let failure): "\(failure.status.map { "\($0) " } ?? "")\(failure.reason): \(failure.error.message)"
        }
    }

    /// The readable summary.
    static func humanSummary(_ summary: DeliverySummary, platform: Platform, target: String) -> String {
        func milliseconds(_ duration: Duration?) -> String {
            guard let duration else { return "–" }
            let (seconds, attoseconds) = duration.components
            let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
            return String(format: "%.1f ms", value)
        }
        func reasons(_ counts: [String: Int]) -> String {
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
                separator: ", ")
        }
        let (seconds, attoseconds) = summary.elapsed.components
        let elapsed = Double(seconds) + Double(attoseconds) / 1e18
        var lines = [
            "\(platform.displayName) \(target)",
            String(format: "  sent        %d in %.2f s (%.0f/s)", summary.sent, elapsed, summary.ratePerSecond),
            "  accepted    \(summary.accepted)",
        ]
        lines.append("  rejected    \(summary.rejected)\(summary.rejected > 0 ? "   \(reasons(summary.rejectedByReason))" : "")")
        lines.append("  invalid     \(summary.invalidTokens.count)\(summary.invalidTokens.isEmpty ? "" : "   tokens to delete")")
        lines.append("  failed      \(summary.failed)\(summary.failed > 0 ? "   \(reasons(summary.failedByReason))" : "")")
        lines.append("  retries     \(summary.retries)")
        lines.append("  latency     p50 \(milliseconds(summary.latencyP50))   p99 \(milliseconds(summary.latencyP99))")
        let shown = 10
        for token in summary.invalidTokens.prefix(shown) {
            lines.append("  invalid token \(token.token): \(token.reason)\(token.timestamp.map { " since \($0)" } ?? "")")
        }
        if summary.invalidTokens.count > shown {
            lines.append("  … \(summary.invalidTokens.count - shown) more invalid tokens (see --json or --results)")
        }
        for problem in summary.problems.prefix(shown) {
            lines.append(
                "  \(problem.outcome.kind.rawValue) \(problem.recipient): \(detail(problem.outcome)) (\(problem.attempts) attempt\(problem.attempts == 1 ? "" : "s"))"
            )
        }
        if summary.problems.count > shown {
            lines.append("  … \(summary.problems.count - shown) more not accepted (see --json or --results)")
        }
        // Not one HTTP answer from the local mock: it is most likely not running (or hangs).
        let unanswered = summary.problems.allSatisfy {
            if case .failed(let failure) = $0.outcome { failure.status == nil } else { false }
        }
        if summary.accepted == 0, !summary.problems.isEmpty, unanswered, target.contains("(local mock)") {
            lines.append(
                "  No answer from the gateway. Is `pushmock serve` running there? (`pushmock send` defaults to the one started in this directory; --url or --ready-file name another.)"
            )
        }
        // Reasons and details come from the server.
        return lines.map(TerminalText.line).joined(separator: "\n")
    }
}

/// Writes every result as one JSON line.
final class ResultsWriter: Sendable {
    private let handle: SanitizerVisibleMutex<FileHandle?>

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ValidationError("cannot write --results file \(path)")
        }
        self.handle = SanitizerVisibleMutex(handle)
    }

    func write(_ result: SendResult) {
        var line = Self.json(result).compactBytes
        line.append(UInt8(ascii: "\n"))
        let data = Data(line)
        handle.withLock { $0?.write(data) }
    }

    func close() {
        handle.withLock { handle in
            try? handle?.close()
            handle = nil
        }
    }

    static func json(_ result: SendResult) -> JSONValue {
        var object = JSONObject()
        if let index = result.index { object["index"] = JSONValue(index) }
        object["recipient"] = .string(result.recipient)
        object["outcome"] = .string(result.outcome.kind.rawValue)
        switch result.outcome {
        case .accepted(let acceptance):
            object["id"] = .string(acceptance.id)
            if let unique = acceptance.uniqueID { object["uniqueId"] = .string(unique) }
        case .rejected(let rejection):
            object["status"] = JSONValue(rejection.status)
            object["reason"] = .string(rejection.reason)
            if let message = rejection.message { object["message"] = .string(message) }
        case .tokenInvalid(let invalidation):
            object["status"] = JSONValue(invalidation.status)
            object["reason"] = .string(invalidation.reason)
            if let timestamp = invalidation.timestamp { object["timestamp"] = JSONValue(timestamp.millisecondsSince1970) }
        case .failed(let failure):
            if let status = failure.status { object["status"] = JSONValue(status) }
            object["reason"] = .string(failure.reason)
            object["error"] = .string(failure.error.description)
        }
        object["attempts"] = JSONValue(result.attempts)
        let (seconds, attoseconds) = result.latency.components
        object["latencyMs"] = JSONValue((Double(seconds) * 1000 + Double(attoseconds) / 1e15 * 1000).rounded() / 1000)
        return .object(object)
    }
}

/// `[#########...........]  540/1000  accepted 530  not accepted 10  812/s` on stderr.
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let total: Int?
    private let started = ContinuousClock.now

    init(enabled: Bool, total: Int?) {
        self.enabled = enabled
        self.total = total
    }

    func run(tally: DeliveryTally) async {
        guard enabled else { return }
        while !Task.isCancelled {
            draw(tally.progress)
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    func finish(tally: DeliveryTally) {
        guard enabled else { return }
        draw(tally.progress)
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw(_ progress: DeliveryTally.Progress) {
        let elapsed = ContinuousClock.now - started
        let (seconds, attoseconds) = elapsed.components
        let rate = Double(progress.done) / max(0.001, Double(seconds) + Double(attoseconds) / 1e18)
        var line = "\r"
        if let total, total > 0 {
            let width = 30
            let filled = min(width, progress.done * width / total)
            line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            line += "\(progress.done)/\(total)"
        } else {
            line += "\(progress.done) sent"
        }
        line += "  accepted \(progress.accepted)  not accepted \(progress.notAccepted)  retries \(progress.retries)  \(Int(rate))/s "
        FileHandle.standardError.write(Data(line.utf8))
    }
}

extension SendRun {
    /// Runs `items` through a sender made for the run, which is shut down afterwards (also
    /// when the run throws, e.g. to exit with a status).
    func run<Item: Sendable, Sender: Sendable>(
        items: [Item],
        sender: Sender,
        shutdown: (Sender) async -> Void,
        send: (Sender, CycledRecipients<Item>, @escaping @Sendable (SendResult) -> Void) async -> Void
    ) async throws {
        do {
            try await run(items: items) { items, onResult in await send(sender, items, onResult) }
        } catch {
            await shutdown(sender)
            throw error
        }
        await shutdown(sender)
    }
}

/// The template of `send apns|fcm`: a file (`--payload`/`--message`), inline JSON, or built
/// from flags.
func loadTemplate(file: String?, fileFlag: String, json: String?, built: () throws -> JSONValue) throws -> NotificationTemplate {
    do {
        if let file {
            let data: Data
            do {
                data = try FileContents.read(file)
            } catch {
                throw ValidationError("cannot read \(fileFlag) \(file): \(error.reason)")
            }
            return try NotificationTemplate(json: String(decoding: data, as: UTF8.self))
        }
        if let json {
            return try NotificationTemplate(json: json)
        }
        return try NotificationTemplate(built())
    } catch let error as SenderError {
        throw ValidationError(error.message)
    }
}

/// Fails, before anything is sent, naming every recipient whose data lacks a variable the
/// template uses.
func checkTemplateVariables(_ template: NotificationTemplate, for rows: [Recipient], variables: JSONObject) throws {
    var problems: [String] = []
    for (index, recipient) in rows.enumerated() {
        let missing = template.missingVariables(in: SendAPNs.merge(variables, recipient.data))
        if !missing.isEmpty {
            let place = recipient.line > 0 ? "line \(recipient.line)" : "recipient \(index + 1)"
            problems.append(
                "\(place): template variable\(missing.count == 1 ? "" : "s") \(missing.map { "\"\($0)\"" }.joined(separator: ", ")) missing"
            )
        }
    }
    if !problems.isEmpty {
        throw ValidationError(
            "cannot fill the template for \(problems.count) recipient\(problems.count == 1 ? "" : "s"):\n  "
                + problems.prefix(10).joined(separator: "\n  ") + (problems.count > 10 ? "\n  …" : "")
        )
    }
}
