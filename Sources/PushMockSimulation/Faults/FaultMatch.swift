public import PushMockCore
public import PushMockJSON

/// Which requests a fault rule applies to. Every given condition must hold; an empty match
/// applies to every request.
public struct FaultMatch: Sendable, Codable, Hashable {
    /// `apns`, `fcm`, `expo`, `oauth` or `iid`.
    public var platform: Platform?
    /// Device token (APNs path) or FCM registration token / installation ID (`message.token`).
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
    /// A stable share of tokens (0…1): a token is in it when its FNV-1a hash says so, so the
    /// same tokens are chosen on every request and every run ("10 % of devices uninstalled").
    public var tokenFraction: Double?

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

    /// Whether `token` falls in the first `fraction` of the 64-bit FNV-1a hash space.
    public static func tokenIsSampled(_ token: String, fraction: Double) -> Bool {
        guard fraction < 1 else { return true }
        guard fraction > 0 else { return false }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.lowercased().utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
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
        if let token {
            guard let value = subject.token, token.matches(value) else { return false }
        }
        if let tokenFraction {
            guard let value = subject.token, Self.tokenIsSampled(value, fraction: tokenFraction) else { return false }
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
    var token: String? { get }
    var topic: String? { get }
    var project: String? { get }
    var payload: JSONValue? { get }
    /// The connection, for per-connection rates.
    var connectionID: UInt64 { get }
    func headerValues(named name: String) -> [String]
}
