import Foundation
import NIOSSL
import PushMockAuth
@_spi(Locking) public import PushMockCore
import PushMockJSON
import PushMockTransport

/// Gets and caches the OAuth2 access token FCM wants: a JWT-bearer assertion signed with the
/// service account's key, posted to its `token_uri` (RFC 7523), exchanged for
/// `{"access_token", "expires_in"}`.
///
/// The token is reused until it has less than the refresh margin left (then one refresh runs
/// in the background while requests keep using the old token), and dropped at once when FCM
/// answers 401. Concurrent callers share one fetch.
public final class AccessTokenProvider: Sendable {
    /// An access token and when it expires.
    public struct AccessToken: Sendable, Hashable {
        public var value: String
        public var expiresAt: Timestamp
        /// `Bearer <value>`.
        var header: String
    }

    private struct State {
        var current: AccessToken?
        var refresh: Task<AccessToken, any Error>?
        var fetches = 0
    }

    private let account: ServiceAccountJSON
    private let key: ServiceAccountKey
    private let tokenURI: String
    private let endpoint: SenderEndpoint
    private let path: String
    private let scopes: [String]
    private let tls: TLSConfiguration?
    private let clock: any PushMockClock
    private let margin: Duration
    private let retry: RetryPolicy
    private let jitter: JitterSource
    private let sleep: RetrySleep
    private let connection: ConnectionConfiguration
    private let state = SanitizerVisibleMutex(State())

    init(configuration: FCMSenderConfiguration, trustRoots: NIOSSLTrustRoots) throws(SenderError) {
        self.account = configuration.serviceAccount
        do {
            self.key = try configuration.serviceAccount.signingKey()
        } catch {
            throw SenderError(.invalidCredentials, "the service account's private_key is not an RSA key: \(error)", cause: error)
        }
        let tokenURI = configuration.tokenURI ?? configuration.serviceAccount.tokenURI
        self.tokenURI = tokenURI
        let endpoint = try SenderEndpoint(url: tokenURI)
        self.endpoint = endpoint
        self.path = endpoint.pathPrefix.isEmpty ? "/" : endpoint.pathPrefix
        self.scopes = configuration.scopes
        if endpoint.usesTLS {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.applicationProtocols = ["h2"]
            tls.trustRoots = trustRoots
            self.tls = tls
        } else {
            self.tls = nil
        }
        self.clock = configuration.clock
        self.margin = configuration.accessTokenRefreshMargin
        self.retry = configuration.retry
        self.jitter = configuration.jitter
        self.sleep = configuration.sleep
        self.connection = configuration.connection
    }

    /// Token requests made so far (tests).
    public var fetchCount: Int { state.withLock { $0.fetches } }

    /// A token valid for at least the refresh margin, fetching one if needed.
    public func token() async throws(SenderError) -> AccessToken {
        let now = clock.now()
        let (ready, task) = state.withLock { state -> (AccessToken?, Task<AccessToken, any Error>?) in
            if let current = state.current, current.expiresAt - now > margin {
                return (current, nil)
            }
            return (nil, startRefresh(&state))
        }
        if let ready { return ready }
        guard let task else { throw SenderError(.authorizationFailed, "no token") }
        do {
            return try await task.value
        } catch let error as SenderError {
            throw error
        } catch {
            throw SenderError(.authorizationFailed, "\(error)", cause: error)
        }
    }

    /// The `authorization` value for a request going out now, or `nil` when there is no
    /// usable token. Starts a background refresh when the token is within the margin.
    func currentHeader(now: Timestamp) -> String? {
        state.withLock { state in
            guard let current = state.current, current.expiresAt - now > .seconds(Self.shortestUsableLifetimeSeconds) else { return nil }
            if current.expiresAt - now <= margin, state.refresh == nil {
                _ = startRefresh(&state)
            }
            return current.header
        }
    }

    /// Forgets `header`'s token after FCM rejected it (401): the next request refreshes.
    func invalidate(header: String?) {
        guard let header else { return }
        state.withLock { state in
            if state.current?.header == header { state.current = nil }
        }
    }

    private func startRefresh(_ state: inout State) -> Task<AccessToken, any Error> {
        if let running = state.refresh { return running }
        let task = Task {
            do {
                let token = try await self.fetchWithRetries()
                self.state.withLock { state in
                    state.current = token
                    state.refresh = nil
                }
                return token
            } catch {
                self.state.withLock { $0.refresh = nil }
                throw error
            }
        }
        state.refresh = task
        return task
    }

