/// JUnit test cases for the deep-link and policy checks.
extension JUnitReport {
    /// One test case per checked notification (`#12 apns 00fc13ad…`), failed when it has
    /// problems; the failure text lists its links and problems.
    public static func testCases(_ report: DeepLinkReport, className: String = "pushmock.links") -> [TestCase] {
        report.notifications.map { notification in
            TestCase(
                name: notification.notification.description,
                className: className,
                failure: notification.isClean ? nil : notification.description
            )
        }
    }

    /// One test case per rule of `policy` (so a clean run still lists what was checked), failed
    /// when the rule has violations; the failure text lists them.
    public static func testCases(_ report: PolicyReport, policy: PolicyFile, className: String = "pushmock.policy") -> [TestCase] {
        // A frequency cap reports both too many notifications and too little spacing.
        var rules: [PolicyRuleCase] = []
        rules += policy.quietHours.map { PolicyRuleCase(kind: .quietHours, kinds: [.quietHours], name: $0.name) }
        rules += policy.frequencyCaps.map { PolicyRuleCase(kind: .frequencyCap, kinds: [.frequencyCap, .minimumSpacing], name: $0.name) }
        rules += policy.priorityRules.map { PolicyRuleCase(kind: .priority, kinds: [.priority], name: $0.name) }
        rules += policy.deliveryWindows.map { PolicyRuleCase(kind: .deliveryWindow, kinds: [.deliveryWindow], name: $0.name) }
        rules += policy.eventRules.map {
            PolicyRuleCase(kind: .eventTiming, kinds: [.eventTiming, .eventInstance, .canceled, .deliveryWindow], name: $0.name)
        }
        // Anything not attributable to a listed rule still gets a case, so it cannot go unseen.
        for violation in report.violations where !rules.contains(where: { $0.kinds.contains(violation.kind) && $0.name == violation.rule })
        {
            if !rules.contains(where: { $0.kind == violation.kind && $0.name == violation.rule }) {
                rules.append(PolicyRuleCase(kind: violation.kind, kinds: [violation.kind], name: violation.rule))
            }
        }
        return rules.map { rule in
            let violations = report.violations.filter { rule.kinds.contains($0.kind) && $0.rule == rule.name }
            let failure =
                violations.isEmpty
                ? nil
                : "\(DeepLinkReport.count(violations.count, "violation")) of \(rule.kind) rule \(rule.name)\n"
                    + violations.map { "  \($0.notification): \($0)" }.joined(separator: "\n")
            return TestCase(name: "\(rule.kind) \(rule.name)", className: "\(className).\(rule.kind)", failure: failure)
        }
    }
}

/// One policy rule as a JUnit case: the kinds of violation it can produce.
private struct PolicyRuleCase {
    var kind: PolicyRuleKind
    var kinds: Set<PolicyRuleKind>
    var name: String
}

extension JUnitReport {
    /// One case per contract that found something, or one passing case when all held.
    public static func testCases(_ report: ContractReport, className: String = "pushmock.contracts") -> [TestCase] {
        let byContract = Dictionary(grouping: report.violations, by: \.contract)
        guard !byContract.isEmpty else { return [TestCase(name: "contracts", className: className, failure: nil)] }
        return byContract.keys.sorted().map { contract in
            let violations = byContract[contract] ?? []
            let failure =
                "\(DeepLinkReport.count(violations.count, "violation")) of contract \(contract)\n"
                + violations.map { "  \($0.notification): \($0)" }.joined(separator: "\n")
            return TestCase(name: "contract \(contract)", className: className, failure: failure)
        }
    }
}
