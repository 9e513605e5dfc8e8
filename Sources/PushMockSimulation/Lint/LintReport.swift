/// Collects findings for one notification; messages are built only for rules that fire and
/// are enabled.
struct LintReport {
    let configuration: LintConfiguration
    private(set) var findings: [LintFinding] = []

    init(configuration: LintConfiguration) {
        self.configuration = configuration
    }

    mutating func add(_ code: LintCode, field: String, _ message: @autoclosure () -> String) {
        guard !configuration.disabledCodes.contains(code) else { return }
        guard let rule = LintRule.named(code) else {
            assertionFailure("\(code) is missing from LintRule.all")
            return
        }
        findings.append(
            LintFinding(code: code, severity: rule.severity, field: field, message: message(), source: rule.sources.first ?? "")
        )
    }

    func contains(_ code: LintCode) -> Bool {
        findings.contains { $0.code == code }
    }
}
