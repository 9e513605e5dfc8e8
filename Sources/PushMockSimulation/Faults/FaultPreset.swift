public import PushMockCore

/// Ready-made fault rules for the stories QA asks for most. Each preset takes a few optional
/// parameters (JSON object) and expands into ordinary rules, listed and removable like any.
///
/// Every preset also takes `startsInSeconds` (default 0): "APNs is down for 2 minutes, then
/// throttles" is `outage` with `forSeconds: 120` plus `throttling` with `startsInSeconds: 120`.
/// A parameter the preset does not take is refused (``parameters`` lists them).
///
/// | preset | parameters (defaults) | rules |
/// |---|---|---|
/// | `provider-token-expiry` | `count` (all), `forSeconds` | APNs 403 `ExpiredProviderToken` on token-authenticated requests |
/// | `device-token-expiry` | `token` (glob, all), `fraction` (1), `platform` (all three), `count`, `forSeconds` | APNs 410 `Unregistered` (timestamp now), FCM 404 `UNREGISTERED`, Expo `DeviceNotRegistered` tickets, for the matching tokens — a stable share of them with `fraction` |
/// | `throttling` | `limit` (3), `perSeconds` (1), `platform` (all three), `retryAfter` (FCM: 60) | APNs 429 `TooManyRequests`, FCM 429 `QUOTA_EXCEEDED`, Expo `MessageRateExceeded` tickets, beyond the rate per token |
/// | `outage` | `forSeconds` (120), `platform` (all three), `retryAfter` (FCM: 30) | APNs 503 `ServiceUnavailable`, FCM 503 `UNAVAILABLE`, Expo 500 `INTERNAL_SERVER_ERROR` (sends and receipts), for the window |
/// | `shutdown` | `count` (1), `platform` (any) | GOAWAY `{"reason":"Shutdown"}` then close |
/// | `flaky-network` | `probability` (0.1), `seed` (1), `platform` (any) | random RST_STREAM |
/// | `slow-network` | `meanMs` (200), `stddevMs` (50), `platform` (any) | normal answers after a normally distributed delay |
///
/// `device-token-expiry` answers as if the app were gone without touching the registry; to give
/// one token a lifecycle (uninstalled at 10:02, expire after N sends, rotate) use the token
/// registry (`pushmock token …`).
///
/// Expo: one request may carry up to 100 messages. The ticket rules are decided per recipient
/// (``FaultAction/Scope/recipient``): each recipient is matched and counted on its own token,
/// only the matching ones get error tickets, and `getReceipts` is left alone.
public enum FaultPreset: String, Sendable, CaseIterable, Codable {
    case providerTokenExpiry = "provider-token-expiry"
    case deviceTokenExpiry = "device-token-expiry"
    case throttling
    case outage
    case shutdown
    case flakyNetwork = "flaky-network"
    case slowNetwork = "slow-network"

    /// Parameters of a preset (all optional).
    public struct Parameters: Sendable, Codable, Hashable {
        public var count: Int?
        public var forSeconds: Double?
        /// Every preset: start this many seconds after it is added.
        public var startsInSeconds: Double?
        public var limit: Int?
        public var perSeconds: Double?
        public var platform: Platform?
        public var retryAfter: Int?
        public var probability: Double?
        public var seed: UInt64?
        public var meanMs: Double?
        public var stddevMs: Double?
        /// `device-token-expiry`: which tokens (glob).
        public var token: String?
        /// `device-token-expiry`: a stable share of the matching tokens (0…1).
        public var fraction: Double?

        public init() {}

        public enum CodingKeys: String, CodingKey, CaseIterable, Sendable {
            case count, forSeconds, startsInSeconds, limit, perSeconds, platform, retryAfter, probability, seed, meanMs, stddevMs,
                token, fraction
        }

        /// A member no preset takes is refused (a misspelt `forSecond` would otherwise leave
        /// the default in force without a word). `preset` is the config file's name member.
        public init(from decoder: any Decoder) throws {
            try UnknownMembers.reject(
                in: decoder, known: CodingKeys.allCases.map(\.rawValue), alsoAllowed: ["preset"], what: "a preset's parameters")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            count = try container.decodeIfPresent(Int.self, forKey: .count)
            forSeconds = try container.decodeIfPresent(Double.self, forKey: .forSeconds)
            startsInSeconds = try container.decodeIfPresent(Double.self, forKey: .startsInSeconds)
            limit = try container.decodeIfPresent(Int.self, forKey: .limit)
            perSeconds = try container.decodeIfPresent(Double.self, forKey: .perSeconds)
            platform = try container.decodeIfPresent(Platform.self, forKey: .platform)
            retryAfter = try container.decodeIfPresent(Int.self, forKey: .retryAfter)
            probability = try container.decodeIfPresent(Double.self, forKey: .probability)
            seed = try container.decodeIfPresent(UInt64.self, forKey: .seed)
            meanMs = try container.decodeIfPresent(Double.self, forKey: .meanMs)
            stddevMs = try container.decodeIfPresent(Double.self, forKey: .stddevMs)
            token = try container.decodeIfPresent(String.self, forKey: .token)
            fraction = try container.decodeIfPresent(Double.self, forKey: .fraction)
        }

