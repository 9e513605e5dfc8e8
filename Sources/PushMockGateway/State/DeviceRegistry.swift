@_spi(Locking) package import PushMockCore

/// What the gateway knows about one APNs device token.
package struct APNsDeviceRecord: Sendable, Hashable, Codable {
    /// The lifecycle state of a token.
    package enum State: Sendable, Hashable, Codable {
        /// Accepts notifications.
        case active
        /// Uninstalled: from `at` on, APNs answers 410 `Unregistered` with `timestamp` = `at`.
        case unregistered(at: Timestamp)
        /// Expired: from `at` on, APNs answers 410 `ExpiredToken`.
        case expired(at: Timestamp)
    }

    /// How a token ends after ``expireAfterSends`` accepted notifications.
    package enum EndOfLife: String, Sendable, Hashable, Codable {
        /// 410 `Unregistered` (the app was uninstalled).
        case unregistered
        /// 410 `ExpiredToken`.
        case expired
    }

    /// The token (canonical, lower-case hex).
    package var token: APNsDeviceToken
    /// The bundle ID of the app the token belongs to; `nil`: any app (a token registered only
    /// to script its lifecycle).
    package var bundleID: String?
    /// The environment that issued the token; the other one answers `BadDeviceToken`. `nil`:
    /// either.
    package var environment: APNsEnvironment?
    /// Lifecycle state.
    package var state: State
    /// After this many accepted notifications the token ends (``endOfLife``), stamped with the
    /// time of the last one.
    package var expireAfterSends: Int?
    package var endOfLife: EndOfLife
    /// Notifications accepted for this token so far.
    package var acceptedSends: Int
    /// The token that replaced this one (``DeviceRegistry/rotate(_:to:at:)``).
    package var replacedBy: APNsDeviceToken?

    package init(
        token: APNsDeviceToken,
        bundleID: String?,
        environment: APNsEnvironment? = .sandbox,
        state: State = .active,
        expireAfterSends: Int? = nil,
        endOfLife: EndOfLife = .expired,
        acceptedSends: Int = 0,
        replacedBy: APNsDeviceToken? = nil
    ) {
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
        self.state = state
        self.expireAfterSends = expireAfterSends
        self.endOfLife = endOfLife
        self.acceptedSends = acceptedSends
        self.replacedBy = replacedBy
    }

    /// The 410 error this token answers at `now`, if it is no longer valid.
    package func goneError(at now: Timestamp) -> APNsError? {
        switch state {
        case .active:
            return nil
        case .unregistered(let at):
            return at <= now ? APNsError(.unregistered, timestamp: at) : nil
        case .expired(let at):
            return at <= now ? APNsError(.expiredToken, timestamp: at) : nil
        }
    }
}

