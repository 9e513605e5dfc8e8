package import Foundation
import PushMockAuth
public import PushMockCore
import _CryptoExtras

/// A service account the token endpoint should trust, as written in the config file and
/// accepted by `POST /_pushmock/fcm/service-accounts`. Either `path` to a service-account JSON
/// file in Google's format, or the fields inline. Google's own JSON (`client_email`,
/// `private_key`, …) is accepted as the body as well.
public struct ServiceAccountDefinition: Codable, Sendable, Hashable {
    public var path: String?
    public var clientEmail: String?
    public var projectId: String?
    public var projectNumber: String?
    public var privateKeyId: String?
    public var publicKeyPem: String?
    public var privateKeyPem: String?

    public init(
        path: String? = nil,
        clientEmail: String? = nil,
        projectId: String? = nil,
        projectNumber: String? = nil,
        privateKeyId: String? = nil,
        publicKeyPem: String? = nil,
        privateKeyPem: String? = nil
    ) {
        self.path = path
        self.clientEmail = clientEmail
        self.projectId = projectId
        self.projectNumber = projectNumber
        self.privateKeyId = privateKeyId
        self.publicKeyPem = publicKeyPem
        self.privateKeyPem = privateKeyPem
    }

    package func makeRecord(relativeTo base: String? = nil) throws -> ServiceAccountRecord {
        if let path {
            let resolved = DefinitionError.resolve(path, relativeTo: base)
            let data: Data
            do {
                data = try FileContents.read(resolved)
            } catch {
                throw DefinitionError("service account: \(error)")
            }
            return try Self.record(fromGoogleJSON: data, projectNumber: projectNumber)
        }
        guard let clientEmail, let projectId, let privateKeyId else {
            throw DefinitionError("service account: give path, or clientEmail, projectId, privateKeyId and a key")
        }
        let publicKey: _RSA.Signing.PublicKey
        do {
            if let publicKeyPem {
                publicKey = try _RSA.Signing.PublicKey(pemRepresentation: publicKeyPem)
            } else if let privateKeyPem {
                publicKey = try ServiceAccountKey(pem: privateKeyPem, privateKeyID: privateKeyId).publicKey
            } else {
                throw DefinitionError("service account \(clientEmail): give publicKeyPem or privateKeyPem")
            }
        } catch let error as DefinitionError {
            throw error
        } catch {
            throw DefinitionError("service account \(clientEmail): cannot read the key (\(readable: error))")
        }
        return ServiceAccountRecord(
            clientEmail: clientEmail,
            privateKeyID: privateKeyId,
            publicKey: publicKey,
            projectID: projectId,
            projectNumber: projectNumber
        )
    }

    /// A record from a service-account JSON file as Google issues it.
    package static func record(fromGoogleJSON data: Data, projectNumber: String? = nil) throws -> ServiceAccountRecord {
        let json: ServiceAccountJSON
        do {
            json = try ServiceAccountJSON.decode(from: data)
        } catch {
            throw DefinitionError("not a service-account JSON (client_email, private_key, private_key_id, project_id): \(readable: error)")
        }
        do {
            let key = try json.signingKey()
            return ServiceAccountRecord(
                clientEmail: json.clientEmail,
                privateKeyID: json.privateKeyID,
                publicKey: key.publicKey,
                projectID: json.projectID,
                projectNumber: projectNumber
            )
        } catch {
            throw DefinitionError("service account \(json.clientEmail): cannot read private_key (\(readable: error))")
        }
    }

    package init(_ record: ServiceAccountRecord) {
        self.init(
            clientEmail: record.clientEmail,
            projectId: record.projectID,
            projectNumber: record.projectNumber,
            privateKeyId: record.privateKeyID,
            publicKeyPem: record.publicKey.pemRepresentation
        )
    }
}

