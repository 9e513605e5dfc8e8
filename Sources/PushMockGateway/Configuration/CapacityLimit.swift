import PushMockSimulation

/// A bound on what the gateway keeps that a user may change without Swift: the configuration
/// file's `"limits"` section and `pushmock serve --limit NAME=COUNT`. Each names a
/// ``RegistryLimits`` member or one of device simulation's memory bounds (``DeliveryLimits``);
/// the raw value is the name users write, the same as the Swift property's where there is one.
///
/// A load test that registers half a million tokens, or a suite that keeps a week of device
/// history, raises the cap it meets (the control API's 507 names it) instead of rebuilding the
/// gateway. `GET /_pushmock/info` lists every limit in force.
public enum CapacityLimit: String, CaseIterable, Sendable, CodingKey {
    case apnsDeviceTokens
    case apnsKeys
    case apnsTeams
    case clientCertificateAuthorities
    case fcmTokens
    case serviceAccounts
    case accessTokens
    case expoTokens
    case expoProjects
    case users
    case appEvents
    case notificationCategories
    case webhooks
    case faultRules
    case engagementRules
    /// Simulated devices remembered (``DeliveryLimits/devices``).
    case simulatedDevices
    /// Notifications remembered per simulated device (``DeliveryLimits/notificationsPerDevice``).
    case notificationsPerDevice
    /// Timeline events remembered per simulated device (``DeliveryLimits/timelineEventsPerDevice``).
    case timelineEventsPerDevice
    /// MiB of payload all simulated devices may hold (``DeliveryLimits/payloadMebibytes``).
    case simulatedDevicePayloadMiB

    /// The smallest count a limit takes: every registry and ring needs room for one entry.
    public static let smallest = 1
    /// The largest count a limit takes: far beyond what fits in memory for any of them, and a
    /// typo of a few extra digits is refused rather than read as "no limit".
    public static let largest = 1_000_000_000

    /// Where the limit lives in a configuration.
    var member: WritableKeyPath<GatewayConfiguration, Int> {
        switch self {
        case .apnsDeviceTokens: \.registryLimits.apnsDeviceTokens
        case .apnsKeys: \.registryLimits.apnsKeys
        case .apnsTeams: \.registryLimits.apnsTeams
        case .clientCertificateAuthorities: \.registryLimits.clientCertificateAuthorities
        case .fcmTokens: \.registryLimits.fcmTokens
        case .serviceAccounts: \.registryLimits.serviceAccounts
        case .accessTokens: \.registryLimits.accessTokens
        case .expoTokens: \.registryLimits.expoTokens
        case .expoProjects: \.registryLimits.expoProjects
        case .users: \.registryLimits.users
        case .appEvents: \.registryLimits.appEvents
        case .notificationCategories: \.registryLimits.notificationCategories
        case .webhooks: \.registryLimits.webhooks
        case .faultRules: \.registryLimits.faultRules
        case .engagementRules: \.registryLimits.engagementRules
        case .simulatedDevices: \.simulation.limits.devices
        case .notificationsPerDevice: \.simulation.limits.notificationsPerDevice
        case .timelineEventsPerDevice: \.simulation.limits.timelineEventsPerDevice
        case .simulatedDevicePayloadMiB: \.simulation.limits.payloadMebibytes
        }
    }

    /// Every name, for messages and help texts.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Why `count` cannot be this limit, or `nil` when it can.
    static func problem(with count: Int) -> String? {
        (smallest...largest).contains(count) ? nil : "must be \(smallest) to \(largest)"
    }
}

/// Counts for some ``CapacityLimit``s; the rest keep their defaults. The configuration file's
/// `"limits": {"apnsDeviceTokens": 500000, "simulatedDevices": 500000}`, and what `pushmock
/// serve --limit` collects.
public struct CapacityLimits: Sendable, Hashable, Codable {
    public private(set) var counts: [CapacityLimit: Int]

    public init() { counts = [:] }

    /// Sets one limit; a count outside ``CapacityLimit/smallest`` … ``CapacityLimit/largest``
    /// is refused with the reason.
    public mutating func set(_ limit: CapacityLimit, to count: Int) throws(DefinitionError) {
        if let problem = CapacityLimit.problem(with: count) {
            throw DefinitionError("limit \(limit.rawValue) \(problem), not \(count)")
        }
        counts[limit] = count
    }

    /// Reads `NAME=COUNT` (`pushmock serve --limit users=500000`).
    public mutating func set(parsing text: String) throws(DefinitionError) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw DefinitionError("a limit is NAME=COUNT (e.g. users=500000), not \"\(text)\"")
        }
        guard let limit = CapacityLimit(rawValue: String(parts[0])) else {
            throw DefinitionError("no limit is called \"\(parts[0])\"; the limits are \(CapacityLimit.names)")
        }
        guard let count = Int(parts[1]) else {
            throw DefinitionError("limit \(limit.rawValue): \"\(parts[1])\" is not a whole number")
        }
        try set(limit, to: count)
    }

    /// Writes the counts into a configuration.
    public func apply(to configuration: inout GatewayConfiguration) {
        for (limit, count) in counts {
            configuration[keyPath: limit.member] = count
        }
    }

    public init(from decoder: any Decoder) throws {
        // Unknown names were refused before decoding, with the list of known ones
        // (`ConfigurationFile.checkKnownKeys`); `allKeys` holds the known ones only.
        let container = try decoder.container(keyedBy: CapacityLimit.self)
        counts = [:]
        for limit in container.allKeys {
            let count = try container.decode(Int.self, forKey: limit)
            if let problem = CapacityLimit.problem(with: count) {
                throw DecodingError.dataCorruptedError(forKey: limit, in: container, debugDescription: problem)
            }
            counts[limit] = count
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CapacityLimit.self)
        for (limit, count) in counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try container.encode(count, forKey: limit)
        }
    }
}

extension GatewayConfiguration {
    /// Every ``CapacityLimit`` in force, by name (`GET /_pushmock/info`'s `limits`).
    package var capacityLimits: [String: Int] {
        Dictionary(uniqueKeysWithValues: CapacityLimit.allCases.map { ($0.rawValue, self[keyPath: $0.member]) })
    }
}
