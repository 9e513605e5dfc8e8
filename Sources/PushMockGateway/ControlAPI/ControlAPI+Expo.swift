import Foundation
import PushMockCore
import PushMockJSON

/// `/_pushmock/expo/…`: Expo push tokens and their lifecycle, projects (access tokens).
extension ControlAPI {
    func expoRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let segments = request.segments
        let body = request.body
        let registry = state.expoTokens
        switch request.method {
        case "GET" where request.matches("GET", "expo", "tokens"):
            let project = request.query["project"].map(ExpoProjectName.init)
            return try Self.encoded(registry.all.filter { project == nil || $0.project == project }.map(ExpoTokenDefinition.init))
        case "POST" where request.matches("POST", "expo", "tokens"):
            let definitions: [ExpoTokenDefinition] = try Self.decodeOneOrMany(body)
            let now = state.clock.now()
            let records = try definitions.map { try $0.makeRecord(now: now) }
            try registry.register(records, limit: state.registryLimits.expoTokens)
            return try Self.encoded(records.map(ExpoTokenDefinition.init), status: 201)
        case "GET" where request.matches("GET", "expo", "tokens", "*"):
            guard let record = registry.lookup(ExpoTokenID(segments[2])) else { throw ControlAPIError(404, "no Expo token \(segments[2])") }
            return try Self.encoded(ExpoTokenDefinition(record))
        case "PATCH" where request.matches("PATCH", "expo", "tokens", "*"),
            "POST" where request.matches("POST", "expo", "tokens", "*"):
            let token = try ExpoTokenDefinition.checkToken(segments[2])
            let patch = body.isEmpty ? ExpoTokenPatch() : try Self.decodeDefinition(ExpoTokenPatch.self, from: body)
            let now = state.clock.now()
            try registry.checkRoom(for: [token], limit: state.registryLimits.expoTokens)
            let record = try registry.update(token, project: ExpoProjectName(patch.project ?? ExpoTokenDefinition.defaultProject)) {
                try patch.apply(to: &$0, now: now)
            }
            return try Self.encoded(ExpoTokenDefinition(record))
        case "POST" where request.matches("POST", "expo", "tokens", "*", "rotate"):
            let token = try ExpoTokenDefinition.checkToken(segments[2])
            let rotation = body.isEmpty ? TokenRotation() : try JSONDecoder().decode(TokenRotation.self, from: Data(body))
            let newToken = try ExpoTokenDefinition.checkToken(rotation.newToken ?? Self.randomExpoToken())
            try registry.checkRoom(for: [token, newToken], limit: state.registryLimits.expoTokens)
            let (old, new) = registry.rotate(
                token,
                to: newToken,
                project: ExpoProjectName(rotation.project ?? ExpoTokenDefinition.defaultProject),
                at: rotation.at?.timestamp ?? state.clock.now()
            )
            return try Self.encoded(["old": ExpoTokenDefinition(old), "new": ExpoTokenDefinition(new)], status: 201)
        case "DELETE" where request.matches("DELETE", "expo", "tokens", "*"):
            guard registry.remove(ExpoTokenID(segments[2])) else { throw ControlAPIError(404, "no Expo token \(segments[2])") }
            return Self.json(status: 200, ["removed": JSONValue(segments[2])])
        case "GET" where request.matches("GET", "expo", "projects"):
            return try Self.encoded(registry.projects.map(ExpoProjectDefinition.init))
        case "POST" where request.matches("POST", "expo", "projects"):
            let definitions: [ExpoProjectDefinition] = try Self.decodeOneOrMany(body)
            let records = try definitions.map { try $0.makeRecord() }
            try registry.register(projects: records, limit: state.registryLimits.expoProjects)
            return try Self.encoded(records.map(ExpoProjectDefinition.init), status: 201)
        case "GET" where request.matches("GET", "expo", "projects", "*"):
            guard let record = registry.project(named: ExpoProjectName(segments[2])) else {
                throw ControlAPIError(404, "no Expo project \(segments[2])")
            }
            return try Self.encoded(ExpoProjectDefinition(record))
        case "DELETE" where request.matches("DELETE", "expo", "projects", "*"):
            guard registry.remove(project: ExpoProjectName(segments[2])) else {
                throw ControlAPIError(404, "no Expo project \(segments[2])")
            }
            return Self.json(status: 200, ["removed": JSONValue(segments[2])])
        default:
            return nil
        }
    }

    /// A token shaped like the ones Expo issues: `ExponentPushToken[` 22 URL-safe characters `]`.
    static func randomExpoToken() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        let identifier = String((0..<22).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        return "ExponentPushToken[\(identifier)]"
    }
}