/// An FCM registration token, as written in the config file and accepted by
/// `POST /_pushmock/fcm/tokens`.
///
/// ```json
/// {"token": "dK3…:APA91b…", "project": "my-project", "platform": "ios", "topics": ["news"],
///  "state": "unregistered", "at": "2026-11-21T10:02:00Z", "apns": {"status": 410, "reason": "Unregistered"}}
/// ```
public struct FCMTokenDefinition: Codable, Sendable, Hashable {
    public var token: String
    /// The project (sender); default: the sample project.
    public var project: String?
    /// `android` (default), `ios` or `web`.
    package var platform: FCMTokenRecord.Platform?
    /// `active` (default), `unregistered` or `invalid`.
    public var state: String?
    /// When `unregistered` takes effect (ISO 8601 or ms); default: now.
    public var at: FlexibleTimestamp?
    public var topics: [String]?
    /// For iOS tokens: what APNs answers when FCM forwards a message.
    package var apns: FCMTokenRecord.APNsFailure?
    /// Unregister once this many messages were accepted for the token in total.
    public var expireAfterSends: Int?
    /// Messages accepted so far (reported; accepted on input as a starting count).
    public var sends: Int?
    /// The token that replaced this one (reported).
    public var replacedBy: String?

    package init(
        token: String,
        project: String? = nil,
        platform: FCMTokenRecord.Platform? = nil,
        state: String? = nil,
        at: FlexibleTimestamp? = nil,
        topics: [String]? = nil,
        apns: FCMTokenRecord.APNsFailure? = nil
    ) {
        self.token = token
        self.project = project
        self.platform = platform
        self.state = state
        self.at = at
        self.topics = topics
        self.apns = apns
    }

    package func makeRecord(now: Timestamp, defaultProject: FCMProjectID) throws -> FCMTokenRecord {
        guard FCMRegistrationToken.isWellFormed(token) else {
            throw DefinitionError("FCM token \(token): not a well-formed registration token")
        }
        let parsedState: FCMTokenRecord.State
        switch (state ?? "active").lowercased() {
        case "active": parsedState = .active
        case "unregistered", "uninstalled": parsedState = .unregistered(at: at?.timestamp ?? now)
        case "invalid": parsedState = .invalid
        default: throw DefinitionError("FCM token \(token): state must be active, unregistered or invalid")
        }
        for topic in topics ?? [] where !FCMTopicName.isValid(topic) {
            throw DefinitionError("FCM token \(token): invalid topic name \"\(topic)\"")
        }
        if let expireAfterSends, expireAfterSends < 1 {
            throw DefinitionError("FCM token \(token): expireAfterSends must be at least 1")
        }
        if let sends, sends < 0 { throw DefinitionError("FCM token \(token): sends must be 0 or more") }
        return FCMTokenRecord(
            token: FCMRegistrationToken(token),
            project: project.map(FCMProjectID.init) ?? defaultProject,
            platform: platform ?? .android,
            state: parsedState,
            topics: Set(topics ?? []),
            apnsFailure: apns,
            expireAfterSends: expireAfterSends,
            acceptedSends: sends ?? 0
        )
    }

    package init(_ record: FCMTokenRecord) {
        self.token = record.token.rawValue
        self.project = record.project.rawValue
        self.platform = record.platform
        self.topics = record.topics.sorted()
        self.apns = record.apnsFailure
        self.expireAfterSends = record.expireAfterSends
        self.sends = record.acceptedSends
        self.replacedBy = record.replacedBy?.rawValue
        switch record.state {
        case .active: self.state = "active"
        case .unregistered(let at):
            self.state = "unregistered"
            self.at = FlexibleTimestamp(at)
        case .invalid: self.state = "invalid"
        }
    }
}

