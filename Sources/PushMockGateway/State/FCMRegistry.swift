@_spi(Locking) package import PushMockCore

/// What the gateway knows about one FCM registration token (or Firebase installation ID).
package struct FCMTokenRecord: Sendable, Hashable, Codable {
    /// The platform the app instance runs on; iOS tokens are delivered through APNs by FCM.
    package enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
        case android
        case ios
        case web
    }

    /// Lifecycle state.
    package enum State: Sendable, Hashable, Codable {
        /// Receives messages.
        case active
        /// The app instance unregistered (uninstall, token refresh): sends answer 404
        /// `UNREGISTERED` from `at` on.
        case unregistered(at: Timestamp)
        /// Not a valid token (never issued, or corrupted): 400 `INVALID_ARGUMENT`.
        case invalid
    }

    /// An APNs answer FCM relays for an iOS token (simulated APNs side).
    package struct APNsFailure: Sendable, Hashable, Codable {
        package var status: Int
        package var reason: String

        package init(status: Int, reason: String) {
            self.status = status
            self.reason = reason
        }
    }

    package var token: FCMRegistrationToken
    /// The project (sender) the token was issued for.
    package var project: FCMProjectID
    package var platform: Platform
    package var state: State
    /// Topics the token is subscribed to.
    package var topics: Set<String>
    /// When each subscription of ``topics`` was made through IID or FCM's topic-subscription
    /// API (the `createTime` that API answers); topics given in a definition have none.
    package var subscribedAt: [String: Timestamp] = [:]
    /// For iOS tokens: what APNs answers when FCM forwards a message (e.g. 410 Unregistered,
    /// 403 InvalidProviderToken), relayed as an `ApnsError` detail.
    package var apnsFailure: APNsFailure?
    /// Once this many messages were accepted for the token in total, it unregisters (404
    /// `UNREGISTERED` from then on), stamped with the time of the last one.
    package var expireAfterSends: Int?
    /// Messages accepted for this token so far.
    package var acceptedSends: Int
    /// The token that replaced this one (``FCMRegistry/rotate(_:to:project:at:)``).
    package var replacedBy: FCMRegistrationToken?

    package init(
        token: FCMRegistrationToken,
        project: FCMProjectID,
        platform: Platform = .android,
        state: State = .active,
        topics: Set<String> = [],
        apnsFailure: APNsFailure? = nil,
        expireAfterSends: Int? = nil,
        acceptedSends: Int = 0,
        replacedBy: FCMRegistrationToken? = nil
    ) {
        self.token = token
        self.project = project
        self.platform = platform
        self.state = state
        self.topics = topics
        self.apnsFailure = apnsFailure
        self.expireAfterSends = expireAfterSends
        self.acceptedSends = acceptedSends
        self.replacedBy = replacedBy
    }

    /// Whether sends reach the token at `now`.
    package func isActive(at now: Timestamp) -> Bool {
        switch state {
        case .active: return true
        case .unregistered(let at): return at > now
        case .invalid: return false
        }
    }
}

