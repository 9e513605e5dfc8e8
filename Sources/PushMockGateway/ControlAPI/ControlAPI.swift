import Foundation
import PushMockCore
import PushMockRecording
import PushMockSimulation
import Synchronization

/// The REST control API under `/_pushmock/` on every listener (HTTP/1.1 and HTTP/2, TLS and
/// cleartext). It is not part of Apple's or Google's API and is never recorded. Documented in
/// `docs/control-api.md`.
///
/// | Method | Path | |
/// |---|---|---|
/// | GET | /_pushmock/health | `{"status":"ok"}` |
/// | GET | /_pushmock/info | listeners, CA path, sample key, journal (like `--ready-file`) |
/// | GET | /_pushmock/recordings | newest first; `limit`, `after`, `platform`, `token`, `topic`, `status`, `reason` |
/// | GET | /_pushmock/recordings/{seq} | one record |
/// | DELETE | /_pushmock/recordings | clear the in-memory store |
/// | GET, POST | /_pushmock/apns/keys | list / register a key (``APNsKeyDefinition``) |
/// | DELETE | /_pushmock/apns/keys/{keyId} | forget a key |
/// | GET, POST | /_pushmock/apns/teams | list / declare a team's apps (``APNsTeamDefinition``) |
/// | GET, POST | /_pushmock/apns/tokens | list / register device tokens (one or an array of ``APNsDeviceDefinition``) |
/// | GET, DELETE | /_pushmock/apns/tokens/{token} | show / forget a token |
/// | POST | /_pushmock/apns/certificate-authorities | trust a client-certificate CA (`{"pem": …}`) for new connections |
/// | GET, POST | /_pushmock/fcm/service-accounts | list / trust a service account (Google's JSON or ``ServiceAccountDefinition``) |
/// | GET, POST | /_pushmock/fcm/tokens | list / register registration tokens (``FCMTokenDefinition``) |
/// | GET, DELETE | /_pushmock/fcm/tokens/{token} | show / forget a token |
/// | GET | /_pushmock/fcm/topics | topic → subscribed tokens (`project` filter) |
/// | POST | /_pushmock/fcm/access-tokens/revoke | forget every issued access token (SDKs then refresh) |
/// | GET, POST, DELETE | /_pushmock/faults | list (with match/fire counts) / add one or many ``FaultRule``s / remove all |
/// | DELETE | /_pushmock/faults/{id} | remove one rule |
/// | GET | /_pushmock/faults/presets | the presets |
/// | POST | /_pushmock/faults/presets/{name} | add a preset's rules (body: its parameters) |
struct ControlAPI: Sendable {
    let state: GatewayState
    /// Called after a CA was added so the TLS listener can rebuild its context.
    let onCertificateAuthoritiesChanged: @Sendable () throws -> Void

    func handle(_ request: HTTPRequestMessage) -> HTTPReply {
        let path = request.pathWithoutQuery.dropFirst(GatewayRoute.controlPrefix.count)
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let query = Self.parseQuery(request.query)
        do {
            return .respond(try route(request.method, segments, query: query, body: request.body))
        } catch let error as ControlAPIError {
            return .respond(Self.json(status: error.status, ["error": error.message]))
        } catch let error as DefinitionError {
            return .respond(Self.json(status: 400, ["error": error.description]))
        } catch let error as DecodingError {
            return .respond(Self.json(status: 400, ["error": ConfigurationFile.describe(error)]))
        } catch {
            return .respond(Self.json(status: 500, ["error": "\(error)"]))
        }
    }

