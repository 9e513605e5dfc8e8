import ArgumentParser
import Foundation
import PushMockControl
import PushMockToolkit

/// `pushmock report`: the funnel and delivery latency of a running gateway.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "The funnel sent → accepted → delivered → displayed → opened/acted, and delivery latency against targets.",
        discussion: """
            Counts per type, category, priority and platform, from the gateway's simulated
            devices and recordings; delivery latency percentiles per priority. Each
            --target is [name=]high|normal|low:duration[:pNN] (default: every one within
            the duration). Exit status: 0 every target holds, 1 one is missed, 2 the report
            could not be made.

            Examples:
              pushmock report
              pushmock report --target critical=high:5s --target normal:10m:p95 \\
                  --format junit > report.xml
            """
    )

    @OptionGroup var control: ControlOptions

    @Option(name: .customLong("target"), help: "A latency target, e.g. critical=high:5s (repeatable).")
    var targets: [String] = []

    @Option(help: "text (default), json or junit.")
    var format: String = "text"

    func validate() throws {
        guard ["text", "json", "junit"].contains(format) else { throw ValidationError("--format is text, json or junit") }
        for target in targets {
            do {
                _ = try LatencyTarget(parsing: target)
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    func run() async throws {
        var passed = true
        try await runCheck {
            let response = try await withControlClient(control) { client in
                try await client.request(
                    "GET", "report", query: [("format", control.json ? "json" : format)] + targets.map { ("target", $0) })
            }
            guard response.status == 200 || response.status == 417 else {
                throw ValidationError("the gateway answered \(response.status): \(response.errorMessage ?? response.text)")
            }
            passed = response.status == 200
            if control.json || format == "json" {
                control.printJSON(response)
            } else {
                print(response.text, terminator: "")
            }
        }
        if !passed { throw CheckExit.failed }
    }
}
