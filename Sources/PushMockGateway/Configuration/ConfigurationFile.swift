import Foundation
public import PushMockCore
import PushMockJSON
public import PushMockSimulation

/// The `--config` file: JSON with the keys, teams, tokens and options the gateway starts with.
/// The same definitions can be added at run time through the control API.
///
/// ```json
/// {
///   "apns": {
///     "options": {"rejectUnknownTokens": true, "maxConcurrentStreams": 500},
///     "keys": [{"keyId": "ABC123DEFG", "teamId": "DEF123GHIJ", "keyPath": "AuthKey_ABC123DEFG.p8"}],
///     "teams": [{"teamId": "DEF123GHIJ", "bundleIds": ["com.example.app"]}],
///     "tokens": [{"token": "00fc13ad…", "bundleId": "com.example.app", "environment": "sandbox"}],
///     "certificateAuthorities": ["client-ca.pem"]
///   }
/// }
/// ```
/// Also `"clock": {"start": "2026-11-21T10:00:00Z", "frozen": true}`, `"simulation":
/// {"defaultConnectivity": "offline", "devices": [{"service": "apns", "token": "00fc…",
/// "connectivity": "offline"}]}`, `"faults": […]`, `"presets": […]` and `"limits":
/// {"apnsDeviceTokens": 500000}` (``CapacityLimit``).
/// Relative paths are resolved against the file's directory. Unknown keys are an error, so a
/// typo never silently falls back to a default.
public struct ConfigurationFile: Codable, Sendable {
    public struct APNsSection: Codable, Sendable {
        public var options: APNsOptionsPatch?
        public var keys: [APNsKeyDefinition]?
        public var teams: [APNsTeamDefinition]?
        public var tokens: [APNsDeviceDefinition]?
        public var certificateAuthorities: [String]?
    }

    public struct FCMSection: Codable, Sendable {
        public var options: FCMOptionsPatch?
        public var serviceAccounts: [ServiceAccountDefinition]?
        public var tokens: [FCMTokenDefinition]?
    }

    /// Expo push service options, projects and tokens.
    public struct ExpoSection: Codable, Sendable {
        public var options: ExpoOptionsPatch?
        public var projects: [ExpoProjectDefinition]?
        public var tokens: [ExpoTokenDefinition]?
    }

    /// Where the gateway's clock starts, and whether it stands still.
    public struct ClockSection: Codable, Sendable {
        public var start: FlexibleTimestamp?
        public var frozen: Bool?
    }

    /// Device simulation options and devices that start offline or idle.
    public struct SimulationSection: Codable, Sendable {
        public var simulateDevices: Bool?
        public var defaultConnectivity: Connectivity?
        /// How long APNs keeps a notification without `apns-expiration` (default 30 days).
        package var apnsDefaultStorage: FlexibleDuration?
        public var devices: [DeviceDefinition]?
        /// Lint accepted notifications (default true).
        public var lint: Bool?
        /// Apps that hold the critical-alerts entitlement (for the lint rule).
        public var criticalAlertBundleIds: [String]?
    }

    /// A simulated device's starting connectivity.
    public struct DeviceDefinition: Codable, Sendable {
        public var service: PushService
        public var token: String
        public var connectivity: Connectivity
    }

    public var apns: APNsSection?
    public var fcm: FCMSection?
    public var expo: ExpoSection?
    public var clock: ClockSection?
    public var simulation: SimulationSection?
    /// Fault rules active from the start.
    public var faults: [FaultRule]?
    /// Presets active from the start: `{"preset": "outage", "forSeconds": 60}`.
    public var presets: [FaultPresetUse]?
    /// Play back a recorded journal: `{"journal": "run.jsonl", "match": "body", "unmatched":
    /// "simulate"}` (`docs/replay.md`).
    public var playback: PlaybackSection?
    /// Webhooks on receipt (`docs/webhooks.md`).
    public var webhooks: [WebhookDefinition]?
    /// `{"enabled": false}` turns `GET /metrics` off.
    public var metrics: MetricsSection?

    public struct MetricsSection: Codable, Sendable {
        public var enabled: Bool?
    }
    /// Users behind the tokens, with time zone, locale and preferences (`docs/users.md`).
    public var users: [PushUser]?

    /// The `playback` section.
    public struct PlaybackSection: Codable, Sendable {
        public var journal: String
        public var match: PlaybackOptions.Match?
        public var unmatched: PlaybackOptions.Unmatched?
    }

    /// Notification categories with action buttons, for the inbox's previews (`docs/inbox.md`).
    public var categories: [NotificationCategoryDefinition]?

    /// The seeded behaviour model: opens, dismissals and actions after delivery
    /// (`docs/engagement.md`).
    public var engagement: EngagementModel?

