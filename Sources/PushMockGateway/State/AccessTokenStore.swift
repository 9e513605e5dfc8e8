package import PushMockCore
import Synchronization

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
package final class AccessTokenStore: Sendable {
    private let grants = Mutex<[String: AccessTokenGrant]>([:])

    package init() {}

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
        grants.withLock { grants in
            // Forget long-expired tokens so a long run does not accumulate them.
            if grants.count > 10_000 {
                grants = grants.filter { $0.value.expiresAt > now }
            }
            grants[grant.token] = grant
        }
        return grant
    }

    /// The grant of a token that exists and has not expired at `now`.
    package func validGrant(_ token: String, now: Timestamp) -> AccessTokenGrant? {
        grants.withLock { $0[token] }.flatMap { $0.expiresAt > now ? $0 : nil }
    }

    /// The grant of a token whether or not it expired (for the recording).
    package func grant(_ token: String) -> AccessTokenGrant? {
        grants.withLock { $0[token] }
    }

    /// Revokes every token (tests: force a refresh).
    package func revokeAll() {
        grants.withLock { $0.removeAll() }
    }

    /// Number of tokens kept.
    package var count: Int { grants.withLock { $0.count } }
}
