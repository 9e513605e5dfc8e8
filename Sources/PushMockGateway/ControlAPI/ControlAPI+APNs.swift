import Foundation
@_spi(Locking) import PushMockCore
import PushMockJSON
import Synchronization

/// `/_pushmock/apns/…`: keys, teams, device tokens and their lifecycle, client-certificate CAs.
extension ControlAPI {
    func apnsRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let segments = request.segments
        let body = request.body
        switch request.method {
        case "GET" where request.matches("GET", "apns", "keys"):
            return try Self.encoded(state.apnsKeys.keys.map(APNsKeyDefinition.init))
        case "POST" where request.matches("POST", "apns", "keys"):
            let definitions: [APNsKeyDefinition] = try Self.decodeOneOrMany(body)
            try state.apnsKeys.register(definitions.map { try $0.makeRecord() }, limit: state.registryLimits.apnsKeys)
            return try Self.encoded(definitions.map(\.keyId), status: 201, key: "registered")
        case "DELETE" where request.matches("DELETE", "apns", "keys", "*"):
            let keyID = segments[2]
            guard state.apnsKeys.remove(keyID: keyID) else { throw ControlAPIError(404, "no key \(keyID)") }
            return Self.json(status: 200, ["removed": JSONValue(keyID)])
        case "GET" where request.matches("GET", "apns", "teams"):
            let teams = state.apnsKeys.teams.map { APNsTeamDefinition(teamId: $0.key, bundleIds: $0.value.sorted()) }
            return try Self.encoded(teams.sorted { $0.teamId < $1.teamId })
        case "POST" where request.matches("POST", "apns", "teams"):
            let teams: [APNsTeamDefinition] = try Self.decodeOneOrMany(body)
            try state.apnsKeys.setBundleIDs(teams.map { try $0.validated() }, limit: state.registryLimits.apnsTeams)
            return try Self.encoded(teams.map(\.teamId), status: 201, key: "registered")
        case "GET" where request.matches("GET", "apns", "tokens"):
            return try Self.encoded(state.devices.all.map(APNsDeviceDefinition.init))
        case "POST" where request.matches("POST", "apns", "tokens"):
            let definitions: [APNsDeviceDefinition] = try Self.decodeOneOrMany(body)
            let now = state.clock.now()
            let records = try definitions.map { try $0.makeRecord(now: now) }
            try state.devices.register(records, limit: state.registryLimits.apnsDeviceTokens)
            return try Self.encoded(records.map(APNsDeviceDefinition.init), status: 201)
        case "GET" where request.matches("GET", "apns", "tokens", "*"):
            let token = segments[2]
            guard let record = state.devices.lookup(APNsDeviceToken(token)) else { throw ControlAPIError(404, "no token \(token)") }
            return try Self.encoded(APNsDeviceDefinition(record))
        case "PATCH" where request.matches("PATCH", "apns", "tokens", "*"),
            "POST" where request.matches("POST", "apns", "tokens", "*"):
            let token = try Self.apnsToken(segments[2])
            let patch = body.isEmpty ? APNsTokenPatch() : try Self.decodeDefinition(APNsTokenPatch.self, from: body)
            let now = state.clock.now()
            try state.devices.checkRoom(for: [token], limit: state.registryLimits.apnsDeviceTokens)
            let record = try state.devices.update(token) { try patch.apply(to: &$0, now: now) }
            return try Self.encoded(APNsDeviceDefinition(record))
        case "POST" where request.matches("POST", "apns", "tokens", "*", "rotate"):
            let token = try Self.apnsToken(segments[2])
            let rotation = body.isEmpty ? TokenRotation() : try JSONDecoder().decode(TokenRotation.self, from: Data(body))
            let newToken = try rotation.newToken.map(Self.apnsToken) ?? Self.randomAPNsToken()
            try state.devices.checkRoom(for: [token, newToken], limit: state.registryLimits.apnsDeviceTokens)
            let (old, new) = state.devices.rotate(token, to: newToken, at: rotation.at?.timestamp ?? state.clock.now())
            return try Self.encoded(["old": APNsDeviceDefinition(old), "new": APNsDeviceDefinition(new)], status: 201)
        case "DELETE" where request.matches("DELETE", "apns", "tokens", "*"):
            let token = segments[2]
            guard state.devices.remove(APNsDeviceToken(token)) else { throw ControlAPIError(404, "no token \(token)") }
            return Self.json(status: 200, ["removed": JSONValue(token)])
        case "POST" where request.matches("POST", "apns", "certificate-authorities"):
            let upload = try JSONDecoder().decode(CertificateAuthorityUpload.self, from: Data(body))
            let limit = state.registryLimits.clientCertificateAuthorities
            try state.addedClientCertificateAuthorities.withLock { added throws(RegistryFull) in
                try RegistryFull.check(count: added.count, adding: 1, limit: limit, registry: .clientCertificateAuthorities)
                added.append(upload.pem)
            }
            do {
                try onCertificateAuthoritiesChanged()
            } catch {
                state.addedClientCertificateAuthorities.withLock { _ = $0.popLast() }
                throw ControlAPIError(400, "cannot use that certificate: \(error)")
            }
            return Self.json(status: 201, ["registered": .bool(true)])
        default:
            return nil
        }
    }

    static func apnsToken(_ text: String) throws -> APNsDeviceToken {
        guard APNsDeviceTokenFormat.variable.accepts(text.utf8) else {
            throw ControlAPIError(400, "\(text) is not an APNs device token (an even-length hex string)")
        }
        return APNsDeviceToken(text)
    }

    /// A new 32-byte token, as iOS issues them.
    static func randomAPNsToken() -> APNsDeviceToken {
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
        return APNsDeviceToken(hex)
    }

    private struct CertificateAuthorityUpload: Decodable {
        var pem: String
    }
}

/// `POST …/tokens/{token}/rotate`: the replacement (generated if absent) and when the old
/// token dies (default now).
struct TokenRotation: Decodable {
    var newToken: String?
    var at: FlexibleTimestamp?
    /// FCM and Expo: the project an unknown old token belongs to (default: the sample project).
    var project: String?
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