    private func route(_ method: String, _ segments: [String], query: [String: String], body: [UInt8]) throws -> HTTPResponseMessage {
        switch (method, segments) {
        case ("GET", ["health"]):
            return Self.json(status: 200, ["status": "ok"])
        case ("GET", ["info"]):
            guard let info = state.serverInfo.withLock({ $0 }) else {
                throw ControlAPIError(503, "the gateway is still starting")
            }
            return try Self.encoded(info)
        case ("GET", ["recordings"]):
            return try listRecordings(query: query)
        case ("DELETE", ["recordings"]):
            let count = state.recordings.count
            state.recordings.clear()
            return Self.json(status: 200, ["cleared": count])
        case ("GET", _) where segments.count == 2 && segments[0] == "recordings":
            let sequence = segments[1]
            guard let number = UInt64(sequence),
                let entry = state.recordings.entries(matching: { _ in true }, newestFirst: false, limit: 1, after: number &- 1).first,
                entry.sequence == number
            else {
                throw ControlAPIError(404, "no recording with sequence \(sequence)")
            }
            return Self.rawJSON(status: 200, Array(entry.line))
        case ("GET", ["apns", "keys"]):
            return try Self.encoded(state.apnsKeys.keys.map(APNsKeyDefinition.init))
        case ("POST", ["apns", "keys"]):
            let definitions: [APNsKeyDefinition] = try Self.decodeOneOrMany(body)
            for definition in definitions {
                state.apnsKeys.register(try definition.makeRecord())
            }
            return try Self.encoded(definitions.map(\.keyId), status: 201, key: "registered")
        case ("DELETE", _) where segments.count == 3 && segments[0] == "apns" && segments[1] == "keys":
            let keyID = segments[2]
            guard state.apnsKeys.remove(keyID: keyID) else { throw ControlAPIError(404, "no key \(keyID)") }
            return Self.json(status: 200, ["removed": keyID])
        case ("GET", ["apns", "teams"]):
            let teams = state.apnsKeys.teams.map { APNsTeamDefinition(teamId: $0.key, bundleIds: $0.value.sorted()) }
            return try Self.encoded(teams.sorted { $0.teamId < $1.teamId })
        case ("POST", ["apns", "teams"]):
            let teams: [APNsTeamDefinition] = try Self.decodeOneOrMany(body)
            for team in teams {
                state.apnsKeys.setBundleIDs(Set(team.bundleIds), forTeam: team.teamId)
            }
            return try Self.encoded(teams.map(\.teamId), status: 201, key: "registered")
        case ("GET", ["apns", "tokens"]):
            return try Self.encoded(state.devices.all.map(APNsDeviceDefinition.init))
        case ("POST", ["apns", "tokens"]):
            let definitions: [APNsDeviceDefinition] = try Self.decodeOneOrMany(body)
            let now = state.clock.now()
            let records = try definitions.map { try $0.makeRecord(now: now) }
            records.forEach(state.devices.register)
            return try Self.encoded(records.map(APNsDeviceDefinition.init), status: 201)
        case ("GET", _) where segments.count == 3 && segments[0] == "apns" && segments[1] == "tokens":
            let token = segments[2]
            guard let record = state.devices.lookup(token) else { throw ControlAPIError(404, "no token \(token)") }
            return try Self.encoded(APNsDeviceDefinition(record))
        case ("DELETE", _) where segments.count == 3 && segments[0] == "apns" && segments[1] == "tokens":
            let token = segments[2]
            guard state.devices.remove(token) else { throw ControlAPIError(404, "no token \(token)") }
            return Self.json(status: 200, ["removed": token])
        case ("POST", ["apns", "certificate-authorities"]):
            let upload = try JSONDecoder().decode(CertificateAuthorityUpload.self, from: Data(body))
            state.addedClientCertificateAuthorities.withLock { $0.append(upload.pem) }
            do {
                try onCertificateAuthoritiesChanged()
            } catch {
                state.addedClientCertificateAuthorities.withLock { _ = $0.popLast() }
                throw ControlAPIError(400, "cannot use that certificate: \(error)")
            }
            return Self.json(status: 201, ["registered": true])
        case ("GET", ["fcm", "service-accounts"]):
            return try Self.encoded(state.serviceAccounts.all.map(ServiceAccountDefinition.init))
        case ("POST", ["fcm", "service-accounts"]):
            let data = Data(body)
            let record: ServiceAccountRecord
            if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["client_email"] != nil {
                record = try ServiceAccountDefinition.record(fromGoogleJSON: data)
            } else {
                record = try JSONDecoder().decode(ServiceAccountDefinition.self, from: data).makeRecord()
            }
            state.serviceAccounts.register(record)
            return try Self.encoded([record.clientEmail], status: 201, key: "registered")
        case ("GET", ["fcm", "tokens"]):
            return try Self.encoded(state.fcmTokens.all.map(FCMTokenDefinition.init))
        case ("POST", ["fcm", "tokens"]):
            let definitions: [FCMTokenDefinition] = try Self.decodeOneOrMany(body)
            let now = state.clock.now()
            let records = try definitions.map { try $0.makeRecord(now: now, defaultProject: state.fcmOptions.sampleProjectID) }
            records.forEach(state.fcmTokens.register)
            return try Self.encoded(records.map(FCMTokenDefinition.init), status: 201)
        case ("GET", _) where segments.count == 3 && segments[0] == "fcm" && segments[1] == "tokens":
            guard let record = state.fcmTokens.lookup(segments[2]) else { throw ControlAPIError(404, "no FCM token \(segments[2])") }
            return try Self.encoded(FCMTokenDefinition(record))
        case ("DELETE", _) where segments.count == 3 && segments[0] == "fcm" && segments[1] == "tokens":
            guard state.fcmTokens.remove(segments[2]) else { throw ControlAPIError(404, "no FCM token \(segments[2])") }
            return Self.json(status: 200, ["removed": segments[2]])
        case ("GET", ["fcm", "topics"]):
            return try Self.encoded(state.fcmTokens.topics(project: query["project"]).mapValues { $0.sorted() })
        case ("POST", ["fcm", "access-tokens", "revoke"]):
            let count = state.accessTokens.count
            state.accessTokens.revokeAll()
            return Self.json(status: 200, ["revoked": count])
        case ("GET", ["faults"]):
            return try Self.encoded(state.faults.rules.map { FaultRuleStatus(rule: $0.rule, matches: $0.matches, fired: $0.fired) })
        case ("POST", ["faults"]):
            let rules: [FaultRule] = try Self.decodeOneOrMany(body)
            let now = state.clock.now()
            var added: [FaultRule] = []
            for rule in rules {
                do {
                    added.append(try state.faults.add(rule, now: now))
                } catch {
                    throw ControlAPIError(400, "fault rule: \(error)")
                }
            }
            return try Self.encoded(added, status: 201)
        case ("DELETE", ["faults"]):
            let count = state.faults.rules.count
            state.faults.removeAll()
            return Self.json(status: 200, ["removed": count])
        case ("GET", ["faults", "presets"]):
            return try Self.encoded(Dictionary(uniqueKeysWithValues: FaultPreset.allCases.map { ($0.rawValue, $0.summary) }))
        case ("POST", _) where segments.count == 3 && segments[0] == "faults" && segments[1] == "presets":
            guard let preset = FaultPreset(rawValue: segments[2]) else {
                throw ControlAPIError(404, "no preset \(segments[2]); try \(FaultPreset.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let parameters = body.isEmpty ? FaultPreset.Parameters() : try JSONDecoder().decode(FaultPreset.Parameters.self, from: Data(body))
            let now = state.clock.now()
            var added: [FaultRule] = []
            do {
                for rule in try preset.rules(parameters) {
                    added.append(try state.faults.add(rule, now: now))
                }
            } catch {
                throw ControlAPIError(400, "preset \(preset.rawValue): \(error)")
            }
            return try Self.encoded(added, status: 201)
        case ("DELETE", _) where segments.count == 2 && segments[0] == "faults":
            guard state.faults.remove(id: segments[1]) else { throw ControlAPIError(404, "no fault rule \(segments[1])") }
            return Self.json(status: 200, ["removed": segments[1]])
        default:
            if Self.knownPaths.contains(segments.first ?? "") {
                throw ControlAPIError(405, "\(method) is not supported on /_pushmock/\(segments.joined(separator: "/"))")
            }
            throw ControlAPIError(404, "no control endpoint /_pushmock/\(segments.joined(separator: "/")); see docs/control-api.md")
        }
    }

    private static let knownPaths: Set<String> = ["health", "info", "recordings", "apns", "fcm", "faults"]

    private struct CertificateAuthorityUpload: Decodable {
        var pem: String
    }

    private func listRecordings(query: [String: String]) throws -> HTTPResponseMessage {
        let limit = try query["limit"].map { value -> Int in
            guard let number = Int(value), number > 0 else { throw ControlAPIError(400, "limit must be a positive integer") }
            return number
        } ?? 100
        let after = try query["after"].map { value -> UInt64 in
            guard let number = UInt64(value) else { throw ControlAPIError(400, "after must be a sequence number") }
            return number
        }
        let status = try query["status"].map { value -> Int in
            guard let number = Int(value) else { throw ControlAPIError(400, "status must be a number") }
            return number
        }
        let platform = query["platform"]
        let token = query["token"]?.lowercased()
        let topic = query["topic"]
        let reason = query["reason"]
        let records = state.recordings.entries(
            matching: { summary in
                if let platform, summary.platform != platform { return false }
                if let token, summary.token?.lowercased() != token { return false }
                if let topic, summary.topic != topic { return false }
                if let status, summary.status != status { return false }
                if let reason, summary.reason != reason { return false }
                return true
            },
            newestFirst: true,
            limit: limit,
            after: after
        )
        // The stored lines are the journal's JSON objects: embed them as they are.
        var bytes: [UInt8] = Array(#"{"records":["#.utf8)
        for (index, entry) in records.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: entry.line)
        }
        bytes.append(contentsOf: #"],"count":\#(records.count),"total":\#(state.recordings.count)}"#.utf8)
        return Self.rawJSON(status: 200, bytes)
    }

    // MARK: JSON helpers

    static func json(status: Int, _ object: [String: Any]) -> HTTPResponseMessage {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return rawJSON(status: status, Array(data))
    }

    static func encoded(_ value: some Encodable, status: Int = 200, key: String? = nil) throws -> HTTPResponseMessage {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var data = try encoder.encode(value)
        if let key {
            data = Data(#"{"\#(key)":"#.utf8) + data + Data("}".utf8)
        }
        return rawJSON(status: status, Array(data))
    }

    static func rawJSON(status: Int, _ bytes: [UInt8]) -> HTTPResponseMessage {
        var headers = HTTPHeaderList()
        headers.append(name: "content-type", value: "application/json")
        return HTTPResponseMessage(status: status, headers: headers, body: bytes)
    }

    static func decodeOneOrMany<T: Decodable>(_ body: [UInt8]) throws -> [T] {
        guard !body.isEmpty else { throw ControlAPIError(400, "a JSON body is required") }
        let data = Data(body)
        if let many = try? JSONDecoder().decode([T].self, from: data) {
            return many
        }
        return [try JSONDecoder().decode(T.self, from: data)]
    }

    static func parseQuery(_ query: Substring?) -> [String: String] {
        guard let query else { return [:] }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let rawValue = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ") : ""
            result[name] = rawValue.removingPercentEncoding ?? rawValue
        }
        return result
    }
}

/// A control API failure with its status.
struct ControlAPIError: Error {
    var status: Int
    var message: String

    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// A rule with its counters, as `GET /_pushmock/faults` lists it.
struct FaultRuleStatus: Encodable {
    var rule: FaultRule
    var matches: Int
    var fired: Int
}
