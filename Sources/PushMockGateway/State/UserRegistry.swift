@_spi(Locking) package import PushMockCore

/// The gateway's users (who owns which token, with time zone, locale and preferences) and the
/// app events tests post for them, stamped with the gateway clock. The policy checks read a
/// ``snapshot()``.
package final class UserRegistry: Sendable {
    private struct Storage {
        var users: [String: PushUser] = [:]
        /// Ids in the order users were first added, so listings are stable.
        var order: [String] = []
        /// Token key → user id.
        var owners: [String: String] = [:]
        var events: [AppEvent] = []
        var nextSequence: UInt64 = 1
    }

    private let storage = SanitizerVisibleMutex(Storage())

    package init(users: [PushUser] = []) {
        for user in users {
            _ = try? put(user)
        }
    }

    /// A token already belongs to another user.
    package struct TokenTaken: Error, Sendable {
        package var token: String
        package var owner: String
    }

    /// Adds `user`, or replaces the user with the same id (its tokens are released first).
    /// Returns whether the user is new.
    @discardableResult
    package func put(_ user: PushUser) throws(TokenTaken) -> Bool {
        do {
            return try put(user, limit: .max)
        } catch .tokenTaken(let taken) {
            throw taken
        } catch {
            preconditionFailure("no limit was given")
        }
    }

    /// Why ``put(_:limit:)`` refused a user.
    package enum PutError: Error, Sendable {
        case tokenTaken(TokenTaken)
        case full(RegistryFull)
    }

    /// ``put(_:)`` within `limit` users (control API): a new user beyond it is refused.
    @discardableResult
    package func put(_ user: PushUser, limit: Int) throws(PutError) -> Bool {
        try storage.withLock { (storage: inout Storage) throws(PutError) -> Bool in
            do throws(RegistryFull) {
                try RegistryFull.check(storage.users, adding: [user.id], limit: limit, registry: .users)
            } catch {
                throw .full(error)
            }
            for token in user.tokens {
                if let owner = storage.owners[UserDirectory.tokenKey(token)], owner != user.id {
                    throw .tokenTaken(TokenTaken(token: token, owner: owner))
                }
            }
            let isNew = storage.users[user.id] == nil
            if let old = storage.users[user.id] {
                for token in old.tokens { storage.owners[UserDirectory.tokenKey(token)] = nil }
            } else {
                storage.order.append(user.id)
            }
            storage.users[user.id] = user
            for token in user.tokens { storage.owners[UserDirectory.tokenKey(token)] = user.id }
            return isNew
        }
    }

    package func user(_ id: String) -> PushUser? {
        storage.withLock { $0.users[id] }
    }

    /// The owner of `token`, if any.
    package func owner(ofToken token: String) -> PushUser? {
        storage.withLock { storage in storage.owners[UserDirectory.tokenKey(token)].flatMap { storage.users[$0] } }
    }

    /// Forgets a user and its events; `false` when unknown.
    package func remove(_ id: String) -> Bool {
        storage.withLock { storage in
            guard let user = storage.users.removeValue(forKey: id) else { return false }
            for token in user.tokens { storage.owners[UserDirectory.tokenKey(token)] = nil }
            storage.order.removeAll { $0 == id }
            storage.events.removeAll { $0.user == id }
            return true
        }
    }

    /// Forgets every user and event; returns how many users there were.
    package func removeAll() -> Int {
        storage.withLock { storage in
            let count = storage.users.count
            storage = Storage()
            return count
        }
    }

    /// Records an app event for a known user at `now` (gateway clock); `nil` for an unknown user.
    package func post(event name: String, user: String, properties: [String: String]? = nil, now: Timestamp) -> AppEvent? {
        try? post(event: name, user: user, properties: properties, now: now, limit: .max)
    }

    /// ``post(event:user:properties:now:)`` within `limit` events in all (control API).
    package func post(
        event name: String, user: String, properties: [String: String]? = nil, now: Timestamp, limit: Int
    ) throws(RegistryFull) -> AppEvent? {
        try storage.withLock { storage throws(RegistryFull) -> AppEvent? in
            guard storage.users[user] != nil else { return nil }
            try RegistryFull.check(count: storage.events.count, adding: 1, limit: limit, registry: .appEvents)
            let event = AppEvent(
                user: user, name: name, timeMilliseconds: now.millisecondsSince1970, sequence: storage.nextSequence, properties: properties)
            storage.nextSequence += 1
            storage.events.append(event)
            return event
        }
    }

    /// The events of `user` (every user when `nil`), in arrival order.
    package func events(user: String? = nil) -> [AppEvent] {
        storage.withLock { storage in user.map { id in storage.events.filter { $0.user == id } } ?? storage.events }
    }

    /// Every user and event, as the checks and `GET /_pushmock/users` see them.
    package func snapshot() -> UserDirectory {
        storage.withLock { storage in
            UserDirectory(users: storage.order.compactMap { storage.users[$0] }, events: storage.events)
        }
    }
}