    private func fetchWithRetries() async throws(SenderError) -> AccessToken {
        var attempt = 0
        while true {
            attempt += 1
            let retryable: Bool
            let failure: SenderError
            do {
                return try await fetch()
            } catch let error as RetryableTokenError {
                retryable = true
                failure = error.error
            } catch let error as SenderError {
                retryable = false
                failure = error
            } catch {
                retryable = true
                failure = SenderError(
                    .authorizationFailed, "token request to \(tokenURI) failed: \(ConnectFailureText.describe(error))", cause: error)
            }
            guard retryable, let delay = retry.delay(afterAttempt: attempt, retryAfter: nil, unit: jitter.next()) else {
                throw failure
            }
            try? await sleep(delay)
        }
    }

    /// The longest lifetime a token endpoint's `expires_in` is believed for.
    static let longestLifetimeSeconds: Int64 = 86_400
    /// A token must outlive this to be sent at all (``currentHeader(now:)``).
    static let shortestUsableLifetimeSeconds: Int64 = 10

    private struct RetryableTokenError: Error {
        var error: SenderError
    }

    /// One token request.
    private func fetch() async throws -> AccessToken {
        let issuedAt = clock.now()
        let assertion: String
        do {
            assertion = try key.makeTokenRequestAssertion(
                clientEmail: account.clientEmail,
                scopes: scopes,
                tokenURI: tokenURI,
                issuedAt: issuedAt.secondsSince1970
            )
        } catch {
            throw SenderError(.invalidCredentials, "cannot sign the token request: \(error)", cause: error)
        }
        state.withLock { $0.fetches += 1 }
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        var headers = HTTPHeaderList()
        headers.append(.contentType, value: "application/x-www-form-urlencoded")
        headers.append(name: "accept", value: "application/json")
        let request = HTTPRequestMessage(method: "POST", path: path, headers: headers, body: Array(body.utf8))
        let opened = try await HTTP2ClientConnection.connect(
            to: .init(
                host: endpoint.host,
                port: endpoint.port,
                tls: tls,
                serverHostname: endpoint.serverHostname,
                authority: endpoint.effectiveAuthority,
                connectTimeout: connection.connectTimeout
            ),
            group: connection.resolvedEventLoopGroup
        )
        let response: HTTPResponseMessage
        do {
            // Bounded like every other request: a token endpoint that never answers (or whose
            // stream libnghttp2 closed without a word) held the whole send forever.
            response = try await withSenderTimeout(connection.requestTimeout) { try await opened.send(request) }
        } catch let error as SenderError where error.code == .timeout {
            await opened.close()
            throw RetryableTokenError(
                error: SenderError(
                    .timeout, "token endpoint \(tokenURI) did not answer within \(DurationText.format(connection.requestTimeout))"))
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
        let json = try? JSONValue(parsing: response.body)
        guard response.status == 200 else {
            let error = json?["error"]?.stringValue ?? "HTTP \(response.status)"
            let description = json?["error_description"]?.stringValue
            let failure = SenderError(
                .authorizationFailed,
                "token endpoint \(tokenURI) answered \(response.status) \(error)\(description.map { ": \($0)" } ?? "")"
            )
            if response.status >= 500 || response.status == 429 {
                throw RetryableTokenError(error: failure)
            }
            throw failure
        }
        guard let value = json?["access_token"]?.stringValue else {
            throw SenderError(.authorizationFailed, "token endpoint \(tokenURI) answered without access_token")
        }
        let stated = json?["expires_in"]?.int64Value ?? json?["expires_in"]?.stringValue.flatMap { Int64($0) } ?? 3600
        // Google's tokens live 3599 s; a stated lifetime beyond a day (or below zero) is not
        // taken as given: 2^63 seconds overflowed the expiry time and trapped.
        let lifetime = min(max(stated, 0), Self.longestLifetimeSeconds)
        guard lifetime > Self.shortestUsableLifetimeSeconds else {
            // It would be stale before a request could use it; said as it is rather than as
            // "no access token could be obtained" after three fetches that all succeeded.
            throw SenderError(
                .authorizationFailed,
                "token endpoint \(tokenURI) issued a token that expires at once (expires_in \(stated) s)")
        }
        return AccessToken(value: value, expiresAt: issuedAt + .seconds(lifetime), header: "Bearer " + value)
    }
}
