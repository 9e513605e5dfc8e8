public import PushMockCore

/// When a matching request actually gets the fault. Every given condition must hold; none
/// given means always. Conditions are checked in this order for each matching request:
/// `after` (skip the first N matches), the time window, `everyNth`, `rate`, `probability`,
/// and finally `count` (stop after N faults).
///
/// JSON: `{"probability": 0.2, "seed": 7}`, `{"count": 3}` (the next three),
/// `{"everyNth": 10}`, `{"after": 100}`, `{"from": "2026-11-21T10:00:00Z", "until": …}`,
/// `{"forSeconds": 120}` (a window starting when the rule is added),
/// `{"startsInSeconds": 120}` (from two minutes after the rule is added; with `forSeconds`, a
/// window that opens then),
/// `{"rate": {"limit": 5, "perSeconds": 1, "key": "token"}}` (only requests beyond 5 per
/// second per token).
public struct FaultTrigger: Sendable, Codable, Hashable {
    /// Fire with this probability (0…1), drawn from the rule's seeded generator.
    public var probability: Double?
    /// Seed for `probability` and latency distributions; default 1 (runs repeat unless told
    /// otherwise).
    public var seed: UInt64?
    /// Fire at most this many times.
    public var count: Int?
    /// Fire on every Nth matching request (the Nth, 2Nth, …).
    public var everyNth: Int?
    /// Let the first N matching requests through.
    public var after: Int?
    /// Start of the time window (gateway clock).
    public var from: Timestamp?
    /// End of the time window (exclusive).
    public var until: Timestamp?
    /// A window of this many seconds starting when the rule is added (sets `from`/`until`).
    public var forSeconds: Double?
    /// Start this many seconds after the rule is added (sets `from`); combine with
    /// `forSeconds` to script "down for 2 minutes, then throttled".
    public var startsInSeconds: Double?
    /// Fire only for requests beyond a rate.
    public var rate: Rate?

    /// The JSON members this type reads (a fault rule refuses others).
    static let memberNames = [
        "probability", "seed", "count", "everyNth", "after", "from", "until", "forSeconds", "startsInSeconds", "rate",
    ]

    public struct Rate: Sendable, Codable, Hashable {
        /// Requests allowed per window.
        public var limit: Int
        /// The window, in seconds.
        public var perSeconds: Double
        /// What is counted separately: `token` (default), `topic`, `project`, `connection` or `all`.
        public var key: String?

        public init(limit: Int, perSeconds: Double, key: String? = nil) {
            self.limit = limit
            self.perSeconds = perSeconds
            self.key = key
        }
    }

    public init(
        probability: Double? = nil,
        seed: UInt64? = nil,
        count: Int? = nil,
        everyNth: Int? = nil,
        after: Int? = nil,
        from: Timestamp? = nil,
        until: Timestamp? = nil,
        forSeconds: Double? = nil,
        startsInSeconds: Double? = nil,
        rate: Rate? = nil
    ) {
        self.probability = probability
        self.seed = seed
        self.count = count
        self.everyNth = everyNth
        self.after = after
        self.from = from
        self.until = until
        self.forSeconds = forSeconds
        self.startsInSeconds = startsInSeconds
        self.rate = rate
    }

    public static let always = FaultTrigger()

    public func validate() throws(FaultRuleError) {
        if let probability, !(0...1).contains(probability) { throw FaultRuleError("probability must be between 0 and 1") }
        if let count, count < 1 { throw FaultRuleError("count must be at least 1") }
        if let everyNth, everyNth < 1 { throw FaultRuleError("everyNth must be at least 1") }
        if let after, after < 0 { throw FaultRuleError("after must not be negative") }
        if let forSeconds, forSeconds <= 0 || !InputLimits.isWindowSeconds(forSeconds) {
            throw FaultRuleError(
                "forSeconds must be positive and \(InputLimits.durationRangeText) (\(InputLimits.longestDurationSeconds) s)")
        }
        if let startsInSeconds, !InputLimits.isWindowSeconds(startsInSeconds) {
            throw FaultRuleError("startsInSeconds must be 0 to \(InputLimits.longestDurationSeconds) s (\(InputLimits.durationRangeText))")
        }
        for (name, time) in [("from", from), ("until", until)] {
            if let time, !InputLimits.contains(time) { throw FaultRuleError("\(name) must be \(InputLimits.timestampRangeText)") }
        }
        if startsInSeconds != nil, from != nil { throw FaultRuleError("give either from or startsInSeconds, not both") }
        if let from, let until, until <= from { throw FaultRuleError("until must be after from") }
        if let rate, rate.limit < 0 || rate.perSeconds <= 0 || !InputLimits.isWindowSeconds(rate.perSeconds) {
            throw FaultRuleError(
                "rate needs limit ≥ 0 and 0 < perSeconds ≤ \(InputLimits.longestDurationSeconds) (\(InputLimits.durationRangeText))")
        }
        if let key = rate?.key, !["token", "topic", "project", "connection", "all"].contains(key) {
            throw FaultRuleError("rate.key must be token, topic, project, connection or all")
        }
    }
}