    /// Registry caps and device simulation's memory bounds other than the defaults:
    /// `{"apnsDeviceTokens": 500000, "simulatedDevices": 500000}` (``CapacityLimit``).
    public var limits: CapacityLimits?

    /// The directory relative paths are resolved against (the file's own directory).
    public var baseDirectory: String?

    private enum CodingKeys: String, CodingKey {
        case apns
        case fcm
        case expo
        case clock
        case simulation
        case faults
        case presets
        case playback
        case categories
        case webhooks
        case metrics
        case users
        case engagement
        case limits
    }

    public init(apns: APNsSection? = nil, fcm: FCMSection? = nil) {
        self.apns = apns
        self.fcm = fcm
    }

    /// Reads and validates a configuration file.
    public static func load(path: String) throws -> ConfigurationFile {
        let data: Data
        do {
            data = try FileContents.read(path)
        } catch {
            throw DefinitionError("cannot read the configuration file \(path): \(error.reason)")
        }
        try checkKnownKeys(data, path: path)
        var file: ConfigurationFile
        do {
            file = try JSONDecoder().decode(ConfigurationFile.self, from: data)
        } catch let error as DecodingError {
            throw DefinitionError("\(path): \(OutOfRangeNumber.describe(error, body: Array(data)) ?? error.readableDescription)")
        }
        try checkDefinitionMembers(data, file, path: path)
        // A negative storage time was taken and made every stored APNs notification expire
        // as it was stored. Zero is APNs's "now or never".
        if let storage = file.simulation?.apnsDefaultStorage, storage.duration < .zero {
            throw DefinitionError("\(path): simulation.apnsDefaultStorage must not be negative (a duration such as 30d)")
        }
        file.baseDirectory = (path as NSString).deletingLastPathComponent
        return file
    }

    /// The definitions in the sections' arrays (`apns.tokens[]`, `expo.projects[]`, …) take
    /// only their own members, as in the control API (``PlainDefinition``): decoding alone skips
    /// a misspelt one. (Users, faults and webhooks check theirs while decoding.)
    private static func checkDefinitionMembers(_ data: Data, _ file: ConfigurationFile, path: String) throws {
        guard let document = try? JSONValue(parsing: data) else { return }
        func check(_ keyPath: [String], _ values: [any PlainDefinition]?) throws {
            guard let values, let elements = keyPath.reduce(Optional(document), { $0?[$1] })?.arrayValue else { return }
            for (index, (element, value)) in zip(elements, values).enumerated() {
                guard let unknown = value.firstUnknownMember(in: element) else { continue }
                let place = "\(keyPath.joined(separator: "."))[\(index)]" + (unknown.place.isEmpty ? "" : ".\(unknown.place)")
                throw DefinitionError(
                    "\(path): unknown key \"\(unknown.member)\" at \"\(place)\" (expected one of \(unknown.known.joined(separator: ", ")))"
                )
            }
        }
        try check(["apns", "keys"], file.apns?.keys)
        try check(["apns", "teams"], file.apns?.teams)
        try check(["apns", "tokens"], file.apns?.tokens)
        try check(["fcm", "tokens"], file.fcm?.tokens)
        try check(["expo", "projects"], file.expo?.projects)
        try check(["expo", "tokens"], file.expo?.tokens)
        try check(["categories"], file.categories)
    }

    /// Applies options and CA paths to a configuration.
    public func apply(to configuration: inout GatewayConfiguration) {
        configuration.webhooks.webhooks += webhooks ?? []
        if let enabled = metrics?.enabled { configuration.metricsEnabled = enabled }
        if let playback {
            configuration.playback = PlaybackOptions(
                journalPath: DefinitionError.resolve(playback.journal, relativeTo: baseDirectory),
                match: playback.match ?? .body,
                unmatched: playback.unmatched ?? .simulate
            )
        }
        fcm?.options?.apply(to: &configuration.fcm)
        expo?.options?.apply(to: &configuration.expo)
        limits?.apply(to: &configuration)
        if let simulation {
            if let value = simulation.simulateDevices { configuration.simulation.simulateDevices = value }
            if let value = simulation.defaultConnectivity { configuration.simulation.defaultConnectivity = value }
            if let value = simulation.apnsDefaultStorage { configuration.simulation.apnsDefaultStorage = value.duration }
            if simulation.lint == false { configuration.simulation.lint = nil }
            if let bundleIDs = simulation.criticalAlertBundleIds, configuration.simulation.lint != nil {
                configuration.simulation.lint?.criticalAlerts = .bundleIDs(Set(bundleIDs))
            }
        }
        guard let apns else { return }
        apns.options?.apply(to: &configuration.apns)
        for path in apns.certificateAuthorities ?? [] {
            configuration.clientCertificateAuthorityPaths.append(DefinitionError.resolve(path, relativeTo: baseDirectory))
        }
    }

