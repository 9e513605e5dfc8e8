/// The `errorCode` of a `google.firebase.fcm.v1.FcmError` detail — the field Admin SDKs look at
/// first when they classify a failed send (they fall back to the canonical `status` only when no
/// `FcmError` detail is present).
///
/// Each code has the HTTP status Firebase documents for it and the canonical code it is normally
/// paired with in real responses (wire reference B4.1). Codes this table does not know are kept
/// verbatim so nothing received from a real server is lost.
public struct FCMErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case unspecifiedError = "UNSPECIFIED_ERROR"
        case invalidArgument = "INVALID_ARGUMENT"
        case unregistered = "UNREGISTERED"
        case senderIDMismatch = "SENDER_ID_MISMATCH"
        case quotaExceeded = "QUOTA_EXCEEDED"
        case unavailable = "UNAVAILABLE"
        case `internal` = "INTERNAL"
        case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"
        case apnsAuthError = "APNS_AUTH_ERROR"

        var httpStatus: Int? {
            switch self {
            case .unspecifiedError: return nil
            case .invalidArgument: return 400
            case .unregistered: return 404
            case .senderIDMismatch: return 403
            case .quotaExceeded: return 429
            case .unavailable: return 503
            case .internal: return 500
            case .thirdPartyAuthError, .apnsAuthError: return 401
            }
        }

        var canonicalCode: GoogleRPCCode? {
            switch self {
            case .unspecifiedError: return nil
            case .invalidArgument: return .invalidArgument
            case .unregistered: return .notFound
            case .senderIDMismatch: return .permissionDenied
            case .quotaExceeded: return .resourceExhausted
            case .unavailable: return .unavailable
            case .internal: return .internal
            case .thirdPartyAuthError, .apnsAuthError: return .unauthenticated
            }
        }
    }

    private enum Storage: Hashable, Sendable {
        case known(Known)
        case unknown(String)
    }

    private let storage: Storage

    private init(_ known: Known) { self.storage = .known(known) }

    /// Maps an `errorCode` string as it appears on the wire; unknown strings are kept verbatim.
    public init(rawValue: String) {
        if let known = Known(rawValue: rawValue) {
            self.storage = .known(known)
        } else {
            self.storage = .unknown(rawValue)
        }
    }

    /// The string written in the `errorCode` field.
    public var rawValue: String {
        switch storage {
        case .known(let known): return known.rawValue
        case .unknown(let raw): return raw
        }
    }

    /// The HTTP status Firebase documents for this code; `nil` for `UNSPECIFIED_ERROR` and for
    /// codes this table does not know.
    public var httpStatus: Int? {
        switch storage {
        case .known(let known): return known.httpStatus
        case .unknown: return nil
        }
    }

    /// The canonical `status` this code normally travels with (`UNREGISTERED` → `NOT_FOUND`,
    /// `SENDER_ID_MISMATCH` → `PERMISSION_DENIED`, …); `nil` when there is none.
    public var canonicalCode: GoogleRPCCode? {
        switch storage {
        case .known(let known): return known.canonicalCode
        case .unknown: return nil
        }
    }

    /// Whether Firebase documents this code.
    public var isKnown: Bool {
        if case .known = storage { return true }
        return false
    }

    /// `APNS_AUTH_ERROR` was replaced by `THIRD_PARTY_AUTH_ERROR` in 2019; SDKs still map it.
    public var isDeprecated: Bool { self == .apnsAuthError }

    public var description: String { rawValue }

    /// No more information is available.
    public static let unspecifiedError = Self(.unspecifiedError)
    /// The request was invalid: bad token format, bad field, message too big, reserved key… (400)
    public static let invalidArgument = Self(.invalidArgument)
    /// The app instance was unregistered from FCM; the token must not be used again (404).
    public static let unregistered = Self(.unregistered)
    /// The authenticated sender is not the project the token belongs to (403).
    public static let senderIDMismatch = Self(.senderIDMismatch)
    /// A message, device or topic rate quota was exceeded (429).
    public static let quotaExceeded = Self(.quotaExceeded)
    /// The server is overloaded; retry with back-off (503).
    public static let unavailable = Self(.unavailable)
    /// An unknown internal error occurred; retry with back-off (500).
    public static let `internal` = Self(.internal)
    /// The APNs certificate / key or web-push auth key was rejected at delivery (401).
    public static let thirdPartyAuthError = Self(.thirdPartyAuthError)
    /// Deprecated predecessor of ``thirdPartyAuthError`` (401).
    public static let apnsAuthError = Self(.apnsAuthError)

    /// Every documented code, in Firebase's table order.
    public static let all: [FCMErrorCode] = Known.allCases.map(FCMErrorCode.init)
}