/// The registry of known APNs device tokens. Unknown well-formed tokens are accepted unless
/// the gateway runs with strict tokens.
///
/// Shared by every connection; a `Mutex` keeps each lookup a short critical section.
package final class DeviceRegistry: Sendable {
    private let devices: SanitizerVisibleMutex<[APNsDeviceToken: APNsDeviceRecord]>

    package init(_ records: [APNsDeviceRecord] = []) {
        var initial: [APNsDeviceToken: APNsDeviceRecord] = [:]
        for record in records {
            initial[record.token] = record
        }
        self.devices = SanitizerVisibleMutex(initial)
    }

    /// Adds or replaces a token.
    package func register(_ record: APNsDeviceRecord) {
        devices.withLock { $0[record.token] = record }
    }

    /// Adds or replaces `records`, all or none: refused when the tokens not yet known would take
    /// the registry past `limit` (control API).
    package func register(_ records: [APNsDeviceRecord], limit: Int) throws(RegistryFull) {
        try devices.withLock { devices throws(RegistryFull) in
            try RegistryFull.insert(records, into: &devices, key: \.token, limit: limit, registry: Self.registryName)
        }
    }

    /// Throws unless the `tokens` not yet known fit under `limit` (before an update or a
    /// rotation creates them).
    package func checkRoom(for tokens: [APNsDeviceToken], limit: Int) throws(RegistryFull) {
        try devices.withLock { devices throws(RegistryFull) in
            try RegistryFull.check(devices, adding: tokens, limit: limit, registry: Self.registryName)
        }
    }

    static let registryName = RegistryName.apnsDeviceTokens

    /// Looks a token up.
    package func lookup(_ token: APNsDeviceToken) -> APNsDeviceRecord? {
        devices.withLock { $0[token] }
    }

    /// Changes a token's state; returns the updated record, or `nil` if unknown.
    @discardableResult
    package func setState(_ state: APNsDeviceRecord.State, for token: APNsDeviceToken) -> APNsDeviceRecord? {
        devices.withLock { devices in
            guard var record = devices[token] else { return nil }
            record.state = state
            devices[token] = record
            return record
        }
    }

    /// Counts one accepted notification, atomically with a last look at the token's state:
    /// returns the 410 error if the token ended meanwhile (another connection's send used up
    /// its last one). Unknown tokens are not counted.
    package func admitSend(to token: APNsDeviceToken, now: Timestamp) -> APNsError? {
        devices.withLock { devices -> APNsError? in
            guard var record = devices[token] else { return nil }
            if let gone = record.goneError(at: now) { return gone }
            record.acceptedSends.addSaturating(1)
            if let limit = record.expireAfterSends, record.acceptedSends >= limit, case .active = record.state {
                record.state = record.endOfLife == .expired ? .expired(at: now) : .unregistered(at: now)
            }
            devices[token] = record
            return nil
        }
    }

    /// Replaces `token` with `newToken` at `now` (the app reinstalled or iOS issued a new
    /// token): the old one answers 410 `Unregistered` from then on, the new one is active for
    /// the same app and environment. Unknown old tokens are registered first, for any app.
    /// A token already replaced rotates the newest token of its chain (``RotationChain``);
    /// `old` is the record that was replaced.
    package func rotate(_ token: APNsDeviceToken, to newToken: APNsDeviceToken, at now: Timestamp) -> (
        old: APNsDeviceRecord, new: APNsDeviceRecord
    ) {
        devices.withLock { devices in
            let key = RotationChain.newest(from: token) { devices[$0]?.replacedBy }
            var old = devices[key] ?? APNsDeviceRecord(token: key, bundleID: nil, environment: nil)
            if key == newToken, let previous = devices.values.first(where: { $0.replacedBy == key }) {
                return (previous, old)
            }
            let new = APNsDeviceRecord(token: newToken, bundleID: old.bundleID, environment: old.environment)
            if case .active = old.state { old.state = .unregistered(at: now) }
            old.replacedBy = new.token
            devices[key] = old
            devices[new.token] = new
            return (old, new)
        }
    }

    /// Applies `change` to a token's record (creating it for any app and environment if
    /// unknown) and returns the result.
    package func update(_ token: APNsDeviceToken, _ change: (inout APNsDeviceRecord) throws -> Void) rethrows -> APNsDeviceRecord {
        try devices.withLock { devices in
            var record = devices[token] ?? APNsDeviceRecord(token: token, bundleID: nil, environment: nil)
            try change(&record)
            devices[token] = record
            return record
        }
    }

    /// Removes a token; returns whether it was known.
    @discardableResult
    package func remove(_ token: APNsDeviceToken) -> Bool {
        devices.withLock { $0.removeValue(forKey: token) != nil }
    }

    /// Every registered token, sorted.
    package var all: [APNsDeviceRecord] {
        devices.withLock { Array($0.values) }.sorted { $0.token < $1.token }
    }

    /// How many tokens are registered.
    package var count: Int { devices.withLock { $0.count } }

    /// Forgets every token.
    package func removeAll() {
        devices.withLock { $0.removeAll() }
    }
}