/// FCM registration tokens and their topic subscriptions. Shared by all connections.
package final class FCMRegistry: Sendable {
    private let tokens = SanitizerVisibleMutex<[FCMRegistrationToken: FCMTokenRecord]>([:])

    /// Google's limit on topics per app instance.
    package static let maximumTopicsPerToken = 2000

    package init() {}

    /// Adds or replaces `records`, all or none: refused when the tokens not yet known would take
    /// the registry past `limit` (control API).
    package func register(_ records: [FCMTokenRecord], limit: Int) throws(RegistryFull) {
        try tokens.withLock { tokens throws(RegistryFull) in
            try RegistryFull.insert(records, into: &tokens, key: \.token, limit: limit, registry: Self.registryName)
        }
    }

    /// Throws unless the `tokens` not yet known fit under `limit`.
    package func checkRoom(for newTokens: [FCMRegistrationToken], limit: Int) throws(RegistryFull) {
        try tokens.withLock { tokens throws(RegistryFull) in
            try RegistryFull.check(tokens, adding: newTokens, limit: limit, registry: Self.registryName)
        }
    }

    static let registryName = RegistryName.fcmTokens

    package func register(_ record: FCMTokenRecord) {
        tokens.withLock { $0[record.token] = record }
    }

    package func lookup(_ token: FCMRegistrationToken) -> FCMTokenRecord? {
        tokens.withLock { $0[token] }
    }

    @discardableResult
    package func remove(_ token: FCMRegistrationToken) -> Bool {
        tokens.withLock { $0.removeValue(forKey: token) != nil }
    }

    /// Counts one accepted message, atomically with a last look at the token's state; returns
    /// `false` if the token stopped being active meanwhile. Unknown tokens are not counted.
    package func admitSend(to token: FCMRegistrationToken, now: Timestamp) -> Bool {
        tokens.withLock { tokens in
            guard var record = tokens[token] else { return true }
            guard record.isActive(at: now) else { return false }
            record.acceptedSends.addSaturating(1)
            if let limit = record.expireAfterSends, record.acceptedSends >= limit, case .active = record.state {
                record.state = .unregistered(at: now)
            }
            tokens[token] = record
            return true
        }
    }

    /// Replaces `token` with `newToken` at `now` (token refresh or reinstall): the old one
    /// answers `UNREGISTERED` from then on; the new one is active for the same project and
    /// platform with the same topic subscriptions. Unknown old tokens are registered first for
    /// `project`. A token already replaced rotates the newest token of its chain
    /// (``RotationChain``); `old` is the record that was replaced.
    package func rotate(_ token: FCMRegistrationToken, to newToken: FCMRegistrationToken, project: FCMProjectID, at now: Timestamp) -> (
        old: FCMTokenRecord, new: FCMTokenRecord
    ) {
        tokens.withLock { tokens in
            let token = RotationChain.newest(from: token) { tokens[$0]?.replacedBy }
            var old = tokens[token] ?? FCMTokenRecord(token: token, project: project)
            if token == newToken, let previous = tokens.values.first(where: { $0.replacedBy == token }) {
                return (previous, old)
            }
            var new = FCMTokenRecord(
                token: newToken, project: old.project, platform: old.platform, topics: old.topics, apnsFailure: old.apnsFailure)
            new.subscribedAt = old.subscribedAt
            if case .active = old.state { old.state = .unregistered(at: now) }
            old.replacedBy = newToken
            tokens[token] = old
            tokens[newToken] = new
            return (old, new)
        }
    }

    /// Applies `change` to a token's record (creating it for `project` if unknown).
    package func update(_ token: FCMRegistrationToken, project: FCMProjectID, _ change: (inout FCMTokenRecord) throws -> Void) rethrows
        -> FCMTokenRecord
    {
        try tokens.withLock { tokens in
            var record = tokens[token] ?? FCMTokenRecord(token: token, project: project)
            try change(&record)
            tokens[token] = record
            return record
        }
    }

    package var all: [FCMTokenRecord] {
        tokens.withLock { Array($0.values) }.sorted { $0.token < $1.token }
    }

    package func removeAll() {
        tokens.withLock { $0.removeAll() }
    }

    /// How many tokens are registered.
    package var count: Int { tokens.withLock { $0.count } }

    /// The result of a subscription change for one token, in IID's vocabulary.
    package enum SubscriptionResult: Sendable, Hashable {
        case ok
        case notFound
        case tooManyTopics
        case senderMismatch
        /// The token is unknown and the registry holds its maximum (`limit`).
        case registryFull
    }

    /// Subscribes (`subscribe == true`) or unsubscribes a token. Unknown tokens are created
    /// for `project` when `createUnknown` is set (zero-configuration use), else `notFound`.
    package func changeSubscription(
        token: FCMRegistrationToken,
        topic: String,
        subscribe: Bool,
        project: FCMProjectID,
        createUnknown: Bool,
        limit: Int = .max,
        now: Timestamp
    ) -> SubscriptionResult {
        tokens.withLock { tokens in
            var record: FCMTokenRecord
            if let existing = tokens[token] {
                record = existing
            } else if createUnknown {
                guard tokens.count < limit else { return .registryFull }
                record = FCMTokenRecord(token: token, project: project)
            } else {
                return .notFound
            }
            guard record.project == project else { return .senderMismatch }
            guard record.isActive(at: now) else { return .notFound }
            if subscribe {
                if !record.topics.contains(topic) {
                    guard record.topics.count < Self.maximumTopicsPerToken else { return .tooManyTopics }
                    record.subscribedAt[topic] = now
                }
                record.topics.insert(topic)
            } else {
                record.topics.remove(topic)
                record.subscribedAt[topic] = nil
            }
            tokens[token] = record
            return .ok
        }
    }

    /// One call of FCM's topic-subscription API for one token and topic
    /// (`projects.registrations.topicSubscriptions`).
    package enum TopicSubscriptionRequest: Sendable, Hashable {
        case create
        case get
        /// Returns the subscription; creates it when missing only with `allowMissing`.
        case patch(allowMissing: Bool)
        /// Removes the subscription; a missing one is an error unless `allowMissing`.
        case delete(allowMissing: Bool)
    }

    /// What a ``TopicSubscriptionRequest`` came to.
    package enum TopicSubscriptionOutcome: Sendable, Hashable {
        /// The token is subscribed, since this time (now, when the request created it).
        case subscribed(since: Timestamp)
        /// `create` of a subscription that exists.
        case alreadyExists
        /// No such subscription (`get`; `patch` and `delete` without `allowMissing`).
        case subscriptionNotFound
        /// The subscription is gone (or, with `allowMissing`, never was).
        case deleted
        /// The token cannot take part: unknown with `createUnknown` off, no longer active,
        /// another project's, at its topic limit, or the registry is full.
        case refused(SubscriptionResult)
    }

    /// Carries out one topic-subscription call atomically. Unknown tokens are created for
    /// `project` by calls that subscribe when `createUnknown` is set (as IID does); reading or
    /// removing a subscription of an unknown token creates nothing.
    package func topicSubscription(
        _ request: TopicSubscriptionRequest,
        token: FCMRegistrationToken,
        topic: String,
        project: FCMProjectID,
        createUnknown: Bool,
        limit: Int = .max,
        now: Timestamp
    ) -> TopicSubscriptionOutcome {
        let creates: Bool
        switch request {
        case .create: creates = true
        case .patch(let allowMissing): creates = allowMissing
        case .get, .delete: creates = false
        }
        return tokens.withLock { tokens in
            var record: FCMTokenRecord
            if let existing = tokens[token] {
                record = existing
            } else {
                guard createUnknown else { return .refused(.notFound) }
                guard creates else {
                    if case .delete(allowMissing: true) = request { return .deleted }
                    return .subscriptionNotFound
                }
                guard tokens.count < limit else { return .refused(.registryFull) }
                record = FCMTokenRecord(token: token, project: project)
            }
            guard record.project == project else { return .refused(.senderMismatch) }
            guard record.isActive(at: now) else { return .refused(.notFound) }
            // A topic given in a definition has no time: it has been there since the start.
            let since = record.topics.contains(topic) ? record.subscribedAt[topic] ?? Timestamp(millisecondsSince1970: 0) : nil
            switch request {
            case .get:
                return since.map { .subscribed(since: $0) } ?? .subscriptionNotFound
            case .create:
                if since != nil { return .alreadyExists }
            case .patch(let allowMissing):
                if let since { return .subscribed(since: since) }
                if !allowMissing { return .subscriptionNotFound }
            case .delete(let allowMissing):
                guard since != nil else { return allowMissing ? .deleted : .subscriptionNotFound }
                record.topics.remove(topic)
                record.subscribedAt[topic] = nil
                tokens[token] = record
                return .deleted
            }
            guard record.topics.count < Self.maximumTopicsPerToken else { return .refused(.tooManyTopics) }
            record.topics.insert(topic)
            record.subscribedAt[topic] = now
            tokens[token] = record
            return .subscribed(since: now)
        }
    }

    /// A token's subscriptions by topic name, with their times (FCM's `topicSubscriptions.list`);
    /// an unknown token has none, unless unknown tokens are refused (`createUnknown` off).
    package func topicSubscriptions(
        of token: FCMRegistrationToken, project: FCMProjectID, createUnknown: Bool, now: Timestamp
    ) -> TopicSubscriptionList {
        tokens.withLock { tokens in
            guard let record = tokens[token] else { return createUnknown ? .subscriptions([]) : .refused(.notFound) }
            guard record.project == project else { return .refused(.senderMismatch) }
            guard record.isActive(at: now) else { return .refused(.notFound) }
            let sorted = record.topics.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return .subscriptions(sorted.map { ($0, record.subscribedAt[$0] ?? Timestamp(millisecondsSince1970: 0)) })
        }
    }

    /// A token's subscriptions, sorted by topic name, or why it has none to show.
    package enum TopicSubscriptionList: Sendable {
        case subscriptions([(topic: String, since: Timestamp)])
        case refused(SubscriptionResult)
    }

    /// Active tokens of `project` for which `reaches(topics)` holds, sorted (topic and
    /// condition sends).
    package func activeTokens(project: FCMProjectID, now: Timestamp, where reaches: (Set<String>) -> Bool) -> [FCMRegistrationToken] {
        tokens.withLock { tokens in
            tokens.values.filter { $0.project == project && $0.isActive(at: now) && reaches($0.topics) }.map(\.token)
        }.sorted()
    }

    /// Topic → subscribed tokens, for one project or all.
    package func topics(project: FCMProjectID? = nil) -> [String: [FCMRegistrationToken]] {
        var result: [String: [FCMRegistrationToken]] = [:]
        for record in all where project == nil || record.project == project {
            for topic in record.topics {
                result[topic, default: []].append(record.token)
            }
        }
        return result
    }
}
