/// The result of ``PolicyChecker/check(_:)``: every violation, in notification order.
///
/// ``description`` (``text``) gives a summary line and each violating notification with its
/// violations; the `Codable` form is `{"policy": …, "notificationCount": …, "violationCount": …,
/// "violations": [...]}`.
public struct PolicyReport: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The policy's name, if the file gives one.
    public var policy: String?
    /// How many notifications were checked (after leaving out rejected sends, unless counted).
    public var notificationCount: Int
    public var violations: [PolicyViolation]

    public init(policy: String?, notificationCount: Int, violations: [PolicyViolation]) {
        self.policy = policy
        self.notificationCount = notificationCount
        self.violations = violations
    }

    enum CodingKeys: String, CodingKey {
        case policy, notificationCount, violationCount, violations
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        policy = try container.decodeIfPresent(String.self, forKey: .policy)
        notificationCount = try container.decode(Int.self, forKey: .notificationCount)
        violations = try container.decode([PolicyViolation].self, forKey: .violations)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(policy, forKey: .policy)
        try container.encode(notificationCount, forKey: .notificationCount)
        try container.encode(violations.count, forKey: .violationCount)
        try container.encode(violations, forKey: .violations)
    }

    public var isClean: Bool { violations.isEmpty }

    /// The violations of one kind.
    public func violations(_ kind: PolicyRuleKind) -> [PolicyViolation] {
        violations.filter { $0.kind == kind }
    }

    /// The violations of the rule named `rule`.
    public func violations(rule: String) -> [PolicyViolation] {
        violations.filter { $0.rule == rule }
    }

    /// The violations of the record with sequence number `sequence`.
    public func violations(sequence: UInt64) -> [PolicyViolation] {
        violations.filter { $0.notification.sequence == sequence }
    }

    /// `Policy "Loop": 2 violations in 12 notifications (1 quiet-hours, 1 frequency-cap)`.
    public var summary: String {
        var text = "Policy\(policy.map { " \"\($0)\"" } ?? ""): "
        text += "\(DeepLinkReport.count(violations.count, "violation")) in \(DeepLinkReport.count(notificationCount, "notification"))"
        if !violations.isEmpty {
            let byKind = Dictionary(grouping: violations, by: \.kind).sorted { $0.key < $1.key }
            text += " (" + byKind.map { "\($0.value.count) \($0.key)" }.joined(separator: ", ") + ")"
        }
        return text
    }

    /// The summary, then each violating notification with its violations indented below it.
    public var text: String {
        var lines = [summary]
        var current: NotificationReference?
        for violation in violations {
            if violation.notification != current {
                current = violation.notification
                lines.append(violation.notification.description + (violation.notificationType.map { " [\($0)]" } ?? ""))
            }
            lines.append("  \(violation)")
        }
        return lines.joined(separator: "\n")
    }

    public var description: String { text }
}
