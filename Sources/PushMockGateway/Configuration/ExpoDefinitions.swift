package import PushMockCore

/// An Expo push token, as written in the config file (`expo.tokens`) and accepted by
/// `POST /_pushmock/expo/tokens`.
///
/// ```json
/// {"token": "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]", "project": "@acme/reminders",
///  "platform": "android", "state": "unregistered", "at": "2026-11-21T10:02:00Z",
///  "failure": {"error": "InvalidCredentials", "stage": "receipt"}, "expireAfterSends": 3}
/// ```
public struct ExpoTokenDefinition: Codable, Sendable, Hashable {
    public var token: String
    /// The project (experience id `@owner/slug` or project id); default `@pushmock/sample`.
    public var project: String?
    /// `ios` (default) or `android`.
    package var platform: ExpoTokenRecord.Platform?
    /// `active` (default), `unregistered` (alias `uninstalled`).
    public var state: String?
    /// When `unregistered` takes effect (ISO 8601 or ms); default now. A future time makes the
    /// token expire then.
    package var at: FlexibleTimestamp?
    /// A relay failure reported in tickets or receipts.
    package var failure: ExpoTokenRecord.RelayFailure?
    /// Unregister once this many messages were accepted in total.
    public var expireAfterSends: Int?
    /// Messages accepted so far (reported; accepted on input as a starting count).
    public var sends: Int?
    /// The token that replaced this one (reported).
    public var replacedBy: String?

    /// The project tokens belong to when none is given.
    public static let defaultProject = "@pushmock/sample"

    package init(
        token: String,
        project: String? = nil,
        platform: ExpoTokenRecord.Platform? = nil,
        state: String? = nil,
        at: FlexibleTimestamp? = nil,
        failure: ExpoTokenRecord.RelayFailure? = nil,
        expireAfterSends: Int? = nil
    ) {
        self.token = token
        self.project = project
        self.platform = platform
        self.state = state
        self.at = at
        self.failure = failure
        self.expireAfterSends = expireAfterSends
    }

    package func makeRecord(now: Timestamp) throws -> ExpoTokenRecord {
        try Self.checkToken(token)
        let parsedState = try Self.state(state, at: at, now: now, token: token)
        if let expireAfterSends, expireAfterSends < 1 {
            throw DefinitionError("Expo token \(token): expireAfterSends must be at least 1")
        }
        if let sends, sends < 0 { throw DefinitionError("Expo token \(token): sends must be 0 or more") }
        return ExpoTokenRecord(
            token: ExpoTokenID(token),
            project: ExpoProjectName(project ?? Self.defaultProject),
            platform: platform ?? .ios,
            state: parsedState ?? .active,
            relayFailure: failure,
            expireAfterSends: expireAfterSends,
            acceptedSends: sends ?? 0
        )
    }

    package init(_ record: ExpoTokenRecord) {
        self.token = record.token.rawValue
        self.project = record.project.rawValue
        self.platform = record.platform
        self.failure = record.relayFailure
        self.expireAfterSends = record.expireAfterSends
        self.sends = record.acceptedSends
        self.replacedBy = record.replacedBy?.rawValue
        switch record.state {
        case .active: self.state = "active"
        case .unregistered(let at):
            self.state = "unregistered"
            self.at = FlexibleTimestamp(at)
        }
    }

    @discardableResult
    static func checkToken(_ token: String) throws -> ExpoTokenID {
        guard ExpoPushToken(token, syntax: .service) != nil else {
            throw DefinitionError("Expo token \(token): not an Expo push token (ExponentPushToken[…] or ExpoPushToken[…])")
        }
        return ExpoTokenID(token)
    }

    static func state(_ text: String?, at: FlexibleTimestamp?, now: Timestamp, token: String) throws -> ExpoTokenRecord.State? {
        guard let text else {
            if at != nil { throw DefinitionError("Expo token \(token): \"at\" needs a \"state\"") }
            return nil
        }
        switch text.lowercased() {
        case "active": return .active
        case "unregistered", "uninstalled": return .unregistered(at: at?.timestamp ?? now)
        default: throw DefinitionError("Expo token \(token): state must be active or unregistered")
        }
    }
}

/// A change to an Expo token (`PATCH /_pushmock/expo/tokens/{token}`).
public struct ExpoTokenPatch: Codable, Sendable, Hashable {
    public var project: String?
    package var platform: ExpoTokenRecord.Platform?
    /// `active` or `unregistered` (alias `uninstalled`).
    public var state: String?
    package var at: FlexibleTimestamp?
    /// Unregister after this many more accepted messages (counting from now).
    public var expireAfterSends: Int?
    /// Sets the relay failure; `{"error": null}`-style removal is `clearFailure: true`.
    package var failure: ExpoTokenRecord.RelayFailure?
    public var clearFailure: Bool?

    package init(
        project: String? = nil,
        platform: ExpoTokenRecord.Platform? = nil,
        state: String? = nil,
        at: FlexibleTimestamp? = nil,
        expireAfterSends: Int? = nil,
        failure: ExpoTokenRecord.RelayFailure? = nil,
        clearFailure: Bool? = nil
    ) {
        self.project = project
        self.platform = platform
        self.state = state
        self.at = at
        self.expireAfterSends = expireAfterSends
        self.failure = failure
        self.clearFailure = clearFailure
    }

