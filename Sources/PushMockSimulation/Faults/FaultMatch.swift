public import PushMockCore
public import PushMockJSON

/// Which requests a fault rule applies to. Every given condition must hold; an empty match
/// applies to every request.
public struct FaultMatch: Sendable, Codable, Hashable {
    /// `apns`, `fcm`, `expo`, `oauth` or `iid`.
    public var platform: Platform?
    /// Device token (APNs path), FCM registration token / installation ID (`message.token`),
    /// or Expo push token (a request of several recipients matches when any does; an
    /// error-ticket rule is matched per recipient, see ``FaultAction/Scope``).
    public var token: Glob?
    /// APNs `apns-topic`, or FCM `message.topic`.
    public var topic: Glob?
    /// FCM project (`projects/{project}`).
    public var project: Glob?
    /// The request path without the query.
    public var path: Glob?
    /// APNs environment: `sandbox` or `production`.
    public var environment: String?
    /// A header that must be present (and match `value`, when given).
    public var header: HeaderPredicate?
    /// A JSON-path predicate on the request body (APNs payload, FCM `SendMessageRequest`).
    public var payload: PayloadPredicate?
    /// A stable share of tokens (0…1): a token is in it when its hash says so
    /// (``tokenIsSampled(_:fraction:)``), so the same tokens are chosen on every request and
    /// every run ("10 % of devices uninstalled").
    public var tokenFraction: Double?

    /// The JSON members this type reads (a fault rule refuses others).
    static let memberNames = ["platform", "token", "topic", "project", "path", "environment", "header", "payload", "tokenFraction"]

    public struct HeaderPredicate: Sendable, Codable, Hashable {
        public var name: String
        public var value: Glob?

        public init(name: String, value: Glob? = nil) {
            self.name = name.lowercased()
            self.value = value
        }
    }

    public struct PayloadPredicate: Sendable, Codable, Hashable {
        /// A JSON path such as `$.aps.alert.title` or `$.message.android.priority`.
        public var path: String
        /// The value at the path must equal this (any JSON); omitted: the path must exist.
        public var equals: JSONValue?
        /// The string at the path must match this pattern.
        public var matches: Glob?

        public init(path: String, equals: JSONValue? = nil, matches: Glob? = nil) {
            self.path = path
            self.equals = equals
            self.matches = matches
        }
    }

    public init(
        platform: Platform? = nil,
        token: Glob? = nil,
        topic: Glob? = nil,
        project: Glob? = nil,
        path: Glob? = nil,
        environment: String? = nil,
        header: HeaderPredicate? = nil,
        payload: PayloadPredicate? = nil,
        tokenFraction: Double? = nil
    ) {
        self.platform = platform
        self.token = token
        self.topic = topic
        self.project = project
        self.path = path
        self.environment = environment
        self.header = header
        self.payload = payload
        self.tokenFraction = tokenFraction
    }

    /// Whether `token` falls in the first `fraction` of the 64-bit hash space: FNV-1a of the
    /// lower-cased token, then MurmurHash3's 64-bit finalizer. FNV-1a alone barely moves its
    /// top bits for the last bytes, so tokens that differ only at the end (`token-001`,
    /// `token-002`, …, as tests name them) were all in or all out of the share.
    public static func tokenIsSampled(_ token: String, fraction: Double) -> Bool {
        guard fraction < 1 else { return true }
        guard fraction > 0 else { return false }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.lowercased().utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash &*= 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return Double(hash) / Double(UInt64.max) < fraction
    }

    /// Whether `subject` satisfies every condition. Body-derived fields are only computed when
    /// a condition needs them.
    public func matches(_ subject: some FaultSubject) -> Bool {
        if let platform, platform != subject.platform { return false }
        if let path, !path.matches(subject.path) { return false }
        if let environment, environment != subject.environment { return false }
        if let header {
            let values = subject.headerValues(named: header.name)
            if values.isEmpty { return false }
            if let value = header.value, !values.contains(where: value.matches) { return false }
        }
        if let project {
            guard let value = subject.project, project.matches(value) else { return false }
        }
        if let token, !subject.tokens.contains(where: token.matches) { return false }
        if let tokenFraction, !subject.tokens.contains(where: { Self.tokenIsSampled($0, fraction: tokenFraction) }) {
            return false
        }
        if let topic {
            guard let value = subject.topic, topic.matches(value) else { return false }
        }
        if let payload {
            guard let body = subject.payload, let jsonPath = try? JSONPath(payload.path) else { return false }
            let found = jsonPath.evaluate(body)
            if found.isEmpty { return false }
            if let equals = payload.equals, !found.contains(equals) { return false }
            if let pattern = payload.matches, !found.contains(where: { $0.stringValue.map(pattern.matches) ?? false }) {
                return false
            }
        }
        return true
    }
}

/// What fault matching can ask of a request. The gateway implements it lazily: the body is
/// parsed only if a rule looks inside it.
public protocol FaultSubject {
    var platform: Platform { get }
    var path: String { get }
    var environment: String? { get }
    /// The token rates count (`rate.key` `token`): the request's only or first recipient.
    var token: String? { get }
    /// Every recipient's token (an Expo request carries up to 100); a `token` or
    /// `tokenFraction` condition holds when any of them satisfies it. Default: ``token``.
    var tokens: [String] { get }
    var topic: String? { get }
    var project: String? { get }
    var payload: JSONValue? { get }
    /// The connection, for per-connection rates.
    var connectionID: UInt64 { get }
    func headerValues(named name: String) -> [String]
}

extension FaultSubject {
    public var tokens: [String] { token.map { [$0] } ?? [] }
}