        /// The parameters that are set, by name.
        var given: [CodingKeys] {
            let isSet: [(CodingKeys, Bool)] = [
                (.count, count != nil), (.forSeconds, forSeconds != nil), (.startsInSeconds, startsInSeconds != nil),
                (.limit, limit != nil), (.perSeconds, perSeconds != nil), (.platform, platform != nil),
                (.retryAfter, retryAfter != nil), (.probability, probability != nil), (.seed, seed != nil),
                (.meanMs, meanMs != nil), (.stddevMs, stddevMs != nil), (.token, token != nil), (.fraction, fraction != nil),
            ]
            return isSet.filter(\.1).map(\.0)
        }
    }

    /// What this preset reads. Every preset takes `startsInSeconds`; anything else it would
    /// ignore is refused, so `{"fraction": 0.5}` on `outage` is not a silent whole outage.
    public var parameters: [Parameters.CodingKeys] {
        switch self {
        case .providerTokenExpiry: [.count, .forSeconds, .startsInSeconds]
        case .deviceTokenExpiry: [.token, .fraction, .platform, .count, .forSeconds, .startsInSeconds]
        case .throttling: [.limit, .perSeconds, .platform, .retryAfter, .startsInSeconds]
        case .outage: [.forSeconds, .platform, .retryAfter, .startsInSeconds]
        case .shutdown: [.count, .platform, .startsInSeconds]
        case .flakyNetwork: [.probability, .seed, .platform, .startsInSeconds]
        case .slowNetwork: [.meanMs, .stddevMs, .seed, .platform, .startsInSeconds]
        }
    }

    /// One line for listings.
    public var summary: String {
        switch self {
        case .providerTokenExpiry: return "APNs answers 403 ExpiredProviderToken to token-authenticated requests"
        case .deviceTokenExpiry:
            return "APNs 410 Unregistered, FCM 404 UNREGISTERED, Expo DeviceNotRegistered for matching tokens (or a stable fraction)"
        case .throttling: return "beyond a per-token rate: APNs 429 TooManyRequests, FCM 429 QUOTA_EXCEEDED, Expo MessageRateExceeded"
        case .outage: return "for a while: APNs 503 ServiceUnavailable, FCM 503 UNAVAILABLE, Expo 500 INTERNAL_SERVER_ERROR"
        case .shutdown: return "GOAWAY {\"reason\":\"Shutdown\"}, then the connection closes"
        case .flakyNetwork: return "random stream resets (seeded)"
        case .slowNetwork: return "normally distributed delays (seeded)"
        }
    }

    /// Where Expo takes sends (receipts are fetched from `…/getReceipts`).
    static let expoSendPath = Glob("/--/api/v2/push/send")

    /// The rules this preset stands for.
    public func rules(_ parameters: Parameters = Parameters()) throws(FaultRuleError) -> [FaultRule] {
        let taken = self.parameters
        if let ignored = parameters.given.first(where: { !taken.contains($0) }) {
            throw FaultRuleError("\(rawValue) does not take \(ignored.rawValue); it takes \(taken.map(\.rawValue).joined(separator: ", "))")
        }
        var rules = try baseRules(parameters)
        if let delay = parameters.startsInSeconds {
            for index in rules.indices {
                rules[index].trigger.startsInSeconds = delay
            }
        }
        return rules
    }

