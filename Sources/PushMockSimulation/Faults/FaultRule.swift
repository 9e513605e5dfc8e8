package import PushMockCore
import PushMockJSON

/// A fault: which requests (``match``), when (``trigger``), what happens (``action``, plus
/// optional ``latency``).
///
/// ```json
/// {"name": "APNs throttles one device",
///  "match": {"platform": "apns", "token": "00fc13ad*"},
///  "trigger": {"rate": {"limit": 2, "perSeconds": 1}},
///  "action": {"type": "apns-error", "reason": "TooManyRequests"}}
/// ```
public struct FaultRule: Sendable, Codable, Hashable {
    /// Assigned when the rule is added, if not given.
    public var id: String?
    public var name: String?
    public var match: FaultMatch
    public var trigger: FaultTrigger
    public var action: FaultAction
    public var latency: Latency?

    public init(
        id: String? = nil,
        name: String? = nil,
        match: FaultMatch = FaultMatch(),
        trigger: FaultTrigger = .always,
        action: FaultAction,
        latency: Latency? = nil
    ) {
        self.id = id
        self.name = name
        self.match = match
        self.trigger = trigger
        self.action = action
        self.latency = latency
    }

    enum CodingKeys: String, CodingKey {
        case id, name, match, trigger, action, latency
    }

    /// Members are checked before anything is decoded, down to the nested objects: a misspelt
    /// `"probablity": 0.5` would otherwise leave a rule that fires on every request.
    public init(from decoder: any Decoder) throws {
        try UnknownMembers.reject(in: decoder, known: ["id", "name", "match", "trigger", "action", "latency"], what: "a fault")
        try UnknownMembers.reject(in: decoder, member: "match", known: FaultMatch.memberNames, what: "match")
        try UnknownMembers.reject(in: decoder, member: "trigger", known: FaultTrigger.memberNames, what: "trigger")
        try UnknownMembers.reject(in: decoder, member: "latency", known: Latency.memberNames, what: "latency")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.match), try !container.decodeNil(forKey: .match) {
            let match = try container.superDecoder(forKey: .match)
            try UnknownMembers.reject(in: match, member: "header", known: ["name", "value"], what: "match.header")
            try UnknownMembers.reject(in: match, member: "payload", known: ["path", "equals", "matches"], what: "match.payload")
        }
        if container.contains(.trigger), try !container.decodeNil(forKey: .trigger) {
            let trigger = try container.superDecoder(forKey: .trigger)
            try UnknownMembers.reject(in: trigger, member: "rate", known: ["limit", "perSeconds", "key"], what: "trigger.rate")
        }
        if container.contains(.latency), try !container.decodeNil(forKey: .latency) {
            let latency = try container.superDecoder(forKey: .latency)
            try UnknownMembers.reject(in: latency, member: "normalMs", known: ["mean", "stddev"], what: "latency.normalMs")
            try UnknownMembers.reject(in: latency, member: "exponentialMs", known: ["mean"], what: "latency.exponentialMs")
        }
        self.id = try container.decodeIfPresent(String.self, forKey: .id)
        self.name = try container.decodeIfPresent(String.self, forKey: .name)
        self.match = try container.decodeIfPresent(FaultMatch.self, forKey: .match) ?? FaultMatch()
        self.trigger = try container.decodeIfPresent(FaultTrigger.self, forKey: .trigger) ?? .always
        self.action = try container.decodeIfPresent(FaultAction.self, forKey: .action) ?? .pass
        self.latency = try container.decodeIfPresent(Latency.self, forKey: .latency)
    }

    /// Checks the rule as a whole.
    public func validate() throws(FaultRuleError) {
        try action.validate()
        try trigger.validate()
        try latency?.validate()
        if action == .pass && latency == nil {
            throw FaultRuleError("a pass action without latency does nothing; give latency or another action")
        }
        if let actionPlatform = action.platform, let platform = match.platform, platform != actionPlatform {
            throw FaultRuleError("action \(action.kind.rawValue) cannot apply to platform \(platform)")
        }
        if let fraction = match.tokenFraction, !(0...1).contains(fraction) {
            throw FaultRuleError("match.tokenFraction must be between 0 and 1")
        }
        if let payload = match.payload {
            do {
                _ = try PushMockJSONPathCheck.validate(payload.path)
            } catch {
                throw FaultRuleError("match.payload.path: \(error)")
            }
        }
    }
}

enum PushMockJSONPathCheck {
    static func validate(_ path: String) throws -> JSONPath { try JSONPath(path) }
}

/// A rule that cannot be used, with the reason in words.
public struct FaultRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    /// Set when the rule was refused only because the engine holds its maximum of rules (the
    /// control API answers 507 then, not 400).
    package var full: RegistryFull?
    public init(_ description: String) { self.description = description }
}

/// The engine's answer for one request.
public struct FaultDecision: Sendable {
    /// The rule that fired.
    public var ruleID: String
    public var ruleName: String?
    public var action: FaultAction
    /// Delay drawn from the rule's latency, if any.
    public var delay: Duration?

    public init(ruleID: String, ruleName: String? = nil, action: FaultAction, delay: Duration? = nil) {
        self.ruleID = ruleID
        self.ruleName = ruleName
        self.action = action
        self.delay = delay
    }

    /// A short description for the recording.
    public var summary: String {
        var text = ruleSummary
        if let delay { text += " after \(delay.wholeMilliseconds) ms" }
        return text
    }

    /// The rule and its action, without the drawn delay.
    public var ruleSummary: String {
        "\(ruleID)\(ruleName.map { " (\($0))" } ?? ""): \(action)"
    }

    /// One description of the rules decided per recipient (``FaultAction/Scope/recipient``)
    /// that fired for one request: each rule once, in the order it first fired, with how many
    /// recipients it answered, e.g. `fault-2: expo-error ticket DeviceNotRegistered, 2
    /// recipients`.
    public static func summary(ofRecipients decisions: [FaultDecision]) -> String {
        var rules: [(summary: String, recipients: Int)] = []
        for decision in decisions {
            let summary = decision.ruleSummary
            if let index = rules.firstIndex(where: { $0.summary == summary }) {
                rules[index].recipients += 1
            } else {
                rules.append((summary, 1))
            }
        }
        return rules.map { "\($0.summary), \($0.recipients) recipient\($0.recipients == 1 ? "" : "s")" }.joined(separator: "; ")
    }
}
