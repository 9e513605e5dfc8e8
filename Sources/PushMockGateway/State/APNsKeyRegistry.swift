package import Crypto
@_spi(Locking) package import PushMockCore
import Synchronization

/// A provider-token signing key the gateway trusts, as Apple's developer account would list it.
package struct APNsKeyRecord: Sendable {
    /// Team-scoped keys sign for any app of the team; topic-specific keys for listed topics only.
    package enum Scope: String, Sendable, Hashable, Codable {
        case team
        case topic
    }

    /// The 10-character Key ID (JWT `kid`).
    package var keyID: String
    /// The 10-character Team ID (JWT `iss`).
    package var teamID: String
    /// The key's public half, used to verify ES256 signatures.
    package var publicKey: P256.Signing.PublicKey
    /// The environments the key may be used in; both by default (a legacy key).
    package var environments: Set<APNsEnvironment>
    /// Team-scoped (default) or topic-specific.
    package var scope: Scope
    /// Bundle IDs this key may push to; `nil` means every bundle ID of the team (or any, if
    /// the team lists none).
    package var bundleIDs: Set<String>?
    /// A topic-specific key may have one related key that can share its connections.
    package var relatedKeyID: String?

    package init(
        keyID: String,
        teamID: String,
        publicKey: P256.Signing.PublicKey,
        environments: Set<APNsEnvironment> = [.sandbox, .production],
        scope: Scope = .team,
        bundleIDs: Set<String>? = nil,
        relatedKeyID: String? = nil
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
        self.environments = environments
        self.scope = scope
        self.bundleIDs = bundleIDs
        self.relatedKeyID = relatedKeyID
    }

    /// Whether two keys may be used on the same connection (Apple, "Establishing a token-based
    /// connection": a connection opened with a team-scoped key accepts other team-scoped keys of
    /// the team; one opened with a topic-specific key accepts only its related key).
    package func isRelated(to other: APNsKeyRecord) -> Bool {
        if keyID == other.keyID { return true }
        if scope == .team, other.scope == .team { return teamID == other.teamID }
        return relatedKeyID == other.keyID || other.relatedKeyID == keyID
    }
}

/// Keys and teams the gateway trusts for token-based authentication.
package final class APNsKeyRegistry: Sendable {
    private struct State {
        var keys: [String: APNsKeyRecord] = [:]
        var teamBundleIDs: [String: Set<String>] = [:]
    }

    private let state = SanitizerVisibleMutex(State())
    /// Bumped on every change, so connections can cache answers until something changes.
    private let changes = Atomic<UInt64>(1)

    /// The current generation (changes whenever keys or teams change).
    package var generation: UInt64 { changes.load(ordering: .acquiring) }

    /// Whether anything changed since `generation`.
    package func changedSince(_ generation: UInt64) -> Bool {
        changes.load(ordering: .acquiring) != generation
    }

    package init() {}

    /// Adds or replaces a key.
    package func register(_ key: APNsKeyRecord) {
        state.withLock { $0.keys[key.keyID] = key }
        changes.add(1, ordering: .releasing)
    }

    /// Adds or replaces `keys`, all or none, within `limit` keys (control API).
    package func register(_ keys: [APNsKeyRecord], limit: Int) throws(RegistryFull) {
        try state.withLock { state throws(RegistryFull) in
            try RegistryFull.insert(keys, into: &state.keys, key: \.keyID, limit: limit, registry: .apnsKeys)
        }
        changes.add(1, ordering: .releasing)
    }

    /// Declares the apps of several teams, all or none, within `limit` teams (control API).
    package func setBundleIDs(_ teams: [(teamID: String, bundleIDs: Set<String>)], limit: Int) throws(RegistryFull) {
        try state.withLock { state throws(RegistryFull) in
            try RegistryFull.check(state.teamBundleIDs, adding: teams.map(\.teamID), limit: limit, registry: .apnsTeams)
            for team in teams { state.teamBundleIDs[team.teamID] = team.bundleIDs }
        }
        changes.add(1, ordering: .releasing)
    }

    /// Removes a key; returns whether it was known.
    @discardableResult
    package func remove(keyID: String) -> Bool {
        defer { changes.add(1, ordering: .releasing) }
        return state.withLock { $0.keys.removeValue(forKey: keyID) != nil }
    }

    /// The key with this `kid`.
    package func key(_ keyID: String) -> APNsKeyRecord? {
        state.withLock { $0.keys[keyID] }
    }

    /// All keys, sorted by Key ID.
    package var keys: [APNsKeyRecord] {
        state.withLock { Array($0.keys.values) }.sorted { $0.keyID < $1.keyID }
    }

    /// Declares the apps (bundle IDs) of a team; team-scoped keys may push to these only.
    package func setBundleIDs(_ bundleIDs: Set<String>, forTeam teamID: String) {
        state.withLock { $0.teamBundleIDs[teamID] = bundleIDs }
        changes.add(1, ordering: .releasing)
    }

    /// The apps declared for a team, if any.
    package func bundleIDs(forTeam teamID: String) -> Set<String>? {
        state.withLock { $0.teamBundleIDs[teamID] }
    }

    /// Whether `key` may push to `bundleID`.
    package func allows(_ key: APNsKeyRecord, bundleID: String) -> Bool {
        if let bundleIDs = key.bundleIDs {
            return bundleIDs.contains(bundleID)
        }
        guard let teamApps = bundleIDs(forTeam: key.teamID), !teamApps.isEmpty else { return true }
        return teamApps.contains(bundleID)
    }

    /// Every team with declared apps.
    package var teams: [String: Set<String>] {
        state.withLock { $0.teamBundleIDs }
    }
}
