import PushMockAuth
import PushMockCore

/// The identity a request was authenticated with, kept for the recording.
struct APNsAuthentication {
    enum Method {
        /// Provider token: the verified token (decoded header and claims; never the signature).
        case providerToken(VerifiedProviderToken)
        /// TLS client certificate. Boxed: the certificate is a large value, and inline it made
        /// every copy of an exchange (token requests included) copy it field by field through
        /// the enum's value witness (1.1 % of the default server's samples).
        indirect case certificate(APNsClientCertificate)
        /// `--auth none`.
        case none
    }

    var method: Method
    /// Set when this request made the connection adopt a new provider token.
    var isNewToken: Bool
}

/// A provider token whose signature was verified on this connection, with what the recording
/// needs precomputed once (a connection typically sends thousands of pushes with one token).
final class VerifiedProviderToken {
    let token: String
    /// The whole `authorization` value that carried it, for a byte comparison on later requests.
    let authorizationValue: [UInt8]
    let parsed: APNsProviderToken
    let key: APNsKeyRecord
    /// Decoded header and claims (compact JSON) for the recording — never the signature.
    let headerJSON: [UInt8]
    let claimsJSON: [UInt8]
    /// What the recording shows instead of the `authorization` value.
    let recordedAuthorization: String
    /// The last bundle ID this key was checked against, and the answer.
    var lastAuthorizedBundleID: (bundleID: String, allowed: Bool)?
    /// How far the gateway clock was ahead of the clock the token was signed with, as the
    /// gateway's ``CredentialClock`` decided when it first saw the token (zero unless the token
    /// was signed across a clock move).
    var clockOffset: Duration = .zero

    init(token: String, authorizationValue: [UInt8], parsed: APNsProviderToken, key: APNsKeyRecord) {
        self.token = token
        self.authorizationValue = authorizationValue
        self.parsed = parsed
        self.key = key
        self.headerJSON = Array(parsed.headerJSON.utf8)
        self.claimsJSON = Array(parsed.claimsJSON.utf8)
        self.recordedAuthorization = "bearer [JWT kid=\(parsed.keyID) iss=\(parsed.teamID); decoded in auth, signature withheld]"
    }
}

/// The authentication state of one APNs connection, as APNs keeps it: the team and key bound by
/// the first push, the provider token in use and when it was adopted, and the client
/// certificate. Event-loop confined (owned by the connection's responder).
///
/// Checks follow Apple's "Establishing a token-based connection to APNs" and the reason table;
/// the order is documented in `docs/apns-validation-order.md`.
final class APNsConnectionAuthenticator {
    private let keys: APNsKeyRegistry
    private let options: APNsOptions
    /// Gateway-wide first sightings of tokens: their age follows the gateway clock from then on.
    private let credentialClock: CredentialClock
    /// The client certificate presented during the TLS handshake, if any.
    let certificate: APNsClientCertificate?
    /// A certificate that failed to parse as an APNs certificate.
    let certificateProblem: String?

    /// Team bound by the first authenticated push.
    private(set) var boundTeamID: String?
    /// Key used by the first authenticated push.
    private(set) var firstKey: APNsKeyRecord?
    /// The provider token currently in use on this connection.
    private var current: VerifiedProviderToken?
    /// When (gateway clock) the connection started using ``current``: APNs limits how often a
    /// connection *changes* tokens, whatever the tokens' own `iat` say.
    private var currentAdoptedAt: Timestamp?
    /// Set when this connection was answered `ExpiredProviderToken` (the token aged out, or a
    /// fault said so): the next new token is a forced update and never "too many".
    private var expiryReported = false
    /// The last few tokens this connection was told had expired (by age or by a fault). Replacing
    /// one of them is a forced update, even when the connection adopted it only after the answer
    /// (requests sent before the client heard of the expiry); and one presented again after the
    /// connection moved on is answered `ExpiredProviderToken` again, never
    /// `TooManyProviderTokenUpdates`.
    private var tokensReportedExpired: [String] = []
    /// Whether any request on this connection has authenticated.
    private(set) var hasAuthenticated = false
    /// The key registry's generation when a cached authorization answer was computed.
    private var generation: UInt64 = 0

