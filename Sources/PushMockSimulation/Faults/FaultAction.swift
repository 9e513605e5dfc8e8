public import PushMockCore

/// What a triggered fault does. Each case carries exactly the fields that kind needs, so an
/// action that cannot be carried out cannot be built; the JSON form is unchanged:
/// `{"type": "<kind>", …}`.
///
/// | type | fields | effect |
/// |---|---|---|
/// | `apns-error` | `reason`, `status`?, `timestamp`?, `retryAfter`? | APNs error response (status from Apple's table unless given; 410 bodies carry `timestamp`, default now) |
/// | `fcm-error` | `code`, `retryAfter`?, `message`? | FCM error (`QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`, `UNREGISTERED`, `SENDER_ID_MISMATCH`, `INVALID_ARGUMENT`, `THIRD_PARTY_AUTH_ERROR`) |
/// | `iid-error` | `error`, `status`?, `retryAfter`? | IID bare-string error, e.g. `RESOURCE_EXHAUSTED` / 429 |
/// | `oauth-error` | `error`, `description`?, `status`? | token-endpoint error, e.g. `invalid_grant` |
/// | `expo-error` | `code` or `ticketError`, `message`?, `status`?, `retryAfter`? | Expo: a request error (`{"errors":[…]}`, e.g. `TOO_MANY_REQUESTS` / 429), or error tickets (`details.error`, e.g. `MessageRateExceeded`) for the recipients the rule matches, in an HTTP 200 whose other tickets are the usual ones (on `getReceipts`: the matching ready receipts); see ``Scope`` |
/// | `reset` | `code`? | RST_STREAM (default `INTERNAL_ERROR`); HTTP/1.1: connection closed |
/// | `goaway` | `reason`?, `code`?, `lastStream`?, `close`? | GOAWAY with `{"reason":…}` debug data (default `NO_ERROR`, last stream 0, then close) |
/// | `close` | | connection closed without a word |
/// | `hang` | | no answer at all; the client's timeout has to fire |
/// | `settings` | `maxConcurrentStreams` | SETTINGS sent before a normal answer |
/// | `pass` | | a normal answer (use with `latency`) |
///
/// Any action can be combined with the rule's `latency`. A field that does not belong to the
/// action's type is refused when the rule is read, rather than silently ignored.
public enum FaultAction: Sendable, Hashable, CustomStringConvertible {
    /// An APNs error answer: `reason` (Apple's spelling), an optional status override, the
    /// `timestamp` of a 410 body (ms since the epoch; default now) and an optional `Retry-After`.
    case apnsError(reason: String, status: Int? = nil, timestamp: Int64? = nil, retryAfter: Int? = nil)
    /// An FCM error answer: an `FcmError` code or canonical status, optional `Retry-After` and
    /// message override.
    case fcmError(code: String, retryAfter: Int? = nil, message: String? = nil)
    /// An IID bare-string error (`{"error": "<error>"}`), with an optional status override.
    case iidError(error: String, status: Int? = nil, retryAfter: Int? = nil)
    /// A token-endpoint error (`{"error": …, "error_description": …}`).
    case oauthError(error: String, description: String? = nil, status: Int? = nil)
    /// An Expo push API error: a request-level error or error tickets, with an optional message,
    /// status (request errors) and `Retry-After`.
    case expoError(ExpoFaultError, message: String? = nil, status: Int? = nil, retryAfter: Int? = nil)
    /// RST_STREAM with this code (HTTP/1.1: the connection closes).
    case reset(HTTP2ErrorCode = .internalError)
    /// GOAWAY with `{"reason": …}` debug data when a reason is given.
    case goAway(reason: String? = nil, code: HTTP2ErrorCode = .noError, lastStream: GoAwayLastStream = .zero, close: Bool = true)
    /// The connection closes without a word.
    case close
    /// No answer at all.
    case hang
    /// SETTINGS with this MAX_CONCURRENT_STREAMS before a normal answer.
    case settings(maxConcurrentStreams: UInt32)
    /// A normal answer (with the rule's latency).
    case pass