    /// Registers keys, teams and tokens.
    package func register(in state: GatewayState) throws {
        // The clock first: token times default to "now" and fault windows start "now".
        if let clock {
            guard let virtualClock = state.virtualClock else {
                throw DefinitionError("\"clock\": this gateway runs on an injected clock that cannot be set")
            }
            if clock.frozen == true {
                virtualClock.freeze(at: clock.start?.timestamp)
            } else if let start = clock.start {
                virtualClock.set(to: start.timestamp)
            }
        }
        let now = state.clock.now()
        for category in categories ?? [] {
            state.notificationCategories.declare(category)
        }
        if let engagement {
            let problems = engagement.problems
            guard problems.isEmpty else { throw DefinitionError("\"engagement\": \(problems.joined(separator: "; "))") }
            state.simulatedDevices.engagementModel = engagement
        }
        for device in simulation?.devices ?? [] {
            let address = DeviceAddress(service: device.service, token: device.token)
            state.simulatedDevices.setConnectivity(device.connectivity, for: address, now: now)
        }
        do {
            for rule in faults ?? [] {
                try state.faults.add(rule, now: now)
            }
            for use in presets ?? [] {
                for rule in try use.preset.rules(use.parameters) {
                    try state.faults.add(rule, now: now)
                }
            }
        } catch {
            // Typed throws: `error` is a FaultRuleError here.
            throw DefinitionError("fault rule: \(readable: error)")
        }
        for user in users ?? [] {
            do {
                try UserDefinitionCheck.check(user)
                try state.users.put(user)
            } catch let error as UserRegistry.TokenTaken {
                throw DefinitionError("users: token \(error.token) of \"\(user.id)\" already belongs to \"\(error.owner)\"")
            } catch {
                throw DefinitionError("users: \"\(user.id)\": \(readable: error)")
            }
        }
        if let fcm {
            for account in fcm.serviceAccounts ?? [] {
                state.serviceAccounts.register(try account.makeRecord(relativeTo: baseDirectory))
            }
            for token in fcm.tokens ?? [] {
                state.fcmTokens.register(try token.makeRecord(now: now, defaultProject: FCMProjectID(state.fcmOptions.sampleProjectID)))
            }
        }
        if let expo {
            for project in expo.projects ?? [] {
                state.expoTokens.register(project: try project.makeRecord())
            }
            for token in expo.tokens ?? [] {
                state.expoTokens.register(try token.makeRecord(now: now))
            }
        }
        guard let apns else { return }
        for key in apns.keys ?? [] {
            state.apnsKeys.register(try key.makeRecord(relativeTo: baseDirectory))
        }
        for team in apns.teams ?? [] {
            let team = try team.validated()
            state.apnsKeys.setBundleIDs(team.bundleIDs, forTeam: team.teamID)
        }
        for token in apns.tokens ?? [] {
            state.devices.register(try token.makeRecord(now: now))
        }
    }

    private static let knownKeys: [String: Set<String>] = [
        "": [
            "apns", "fcm", "expo", "clock", "simulation", "faults", "presets", "playback", "categories", "webhooks", "metrics", "users",
            "engagement", "limits",
        ],
        "limits": Set(CapacityLimit.allCases.map(\.rawValue)),
        "metrics": ["enabled"],
        "playback": ["journal", "match", "unmatched"],
        "clock": ["start", "frozen"],
        "simulation": ["simulateDevices", "defaultConnectivity", "apnsDefaultStorage", "devices", "lint", "criticalAlertBundleIds"],
        "fcm": ["options", "serviceAccounts", "tokens"],
        "fcm.options": Set(FCMOptionsPatch.CodingKeys.allCases.map(\.stringValue)),
        "expo": ["options", "projects", "tokens"],
        "expo.options": Set(ExpoOptionsPatch.CodingKeys.allCases.map(\.stringValue)),
        "apns": ["options", "keys", "teams", "tokens", "certificateAuthorities"],
        "apns.options": Set(APNsOptionsPatch.CodingKeys.allCases.map(\.stringValue)),
    ]

