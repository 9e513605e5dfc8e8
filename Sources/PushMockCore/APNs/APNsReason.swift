/// A reason string that APNs puts in the `{"reason": …}` body of an error response (or in the
/// JSON debug data of a GOAWAY frame), together with the HTTP status it travels with.
///
/// Known reasons are `static let` members. Reasons received from a real gateway that this table
/// does not know yet survive as ``isKnown`` `== false` values, so a sender never loses them.
///
/// Source: Apple, "Handling notification responses from APNs" (table of reasons); the status of
/// every reason is the one Apple lists. See `docs/apns-reasons.md` for the per-reason notes.
public struct APNsReason: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline
    enum Known: String, CaseIterable, Sendable {
        // 400
        case badCollapseId = "BadCollapseId"
        case badDeviceToken = "BadDeviceToken"
        case badExpirationDate = "BadExpirationDate"
        case badMessageId = "BadMessageId"
        case badPriority = "BadPriority"
        case badTopic = "BadTopic"
        case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
        case duplicateHeaders = "DuplicateHeaders"
        case idleTimeout = "IdleTimeout"
        case invalidPushType = "InvalidPushType"
        case missingDeviceToken = "MissingDeviceToken"
        case missingTopic = "MissingTopic"
        case payloadEmpty = "PayloadEmpty"
        case topicDisallowed = "TopicDisallowed"
        // 403
        case badCertificate = "BadCertificate"
        case badCertificateEnvironment = "BadCertificateEnvironment"
        case expiredProviderToken = "ExpiredProviderToken"
        case forbidden = "Forbidden"
        case invalidProviderToken = "InvalidProviderToken"
        case missingProviderToken = "MissingProviderToken"
        case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
        case badEnvironmentKeyInToken = "BadEnvironmentKeyInToken"
        case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
        // 404, 405
        case badPath = "BadPath"
        case methodNotAllowed = "MethodNotAllowed"
        // 410
        case expiredToken = "ExpiredToken"
        case unregistered = "Unregistered"
        // 413
        case payloadTooLarge = "PayloadTooLarge"
        // 429
        case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
        case tooManyRequests = "TooManyRequests"
        // 500, 503
        case internalServerError = "InternalServerError"
        case serviceUnavailable = "ServiceUnavailable"
        case shutdown = "Shutdown"

        var status: Int {
            switch self {
            case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
                .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
                .missingTopic, .payloadEmpty, .topicDisallowed:
                return 400
            case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
                .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyInToken,
                .badEnvironmentKeyIdInToken:
                return 403
            case .badPath: return 404
            case .methodNotAllowed: return 405
            case .expiredToken, .unregistered: return 410
            case .payloadTooLarge: return 413
            case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
            case .internalServerError: return 500
            case .serviceUnavailable, .shutdown: return 503
            }
        }
    }

    @usableFromInline
    enum Storage: Hashable, Sendable {
        case known(Known)
        case unknown(String)
    }

    @usableFromInline
    let storage: Storage

    @usableFromInline
    init(_ known: Known) { self.storage = .known(known) }

    /// Maps a reason string as it appears on the wire. Unknown strings are kept verbatim.
    public init(rawValue: String) {
        if let known = Known(rawValue: rawValue) {
            self.storage = .known(known)
        } else {
            self.storage = .unknown(rawValue)
        }
    }

    /// The string written in the `reason` field.
    public var rawValue: String {
        switch storage {
        case .known(let known): return known.rawValue
        case .unknown(let raw): return raw
        }
    }

    /// The HTTP `:status` APNs sends with this reason; `nil` for a reason this table does not know.
    public var status: Int? {
        switch storage {
        case .known(let known): return known.status
        case .unknown: return nil
        }
    }

    /// Whether this reason is one of Apple's documented (or observed) reasons.
    public var isKnown: Bool {
        if case .known = storage { return true }
        return false
    }

    public var description: String { rawValue }

    // MARK: 400
    /// The collapse identifier exceeds the maximum allowed size (64 bytes).
    public static let badCollapseId = Self(.badCollapseId)
    /// The device token is invalid, or belongs to the other environment. Do not retry.
    public static let badDeviceToken = Self(.badDeviceToken)
    /// The `apns-expiration` value is invalid.
    public static let badExpirationDate = Self(.badExpirationDate)
    /// The `apns-id` value is not a canonical UUID.
    public static let badMessageId = Self(.badMessageId)
    /// The `apns-priority` value is not 10, 5 or 1.
    public static let badPriority = Self(.badPriority)
    /// The `apns-topic` value is invalid (for example not covered by the client certificate).
    public static let badTopic = Self(.badTopic)
    /// The device token does not match the topic. Do not retry.
    public static let deviceTokenNotForTopic = Self(.deviceTokenNotForTopic)
    /// One or more headers are repeated.
    public static let duplicateHeaders = Self(.duplicateHeaders)
    /// Idle timeout; delivered in a GOAWAY when an idle connection is reaped.
    public static let idleTimeout = Self(.idleTimeout)
    /// The `apns-push-type` value is not one of the documented push types.
    public static let invalidPushType = Self(.invalidPushType)
    /// The `:path` carries no device token.
    public static let missingDeviceToken = Self(.missingDeviceToken)
    /// The `apns-topic` header is required (token auth, or a multi-topic certificate) but absent.
    public static let missingTopic = Self(.missingTopic)
    /// The message payload is empty.
    public static let payloadEmpty = Self(.payloadEmpty)
    /// Pushing to this topic is not allowed (for example the topic suffix does not fit the push type).
    public static let topicDisallowed = Self(.topicDisallowed)

    // MARK: 403
    /// The client certificate is invalid.
    public static let badCertificate = Self(.badCertificate)
    /// The client certificate is for the other environment.
    public static let badCertificateEnvironment = Self(.badCertificateEnvironment)
    /// The provider token's `iat` is more than one hour old.
    public static let expiredProviderToken = Self(.expiredProviderToken)
    /// The specified action is not allowed.
    public static let forbidden = Self(.forbidden)
    /// The provider token is not valid, or its signature can't be verified.
    public static let invalidProviderToken = Self(.invalidProviderToken)
    /// No client certificate and no (or an empty) `authorization` header.
    public static let missingProviderToken = Self(.missingProviderToken)
    /// The key is not related to the key used for the first push on this connection.
    public static let unrelatedKeyIdInToken = Self(.unrelatedKeyIdInToken)
    /// The key is restricted to the other environment — the spelling production APNs returns.
    public static let badEnvironmentKeyInToken = Self(.badEnvironmentKeyInToken)
    /// The same condition in the spelling of Apple's documentation table.
    public static let badEnvironmentKeyIdInToken = Self(.badEnvironmentKeyIdInToken)

    // MARK: 404, 405
    /// The request `:path` is not a valid APNs path.
    public static let badPath = Self(.badPath)
    /// The `:method` is not POST.
    public static let methodNotAllowed = Self(.methodNotAllowed)

    // MARK: 410
    /// The device token has expired.
    public static let expiredToken = Self(.expiredToken)
    /// The device token is inactive for the topic; the body carries a `timestamp`.
    public static let unregistered = Self(.unregistered)

    // MARK: 413
    /// The payload exceeds 4096 bytes (5120 for VoIP).
    public static let payloadTooLarge = Self(.payloadTooLarge)

    // MARK: 429
    /// The provider token was changed on this connection less than 20 minutes after the last change.
    public static let tooManyProviderTokenUpdates = Self(.tooManyProviderTokenUpdates)
    /// Too many requests were made consecutively to the same device token.
    public static let tooManyRequests = Self(.tooManyRequests)

    // MARK: 500, 503
    /// An internal server error occurred.
    public static let internalServerError = Self(.internalServerError)
    /// The service is unavailable.
    public static let serviceUnavailable = Self(.serviceUnavailable)
    /// The APNs server is shutting down.
    public static let shutdown = Self(.shutdown)

    /// Every reason this table knows, in Apple's table order.
    public static let all: [APNsReason] = Known.allCases.map(APNsReason.init)

    /// Whether a sender may retry after this reason (Apple: "Don't retry BadDeviceToken,
    /// DeviceTokenNotForTopic, Forbidden, ExpiredToken, Unregistered, or PayloadTooLarge";
    /// 429 TooManyRequests and 5xx may be retried with a delay).
    public var isRetryable: Bool {
        switch storage {
        case .known(let known):
            switch known {
            case .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout:
                return true
            default:
                return false
            }
        case .unknown:
            return false
        }
    }

    /// Whether this reason means the device token should be deleted by the provider.
    public var invalidatesDeviceToken: Bool {
        self == .unregistered || self == .expiredToken || self == .badDeviceToken
            || self == .deviceTokenNotForTopic
    }
}

extension APNsReason {
    /// Which spelling to use for "the key is restricted to the other environment".
    ///
    /// Apple's documentation says `BadEnvironmentKeyIdInToken`; production APNs (and FCM's relayed
    /// `ApnsError`) has been observed returning `BadEnvironmentKeyInToken`. The gateway emits the
    /// observed spelling by default.
    public enum EnvironmentKeySpelling: String, Sendable, CaseIterable, Codable {
        /// `BadEnvironmentKeyInToken`, as production APNs sends it (default).
        case observed
        /// `BadEnvironmentKeyIdInToken`, as Apple's documentation table spells it.
        case documented

        /// The reason to emit for this spelling.
        public var reason: APNsReason {
            switch self {
            case .observed: return .badEnvironmentKeyInToken
            case .documented: return .badEnvironmentKeyIdInToken
            }
        }
    }
}