    init(
        keys: APNsKeyRegistry,
        options: APNsOptions,
        credentialClock: CredentialClock,
        certificate: APNsClientCertificate?,
        certificateProblem: String?
    ) {
        self.keys = keys
        self.options = options
        self.credentialClock = credentialClock
        self.certificate = certificate
        self.certificateProblem = certificateProblem
    }

    /// Authenticates one request; `authorizationIndex` is the `authorization` field in `headers`.
    func authenticate(
        headers: HTTPHeaderList,
        authorizationIndex: Int?,
        environment: APNsEnvironment,
        now: Timestamp
    ) -> Result<APNsAuthentication, APNsFailure> {
        if options.authentication == .none {
            return .success(APNsAuthentication(method: .none, isNewToken: false))
        }
        // "APNs ignores this header if you use certificate-based authentication."
        if certificateProblem != nil {
            return .failure(.error(.badCertificate))
        }
        if let certificate {
            if !certificate.environments.isEmpty, !certificate.environments.contains(Self.certificateEnvironment(environment)) {
                // Observed: APNs answers a wrong-environment certificate with GOAWAY, not a status.
                return .failure(.goAway(.badCertificateEnvironment))
            }
            hasAuthenticated = true
            return .success(APNsAuthentication(method: .certificate(certificate), isNewToken: false))
        }
        guard let authorizationIndex else {
            return .failure(.error(.missingProviderToken))
        }
        // The hot path: the same header value as the token in use, compared as bytes.
        if let current, headers.valueEquals(at: authorizationIndex, current.authorizationValue) {
            return checkCurrentAge(current, now: now)
        }
        guard let token = Self.bearerToken(headers.value(at: authorizationIndex)) else {
            return .failure(.error(.missingProviderToken))
        }
        if let current, current.token == token {
            return checkCurrentAge(current, now: now)
        }
        return adopt(token, authorizationValue: Array(headers.valueBytes(at: authorizationIndex)), environment: environment, now: now)
    }

    /// Notes that a request on this connection was answered `ExpiredProviderToken` — by the
    /// age check or by an injected fault — so that the token that replaces it counts as a
    /// forced update. Called by the gateway for every such answer.
    func providerTokenExpiryReported(authorization: String?) {
        expiryReported = true
        if let token = Self.bearerToken(authorization) {
            noteReportedExpired(token)
        }
    }

    private func noteReportedExpired(_ token: String) {
        guard !tokensReportedExpired.contains(token) else { return }
        if tokensReportedExpired.count >= 4 { tokensReportedExpired.removeFirst() }
        tokensReportedExpired.append(token)
    }

    /// Checks that the authenticated identity may push to `bundleID` (the topic's app).
    func authorize(_ authentication: APNsAuthentication, bundleID: String) -> APNsReason? {
        switch authentication.method {
        case .providerToken(let verified):
            // Pushy's mock and Apple's table: a key not entitled to the topic is an invalid token.
            let allowed: Bool
            if let last = verified.lastAuthorizedBundleID, last.bundleID == bundleID, !keys.changedSince(generation) {
                allowed = last.allowed
            } else {
                generation = keys.generation
                allowed = keys.allows(verified.key, bundleID: bundleID)
                verified.lastAuthorizedBundleID = (bundleID, allowed)
            }
            return allowed ? nil : .invalidProviderToken
        case .certificate, .none:
            return nil
        }
    }

