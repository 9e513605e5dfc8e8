@_spi(Locking) package import PushMockCore

/// An OAuth2 access token the mock issued.
package struct AccessTokenGrant: Sendable, Hashable {
    /// The token (`ya29.c.…`).
    package var token: String
    /// The service account it was issued to.
    package var clientEmail: String
    /// Its project.
    package var projectID: String
    /// Its project number, if known.
    package var projectNumber: String?
    /// The scopes the assertion asked for.
    package var scopes: [String]
    package var issuedAt: Timestamp
    package var expiresAt: Timestamp

    /// Whether the token may call FCM: Google accepts `cloud-platform` and `firebase.messaging`
    /// (the Admin SDKs ask for `cloud-platform` among others).
    package var allowsFCM: Bool {
        scopes.contains {
            $0 == "https://www.googleapis.com/auth/cloud-platform" || $0 == "https://www.googleapis.com/auth/firebase.messaging"
        }
    }

    package func owns(project: FCMProjectID) -> Bool {
        project.rawValue == projectID || (projectNumber.map { $0 == project.rawValue } ?? false)
    }
}

/// Issued access tokens. Tokens expire on the gateway clock, so a virtual clock can make an
/// SDK's refresh-on-401 path run without waiting an hour.
///
/// At most ``capacity`` are kept (a token flood cannot grow memory): beyond it expired tokens
/// go first, then the oldest issued. A sender whose token was forgotten gets 401 and fetches
/// a new one, as after a revocation.
package final class AccessTokenStore: Sendable {
    private struct Grants {
        var byToken: [String: AccessTokenGrant] = [:]
        /// Tokens in the order they were issued, from `head` on (for forgetting the oldest).
        var order: [String] = []
        var head = 0
    }

    private let grants = SanitizerVisibleMutex(Grants())
    /// The most tokens kept.
    package let capacity: Int

    package init(capacity: Int = RegistryLimits.defaults.accessTokens) {
        self.capacity = max(1, capacity)
    }

    /// Issues a token: `ya29.c.` followed by 150 random URL-safe characters, opaque like Google's.
    package func issue(
        clientEmail: String,
        projectID: String,
        projectNumber: String?,
        scopes: [String],
        now: Timestamp,
        lifetime: Duration
    ) -> AccessTokenGrant {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var bytes = Array("ya29.c.".utf8)
        for _ in 0..<150 {
            bytes.append(alphabet[Int(random.next() % UInt64(alphabet.count))])
        }
        let grant = AccessTokenGrant(
            token: String(decoding: bytes, as: UTF8.self),
            clientEmail: clientEmail,
            projectID: projectID,
            projectNumber: projectNumber,
            scopes: scopes,
            issuedAt: now,
            expiresAt: now + lifetime
        )
        let capacity = self.capacity
        grants.withLock { grants in
            grants.byToken[grant.token] = grant
            grants.order.append(grant.token)
            guard grants.byToken.count > capacity else { return }
            // Expired tokens first, then the oldest issued, down to 90 % so the passes over the
            // table happen once per tenth of the capacity, not on every token.
            let target = capacity - capacity / 10
            grants.byToken = grants.byToken.filter { $0.value.expiresAt > now }
            while grants.byToken.count > target, grants.head < grants.order.count {
                grants.byToken[grants.order[grants.head]] = nil
                grants.head += 1
            }
            let byToken = grants.byToken
            grants.order = grants.order[grants.head...].filter { byToken[$0] != nil }
            grants.head = 0
        }
        return grant
    }

    /// The grant of a token that exists and has not expired at `now`.
    package func validGrant(_ token: String, now: Timestamp) -> AccessTokenGrant? {
        grants.withLock { $0.byToken[token] }.flatMap { $0.expiresAt > now ? $0 : nil }
    }

    /// The grant of a token whether or not it expired (for the recording).
    package func grant(_ token: String) -> AccessTokenGrant? {
        grants.withLock { $0.byToken[token] }
    }

    /// Revokes every token (tests: force a refresh).
    package func revokeAll() {
        grants.withLock { $0 = Grants() }
    }

    /// Number of tokens kept.
    package var count: Int { grants.withLock { $0.byToken.count } }
}
