@_spi(Locking) package import PushMockCore

/// What the gateway knows about one Expo push token (`ExponentPushToken[…]`).
package struct ExpoTokenRecord: Sendable, Hashable, Codable {
    /// The platform the app runs on: Expo relays to APNs for iOS and FCM for Android, and the
    /// simulated device follows that service's storage rules.
    package enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
        case ios
        case android
    }

    /// Lifecycle state.
    package enum State: Sendable, Hashable, Codable {
        /// Receives messages.
        case active
        /// The app was uninstalled or the token replaced: from `at` on, tickets (and the
        /// receipts of messages relayed after `at`) say `DeviceNotRegistered`.
        case unregistered(at: Timestamp)
    }

    /// A failure of the relay to APNs/FCM for this token, reported as an error ticket or in the
    /// receipt (`MessageRateExceeded`, `MismatchSenderId`, `InvalidCredentials`, `MessageTooBig`,
    /// `ProviderError`, …).
    package struct RelayFailure: Sendable, Hashable, Codable {
        /// Where the error shows.
        package enum Stage: String, Sendable, Hashable, Codable {
            case ticket
            case receipt
        }

        /// The `details.error` code, e.g. `InvalidCredentials`.
        package var error: String
        /// Default: `receipt` (the docs list these under receipt errors).
        package var stage: Stage
        /// Overrides the message text.
        package var message: String?

        package init(error: String, stage: Stage = .receipt, message: String? = nil) {
            self.error = error
            self.stage = stage
            self.message = message
        }

        private enum CodingKeys: String, CodingKey {
            case error, stage, message
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.error = try container.decode(String.self, forKey: .error)
            self.stage = try container.decodeIfPresent(Stage.self, forKey: .stage) ?? .receipt
            self.message = try container.decodeIfPresent(String.self, forKey: .message)
        }
    }

    package var token: ExpoTokenID
    /// The project: its experience id (`@owner/slug`) or project id. Requests mixing tokens of
    /// two projects get `PUSH_TOO_MANY_EXPERIENCE_IDS`.
    package var project: ExpoProjectName
    package var platform: Platform
    package var state: State
    package var relayFailure: RelayFailure?
    /// Once this many messages were accepted for the token in total, it unregisters.
    package var expireAfterSends: Int?
    /// Messages accepted for this token so far.
    package var acceptedSends: Int
    /// The token that replaced this one.
    package var replacedBy: ExpoTokenID?

    package init(
        token: ExpoTokenID,
        project: ExpoProjectName,
        platform: Platform = .ios,
        state: State = .active,
        relayFailure: RelayFailure? = nil,
        expireAfterSends: Int? = nil,
        acceptedSends: Int = 0,
        replacedBy: ExpoTokenID? = nil
    ) {
        self.token = token
        self.project = project
        self.platform = platform
        self.state = state
        self.relayFailure = relayFailure
        self.expireAfterSends = expireAfterSends
        self.acceptedSends = acceptedSends
        self.replacedBy = replacedBy
    }

    /// Whether messages reach the token at `now`.
    package func isActive(at now: Timestamp) -> Bool {
        switch state {
        case .active: return true
        case .unregistered(let at): return at > now
        }
    }
}

/// An Expo project: its name (experience id `@owner/slug` or project id) and, with "enhanced
/// push security", the access tokens a sender must present.
package struct ExpoProjectRecord: Sendable, Hashable, Codable {
    package var name: ExpoProjectName
    /// The EAS project id (a UUID), when known; tokens may name either.
    package var projectID: ExpoProjectName?
    /// Access tokens accepted as `Authorization: Bearer …`.
    package var accessTokens: [String]
    /// Enhanced push security: requests for this project need one of ``accessTokens``.
    package var requiresAccessToken: Bool
    /// The iOS bundle identifier (used in the `InvalidCredentials` text).
    package var bundleIdentifier: String?

    package init(
        name: ExpoProjectName,
        projectID: ExpoProjectName? = nil,
        accessTokens: [String] = [],
        requiresAccessToken: Bool = false,
        bundleIdentifier: String? = nil
    ) {
        self.name = name
        self.projectID = projectID
        self.accessTokens = accessTokens
        self.requiresAccessToken = requiresAccessToken
        self.bundleIdentifier = bundleIdentifier
    }
}

