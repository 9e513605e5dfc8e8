public import PushMockCore

/// How one notification ended. Every send resolves to exactly one of these; nothing is
/// dropped silently.
///
/// | case | APNs | FCM | what to do |
/// |---|---|---|---|
/// | ``accepted(_:)`` | `200` + `apns-id` | `200` + message `name` | nothing |
/// | ``rejected(_:)`` | any other 4xx (`BadDeviceToken`, `PayloadTooLarge`, …) | 4xx (`INVALID_ARGUMENT`, `SENDER_ID_MISMATCH`, …) | fix the request; never retried |
/// | ``tokenInvalid(_:)`` | `410 Unregistered` / `ExpiredToken` (+ `timestamp`) | `404 UNREGISTERED`, or an `ApnsError` with status 410 | delete the token |
/// | ``failed(_:)`` | 429/500/503 or a connection fault on every attempt | same | try again later |
public enum SendOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The gateway took the notification.
    case accepted(Acceptance)
    /// The gateway refused it for a reason retrying does not fix.
    case rejected(Rejection)
    /// The device token is no longer valid: stop sending to it.
    case tokenInvalid(TokenInvalidation)
    /// No attempt succeeded (retryable errors until the retry policy gave up, or a fault that
    /// the policy does not retry).
    case failed(DeliveryFailure)

    /// The outcome class, for counting.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        case accepted
        case rejected
        case tokenInvalid = "invalid-token"
        case failed
    }

    /// The outcome class.
    public var kind: Kind {
        switch self {
        case .accepted: .accepted
        case .rejected: .rejected
        case .tokenInvalid: .tokenInvalid
        case .failed: .failed
        }
    }

    /// Whether the gateway accepted the notification.
    public var isAccepted: Bool { kind == .accepted }

    /// The reason string of a non-accepted outcome (`BadDeviceToken`, `UNREGISTERED`,
    /// `ServiceUnavailable`, `timeout`, …); `nil` when accepted.
    public var reason: String? {
        switch self {
        case .accepted: nil
        case .rejected(let rejection): rejection.reason
        case .tokenInvalid(let invalidation): invalidation.reason
        case .failed(let failure): failure.reason
        }
    }

    public var description: String {
        switch self {
        case .accepted(let acceptance): "accepted \(acceptance.id)"
        case .rejected(let rejection): "rejected \(rejection)"
        case .tokenInvalid(let invalidation): "invalid token \(invalidation)"
        case .failed(let failure): "failed \(failure)"
        }
    }
}

/// A `200`: the id the gateway assigned.
public struct Acceptance: Sendable, Hashable {
    /// APNs: the `apns-id` (echoed or generated). FCM: the message `name`
    /// (`projects/<p>/messages/<id>`; `…/fake_message_id` under `validate_only`).
    public var id: String
    /// APNs sandbox: the `apns-unique-id` for the delivery log.
    public var uniqueID: String?

    public init(id: String, uniqueID: String? = nil) {
        self.id = id
        self.uniqueID = uniqueID
    }
}

/// A refusal that retrying does not fix.
public struct Rejection: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// APNs: the `reason` (`BadDeviceToken`). FCM: the `FcmError` `errorCode` when present,
    /// else the canonical `status` (`INVALID_ARGUMENT`, `PERMISSION_DENIED`).
    public var reason: String
    /// FCM: the human-readable `message`.
    public var message: String?

    public init(status: Int, reason: String, message: String? = nil) {
        self.status = status
        self.reason = reason
        self.message = message
    }

    /// The reason as an APNs wire value.
    public var apnsReason: APNsReason { APNsReason(rawValue: reason) }

    /// The reason as an FCM error code.
    public var fcmErrorCode: FCMErrorCode { FCMErrorCode(rawValue: reason) }

    public var description: String {
        "\(status) \(reason)\(message.map { ": \($0)" } ?? "")"
    }
}

/// The token is gone: the signal to delete it from your database.
public struct TokenInvalidation: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status (APNs 410, FCM 404 or 400).
    public var status: Int
    /// `Unregistered`, `ExpiredToken`, `UNREGISTERED`, …
    public var reason: String
    /// APNs: when APNs confirmed the token was no longer valid (the 410 `timestamp`). Tokens
    /// registered again after this moment are valid.
    public var timestamp: Timestamp?

    public init(status: Int, reason: String, timestamp: Timestamp? = nil) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
    }

    public var description: String {
        "\(status) \(reason)\(timestamp.map { " since \($0)" } ?? "")"
    }
}

/// No attempt succeeded.
public struct DeliveryFailure: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status of the last answer, if the last attempt got one.
    public var status: Int?
    /// The last answer's reason (`ServiceUnavailable`, `UNAVAILABLE`), or the fault (`timeout`,
    /// `GOAWAY Shutdown`, `RST_STREAM REFUSED_STREAM`, `connection closed`, …).
    public var reason: String
    /// The classified last error.
    public var error: SenderError

    public init(status: Int? = nil, reason: String, error: SenderError) {
        self.status = status
        self.reason = reason
        self.error = error
    }

    public var description: String {
        "\(status.map { "\($0) " } ?? "")\(reason) (\(error))"
    }
}
