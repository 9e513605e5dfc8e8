public import PushMockAuth
@_spi(Locking) public import PushMockCore

/// Mints and caches APNs provider tokens (ES256 JWTs) and decides, per connection, when a
/// connection moves on to a newer one.
///
/// Apple's rules: a token older than 60 minutes is rejected (`ExpiredProviderToken`), and a
/// connection whose token changes more often than every 20 minutes is answered
/// `TooManyProviderTokenUpdates`. So:
/// * one token is shared by all connections and re-minted when it is ``refreshInterval`` old
///   (50 minutes by default; allowed 20…59);
/// * a connection keeps its token until it is ``refreshInterval`` old **and** the connection
///   has used it for at least 20 minutes — then it adopts the shared token (re-minted first if
///   due);
/// * a new connection adopts the shared token only if it can keep it for 20 minutes before it
///   expires (it is at most 40 minutes old); otherwise a fresh one is minted.
///
/// Consequently consecutive tokens are at least 20 minutes apart by `iat`, and no connection
/// ever sees two token changes within 20 minutes. Time comes from the injected clock.
public final class ProviderTokenSource: Sendable {
    /// The token a connection currently sends.
    public struct ConnectionToken: Sendable, Hashable {
        /// The JWT.
        public var token: String
        /// Its `iat`.
        public var issuedAt: Timestamp
        /// When this connection started sending it.
        public var adoptedAt: Timestamp
        /// `bearer <JWT>`.
        var header: String
        /// Set after `ExpiredProviderToken`: take a new token at the next request.
        var mustRefresh = false
    }

    private struct Minted: Sendable {
        var token: String
        var issuedAt: Timestamp
        var header: String
    }

    /// The signing key.
    public let key: APNsSigningKey
    /// How old the shared token may get before it is replaced.
    public let refreshInterval: Duration
    /// Apple: a connection's token may change at most every 20 minutes.
    public static let minimumUpdateInterval: Duration = .seconds(20 * 60)
    /// Apple: tokens older than an hour are rejected.
    public static let maximumAge: Duration = .seconds(60 * 60)

    private let shared = SanitizerVisibleMutex<Minted?>(nil)
    private let minted = SanitizerVisibleMutex(0)

    /// - Throws: ``SenderError/Code/invalidConfiguration`` unless `refreshInterval` is within
    ///   20 minutes (inclusive) and 60 minutes (exclusive).
    public init(key: APNsSigningKey, refreshInterval: Duration = .seconds(50 * 60)) throws(SenderError) {
        guard refreshInterval >= Self.minimumUpdateInterval, refreshInterval < Self.maximumAge else {
            throw SenderError(
                .invalidConfiguration,
                "providerTokenRefreshInterval must be at least 20 and less than 60 minutes (was \(refreshInterval))"
            )
        }
        self.key = key
        self.refreshInterval = refreshInterval
    }

    /// How many tokens were minted so far.
    public var mintedCount: Int { minted.withLock { $0 } }

    /// The `authorization` value for the next request on a connection whose token state is
    /// `connection` (`nil` before its first request); updates that state.
    public func authorization(for connection: inout ConnectionToken?, now: Timestamp) throws(SenderError) -> String {
        if let current = connection, !current.mustRefresh {
            let age = now - current.issuedAt
            if age < refreshInterval {
                return current.header
            }
            // Due, but a connection may not switch tokens within 20 minutes of its last switch
            // (while the token is still valid).
            if now - current.adoptedAt < Self.minimumUpdateInterval, age < Self.maximumAge {
                return current.header
            }
        }
        let previous = connection
        let token: Minted = try shared.withLock { (shared: inout Minted?) throws(SenderError) -> Minted in
            if let candidate = shared, isUsable(candidate, replacing: previous, now: now) {
                return candidate
            }
            let fresh = try mint(now: now)
            shared = fresh
            return fresh
        }
        connection = ConnectionToken(token: token.token, issuedAt: token.issuedAt, adoptedAt: now, header: token.header)
        return token.header
    }

    /// After `ExpiredProviderToken` for `token`: forget it, and make the connection take a
    /// fresh one.
    public func invalidate(_ connection: inout ConnectionToken?) {
        guard let current = connection else { return }
        shared.withLock { shared in
            if shared?.token == current.token { shared = nil }
        }
        connection?.mustRefresh = true
    }

    private func isUsable(_ candidate: Minted, replacing previous: ConnectionToken?, now: Timestamp) -> Bool {
        let age = now - candidate.issuedAt
        guard age < refreshInterval, age <= Self.maximumAge - Self.minimumUpdateInterval, age >= .zero else { return false }
        if let previous {
            // Only ever move forward, and not to the token just found stale.
            return candidate.issuedAt > previous.issuedAt && candidate.token != previous.token
        }
        return true
    }

    private func mint(now: Timestamp) throws(SenderError) -> Minted {
        let token: String
        do {
            token = try key.makeProviderToken(issuedAt: now.secondsSince1970)
        } catch {
            throw SenderError(.invalidCredentials, "cannot sign a provider token with key \(key.keyID): \(error)", cause: error)
        }
        minted.withLock { $0 += 1 }
        return Minted(token: token, issuedAt: Timestamp(secondsSince1970: now.secondsSince1970), header: "bearer " + token)
    }
}
