/// What a triggered fault does. JSON form: `{"type": "<kind>", …}`.
///
/// | type | fields | effect |
/// |---|---|---|
/// | `apns-error` | `reason`, `status`?, `timestamp`? | APNs error response (status from Apple's table unless given; 410 bodies carry `timestamp`, default now) |
/// | `fcm-error` | `code`, `retryAfter`?, `message`? | FCM error (`QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`, `UNREGISTERED`, `SENDER_ID_MISMATCH`, `INVALID_ARGUMENT`, `THIRD_PARTY_AUTH_ERROR`) |
/// | `iid-error` | `error`, `status` | IID bare-string error, e.g. `RESOURCE_EXHAUSTED` / 429 |
/// | `oauth-error` | `error`, `description`?, `status`? | token-endpoint error, e.g. `invalid_grant` |
/// | `reset` | `code`? | RST_STREAM (default `INTERNAL_ERROR`); HTTP/1.1: connection closed |
/// | `goaway` | `reason`?, `code`?, `lastStream`?, `close`? | GOAWAY with `{"reason":…}` debug data (default `NO_ERROR`, last stream 0, then close) |
/// | `close` | | connection closed without a word |
/// | `hang` | | no answer at all; the client's timeout has to fire |
/// | `settings` | `maxConcurrentStreams` | SETTINGS sent before a normal answer |
/// | `pass` | | a normal answer (use with `latency`) |
///
/// Any action can be combined with the rule's `latency`.
public struct FaultAction: Sendable, Codable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        case apnsError = "apns-error"
        case fcmError = "fcm-error"
        case iidError = "iid-error"
        case oauthError = "oauth-error"
        case reset
        case goaway
        case close
        case hang
        case settings
        case pass
    }

    public var type: Kind
    /// `apns-error`: the reason, e.g. `TooManyRequests`.
    public var reason: String?
    /// `apns-error`/`iid-error`/`oauth-error`: HTTP status override.
    public var status: Int?
    /// `apns-error` 410: the timestamp (ms since the epoch, or ISO 8601); default now.
    public var timestamp: Int64?
    /// `fcm-error`: FcmError code or canonical status.
    public var code: String?
    /// `fcm-error`/`apns-error`: `Retry-After` seconds (FCM sends it on 429/503; APNs never
    /// does, but a test may want it).
    public var retryAfter: Int?
    /// `fcm-error`: message override.
    public var message: String?
    /// `iid-error`/`oauth-error`: the `error` string.
    public var error: String?
    /// `oauth-error`: `error_description`.
    public var description_: String?
    /// `goaway`: close after sending (default true).
    public var close: Bool?
    /// `goaway`: `zero` (default, as APNs) or `last` (the last processed stream).
    public var lastStream: String?
    /// `settings`: MAX_CONCURRENT_STREAMS to announce.
    public var maxConcurrentStreams: UInt32?

    enum CodingKeys: String, CodingKey {
        case type, reason, status, timestamp, code, retryAfter, message, error, close, lastStream, maxConcurrentStreams
        case description_ = "description"
    }

    public init(
        type: Kind,
        reason: String? = nil,
        status: Int? = nil,
        timestamp: Int64? = nil,
        code: String? = nil,
        retryAfter: Int? = nil,
        message: String? = nil,
        error: String? = nil,
        description: String? = nil,
        close: Bool? = nil,
        lastStream: String? = nil,
        maxConcurrentStreams: UInt32? = nil
    ) {
        self.type = type
        self.reason = reason
        self.status = status
        self.timestamp = timestamp
        self.code = code
        self.retryAfter = retryAfter
        self.message = message
        self.error = error
        self.description_ = description
        self.close = close
        self.lastStream = lastStream
        self.maxConcurrentStreams = maxConcurrentStreams
    }

    public static func apnsError(_ reason: String, status: Int? = nil) -> FaultAction { FaultAction(type: .apnsError, reason: reason, status: status) }
    public static func fcmError(_ code: String, retryAfter: Int? = nil) -> FaultAction { FaultAction(type: .fcmError, code: code, retryAfter: retryAfter) }
    public static func goAway(reason: String?) -> FaultAction { FaultAction(type: .goaway, reason: reason) }
    public static let reset = FaultAction(type: .reset)
    public static let close = FaultAction(type: .close)
    public static let hang = FaultAction(type: .hang)
    public static let pass = FaultAction(type: .pass)

    /// The platform an error action belongs to (`nil`: any).
    public var platform: String? {
        switch type {
        case .apnsError: return "apns"
        case .fcmError: return "fcm"
        case .iidError: return "iid"
        case .oauthError: return "oauth"
        default: return nil
        }
    }

    /// Checks the fields the kind needs.
    public func validate() throws(FaultRuleError) {
        switch type {
        case .apnsError where reason?.isEmpty ?? true:
            throw FaultRuleError("apns-error needs a reason, e.g. \"TooManyRequests\"")
        case .fcmError where code?.isEmpty ?? true:
            throw FaultRuleError("fcm-error needs a code, e.g. \"QUOTA_EXCEEDED\"")
        case .iidError where error?.isEmpty ?? true, .oauthError where error?.isEmpty ?? true:
            throw FaultRuleError("\(type.rawValue) needs an error, e.g. \"RESOURCE_EXHAUSTED\"")
        case .settings where maxConcurrentStreams == nil:
            throw FaultRuleError("settings needs maxConcurrentStreams")
        default:
            break
        }
        if let status, !(100...599).contains(status) { throw FaultRuleError("status \(status) is not an HTTP status") }
        if let retryAfter, retryAfter < 0 { throw FaultRuleError("retryAfter must not be negative") }
    }

    public var description: String {
        switch type {
        case .apnsError: return "apns-error \(reason ?? "?")"
        case .fcmError: return "fcm-error \(code ?? "?")"
        case .iidError, .oauthError: return "\(type.rawValue) \(error ?? "?")"
        case .goaway: return "goaway \(reason ?? "")"
        case .settings: return "settings max-concurrent-streams \(maxConcurrentStreams ?? 0)"
        default: return type.rawValue
        }
    }
}
