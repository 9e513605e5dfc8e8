public import PushMockCore
import PushMockGateway

extension PushMockHarness {
    /// Adds (or replaces, by id) a user: its tokens, time zone, locale and preferences. The
    /// policy checks judge each push against its recipient's user.
    public func addUser(_ user: PushUser) throws {
        do {
            try UserDefinitionCheck.check(user)
            try state.users.put(user)
        } catch let error as UserRegistry.TokenTaken {
            throw UserDefinitionError("token \(error.token) already belongs to user \"\(error.owner)\"")
        }
    }

    /// The user with `id`, if any.
    public func user(_ id: String) -> PushUser? { state.users.user(id) }

    /// Forgets a user and its events; `false` when there was none.
    @discardableResult
    public func removeUser(_ id: String) -> Bool { state.users.remove(id) }

    /// Posts an app event for a known user (`app_entered_background`, `completeSetup`),
    /// stamped with the gateway clock's now.
    @discardableResult
    public func postEvent(_ name: String, user: String, properties: [String: String]? = nil) throws -> AppEvent {
        guard let event = state.users.post(event: name, user: user, properties: properties, now: state.clock.now()) else {
            throw UserDefinitionError("no user \"\(user)\"; add it with addUser(_:) first")
        }
        return event
    }

    /// Every user and event: what the policy checks read (and what `GET /_pushmock/users` gives).
    public var userDirectory: UserDirectory { state.users.snapshot() }
}