    /// What an `expo-error` answers.
    public enum ExpoFaultError: Sendable, Hashable {
        /// `{"errors":[{"code": <code>, …}]}` with the code's HTTP status, e.g.
        /// `TOO_MANY_REQUESTS`, `INTERNAL_SERVER_ERROR`, `UNAUTHORIZED`.
        case request(code: String)
        /// An error ticket (on `getReceipts`: an error receipt) for each recipient the rule
        /// matches, `details.error` = the code, e.g. `MessageRateExceeded`,
        /// `DeviceNotRegistered`, `InvalidCredentials`; the request itself is answered 200.
        case ticket(code: String)
    }

    /// Which stream a GOAWAY names as the last one processed.
    public enum GoAwayLastStream: String, Sendable, Hashable, Codable {
        /// 0, as APNs sends it.
        case zero
        /// The last stream the connection processed.
        case last
    }

    /// The `type` of each action, as spelled in JSON.
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        case apnsError = "apns-error"
        case fcmError = "fcm-error"
        case iidError = "iid-error"
        case oauthError = "oauth-error"
        case expoError = "expo-error"
        case reset
        case goaway
        case close
        case hang
        case settings
        case pass
    }

    /// Where a rule with this action is decided.
    public enum Scope: Sendable, Hashable {
        /// Once per request: the action answers (or breaks) the whole request.
        case request
        /// Once per recipient of a request: an Expo error ticket answers one message of up to
        /// 100 (an error receipt, one receipt id), so its rule matches the recipient's token and
        /// message and counts recipients, as Expo fails one push token and not the batch.
        case recipient
    }

    /// Where a rule with this action is decided (``Scope``).
    public var scope: Scope {
        if case .expoError(.ticket, _, _, _) = self { return .recipient }
        return .request
    }

    /// How the pipeline treats an action.
    public enum Effect: Sendable, Hashable {
        /// The endpoint answers normally (perhaps after SETTINGS or a delay).
        case normalAnswer
        /// The endpoint answers with an injected error in its own dialect; nothing changes state.
        case errorAnswer
        /// The client gets no HTTP answer (reset, GOAWAY, close, hang); nothing changes state.
        case noAnswer
    }

    public var kind: Kind {
        switch self {
        case .apnsError: return .apnsError
        case .fcmError: return .fcmError
        case .iidError: return .iidError
        case .oauthError: return .oauthError
        case .expoError: return .expoError
        case .reset: return .reset
        case .goAway: return .goaway
        case .close: return .close
        case .hang: return .hang
        case .settings: return .settings
        case .pass: return .pass
        }
    }

    public var effect: Effect {
        switch self {
        case .apnsError, .fcmError, .iidError, .oauthError, .expoError: return .errorAnswer
        case .reset, .goAway, .close, .hang: return .noAnswer
        case .settings, .pass: return .normalAnswer
        }
    }

    /// The platform an error action belongs to (`nil`: any).
    public var platform: Platform? {
        switch self {
        case .apnsError: return .apns
        case .fcmError: return .fcm
        case .iidError: return .iid
        case .oauthError: return .oauth
        case .expoError: return .expo
        default: return nil
        }
    }

    /// Checks the values the JSON form cannot rule out by shape.
    public func validate() throws(FaultRuleError) {
        switch self {
        case .apnsError(let reason, let status, _, let retryAfter):
            if reason.isEmpty { throw FaultRuleError("apns-error needs a reason, e.g. \"TooManyRequests\"") }
            try Self.check(status: status, retryAfter: retryAfter)
        case .fcmError(let code, let retryAfter, _):
            if code.isEmpty { throw FaultRuleError("fcm-error needs a code, e.g. \"QUOTA_EXCEEDED\"") }
            try Self.check(status: nil, retryAfter: retryAfter)
        case .iidError(let error, let status, let retryAfter):
            if error.isEmpty { throw FaultRuleError("iid-error needs an error, e.g. \"RESOURCE_EXHAUSTED\"") }
            try Self.check(status: status, retryAfter: retryAfter)
        case .oauthError(let error, _, let status):
            if error.isEmpty { throw FaultRuleError("oauth-error needs an error, e.g. \"invalid_grant\"") }
            try Self.check(status: status, retryAfter: nil)
        case .expoError(let error, _, let status, let retryAfter):
            switch error {
            case .request(let code) where code.isEmpty, .ticket(let code) where code.isEmpty:
                throw FaultRuleError("expo-error needs a code, e.g. \"TOO_MANY_REQUESTS\", or a ticketError, e.g. \"MessageRateExceeded\"")
            default: break
            }
            try Self.check(status: status, retryAfter: retryAfter)
        case .reset, .goAway, .close, .hang, .settings, .pass:
            break
        }
    }

    private static func check(status: Int?, retryAfter: Int?) throws(FaultRuleError) {
        if let status, !(100...599).contains(status) { throw FaultRuleError("status \(status) is not an HTTP status") }
        if let retryAfter, retryAfter < 0 { throw FaultRuleError("retryAfter must not be negative") }
    }

    public var description: String {
        switch self {
        case .apnsError(let reason, _, _, _): return "apns-error \(reason)"
        case .fcmError(let code, _, _): return "fcm-error \(code)"
        case .iidError(let error, _, _): return "iid-error \(error)"
        case .oauthError(let error, _, _): return "oauth-error \(error)"
        case .expoError(.request(let code), _, _, _): return "expo-error \(code)"
        case .expoError(.ticket(let code), _, _, _): return "expo-error ticket \(code)"
        case .goAway(let reason, _, _, _): return "goaway \(reason ?? "")"
        case .settings(let streams): return "settings max-concurrent-streams \(streams)"
        default: return kind.rawValue
        }
    }
}

