@_spi(Locking) public import PushMockCore
import Synchronization

/// The active fault rules and their runtime state (match counts, seeded generators, rate
/// windows). Shared by all connections; evaluation takes one short lock, and none at all when
/// no rule is loaded.
public final class FaultEngine: Sendable {
    struct Active {
        var rule: FaultRule
        var matches = 0
        var fired = 0
        var random: FastRandom
        /// Request times per rate key (sliding window).
        var windows: [String: [Int64]] = [:]
    }

    struct State {
        var rules: [Active] = []
        var nextID = 1
    }

    private let state = SanitizerVisibleMutex(State())
    private let ruleCount = Atomic<Int>(0)

    /// The most rules active at once (every request is matched against each).
    public let ruleLimit: Int

    /// `maximumRules`: the most rules active at once (default ``maximumRules``).
    public init(maximumRules: Int = FaultEngine.maximumRules) {
        self.ruleLimit = max(1, maximumRules)
    }

    /// The default for the most rules active at once.
    public static let maximumRules = 1000

    /// Adds a rule after validating it; returns it with its id. `now` anchors `forSeconds` and `startsInSeconds`.
    @discardableResult
    public func add(_ rule: FaultRule, now: Timestamp) throws(FaultRuleError) -> FaultRule {
        try rule.validate()
        var rule = rule
        if let delay = rule.trigger.startsInSeconds {
            rule.trigger.from = now + .milliseconds(Int64(delay * 1000))
            // Resolved: the stored rule says when, so listing and re-adding it is stable.
            rule.trigger.startsInSeconds = nil
        }
        if let seconds = rule.trigger.forSeconds {
            let start = rule.trigger.from ?? now
            rule.trigger.from = start
            rule.trigger.until = start + .milliseconds(Int64(seconds * 1000))
        }
        let added = try state.withLock { state throws(FaultRuleError) -> FaultRule in
            let replaces = rule.id.map { id in state.rules.contains { $0.rule.id == id } } ?? false
            // Every request is checked against every rule: the count bounds that work.
            guard replaces || state.rules.count < ruleLimit else {
                let full = RegistryFull(.faultRules, limit: ruleLimit)
                var error = FaultRuleError(full.description)
                error.full = full
                throw error
            }
            if rule.id == nil {
                rule.id = "fault-\(state.nextID)"
            }
            state.nextID += 1
            state.rules.removeAll { $0.rule.id == rule.id }
            state.rules.append(Active(rule: rule, random: FastRandom(seed: rule.trigger.seed ?? 1)))
            // Under the lock: stored after it, a concurrent removeAll's 0 could land last and
            // leave a listed rule that never fires.
            ruleCount.store(state.rules.count, ordering: .releasing)
            return rule
        }
        return added
    }

    /// Removes a rule; returns whether it existed.
    @discardableResult
    public func remove(id: String) -> Bool {
        let removed = state.withLock { state -> Bool in
            let before = state.rules.count
            state.rules.removeAll { $0.rule.id == id }
            ruleCount.store(state.rules.count, ordering: .releasing)
            return state.rules.count != before
        }
        return removed
    }

    /// Removes every rule.
    public func removeAll() {
        state.withLock { state in
            state.rules.removeAll()
            ruleCount.store(0, ordering: .releasing)
        }
    }

    /// The rules, in evaluation order, with how often each matched and fired.
    public var rules: [(rule: FaultRule, matches: Int, fired: Int)] {
        state.withLock { $0.rules.map { ($0.rule, $0.matches, $0.fired) } }
    }

    /// Whether any rule is loaded (the hot path's check).
    public var isActive: Bool { ruleCount.load(ordering: .acquiring) > 0 }

    /// The first rule that matches `subject` and whose trigger fires now; rules are tried in
    /// the order they were added. Rules whose action belongs to another platform, or is
    /// decided at another ``FaultAction/Scope`` (`scope`: what `subject` is, a request or one
    /// recipient of it), are skipped.
    public func evaluate(_ subject: some FaultSubject, now: Timestamp, scope: FaultAction.Scope = .request) -> FaultDecision? {
        guard isActive else { return nil }
        return state.withLock { state -> FaultDecision? in
            for index in state.rules.indices {
                let rule = state.rules[index].rule
                if let actionPlatform = rule.action.platform, actionPlatform != subject.platform { continue }
                if rule.action.scope != scope { continue }
                guard rule.match.matches(subject) else { continue }
                if Self.fires(&state.rules[index], subject: subject, now: now) {
                    let delay = rule.latency.map { state.rules[index].random.sampleDelay($0) }
                    return FaultDecision(ruleID: rule.id ?? "?", ruleName: rule.name, action: rule.action, delay: delay)
                }
            }
            return nil
        }
    }

    private static func fires(_ active: inout Active, subject: some FaultSubject, now: Timestamp) -> Bool {
        let trigger = active.rule.trigger
        active.matches += 1
        if let after = trigger.after, active.matches <= after { return false }
        if let from = trigger.from, now < from { return false }
        if let until = trigger.until, now >= until { return false }
        if let everyNth = trigger.everyNth, (active.matches - (trigger.after ?? 0)) % everyNth != 0 { return false }
        if let rate = trigger.rate {
            let key: String
            switch rate.key ?? "token" {
            case "topic": key = subject.topic ?? ""
            case "project": key = subject.project ?? ""
            case "connection": key = String(subject.connectionID)
            case "all": key = ""
            default: key = subject.token ?? ""
            }
            let windowStart = now.millisecondsSince1970 - Int64(rate.perSeconds * 1000)
            var times = active.windows[key, default: []]
            times.removeAll { $0 <= windowStart }
            times.append(now.millisecondsSince1970)
            active.windows[key] = times
            if active.windows.count > 100_000 {
                active.windows = active.windows.filter { !$0.value.isEmpty && $0.value.last! > windowStart }
            }
            if times.count <= rate.limit { return false }
        }
        if let probability = trigger.probability, active.random.unitInterval() >= probability { return false }
        if let count = trigger.count, active.fired >= count { return false }
        active.fired += 1
        return true
    }
}

extension FastRandom {
    mutating func sampleDelay(_ latency: Latency) -> Duration {
        latency.sample(using: &self)
    }
}