/// Optional overrides of ``FCMOptions`` (config file `fcm.options`).
public struct FCMOptionsPatch: Codable, Sendable, Hashable {
    public var accessTokenLifetimeSeconds: Int?
    public var assertionClockSkewSeconds: Int?
    public var rejectUnknownTokens: Bool?
    public var prettyPrintErrors: Bool?
    /// `required` or `none` (as `--auth`).
    public var authentication: APNsOptions.Authentication?
    /// `camelCase` or `snake_case` (``FCMOptions/topicSubscriptionFieldNames``).
    public var topicSubscriptionFieldNames: FCMOptions.TopicSubscriptionFieldNames?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case accessTokenLifetimeSeconds, assertionClockSkewSeconds, rejectUnknownTokens, prettyPrintErrors, authentication
        case topicSubscriptionFieldNames
    }

    public func apply(to options: inout FCMOptions) {
        if let accessTokenLifetimeSeconds { options.accessTokenLifetime = .seconds(accessTokenLifetimeSeconds) }
        if let assertionClockSkewSeconds { options.assertionClockSkew = .seconds(assertionClockSkewSeconds) }
        if let rejectUnknownTokens { options.rejectUnknownTokens = rejectUnknownTokens }
        if let prettyPrintErrors { options.prettyPrintErrors = prettyPrintErrors }
        if let authentication { options.authentication = authentication }
        if let topicSubscriptionFieldNames { options.topicSubscriptionFieldNames = topicSubscriptionFieldNames }
    }
}

extension FCMOptionsPatch {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessTokenLifetimeSeconds = try container.decodeSecondsIfPresent(forKey: .accessTokenLifetimeSeconds)
        assertionClockSkewSeconds = try container.decodeSecondsIfPresent(forKey: .assertionClockSkewSeconds)
        rejectUnknownTokens = try container.decodeIfPresent(Bool.self, forKey: .rejectUnknownTokens)
        prettyPrintErrors = try container.decodeIfPresent(Bool.self, forKey: .prettyPrintErrors)
        authentication = try container.decodeIfPresent(APNsOptions.Authentication.self, forKey: .authentication)
        topicSubscriptionFieldNames = try container.decodeIfPresent(
            FCMOptions.TopicSubscriptionFieldNames.self, forKey: .topicSubscriptionFieldNames)
    }
}

/// A change to one FCM token's lifecycle: `PATCH /_pushmock/fcm/tokens/{token}` (and
/// `pushmock token …`). Fields left out stay as they are; an unknown token is created for
/// `project` (default: the sample project).
public struct FCMTokenPatch: Codable, Sendable, Hashable {
    public var project: String?
    package var platform: FCMTokenRecord.Platform?
    /// `active`, `unregistered` or `invalid`.
    public var state: String?
    /// When `unregistered` takes effect; default now.
    public var at: FlexibleTimestamp?
    /// Unregister after this many more accepted messages (counting from now).
    public var expireAfterSends: Int?

    package init(
        project: String? = nil,
        platform: FCMTokenRecord.Platform? = nil,
        state: String? = nil,
        at: FlexibleTimestamp? = nil,
        expireAfterSends: Int? = nil
    ) {
        self.project = project
        self.platform = platform
        self.state = state
        self.at = at
        self.expireAfterSends = expireAfterSends
    }

    package func apply(to record: inout FCMTokenRecord, now: Timestamp) throws {
        if let project { record.project = FCMProjectID(project) }
        if let platform { record.platform = platform }
        if let state {
            switch state.lowercased() {
            case "active": record.state = .active
            case "unregistered", "uninstalled": record.state = .unregistered(at: at?.timestamp ?? now)
            case "invalid": record.state = .invalid
            default: throw DefinitionError("FCM token \(record.token): state must be active, unregistered or invalid")
            }
        } else if at != nil {
            throw DefinitionError("FCM token \(record.token): \"at\" needs a \"state\"")
        }
        if let expireAfterSends {
            guard expireAfterSends >= 1 else { throw DefinitionError("FCM token \(record.token): expireAfterSends must be at least 1") }
            record.expireAfterSends = record.acceptedSends.addingSaturating(expireAfterSends)
        }
    }
}
