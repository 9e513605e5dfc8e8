import Foundation
package import PushMockCore
import PushMockJSON
import PushMockSimulation

/// `/_pushmock/users…`: who owns which token, with time zone, locale and preferences, and the
/// app events a test posts for them (stamped with the gateway clock). The policy checks judge
/// each push against its recipient's user (`docs/users.md`).
///
/// | Method | Path | Body / answer |
/// |---|---|---|
/// | GET | /users | `{"users":[…],"events":[…]}`: everything, the form `--users` files take |
/// | POST | /users | a user or an array of them; adds or replaces by `id` (201 when all new, else 200) |
/// | DELETE | /users | forget every user and event |
/// | GET | /users/{id} | `{"user":…,"events":[…]}` |
/// | PUT | /users/{id} | replace (or add) that user; the body's `id` may be omitted |
/// | DELETE | /users/{id} | forget the user and its events |
/// | POST | /users/{id}/events | `{"name":"completeSetup","properties":{…}}` or an array; recorded at gateway-clock now |
/// | GET | /users/{id}/events | `{"events":[…]}` |
/// | POST | /users/{id}/permission | `{"permission":"denied"}`: on every device of the user's tokens |
extension ControlAPI {
    func userRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let users = state.users
        if request.matches("GET", "users") {
            return try Self.encoded(users.snapshot())
        }
        if request.matches("POST", "users") {
            let added: [PushUser] = try Self.decodeOneOrMany(request.body)
            var allNew = true
            for user in added {
                allNew = try put(user) && allNew
            }
            return try Self.encoded(added, status: allNew ? 201 : 200, key: "users")
        }
        if request.matches("DELETE", "users") {
            return Self.json(status: 200, ["removed": JSONValue(users.removeAll())])
        }
        guard request.segments.count >= 2 else { return nil }
        let id = request.segments[1]
        if request.segments.count == 2 {
            switch request.method {
            case "GET":
                guard let user = users.user(id) else { throw Self.unknownUser(id) }
                return try Self.encoded(UserReport(user: user, events: users.events(user: id)))
            case "PUT":
                guard !request.body.isEmpty else { throw ControlAPIError(400, "a JSON body is required: the user") }
                var body = try JSONValue(parsing: request.body)
                if case .object(var object) = body, object["id"] == nil {
                    object.members.insert((key: "id", value: .string(id)), at: 0)
                    body = .object(object)
                }
                let user = try JSONDecoder().decode(PushUser.self, from: Data(body.compactBytes))
                guard user.id == id else { throw ControlAPIError(400, "the body's id \"\(user.id)\" is not the path's \"\(id)\"") }
                let isNew = try put(user)
                return try Self.encoded(user, status: isNew ? 201 : 200)
            case "DELETE":
                guard users.remove(id) else { throw Self.unknownUser(id) }
                return Self.json(status: 200, ["removed": JSONValue(id)])
            default:
                return nil
            }
        }
        if request.matches("POST", "users", "*", "permission") {
            return try userPermission(id, body: request.body)
        }
        guard request.segments.count == 3, request.segments[2] == "events" else { return nil }
        switch request.method {
        case "GET":
            guard users.user(id) != nil else { throw Self.unknownUser(id) }
            return try Self.encoded(users.events(user: id), key: "events")
        case "POST":
            let posted: [EventPost] = try Self.decodeOneOrMany(request.body)
            let now = state.clock.now()
            var recorded: [AppEvent] = []
            for post in posted {
                guard !post.name.isEmpty else { throw ControlAPIError(400, "an event needs a non-empty name") }
                guard
                    let event = try users.post(
                        event: post.name, user: id, properties: post.properties, now: now, limit: state.registryLimits.appEvents)
                else {
                    throw Self.unknownUser(id)
                }
                recorded.append(event)
            }
            return try Self.encoded(recorded, status: 201, key: "events")
        default:
            return nil
        }
    }

    /// `POST /users/{id}/permission`: the user allows, quiets or turns off the app's
    /// notifications on every device they own (`docs/engagement.md`).
    private func userPermission(_ id: String, body: [UInt8]) throws -> HTTPResponseMessage {
        guard let user = state.users.user(id) else { throw Self.unknownUser(id) }
        guard !body.isEmpty else { throw ControlAPIError(400, "give the permission: {\"permission\": \"denied\"}") }
        let change = try JSONDecoder().decode(DeviceChange.self, from: Data(body))
        guard let permission = change.permission else {
            throw ControlAPIError(400, "give the permission: granted, provisional or denied")
        }
        let now = state.clock.now()
        let devices = try user.tokens.map { token in
            let address = try deviceAddress([token][...])
            return state.simulatedDevices.setPermission(permission, for: address, policy: state.storagePolicy(for: address), now: now)
        }
        return try Self.encoded(devices.map { DeviceReport($0, detailed: false) }, key: "devices")
    }

    private func put(_ user: PushUser) throws -> Bool {
        do {
            try UserDefinitionCheck.check(user)
        } catch {
            throw ControlAPIError(400, "user \"\(user.id)\": \(error)")
        }
        do {
            return try state.users.put(user, limit: state.registryLimits.users)
        } catch {
            switch error {
            case .tokenTaken(let taken): throw ControlAPIError(409, "token \(taken.token) already belongs to user \"\(taken.owner)\"")
            case .full(let full): throw full
            }
        }
    }

    private static func unknownUser(_ id: String) -> ControlAPIError {
        ControlAPIError(404, "no user \"\(id)\"; add it with POST /_pushmock/users")
    }
}

/// The body of `POST /_pushmock/users/{id}/events`.
struct EventPost: Decodable {
    var name: String
    var properties: [String: String]?
}

/// `GET /_pushmock/users/{id}`.
struct UserReport: Encodable {
    var user: PushUser
    var events: [AppEvent]
}

/// What decoding a user cannot check without Foundation: its time zone.
package enum UserDefinitionCheck {
    package static func check(_ user: PushUser) throws(UserDefinitionError) {
        if let zone = user.timeZone, !isTimeZone(zone) {
            throw UserDefinitionError(
                "\"\(zone)\" is not a time zone (use an IANA identifier such as Europe/Oslo, or an offset such as +02:00, at most 18 hours)"
            )
        }
        if user.tokens.contains(where: \.isEmpty) { throw UserDefinitionError("a token cannot be empty") }
    }

    /// Every user of a directory given in place of the gateway's (a check's `users`, a users
    /// file), held to what `POST /_pushmock/users` holds each user to.
    package static func check(_ directory: UserDirectory) throws(UserDefinitionError) {
        // The gateway keeps one user per id; a file with two kept the last without a word.
        var seen = Set<String>()
        for (index, user) in directory.users.enumerated() where !seen.insert(user.id).inserted {
            throw UserDefinitionError("users[\(index)]: the id \"\(user.id)\" is used twice")
        }
        for (index, user) in directory.users.enumerated() {
            do {
                try check(user)
            } catch {
                throw UserDefinitionError("users[\(index)] (\"\(user.id)\"): \(error)")
            }
        }
    }

    /// An IANA identifier Foundation knows, or a `+HH:MM`/`-HHMM`/`+H` offset of at most 18
    /// hours: what the policy checker and the schedule can read (``TimeZoneText``).
    package static func isTimeZone(_ text: String) -> Bool {
        TimeZoneText.zone(named: text) != nil
    }
}
