import ArgumentParser
import PushMockJSON
import PushMockToolkit

/// `pushmock check links`: every recorded notification's deep link against a route table.
struct CheckLinks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "Check deep links against a route table (docs/deep-links.md).",
        discussion: """
            Finds the link of each notification that reached a device (top-level
            deep_link/url/link, FCM data.*, webpush.fcm_options.link, android click_action
            URLs, action links), resolves it against the table, and reports notifications
            without a link, links that match no route or only the fallback, and malformed
            links.
            """
    )

    @Option(help: ArgumentHelp("The route table (JSON).", valueName: "file"))
    var routes: String?

    @Flag(name: .customLong("allow-fallback"), help: "A link that only reaches the fallback screen is not a problem.")
    var allowFallback = false

    @Flag(name: .customLong("allow-missing"), help: "A notification without a link is not a problem.")
    var allowMissing = false

    @Flag(name: .customLong("include-rejected"), help: "Also check sends the service rejected or only validated.")
    var includeRejected = false

    @Flag(name: .shortAndLong, help: "List every notification with its links, not only those with problems.")
    var verbose = false

    @OptionGroup var source: CheckSourceOptions

    func run() async throws {
        try await runCheck {
            guard let routesPath = routes else { throw CheckError("--routes FILE is required") }
            let table: RouteTable
            do throws(DeepLinkError) {
                table = try RouteTable(contentsOfFile: routesPath)
            } catch {
                throw CheckError(error.description)
            }
            let options = DeepLinkChecker.Options(
                requireLink: !allowMissing, fallbackIsProblem: !allowFallback, includeRejected: includeRejected)
            let outcome: CheckOutcome<DeepLinkReport>
            if let journal = source.journal {
                let records = try source.journalRecords(journal)
                outcome = CheckOutcome(DeepLinkChecker(routes: table, options: options).check(records))
            } else {
                let body: JSONValue = ["routes": table.definition, "options": try JSONValue(parsing: try jsonBody(options))]
                outcome = try await source.askGateway("links", body: body.compactBytes, as: DeepLinkReport.self)
            }
            let report = outcome.report
            try source.finish(
                outcome, text: verbose ? report.detailedText : report.text, junit: JUnitReport.testCases(report), suite: "pushmock.links")
        }
    }
}
