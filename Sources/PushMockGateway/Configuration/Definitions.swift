import Crypto
import Foundation
import PushMockAuth
public import PushMockCore

/// A signing key as written in the config file and accepted by `POST /_pushmock/apns/keys`.
///
/// ```json
/// {"keyId": "ABC123DEFG", "teamId": "DEF123GHIJ", "publicKeyPem": "-----BEGIN PUBLIC KEY-----…",
///  "environments": ["sandbox"], "scope": "team", "bundleIds": ["com.example.app"]}
/// ```
/// Give exactly one of `publicKeyPem`, `privateKeyPem` or `keyPath` (a `.p8` file; only the
/// public half is kept).
public struct APNsKeyDefinition: Codable, Sendable, Hashable {
    public var keyId: String
    public var teamId: String
    public var publicKeyPem: String?
    public var privateKeyPem: String?
    public var keyPath: String?
    /// `sandbox`, `production`; omitted = both (a legacy key).
    public var environments: [APNsEnvironment]?
    /// `team` (default) or `topic`.
    package var scope: APNsKeyRecord.Scope?
    /// Bundle IDs the key may push to; omitted = every app of the team.
    public var bundleIds: [String]?
    /// The one related key of a topic-specific key.
    public var relatedKeyId: String?

    package init(
        keyId: String,
        teamId: String,
        publicKeyPem: String? = nil,
        privateKeyPem: String? = nil,
        keyPath: String? = nil,
        environments: [APNsEnvironment]? = nil,
        scope: APNsKeyRecord.Scope? = nil,
        bundleIds: [String]? = nil,
        relatedKeyId: String? = nil
    ) {
        self.keyId = keyId
        self.teamId = teamId
        self.publicKeyPem = publicKeyPem
        self.privateKeyPem = privateKeyPem
        self.keyPath = keyPath
        self.environments = environments
        self.scope = scope
        self.bundleIds = bundleIds
        self.relatedKeyId = relatedKeyId
    }

    /// Builds the registry record, reading the key material.
    package func makeRecord(relativeTo base: String? = nil) throws -> APNsKeyRecord {
        let publicKey: P256.Signing.PublicKey
        try AppleIdentifier.checkTenCharacterID(keyId, "key ID")
        try AppleIdentifier.checkTenCharacterID(teamId, "key \(keyId): team ID")
        if let relatedKeyId { try AppleIdentifier.checkTenCharacterID(relatedKeyId, "key \(keyId): relatedKeyId") }
        for bundleID in bundleIds ?? [] { try AppleIdentifier.checkBundleID(bundleID, "key \(keyId): bundle ID") }
        let sources = [publicKeyPem, privateKeyPem, keyPath].compactMap { $0 }
        guard sources.count == 1 else {
            throw DefinitionError("key \(keyId): give exactly one of publicKeyPem, privateKeyPem or keyPath")
        }
        do {
            if let publicKeyPem {
                publicKey = try P256.Signing.PublicKey(pemRepresentation: publicKeyPem)
            } else if let privateKeyPem {
                publicKey = try APNsSigningKey(pem: privateKeyPem, keyID: keyId, teamID: teamId).publicKey
            } else {
                let path = DefinitionError.resolve(keyPath!, relativeTo: base)
                publicKey = try APNsSigningKey(p8FilePath: path, keyID: keyId, teamID: teamId).publicKey
            }
        } catch let error as DefinitionError {
            throw error
        } catch {
            throw DefinitionError("key \(keyId): cannot read the key (\(readable: error))")
        }
        return APNsKeyRecord(
            keyID: keyId,
            teamID: teamId,
            publicKey: publicKey,
            environments: environments.map(Set.init) ?? [.sandbox, .production],
            scope: scope ?? .team,
            bundleIDs: bundleIds.map(Set.init),
            relatedKeyID: relatedKeyId
        )
    }

    /// The definition of a registered key (public half only).
    package init(_ record: APNsKeyRecord) {
        self.init(
            keyId: record.keyID,
            teamId: record.teamID,
            publicKeyPem: record.publicKey.pemRepresentation,
            environments: APNsEnvironment.all.filter(record.environments.contains),
            scope: record.scope,
            bundleIds: record.bundleIDs.map { $0.sorted() },
            relatedKeyId: record.relatedKeyID
        )
    }
}

/// A device token as written in the config file and accepted by `POST /_pushmock/apns/tokens`.
///
/// ```json
/// {"token": "00fc13ad…", "bundleId": "com.example.app", "environment": "sandbox",
///  "state": "unregistered", "at": "2026-11-21T10:02:00Z"}
/// {"token": "00fc13ad…", "bundleId": "com.example.app", "expireAfterSends": 3, "expireAs": "unregistered"}
/// ```
public struct APNsDeviceDefinition: Codable, Sendable, Hashable {
    public var token: String
    /// The app; `topic` is accepted as a synonym. Omitted: the token is not bound to an app.
    public var bundleId: String?
    public var topic: String?
    /// `sandbox` or `production`; omitted: either (the other answers `BadDeviceToken`).
    public var environment: APNsEnvironment?
    /// `active` (default), `unregistered` or `expired`.
    public var state: String?
    /// When the state takes effect: ISO 8601, or milliseconds since the epoch. Default: now.
    public var at: FlexibleTimestamp?
    /// End the token once this many notifications were accepted for it in total.
    public var expireAfterSends: Int?
    /// How it ends: `expired` (410 `ExpiredToken`, default) or `unregistered` (410 `Unregistered`).
    package var expireAs: APNsDeviceRecord.EndOfLife?
    /// Notifications accepted so far (reported; accepted on input as a starting count).
    public var sends: Int?
    /// The token that replaced this one (reported).
    public var replacedBy: String?

