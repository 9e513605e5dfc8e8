/// The answer of a check (deep links, policy) as the control API and `pushmock check … --json`
/// give it: whether it passed, the one-line summary and the whole report.
///
/// `{"passed": false, "summary": "Deep links: 3 notifications, 3 links, 1 problem (1 no-route)",
/// "report": {…}}`
public struct CheckOutcome<Report: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public var passed: Bool
    public var summary: String
    public var report: Report

    public init(passed: Bool, summary: String, report: Report) {
        self.passed = passed
        self.summary = summary
        self.report = report
    }
}

extension CheckOutcome where Report == DeepLinkReport {
    public init(_ report: DeepLinkReport) {
        self.init(passed: report.isClean, summary: report.summary, report: report)
    }
}

extension CheckOutcome where Report == PolicyReport {
    public init(_ report: PolicyReport) {
        self.init(passed: report.isClean, summary: report.summary, report: report)
    }
}