    private func adopt(
        _ token: String,
        authorizationValue: [UInt8],
        environment: APNsEnvironment,
        now: Timestamp
    ) -> Result<APNsAuthentication, APNsFailure> {
        let parsed: APNsProviderToken
        do {
            parsed = try APNsProviderToken(parsing: token)
        } catch {
            return .failure(.error(.invalidProviderToken))
        }
        guard let key = keys.key(parsed.keyID), parsed.isSigned(by: key.publicKey) else {
            return .failure(.error(.invalidProviderToken))
        }
        // "You can't map a connection to APNs to multiple teams."
        guard parsed.teamID == key.teamID, boundTeamID == nil || boundTeamID == parsed.teamID else {
            return .failure(.error(.invalidProviderToken))
        }
        if let firstKey, !firstKey.isRelated(to: key) {
            return .failure(.error(.unrelatedKeyIdInToken))
        }
        if !key.environments.contains(environment) {
            return .failure(.error(options.environmentKeySpelling.reason))
        }
        let verified = VerifiedProviderToken(token: token, authorizationValue: authorizationValue, parsed: parsed, key: key)
        let lifetime = options.providerTokenLifetime
        let judgedAt = credentialClock.judgingTime(for: token, now: now) { time in
            Self.isFresh(issuedAt: parsed.issuedAt, at: time, lifetime: lifetime)
        }
        verified.clockOffset = now - judgedAt
        if case .failure(let failure) = checkAge(verified, now: now) {
            return .failure(failure)
        }
        if current != nil, tokensReportedExpired.contains(token) {
            return .failure(.error(.expiredProviderToken))
        }
        if let current, let currentAdoptedAt, isTooSoonToReplace(current, adoptedAt: currentAdoptedAt, now: now) {
            return .failure(.error(.tooManyProviderTokenUpdates))
        }
        current = verified
        currentAdoptedAt = now
        expiryReported = false
        boundTeamID = boundTeamID ?? parsed.teamID
        firstKey = firstKey ?? key
        hasAuthenticated = true
        return .success(APNsAuthentication(method: .providerToken(verified), isNewToken: true))
    }

    /// "APNs reports an error if you use a new token more than once every 20 minutes on the same
    /// connection": measured from when this connection started using its current token (a
    /// cached token reused on a new connection starts its 20 minutes there, however old its
    /// `iat`). Replacing a token that has expired, or that the connection was told has expired,
    /// is never too soon.
    private func isTooSoonToReplace(_ current: VerifiedProviderToken, adoptedAt: Timestamp, now: Timestamp) -> Bool {
        guard options.providerTokenUpdateInterval > .zero, !expiryReported, !tokensReportedExpired.contains(current.token),
            !isExpired(current, now: now)
        else { return false }
        return now - adoptedAt < options.providerTokenUpdateInterval
    }

    private func checkCurrentAge(_ current: VerifiedProviderToken, now: Timestamp) -> Result<APNsAuthentication, APNsFailure> {
        switch checkAge(current, now: now) {
        case .success(let verified):
            return .success(APNsAuthentication(method: .providerToken(verified), isNewToken: false))
        case .failure(let failure):
            expiryReported = true
            noteReportedExpired(current.token)
            return .failure(failure)
        }
    }

    private func isExpired(_ verified: VerifiedProviderToken, now: Timestamp) -> Bool {
        Duration.seconds((now - verified.clockOffset).secondsSince1970 - verified.parsed.issuedAt) > options.providerTokenLifetime
    }

    /// Whether a token issued at `issuedAt` is neither expired nor issued in the future at
    /// `time` — only to pick the clock a token was signed with (APNs itself accepts a token
    /// from the future).
    private static func isFresh(issuedAt: Int64, at time: Timestamp, lifetime: Duration) -> Bool {
        let age = Duration.seconds(time.secondsSince1970 - issuedAt)
        return age <= lifetime && age >= .zero - CredentialClock.futureTolerance
    }

    private func checkAge(_ verified: VerifiedProviderToken, now: Timestamp) -> Result<VerifiedProviderToken, APNsFailure> {
        if isExpired(verified, now: now) {
            return .failure(.error(.expiredProviderToken))
        }
        return .success(verified)
    }

    /// `bearer <token>`; the scheme is matched case-insensitively (Apple writes `bearer`,
    /// several clients send `Bearer`). Missing, other schemes and empty tokens give `nil`.
    static func bearerToken(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let trimmed = authorization.drop { $0 == " " }
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        let token = trimmed.dropFirst(7).trimmingCharacters(in: " ")
        return token.isEmpty ? nil : token
    }

    static func certificateEnvironment(_ environment: APNsEnvironment) -> APNsCertificateEnvironment {
        environment == .production ? .production : .sandbox
    }
}

/// How an APNs request fails: an error response, or a GOAWAY that ends the connection.
enum APNsFailure: Error {
    case error(APNsReason)
    case goAway(APNsReason)
}

extension Substring {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var view = self[...]
        while view.last == character { view = view.dropLast() }
        while view.first == character { view = view.dropFirst() }
        return String(view)
    }
}
