/// The `details.error` of an error ticket or receipt: why Expo could not take or relay one
/// message. Unknown strings (from a recording of the real service) are kept verbatim.
///
/// Sources: Expo docs "Push ticket errors" / "Push receipt errors" (the first five) and the
/// `ExpoPushErrorReceipt` type of expo-server-sdk-node 3.x (adds `DeveloperError`, `ExpoError`,
/// `ProviderError`). See docs/expo.md §6.
package struct ExpoErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case deviceNotRegistered = "DeviceNotRegistered"
        case messageTooBig = "MessageTooBig"
        case messageRateExceeded = "MessageRateExceeded"
        case mismatchSenderId = "MismatchSenderId"
        case invalidCredentials = "InvalidCredentials"
        case developerError = "DeveloperError"
        case expoError = "ExpoError"
        case providerError = "ProviderError"
    }

    private enum Storage: Hashable, Sendable {
        case known(Known)
        case unknown(String)
    }

    private let storage: Storage

    private init(_ known: Known) { storage = .known(known) }

    /// The device can no longer receive notifications; stop sending to the token.
    package static let deviceNotRegistered = ExpoErrorCode(.deviceNotRegistered)
    /// The payload relayed to APNs/FCM is over 4096 bytes.
    package static let messageTooBig = ExpoErrorCode(.messageTooBig)
    /// Too many messages to one device; back off.
    package static let messageRateExceeded = ExpoErrorCode(.messageRateExceeded)
    /// FCM credentials and the app's sender ID do not match.
    package static let mismatchSenderId = ExpoErrorCode(.mismatchSenderId)
    /// The project's APNs/FCM credentials are missing or revoked.
    package static let invalidCredentials = ExpoErrorCode(.invalidCredentials)
    /// A mistake in the message the provider refused (Node SDK type; receipts).
    package static let developerError = ExpoErrorCode(.developerError)
    /// Expo's own failure (Node SDK type; receipts).
    package static let expoError = ExpoErrorCode(.expoError)
    /// APNs/FCM failed or dropped the connection (observed in receipts, 2025).
    package static let providerError = ExpoErrorCode(.providerError)

    /// Every code this table knows, in documentation order.
    package static var allKnown: [ExpoErrorCode] { Known.allCases.map(ExpoErrorCode.init) }

    /// Reads a wire value; unknown ones are kept verbatim.
    package init(rawValue: String) {
        storage = Known(rawValue: rawValue).map(Storage.known) ?? .unknown(rawValue)
    }

    /// The string written in `details.error`.
    package var rawValue: String {
        switch storage {
        case .known(let known): return known.rawValue
        case .unknown(let raw): return raw
        }
    }

    /// Whether this table knows the code.
    package var isKnown: Bool {
        if case .known = storage { return true }
        return false
    }

    package var description: String { rawValue }
}

/// The `code` of a request-level error (`{"errors":[{"code":…}]}`): the whole request was
/// refused and no ticket was issued. Each code carries the HTTP status the mock answers with.
package struct ExpoRequestErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case validationError = "VALIDATION_ERROR"
        case pushTooManyNotifications = "PUSH_TOO_MANY_NOTIFICATIONS"
        case pushTooManyExperienceIDs = "PUSH_TOO_MANY_EXPERIENCE_IDS"
        case pushTooManyReceipts = "PUSH_TOO_MANY_RECEIPTS"
        case tooManyRequests = "TOO_MANY_REQUESTS"
        case unauthorized = "UNAUTHORIZED"
        case internalServerError = "INTERNAL_SERVER_ERROR"

        var httpStatus: Int {
            switch self {
            case .validationError, .pushTooManyNotifications, .pushTooManyExperienceIDs, .pushTooManyReceipts:
                return 400
            case .tooManyRequests: return 429
            case .unauthorized: return 401
            case .internalServerError: return 500
            }
        }
    }

    private enum Storage: Hashable, Sendable {
        case known(Known)
        case unknown(String)
    }

    private let storage: Storage

    private init(_ known: Known) { storage = .known(known) }

    /// The body or a message failed validation (400; observed).
    package static let validationError = ExpoRequestErrorCode(.validationError)
    /// More than 100 notifications after expanding `to` lists (400; observed via the Ruby SDK).
    package static let pushTooManyNotifications = ExpoRequestErrorCode(.pushTooManyNotifications)
    /// Tokens of more than one project in one request (400; observed in client fixtures).
    package static let pushTooManyExperienceIDs = ExpoRequestErrorCode(.pushTooManyExperienceIDs)
    /// More than 1000 ids in one receipts request (400; status UNVERIFIED).
    package static let pushTooManyReceipts = ExpoRequestErrorCode(.pushTooManyReceipts)
    /// Over 600 notifications per second for a project (429; the SDK retries on 429).
    package static let tooManyRequests = ExpoRequestErrorCode(.tooManyRequests)
    /// Enhanced push security is on and the access token is missing or wrong (401; status
    /// UNVERIFIED, the code is documented).
    package static let unauthorized = ExpoRequestErrorCode(.unauthorized)
    /// A server failure (500; for fault injection; code UNVERIFIED).
    package static let internalServerError = ExpoRequestErrorCode(.internalServerError)

    /// Every code this table knows.
    package static var allKnown: [ExpoRequestErrorCode] { Known.allCases.map(ExpoRequestErrorCode.init) }

    /// Reads a wire value; unknown ones are kept verbatim.
    package init(rawValue: String) {
        storage = Known(rawValue: rawValue).map(Storage.known) ?? .unknown(rawValue)
    }

    package var rawValue: String {
        switch storage {
        case .known(let known): return known.rawValue
        case .unknown(let raw): return raw
        }
    }

    /// The HTTP status of the response; 400 for codes this table does not know.
    package var httpStatus: Int {
        switch storage {
        case .known(let known): return known.httpStatus
        case .unknown: return 400
        }
    }

    /// The `isTransient` flag Expo's API errors carry: `true` where retrying can succeed.
    package var isTransient: Bool {
        switch storage {
        case .known(.tooManyRequests), .known(.internalServerError): return true
        default: return false
        }
    }

    package var description: String { rawValue }
}
