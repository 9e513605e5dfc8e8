import PushMockCore

/// A seeded model of how users react to delivered notifications: per category, push type,
/// priority or app, the chance of a tap, a dismissal or each action button, and how long after
/// delivery it happens. The same seed gives the same reactions to the same notifications on the
/// same devices, whatever order they arrive in or however the clock is walked, so a CI run is
/// repeatable.
///
/// The draw for one notification depends only on the seed, the device token and the
/// notification id; its effect is applied on the gateway's clock when the device is next
/// settled at or after `deliveredAt + delay` (any read, delivery or connectivity change).
public struct EngagementModel: Codable, Sendable, Hashable {
    /// Makes the draws repeatable. Default 1.
    public var seed: UInt64
    /// The first rule that matches a delivered notification decides; no match: nothing happens.
    public var rules: [Rule]

    public init(seed: UInt64 = 1, rules: [Rule]) {
        self.seed = seed
        self.rules = rules
    }

    /// Which notifications a rule covers (`nil`: any) and what users do with them.
    public struct Rule: Codable, Sendable, Hashable {
        /// The payload's category: APNs `aps.category`, FCM `android.notification.click_action`
        /// or `data.category`, Expo `categoryId`.
        public var category: String?
        /// APNs push type (`alert`, …) or FCM/Expo `notification`/`data`.
        public var kind: String?
        /// `high`, `normal` or `low`.
        public var priority: String?
        /// Bundle id, FCM project or Expo experience.
        public var app: String?
        /// Chance of a tap, 0…1. Default 0.
        public var open: Double?
        /// Chance of a swipe-away, 0…1. Default 0.
        public var dismiss: Double?
        /// Chance of each action button, in order.
        public var actions: [ActionChance]?
        /// How long after delivery the user reacts. Default 0 s.
        public var delay: DelayRange?

        public init(
            category: String? = nil,
            kind: String? = nil,
            priority: String? = nil,
            app: String? = nil,
            open: Double? = nil,
            dismiss: Double? = nil,
            actions: [ActionChance]? = nil,
            delay: DelayRange? = nil
        ) {
            self.category = category
            self.kind = kind
            self.priority = priority
            self.app = app
            self.open = open
            self.dismiss = dismiss
            self.actions = actions
            self.delay = delay
        }

        func matches(_ notification: SimulatedNotification, category: String?) -> Bool {
            (self.category == nil || self.category == category)
                && (kind == nil || kind == notification.kind)
                && (priority == nil || priority?.lowercased() == notification.priority.rawValue)
                && (app == nil || app == notification.app)
        }
    }

    /// One action button's chance.
    public struct ActionChance: Codable, Sendable, Hashable {
        public var id: String
        public var probability: Double

        public init(id: String, probability: Double) {
            self.id = id
            self.probability = probability
        }
    }

    /// Seconds after delivery: a fixed number, or `{"min": 5, "max": 60}` drawn uniformly.
    public struct DelayRange: Codable, Sendable, Hashable {
        public var min: Double
        public var max: Double

        public init(min: Double, max: Double) {
            self.min = min
            self.max = max
        }

        /// Seconds from 0 to 10,000 years (``InputLimits/longestDurationSeconds``), `min` ≤ `max`.
        var isUsable: Bool {
            min.isFinite && max.isFinite && min >= 0 && min <= max && max <= InputLimits.longestDurationSeconds
        }

        public init(from decoder: any Decoder) throws {
            if let seconds = try? decoder.singleValueContainer().decode(Double.self) {
                self.init(min: seconds, max: seconds)
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let min = try container.decode(Double.self, forKey: .min)
            self.init(min: min, max: try container.decodeIfPresent(Double.self, forKey: .max) ?? min)
        }
    }

    /// What is wrong with the model, in words; empty when it is usable.
    public var problems: [String] {
        var problems: [String] = []
        for (index, rule) in rules.enumerated() {
            let name = "rules[\(index)]"
            let chances = [rule.open ?? 0, rule.dismiss ?? 0] + (rule.actions ?? []).map(\.probability)
            if chances.contains(where: { !(0...1).contains($0) }) {
                problems.append("\(name): every probability is between 0 and 1")
            } else if chances.reduce(0, +) > 1.000_000_1 {
                problems.append("\(name): open, dismiss and the actions add up to more than 1")
            }
            if let priority = rule.priority, !["high", "normal", "low"].contains(priority.lowercased()) {
                problems.append("\(name): priority is high, normal or low, not \(priority)")
            }
            if (rule.actions ?? []).contains(where: \.id.isEmpty) {
                problems.append("\(name): an action needs an id")
            }
            if let delay = rule.delay, !delay.isUsable {
                problems.append(
                    "\(name): delay needs 0 <= min <= max <= \(Int(InputLimits.longestDurationSeconds)) seconds (\(InputLimits.durationRangeText))"
                )
            }
        }
        return problems
    }

    /// What the user of `device` does with `notification`, the `ordinal`-th the model judged on
    /// that device, delivered at `deliveredAt`; `nil` when no rule matches or the draw says
    /// nothing happens. The draw depends on the seed, the device and the ordinal only, so a
    /// run that sends the same notifications to each device in the same order gets the same
    /// engagement, whatever ids the services made up.
    func plan(
        _ notification: SimulatedNotification, category: String?, device: DeviceAddress, ordinal: UInt64, deliveredAt: Timestamp
    ) -> PlannedEngagement? {
        guard let rule = rules.first(where: { $0.matches(notification, category: category) }) else { return nil }
        var generator = SplitMix64(seed: seed ^ Self.fnv1a(device.token) ^ (ordinal &* 0x9E37_79B9_7F4A_7C15))
        let draw = generator.nextUnit()
        let delayDraw = generator.nextUnit()
        var outcomes: [(Engagement, Double)] = [(.opened, rule.open ?? 0), (.dismissed, rule.dismiss ?? 0)]
        outcomes += (rule.actions ?? []).map { (.acted(actionID: $0.id), $0.probability) }
        var cumulative = 0.0
        for (engagement, chance) in outcomes {
            cumulative += chance
            guard draw < cumulative else { continue }
            let delay = rule.delay ?? DelayRange(min: 0, max: 0)
            let seconds = delay.min + (delay.max - delay.min) * delayDraw
            // A model set in Swift skips `problems`: a delay of 1e300 s once trapped here, in
            // the conversion to milliseconds, with the first push it judged.
            let bounded = seconds.isNaN ? 0 : min(max(seconds, 0), InputLimits.longestDurationSeconds)
            return PlannedEngagement(engagement: engagement, at: deliveredAt + .milliseconds(Int64((bounded * 1000).rounded())))
        }
        return nil
    }

    private static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}

/// A small, well-mixed generator whose sequence is fixed by its seed on every platform (the
/// standard library's generator is not seedable).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<1 (53 bits).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