    package init(
        token: String,
        bundleId: String? = nil,
        environment: APNsEnvironment? = nil,
        state: String? = nil,
        at: FlexibleTimestamp? = nil,
        expireAfterSends: Int? = nil,
        expireAs: APNsDeviceRecord.EndOfLife? = nil
    ) {
        self.token = token
        self.bundleId = bundleId
        self.environment = environment
        self.state = state
        self.at = at
        self.expireAfterSends = expireAfterSends
        self.expireAs = expireAs
    }

    package func makeRecord(now: Timestamp) throws -> APNsDeviceRecord {
        let bundleID = bundleId ?? topic.map { APNsPushType.inferred(fromTopic: $0).bundleID(fromTopic: $0) ?? $0 }
        guard APNsDeviceTokenFormat.variable.accepts(token.utf8) else {
            throw DefinitionError("token \(token): not an even-length hex string of 8 to 200 bytes")
        }
        if let bundleID { try AppleIdentifier.checkBundleID(bundleID, "token \(token): bundle ID") }
        if let sends, sends < 0 { throw DefinitionError("token \(token): sends must be 0 or more") }
        var record = APNsDeviceRecord(
            token: APNsDeviceToken(token), bundleID: bundleID, environment: environment, acceptedSends: sends ?? 0)
        try APNsTokenPatch(state: state, at: at, expireAs: expireAs).apply(to: &record, now: now)
        if let expireAfterSends {
            // A total, like `sends`, so a listed definition posts back unchanged.
            guard expireAfterSends >= 1 else { throw DefinitionError("token \(token): expireAfterSends must be at least 1") }
            record.expireAfterSends = expireAfterSends
        }
        return record
    }

    package init(_ record: APNsDeviceRecord) {
        self.token = record.token.rawValue
        self.bundleId = record.bundleID
        self.environment = record.environment
        self.expireAfterSends = record.expireAfterSends
        self.expireAs = record.expireAfterSends == nil ? nil : record.endOfLife
        self.sends = record.acceptedSends
        self.replacedBy = record.replacedBy?.rawValue
        switch record.state {
        case .active:
            self.state = "active"
        case .unregistered(let at):
            self.state = "unregistered"
            self.at = FlexibleTimestamp(at)
        case .expired(let at):
            self.state = "expired"
            self.at = FlexibleTimestamp(at)
        }
    }
}

/// A change to one APNs token's lifecycle: `PATCH /_pushmock/apns/tokens/{token}` (and
/// `pushmock token …`). Fields left out stay as they are; an unknown token is created, bound to
/// no app.
public struct APNsTokenPatch: Codable, Sendable, Hashable {
    public var bundleId: String?
    public var environment: APNsEnvironment?
    /// `active`, `unregistered` or `expired`.
    public var state: String?
    /// When the state takes effect; default now.
    public var at: FlexibleTimestamp?
    /// End the token after this many more accepted notifications (counting from now).
    public var expireAfterSends: Int?
    package var expireAs: APNsDeviceRecord.EndOfLife?

    package init(
        bundleId: String? = nil,
        environment: APNsEnvironment? = nil,
        state: String? = nil,
        at: FlexibleTimestamp? = nil,
        expireAfterSends: Int? = nil,
        expireAs: APNsDeviceRecord.EndOfLife? = nil
    ) {
        self.bundleId = bundleId
        self.environment = environment
        self.state = state
        self.at = at
        self.expireAfterSends = expireAfterSends
        self.expireAs = expireAs
    }

    package func apply(to record: inout APNsDeviceRecord, now: Timestamp) throws {
        if let bundleId {
            try AppleIdentifier.checkBundleID(bundleId, "token \(record.token): bundle ID")
            record.bundleID = bundleId
        }
        if let environment { record.environment = environment }
        if let state {
            let when = at?.timestamp ?? now
            switch state.lowercased() {
            case "active": record.state = .active
            case "unregistered", "uninstalled": record.state = .unregistered(at: when)
            case "expired": record.state = .expired(at: when)
            default: throw DefinitionError("token \(record.token): state must be active, unregistered or expired")
            }
        } else if at != nil {
            throw DefinitionError("token \(record.token): \"at\" needs a \"state\"")
        }
        if let expireAfterSends {
            guard expireAfterSends >= 1 else { throw DefinitionError("token \(record.token): expireAfterSends must be at least 1") }
            record.expireAfterSends = record.acceptedSends.addingSaturating(expireAfterSends)
        }
        if let expireAs { record.endOfLife = expireAs }
    }
}

/// A team's apps: team-scoped keys of the team may push to these bundle IDs only.
public struct APNsTeamDefinition: Codable, Sendable, Hashable {
    public var teamId: String
    public var bundleIds: [String]

    public init(teamId: String, bundleIds: [String]) {
        self.teamId = teamId
        self.bundleIds = bundleIds
    }

    /// Refuses a team ID or bundle ID that Apple would never issue.
    package func validated() throws -> (teamID: String, bundleIDs: Set<String>) {
        try AppleIdentifier.checkTenCharacterID(teamId, "team ID")
        for bundleID in bundleIds { try AppleIdentifier.checkBundleID(bundleID, "team \(teamId): bundle ID") }
        return (teamId, Set(bundleIds))
    }
}

/// A readable problem with a definition (config file or control API body).
public struct DefinitionError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }

    static func resolve(_ path: String, relativeTo base: String?) -> String {
        guard let base, !path.hasPrefix("/") else { return path }
        return (base as NSString).appendingPathComponent(path)
    }
}
