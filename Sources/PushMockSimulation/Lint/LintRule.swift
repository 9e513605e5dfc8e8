public import PushMockCore

/// One lint rule: what it looks for, how sure it is, and where the behaviour is documented.
///
/// Every finding carries its rule's code, severity and first source, so a recording explains
/// itself. `docs/lint-rules.md` is the human-readable version of ``all``.
public struct LintRule: Hashable, Sendable, Codable, Identifiable {
    /// The service whose request the rule reads: `apns` or `fcm`.
    public var platform: Platform
    public var code: LintCode
    public var severity: LintSeverity
    /// What triggers the rule, in one sentence.
    public var trigger: String
    /// What the device or the real service does with such a notification.
    public var effect: String
    /// Where that behaviour is documented (URLs), most authoritative first.
    public var sources: [String]

    public var id: LintCode { code }

    public init(
        platform: Platform,
        code: LintCode,
        severity: LintSeverity,
        trigger: String,
        effect: String,
        sources: [String]
    ) {
        self.platform = platform
        self.code = code
        self.severity = severity
        self.trigger = trigger
        self.effect = effect
        self.sources = sources
    }

    /// The rule with this code, if this version knows it.
    public static func named(_ code: LintCode) -> LintRule? { byCode[code] }

    static let byCode: [LintCode: LintRule] = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })
}