/// Expo push tokens and projects. Shared by all connections.
package final class ExpoRegistry: Sendable {
    private struct Contents {
        var tokens: [ExpoTokenID: ExpoTokenRecord] = [:]
        var projects: [ExpoProjectName: ExpoProjectRecord] = [:]
    }

    private let contents = SanitizerVisibleMutex(Contents())

    package init() {}

    package func register(_ record: ExpoTokenRecord) {
        contents.withLock { $0.tokens[record.token] = record }
    }

    /// Adds or replaces `records`, all or none: refused when the tokens not yet known would take
    /// the registry past `limit` (control API).
    package func register(_ records: [ExpoTokenRecord], limit: Int) throws(RegistryFull) {
        try contents.withLock { contents throws(RegistryFull) in
            try RegistryFull.insert(records, into: &contents.tokens, key: \.token, limit: limit, registry: .expoTokens)
        }
    }

    /// Throws unless the `tokens` not yet known fit under `limit`.
    package func checkRoom(for tokens: [ExpoTokenID], limit: Int) throws(RegistryFull) {
        try contents.withLock { contents throws(RegistryFull) in
            try RegistryFull.check(contents.tokens, adding: tokens, limit: limit, registry: .expoTokens)
        }
    }

    package func lookup(_ token: ExpoTokenID) -> ExpoTokenRecord? {
        contents.withLock { $0.tokens[token] }
    }

    @discardableResult
    package func remove(_ token: ExpoTokenID) -> Bool {
        contents.withLock { $0.tokens.removeValue(forKey: token) != nil }
    }

    /// The canonical project name of a token (a project id resolves to the project's name).
    package func project(ofToken token: ExpoTokenID) -> ExpoProjectName? {
        contents.withLock { contents in
            guard let project = contents.tokens[token]?.project else { return nil }
            return Self.canonicalName(project, in: contents.projects)
        }
    }

    /// Counts one accepted message, atomically with a last look at the token's state; `false`
    /// if the token stopped being active. Unknown tokens are not counted.
    package func admitSend(to token: ExpoTokenID, now: Timestamp) -> Bool {
        contents.withLock { contents in
            guard var record = contents.tokens[token] else { return true }
            guard record.isActive(at: now) else { return false }
            record.acceptedSends.addSaturating(1)
            if let limit = record.expireAfterSends, record.acceptedSends >= limit, case .active = record.state {
                record.state = .unregistered(at: now)
            }
            contents.tokens[token] = record
            return true
        }
    }

    /// Replaces `token` with `newToken` at `now` (reinstall): the old one is unregistered, the
    /// new one active for the same project and platform. A token already replaced rotates the
    /// newest token of its chain (``RotationChain``); `old` is the record that was replaced.
    package func rotate(_ token: ExpoTokenID, to newToken: ExpoTokenID, project: ExpoProjectName, at now: Timestamp) -> (
        old: ExpoTokenRecord, new: ExpoTokenRecord
    ) {
        contents.withLock { contents in
            let token = RotationChain.newest(from: token) { contents.tokens[$0]?.replacedBy }
            var old = contents.tokens[token] ?? ExpoTokenRecord(token: token, project: project)
            if token == newToken, let previous = contents.tokens.values.first(where: { $0.replacedBy == token }) {
                return (previous, old)
            }
            let new = ExpoTokenRecord(token: newToken, project: old.project, platform: old.platform, relayFailure: old.relayFailure)
            if case .active = old.state { old.state = .unregistered(at: now) }
            old.replacedBy = newToken
            contents.tokens[token] = old
            contents.tokens[newToken] = new
            return (old, new)
        }
    }

    /// Applies `change` to a token's record (creating it for `project` if unknown).
    package func update(_ token: ExpoTokenID, project: ExpoProjectName, _ change: (inout ExpoTokenRecord) throws -> Void) rethrows
        -> ExpoTokenRecord
    {
        try contents.withLock { contents in
            var record = contents.tokens[token] ?? ExpoTokenRecord(token: token, project: project)
            try change(&record)
            contents.tokens[token] = record
            return record
        }
    }

    package var all: [ExpoTokenRecord] {
        contents.withLock { Array($0.tokens.values) }.sorted { $0.token < $1.token }
    }

    package func removeAll() {
        contents.withLock { $0 = Contents() }
    }

    /// How many tokens are registered.
    package var count: Int { contents.withLock { $0.tokens.count } }

    // MARK: Projects

    package func register(project: ExpoProjectRecord) {
        contents.withLock { $0.projects[project.name] = project }
    }

    /// Adds or replaces `projects`, all or none, within `limit` projects (control API).
    package func register(projects: [ExpoProjectRecord], limit: Int) throws(RegistryFull) {
        try contents.withLock { contents throws(RegistryFull) in
            try RegistryFull.insert(projects, into: &contents.projects, key: \.name, limit: limit, registry: .expoProjects)
        }
    }

    /// The project called `name`, or whose project id is `name`.
    package func project(named name: ExpoProjectName) -> ExpoProjectRecord? {
        contents.withLock { contents in
            contents.projects[name] ?? contents.projects.values.first { $0.projectID == name }
        }
    }

    @discardableResult
    package func remove(project name: ExpoProjectName) -> Bool {
        contents.withLock { $0.projects.removeValue(forKey: name) != nil }
    }

    package var projects: [ExpoProjectRecord] {
        contents.withLock { Array($0.projects.values) }.sorted { $0.name < $1.name }
    }

    private static func canonicalName(_ name: ExpoProjectName, in projects: [ExpoProjectName: ExpoProjectRecord]) -> ExpoProjectName {
        if projects[name] != nil { return name }
        return projects.values.first { $0.projectID == name }?.name ?? name
    }
}