    private func baseRules(_ parameters: Parameters) throws(FaultRuleError) -> [FaultRule] {
        let platforms = parameters.platform.map { [$0] }
        switch self {
        case .providerTokenExpiry:
            return [
                FaultRule(
                    name: rawValue,
                    match: FaultMatch(platform: .apns, header: .init(name: "authorization")),
                    trigger: FaultTrigger(count: parameters.count, forSeconds: parameters.forSeconds),
                    action: .apnsError(reason: "ExpiredProviderToken")
                )
            ]
        case .deviceTokenExpiry:
            if let fraction = parameters.fraction, !(0...1).contains(fraction) {
                throw FaultRuleError("fraction must be between 0 and 1")
            }
            var rules: [FaultRule] = []
            for platform in [Platform.apns, .fcm, .expo] where platforms?.contains(platform) ?? true {
                let action: FaultAction =
                    switch platform {
                    case .apns: .apnsError(reason: "Unregistered")
                    case .fcm: .fcmError(code: "UNREGISTERED")
                    default: .expoError(.ticket(code: "DeviceNotRegistered"))
                    }
                rules.append(
                    FaultRule(
                        name: rawValue,
                        match: FaultMatch(
                            platform: platform, token: parameters.token.map(Glob.init), path: platform == .expo ? Self.expoSendPath : nil,
                            tokenFraction: parameters.fraction),
                        trigger: FaultTrigger(count: parameters.count, forSeconds: parameters.forSeconds),
                        action: action
                    )
                )
            }
            return rules
        case .throttling:
            let trigger = FaultTrigger(rate: .init(limit: parameters.limit ?? 3, perSeconds: parameters.perSeconds ?? 1, key: "token"))
            var rules: [FaultRule] = []
            if platforms?.contains(.apns) ?? true {
                rules.append(
                    FaultRule(
                        name: rawValue, match: FaultMatch(platform: .apns), trigger: trigger, action: .apnsError(reason: "TooManyRequests"))
                )
            }
            if platforms?.contains(.fcm) ?? true {
                rules.append(
                    FaultRule(
                        name: rawValue,
                        match: FaultMatch(platform: .fcm),
                        trigger: trigger,
                        action: .fcmError(code: "QUOTA_EXCEEDED", retryAfter: parameters.retryAfter ?? 60)
                    )
                )
            }
            if platforms?.contains(.expo) ?? true {
                // Expo's per-device limit ("is receiving messages too frequently"); its
                // project-wide 600 per second is the gateway's own rule.
                rules.append(
                    FaultRule(
                        name: rawValue, match: FaultMatch(platform: .expo, path: Self.expoSendPath), trigger: trigger,
                        action: .expoError(.ticket(code: "MessageRateExceeded")))
                )
            }
            return rules
        case .outage:
            let trigger = FaultTrigger(forSeconds: parameters.forSeconds ?? 120)
            var rules: [FaultRule] = []
            if platforms?.contains(.apns) ?? true {
                rules.append(
                    FaultRule(
                        name: rawValue, match: FaultMatch(platform: .apns), trigger: trigger,
                        action: .apnsError(reason: "ServiceUnavailable")))
            }
            if platforms?.contains(.fcm) ?? true {
                rules.append(
                    FaultRule(
                        name: rawValue,
                        match: FaultMatch(platform: .fcm),
                        trigger: trigger,
                        action: .fcmError(code: "UNAVAILABLE", retryAfter: parameters.retryAfter ?? 30)
                    )
                )
            }
            if platforms?.contains(.expo) ?? true {
                // Down is down: receipts fail as well as sends.
                rules.append(
                    FaultRule(
                        name: rawValue, match: FaultMatch(platform: .expo), trigger: trigger,
                        action: .expoError(.request(code: "INTERNAL_SERVER_ERROR"), retryAfter: parameters.retryAfter)))
            }
            return rules
        case .shutdown:
            return [
                FaultRule(
                    name: rawValue,
                    match: FaultMatch(platform: parameters.platform),
                    trigger: FaultTrigger(count: parameters.count ?? 1),
                    action: .goAway(reason: "Shutdown")
                )
            ]
        case .flakyNetwork:
            return [
                FaultRule(
                    name: rawValue,
                    match: FaultMatch(platform: parameters.platform),
                    trigger: FaultTrigger(probability: parameters.probability ?? 0.1, seed: parameters.seed ?? 1),
                    action: .reset()
                )
            ]
        case .slowNetwork:
            return [
                FaultRule(
                    name: rawValue,
                    match: FaultMatch(platform: parameters.platform),
                    trigger: FaultTrigger(seed: parameters.seed ?? 1),
                    action: .pass,
                    latency: Latency(normalMs: .init(mean: parameters.meanMs ?? 200, stddev: parameters.stddevMs ?? 50))
                )
            ]
        }
    }
}

/// A preset with its parameters, as written in the config file: `{"preset": "outage", "forSeconds": 60}`.
public struct FaultPresetUse: Sendable, Codable, Hashable {
    public var preset: FaultPreset
    public var parameters: FaultPreset.Parameters

    public init(preset: FaultPreset, parameters: FaultPreset.Parameters = .init()) {
        self.preset = preset
        self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey { case preset }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.preset = try container.decode(FaultPreset.self, forKey: .preset)
        self.parameters = try FaultPreset.Parameters(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(preset, forKey: .preset)
        try parameters.encode(to: encoder)
    }
}
