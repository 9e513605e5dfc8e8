public import PushMockCore

/// What a golden file contains and how volatile values are normalised. The defaults suit a
/// team reviewing the notifications its app sends; every choice is documented in
/// `docs/golden-files.md`.
///
/// ```swift
/// var configuration = GoldenConfiguration()
/// configuration.rules = [
///     try .redact("$.aps.alert.body", matching: #"\d+ mg"#, with: "<dose>"),
///     try .ignore("$.aps.badge"),
/// ]
/// ```
public struct GoldenConfiguration: Sendable, Hashable {
    /// How device and registration tokens appear.
    public enum DeviceTokens: Sendable, Hashable {
        /// `<token-1>`, `<token-2>`, … in order of first appearance, everywhere the token
        /// appears (the APNs path, FCM `message.token`, payload strings). The default: tests
        /// that create random tokens still produce the same file.
        case alias
        /// As sent.
        case keep
    }

    /// How `apns-expiration` (header, and `apns.headers` inside an FCM message) appears.
    public enum Expiration: Sendable, Hashable {
        /// Seconds after the exchange's receive time, rounded to a multiple of `roundedTo`
        /// seconds: `+3600s`, `-60s`. `0` (deliver now or never) stays `0`. Rounding absorbs
        /// the milliseconds between the client computing "now + 1 h" and the gateway
        /// receiving the request.
        case relativeToSendTime(roundedTo: Int)
        /// The epoch seconds as sent (only stable with a frozen clock on both sides).
        case absolute
    }

    /// The order of entries in the file.
    public enum Order: Sendable, Hashable {
        /// The order the gateway received them (sequence order of the records given).
        case asRecorded
        /// Sorted by the entry's normalised content, for senders that push concurrently and
        /// so in no fixed order. Placeholders are numbered after sorting.
        case byContent
    }

    /// Platforms whose exchanges become entries (`"apns"`, `"fcm"`, `"oauth"`, `"iid"`, …);
    /// `nil` for every record given. Default: `["apns", "fcm", "expo"]` — token requests and
    /// topic management are not notifications.
    public var platforms: Set<Platform>?
    /// Default: ``DeviceTokens/alias``.
    public var deviceTokens: DeviceTokens
    /// Request headers shown. Default: every `apns-*` header.
    public var requestHeaders: GoldenHeaderSelection
    /// Response headers shown. Default: `apns-id`, `retry-after`.
    public var responseHeaders: GoldenHeaderSelection
    /// Whether an `auth` member shows how the request authenticated: the scheme, the decoded
    /// JWT header and claims (never a signature) or the certificate/service-account subject.
    /// Default `true`.
    public var includesAuthentication: Bool
    /// JWT claims left out of `auth` because they change with every token. Default: `iat`,
    /// `exp`, `nbf`, `jti`.
    public var volatileJWTClaims: Set<String>
    /// Default: relative to the send time, rounded to 60 seconds.
    public var expiration: Expiration
    /// Whether the response body is shown (APNs error bodies, FCM's `{"name": …}` and error
    /// envelopes). Default `false`: status and reason say what matters, and the error texts
    /// are PushMock's, not the app's.
    public var includesResponseBody: Bool
    /// Whether the lint codes noted for each accepted notification are shown. Default `false`
    /// (new lint rules in a PushMock update would otherwise change every file).
    public var includesLint: Bool
    /// Record annotations shown (e.g. `fault`, `resetStream`, `goAway`). Default: none.
    public var annotations: Set<String>
    /// Whether payload object members are sorted by name. Default `true`: many encoders
    /// (`JSONEncoder`, Swift dictionaries) emit members in a different order on every run,
    /// and the order has no meaning to APNs or FCM.
    public var sortsPayloadMembers: Bool
    /// Whether strings shaped like a JWT (`eyJ….….…`) anywhere in a payload become `<jwt>`.
    /// Default `true`.
    public var redactsJWTsInPayload: Bool
    /// Default: ``Order/asRecorded``.
    public var order: Order
    /// Extra removals, redactions and aliases, applied after the built-in normalisation in
    /// the order given.
    public var rules: [GoldenRule]

    /// Creates a configuration; every parameter defaults to the documented default.
    public init(
        platforms: Set<Platform>? = [.apns, .fcm, .expo],
        deviceTokens: DeviceTokens = .alias,
        requestHeaders: GoldenHeaderSelection = .defaultRequest,
        responseHeaders: GoldenHeaderSelection = .defaultResponse,
        includesAuthentication: Bool = true,
        volatileJWTClaims: Set<String> = ["iat", "exp", "nbf", "jti"],
        expiration: Expiration = .relativeToSendTime(roundedTo: 60),
        includesResponseBody: Bool = false,
        includesLint: Bool = false,
        annotations: Set<String> = [],
        sortsPayloadMembers: Bool = true,
        redactsJWTsInPayload: Bool = true,
        order: Order = .asRecorded,
        rules: [GoldenRule] = []
    ) {
        self.platforms = platforms
        self.deviceTokens = deviceTokens
        self.requestHeaders = requestHeaders
        self.responseHeaders = responseHeaders
        self.includesAuthentication = includesAuthentication
        self.volatileJWTClaims = volatileJWTClaims
        self.expiration = expiration
        self.includesResponseBody = includesResponseBody
        self.includesLint = includesLint
        self.annotations = annotations
        self.sortsPayloadMembers = sortsPayloadMembers
        self.redactsJWTsInPayload = redactsJWTsInPayload
        self.order = order
        self.rules = rules
    }
}