    private static func checkKnownKeys(_ data: Data, path: String) throws {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: data)
        } catch {
            throw DefinitionError("\(path) is not valid JSON: \(readable: error)")
        }
        func check(_ value: JSONValue, at section: String) throws {
            guard let object = value.objectValue, let allowed = knownKeys[section] else { return }
            for key in object.keys.sorted() where !allowed.contains(key) {
                let place = section.isEmpty ? "top level" : "\"\(section)\""
                throw DefinitionError(
                    "\(path): unknown key \"\(key)\" at \(place) (expected one of \(allowed.sorted().joined(separator: ", ")))"
                )
            }
            for (key, child) in object {
                try check(child, at: section.isEmpty ? key : "\(section).\(key)")
            }
        }
        try check(document, at: "")
    }
}

/// Optional overrides of ``APNsOptions`` (config file `apns.options`).
public struct APNsOptionsPatch: Codable, Sendable, Hashable {
    public var authentication: APNsOptions.Authentication?
    public var defaultEnvironment: APNsEnvironment?
    public var environmentFromAuthority: Bool?
    public var strictTokenLength: Bool?
    public var rejectUnknownTokens: Bool?
    public var environmentKeySpelling: APNsReason.EnvironmentKeySpelling?
    public var providerTokenLifetimeSeconds: Int?
    public var providerTokenUpdateIntervalSeconds: Int?
    public var maxConcurrentStreams: UInt32?
    public var oneStreamUntilAuthenticated: Bool?
    public var throttleStreamsAfterRejection: Bool?
    public var rejectHighPriorityBackground: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case authentication, defaultEnvironment, environmentFromAuthority, strictTokenLength, rejectUnknownTokens
        case environmentKeySpelling, providerTokenLifetimeSeconds, providerTokenUpdateIntervalSeconds
        case maxConcurrentStreams, oneStreamUntilAuthenticated, throttleStreamsAfterRejection
        case rejectHighPriorityBackground
    }

    public func apply(to options: inout APNsOptions) {
        if let authentication { options.authentication = authentication }
        if let defaultEnvironment { options.defaultEnvironment = defaultEnvironment }
        if let environmentFromAuthority { options.environmentFromAuthority = environmentFromAuthority }
        if let strictTokenLength { options.tokenFormat = strictTokenLength ? .strict64 : .variable }
        if let rejectUnknownTokens { options.rejectUnknownTokens = rejectUnknownTokens }
        if let environmentKeySpelling { options.environmentKeySpelling = environmentKeySpelling }
        if let providerTokenLifetimeSeconds { options.providerTokenLifetime = .seconds(providerTokenLifetimeSeconds) }
        if let providerTokenUpdateIntervalSeconds {
            options.providerTokenUpdateInterval = .seconds(providerTokenUpdateIntervalSeconds)
        }
        if let maxConcurrentStreams { options.maxConcurrentStreams = maxConcurrentStreams }
        if let oneStreamUntilAuthenticated { options.oneStreamUntilAuthenticated = oneStreamUntilAuthenticated }
        if let throttleStreamsAfterRejection { options.throttleStreamsAfterRejection = throttleStreamsAfterRejection }
        if let rejectHighPriorityBackground { options.rejectHighPriorityBackground = rejectHighPriorityBackground }
    }
}

extension APNsOptionsPatch {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authentication = try container.decodeIfPresent(APNsOptions.Authentication.self, forKey: .authentication)
        defaultEnvironment = try container.decodeIfPresent(APNsEnvironment.self, forKey: .defaultEnvironment)
        environmentFromAuthority = try container.decodeIfPresent(Bool.self, forKey: .environmentFromAuthority)
        strictTokenLength = try container.decodeIfPresent(Bool.self, forKey: .strictTokenLength)
        rejectUnknownTokens = try container.decodeIfPresent(Bool.self, forKey: .rejectUnknownTokens)
        environmentKeySpelling = try container.decodeIfPresent(APNsReason.EnvironmentKeySpelling.self, forKey: .environmentKeySpelling)
        providerTokenLifetimeSeconds = try container.decodeSecondsIfPresent(forKey: .providerTokenLifetimeSeconds)
        providerTokenUpdateIntervalSeconds = try container.decodeSecondsIfPresent(forKey: .providerTokenUpdateIntervalSeconds)
        maxConcurrentStreams = try container.decodeIfPresent(UInt32.self, forKey: .maxConcurrentStreams)
        if maxConcurrentStreams == 0 {
            throw DecodingError.dataCorruptedError(
                forKey: .maxConcurrentStreams, in: container, debugDescription: "must be at least 1: with 0 no request could be sent")
        }
        oneStreamUntilAuthenticated = try container.decodeIfPresent(Bool.self, forKey: .oneStreamUntilAuthenticated)
        throttleStreamsAfterRejection = try container.decodeIfPresent(Bool.self, forKey: .throttleStreamsAfterRejection)
        rejectHighPriorityBackground = try container.decodeIfPresent(Bool.self, forKey: .rejectHighPriorityBackground)
    }
}