// MARK: JSON

extension FaultAction: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case type, reason, status, timestamp, code, retryAfter, message, error, description, close, lastStream, maxConcurrentStreams,
            ticketError
    }

    /// The fields each type takes besides `type`.
    static func fields(of kind: Kind) -> Set<CodingKeys> {
        switch kind {
        case .apnsError: return [.reason, .status, .timestamp, .retryAfter]
        case .fcmError: return [.code, .retryAfter, .message]
        case .iidError: return [.error, .status, .retryAfter]
        case .oauthError: return [.error, .description, .status]
        case .expoError: return [.code, .ticketError, .message, .status, .retryAfter]
        case .reset: return [.code]
        case .goaway: return [.reason, .code, .lastStream, .close]
        case .settings: return [.maxConcurrentStreams]
        case .close, .hang, .pass: return []
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(Kind.self, forKey: .type)
        let allowed = Self.fields(of: kind)
        for key in container.allKeys where key != .type && !allowed.contains(key) {
            let expected = allowed.map(\.rawValue).sorted().joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription: "\(kind.rawValue) takes no \(key.rawValue) (its fields: \(expected.isEmpty ? "none" : expected))"
            )
        }
        // A member no action type takes (the loop above names the ones another type takes).
        try UnknownMembers.reject(
            in: decoder, known: ["type"] + allowed.map(\.rawValue).sorted(), what: "an action of type \(kind.rawValue)")
        func required(_ key: CodingKeys) throws -> String {
            guard let value = try container.decodeIfPresent(String.self, forKey: key), !value.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: key,
                    in: container,
                    debugDescription: "\(kind.rawValue) needs a \(key.rawValue)"
                )
            }
            return value
        }
        func errorCode(_ key: CodingKeys, default fallback: HTTP2ErrorCode) throws -> HTTP2ErrorCode {
            guard let name = try container.decodeIfPresent(String.self, forKey: key) else { return fallback }
            guard let code = HTTP2ErrorCode(name: name) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key,
                    in: container,
                    debugDescription: "\(name) is not an HTTP/2 error code (e.g. INTERNAL_ERROR, REFUSED_STREAM)"
                )
            }
            return code
        }
        switch kind {
        case .apnsError:
            self = .apnsError(
                reason: try required(.reason),
                status: try container.decodeIfPresent(Int.self, forKey: .status),
                timestamp: try container.decodeIfPresent(Int64.self, forKey: .timestamp),
                retryAfter: try container.decodeIfPresent(Int.self, forKey: .retryAfter)
            )
        case .fcmError:
            self = .fcmError(
                code: try required(.code),
                retryAfter: try container.decodeIfPresent(Int.self, forKey: .retryAfter),
                message: try container.decodeIfPresent(String.self, forKey: .message)
            )
        case .iidError:
            self = .iidError(
                error: try required(.error),
                status: try container.decodeIfPresent(Int.self, forKey: .status),
                retryAfter: try container.decodeIfPresent(Int.self, forKey: .retryAfter)
            )
        case .oauthError:
            self = .oauthError(
                error: try required(.error),
                description: try container.decodeIfPresent(String.self, forKey: .description),
                status: try container.decodeIfPresent(Int.self, forKey: .status)
            )
        case .expoError:
            let code = try container.decodeIfPresent(String.self, forKey: .code)
            let ticketError = try container.decodeIfPresent(String.self, forKey: .ticketError)
            let error: ExpoFaultError
            switch (code, ticketError) {
            case (let code?, nil) where !code.isEmpty: error = .request(code: code)
            case (nil, let ticket?) where !ticket.isEmpty: error = .ticket(code: ticket)
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .code,
                    in: container,
                    debugDescription:
                        "expo-error needs either a code (request error, e.g. TOO_MANY_REQUESTS) or a ticketError (e.g. MessageRateExceeded)"
                )
            }
            self = .expoError(
                error,
                message: try container.decodeIfPresent(String.self, forKey: .message),
                status: try container.decodeIfPresent(Int.self, forKey: .status),
                retryAfter: try container.decodeIfPresent(Int.self, forKey: .retryAfter)
            )
        case .reset:
            self = .reset(try errorCode(.code, default: .internalError))
        case .goaway:
            self = .goAway(
                reason: try container.decodeIfPresent(String.self, forKey: .reason),
                code: try errorCode(.code, default: .noError),
                lastStream: try container.decodeIfPresent(GoAwayLastStream.self, forKey: .lastStream) ?? .zero,
                close: try container.decodeIfPresent(Bool.self, forKey: .close) ?? true
            )
        case .settings:
            guard let streams = try container.decodeIfPresent(UInt32.self, forKey: .maxConcurrentStreams) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .maxConcurrentStreams,
                    in: container,
                    debugDescription: "settings needs maxConcurrentStreams"
                )
            }
            self = .settings(maxConcurrentStreams: streams)
        case .close: self = .close
        case .hang: self = .hang
        case .pass: self = .pass
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .type)
        switch self {
        case .apnsError(let reason, let status, let timestamp, let retryAfter):
            try container.encode(reason, forKey: .reason)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(timestamp, forKey: .timestamp)
            try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
        case .fcmError(let code, let retryAfter, let message):
            try container.encode(code, forKey: .code)
            try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
            try container.encodeIfPresent(message, forKey: .message)
        case .iidError(let error, let status, let retryAfter):
            try container.encode(error, forKey: .error)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
        case .oauthError(let error, let description, let status):
            try container.encode(error, forKey: .error)
            try container.encodeIfPresent(description, forKey: .description)
            try container.encodeIfPresent(status, forKey: .status)
        case .expoError(let error, let message, let status, let retryAfter):
            switch error {
            case .request(let code): try container.encode(code, forKey: .code)
            case .ticket(let code): try container.encode(code, forKey: .ticketError)
            }
            try container.encodeIfPresent(message, forKey: .message)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
        case .reset(let code):
            try container.encode(code.name, forKey: .code)
        case .goAway(let reason, let code, let lastStream, let close):
            try container.encodeIfPresent(reason, forKey: .reason)
            try container.encode(code.name, forKey: .code)
            try container.encode(lastStream, forKey: .lastStream)
            try container.encode(close, forKey: .close)
        case .settings(let streams):
            try container.encode(streams, forKey: .maxConcurrentStreams)
        case .close, .hang, .pass:
            break
        }
    }
}
