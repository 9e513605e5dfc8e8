import Foundation
import PushMockCore
import PushMockJSON

/// `/_pushmock/fcm/…`: service accounts, registration tokens and their lifecycle, topics,
/// access tokens.
extension ControlAPI {
    func fcmRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let segments = request.segments
        let body = request.body
        switch request.method {
        case "GET" where request.matches("GET", "fcm", "service-accounts"):
            return try Self.encoded(state.serviceAccounts.all.map(ServiceAccountDefinition.init))
        case "POST" where request.matches("POST", "fcm", "service-accounts"):
            let data = Data(body)
            let record: ServiceAccountRecord
            if (try? JSONValue(parsing: body))?["client_email"] != nil {
                record = try ServiceAccountDefinition.record(fromGoogleJSON: data)
            } else {
                record = try JSONDecoder().decode(ServiceAccountDefinition.self, from: data).makeRecord()
            }
            try state.serviceAccounts.register(record, limit: state.registryLimits.serviceAccounts)
            return try Self.encoded([record.clientEmail], status: 201, key: "registered")
        case "GET" where request.matches("GET", "fcm", "tokens"):
            return try Self.encoded(state.fcmTokens.all.map(FCMTokenDefinition.init))
        case "POST" where request.matches("POST", "fcm", "tokens"):
            let definitions: [FCMTokenDefinition] = try Self.decodeOneOrMany(body)
            let now = state.clock.now()
            let records = try definitions.map {
                try $0.makeRecord(now: now, defaultProject: FCMProjectID(state.fcmOptions.sampleProjectID))
            }
            try state.fcmTokens.register(records, limit: state.registryLimits.fcmTokens)
            return try Self.encoded(records.map(FCMTokenDefinition.init), status: 201)
        case "GET" where request.matches("GET", "fcm", "tokens", "*"):
            guard let record = state.fcmTokens.lookup(FCMRegistrationToken(segments[2])) else {
                throw ControlAPIError(404, "no FCM token \(segments[2])")
            }
            return try Self.encoded(FCMTokenDefinition(record))
        case "PATCH" where request.matches("PATCH", "fcm", "tokens", "*"),
            "POST" where request.matches("POST", "fcm", "tokens", "*"):
            let token = try Self.fcmToken(segments[2])
            let patch = body.isEmpty ? FCMTokenPatch() : try Self.decodeDefinition(FCMTokenPatch.self, from: body)
            let now = state.clock.now()
            try state.fcmTokens.checkRoom(for: [token], limit: state.registryLimits.fcmTokens)
            let record = try state.fcmTokens.update(token, project: FCMProjectID(patch.project ?? state.fcmOptions.sampleProjectID)) {
                try patch.apply(to: &$0, now: now)
            }
            return try Self.encoded(FCMTokenDefinition(record))
        case "POST" where request.matches("POST", "fcm", "tokens", "*", "rotate"):
            let token = try Self.fcmToken(segments[2])
            let rotation = body.isEmpty ? TokenRotation() : try JSONDecoder().decode(TokenRotation.self, from: Data(body))
            let newToken = try rotation.newToken.map(Self.fcmToken) ?? Self.randomFCMToken()
            try state.fcmTokens.checkRoom(for: [token, newToken], limit: state.registryLimits.fcmTokens)
            let (old, new) = state.fcmTokens.rotate(
                token,
                to: newToken,
                project: FCMProjectID(rotation.project ?? state.fcmOptions.sampleProjectID),
                at: rotation.at?.timestamp ?? state.clock.now()
            )
            return try Self.encoded(["old": FCMTokenDefinition(old), "new": FCMTokenDefinition(new)], status: 201)
        case "DELETE" where request.matches("DELETE", "fcm", "tokens", "*"):
            guard state.fcmTokens.remove(FCMRegistrationToken(segments[2])) else {
                throw ControlAPIError(404, "no FCM token \(segments[2])")
            }
            return Self.json(status: 200, ["removed": JSONValue(segments[2])])
        case "GET" where request.matches("GET", "fcm", "topics"):
            return try Self.encoded(
                state.fcmTokens.topics(project: request.query["project"].map(FCMProjectID.init)).mapValues { $0.sorted() })
        case "POST" where request.matches("POST", "fcm", "access-tokens", "revoke"):
            let count = state.accessTokens.count
            state.accessTokens.revokeAll()
            return Self.json(status: 200, ["revoked": JSONValue(count)])
        default:
            return nil
        }
    }

    static func fcmToken(_ text: String) throws -> FCMRegistrationToken {
        guard FCMRegistrationToken.isWellFormed(text) else {
            throw ControlAPIError(400, "\(text) is not a well-formed FCM registration token")
        }
        return FCMRegistrationToken(text)
    }

    /// A token shaped like the ones FCM issues: an 11-character instance id, `:APA91b`, and
    /// 134 URL-safe base64 characters.
    static func randomFCMToken() -> FCMRegistrationToken {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        func characters(_ count: Int) -> String {
            String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        }
        return FCMRegistrationToken(characters(11) + ":APA91b" + characters(134))
    }
}