    package func apply(to record: inout ExpoTokenRecord, now: Timestamp) throws {
        if let project { record.project = ExpoProjectName(project) }
        if let platform { record.platform = platform }
        if let state = try ExpoTokenDefinition.state(state, at: at, now: now, token: record.token.rawValue) {
            record.state = state
        }
        if let expireAfterSends {
            guard expireAfterSends >= 1 else { throw DefinitionError("Expo token \(record.token): expireAfterSends must be at least 1") }
            record.expireAfterSends = record.acceptedSends.addingSaturating(expireAfterSends)
        }
        if clearFailure == true { record.relayFailure = nil }
        if let failure { record.relayFailure = failure }
    }
}

/// An Expo project, as written in the config file (`expo.projects`) and accepted by
/// `POST /_pushmock/expo/projects`. With `requireAccessToken` ("enhanced push security"),
/// sends for the project need `Authorization: Bearer <one of accessTokens>`.
public struct ExpoProjectDefinition: Codable, Sendable, Hashable {
    /// The experience id `@owner/slug` (or a project id).
    public var name: String
    public var projectId: String?
    public var accessTokens: [String]?
    public var requireAccessToken: Bool?
    public var bundleIdentifier: String?

    public init(
        name: String,
        projectId: String? = nil,
        accessTokens: [String]? = nil,
        requireAccessToken: Bool? = nil,
        bundleIdentifier: String? = nil
    ) {
        self.name = name
        self.projectId = projectId
        self.accessTokens = accessTokens
        self.requireAccessToken = requireAccessToken
        self.bundleIdentifier = bundleIdentifier
    }

    package func makeRecord() throws -> ExpoProjectRecord {
        guard !name.isEmpty else { throw DefinitionError("Expo project: name is required (e.g. \"@owner/slug\")") }
        let tokens = accessTokens ?? []
        let requires = requireAccessToken ?? !tokens.isEmpty
        if requires, tokens.isEmpty {
            throw DefinitionError("Expo project \(name): requireAccessToken needs at least one access token")
        }
        return ExpoProjectRecord(
            name: ExpoProjectName(name),
            projectID: projectId.map(ExpoProjectName.init),
            accessTokens: tokens,
            requiresAccessToken: requires,
            bundleIdentifier: bundleIdentifier
        )
    }

    /// The project as reported: access tokens shortened to a fingerprint.
    package init(_ record: ExpoProjectRecord) {
        self.name = record.name.rawValue
        self.projectId = record.projectID?.rawValue
        self.accessTokens = record.accessTokens.map { "…" + String($0.suffix(6)) }
        self.requireAccessToken = record.requiresAccessToken
        self.bundleIdentifier = record.bundleIdentifier
    }
}

/// Optional overrides of ``ExpoOptions`` (config file `expo.options`).
public struct ExpoOptionsPatch: Codable, Sendable, Hashable {
    public var rejectUnknownTokens: Bool?
    public var receiptDelayMilliseconds: Int?
    public var receiptLifetimeSeconds: Int?
    /// Receipts kept at most (default 100 000).
    public var maximumReceipts: Int?
    public var notificationsPerSecondPerProject: Int?
    public var compressesResponses: Bool?
    /// `required` or `none` (as `--auth`).
    public var authentication: APNsOptions.Authentication?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case rejectUnknownTokens, receiptDelayMilliseconds, receiptLifetimeSeconds, maximumReceipts, notificationsPerSecondPerProject,
            compressesResponses, authentication
    }

    public func apply(to options: inout ExpoOptions) {
        if let rejectUnknownTokens { options.rejectUnknownTokens = rejectUnknownTokens }
        if let receiptDelayMilliseconds { options.receiptDelay = .milliseconds(receiptDelayMilliseconds) }
        if let receiptLifetimeSeconds { options.receiptLifetime = .seconds(receiptLifetimeSeconds) }
        if let maximumReceipts { options.maximumReceipts = maximumReceipts }
        if let notificationsPerSecondPerProject { options.notificationsPerSecondPerProject = notificationsPerSecondPerProject }
        if let compressesResponses { options.compressesResponses = compressesResponses }
        if let authentication { options.authentication = authentication }
    }
}

extension ExpoOptionsPatch {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rejectUnknownTokens = try container.decodeIfPresent(Bool.self, forKey: .rejectUnknownTokens)
        receiptDelayMilliseconds = try container.decodeMillisecondsIfPresent(forKey: .receiptDelayMilliseconds)
        receiptLifetimeSeconds = try container.decodeSecondsIfPresent(forKey: .receiptLifetimeSeconds)
        maximumReceipts = try container.decodeIfPresent(Int.self, forKey: .maximumReceipts)
        if let maximumReceipts, !(1...10_000_000).contains(maximumReceipts) {
            throw DecodingError.dataCorruptedError(
                forKey: .maximumReceipts, in: container, debugDescription: "maximumReceipts must be from 1 to 10000000")
        }
        notificationsPerSecondPerProject = try container.decodeIfPresent(Int.self, forKey: .notificationsPerSecondPerProject)
        compressesResponses = try container.decodeIfPresent(Bool.self, forKey: .compressesResponses)
        authentication = try container.decodeIfPresent(APNsOptions.Authentication.self, forKey: .authentication)
    }
}
