/// A canonical `google.rpc.Code`: the `status` string of a Google API error body, with its
/// number and the HTTP status Google's front end maps it to.
///
/// Google APIs answer every failure with a `google.rpc.Status` rendered as JSON
/// (`{"error":{"code":<http>,"message":…,"status":"<NAME>"}}`); SDKs classify by `status` when
/// no more specific detail is present, so a mock must pair the name and the HTTP status exactly
/// as Google does (`google/rpc/code.proto`, "HTTP Mapping" of each code).
///
/// Names the table does not know (a newer server, a typo in a recording) are kept verbatim and
/// map to HTTP 500, like `UNKNOWN`.
public struct GoogleRPCCode: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case ok = "OK"
        case cancelled = "CANCELLED"
        case unknown = "UNKNOWN"
        case invalidArgument = "INVALID_ARGUMENT"
        case deadlineExceeded = "DEADLINE_EXCEEDED"
        case notFound = "NOT_FOUND"
        case alreadyExists = "ALREADY_EXISTS"
        case permissionDenied = "PERMISSION_DENIED"
        case resourceExhausted = "RESOURCE_EXHAUSTED"
        case failedPrecondition = "FAILED_PRECONDITION"
        case aborted = "ABORTED"
        case outOfRange = "OUT_OF_RANGE"
        case unimplemented = "UNIMPLEMENTED"
        case `internal` = "INTERNAL"
        case unavailable = "UNAVAILABLE"
        case dataLoss = "DATA_LOSS"
        case unauthenticated = "UNAUTHENTICATED"

        /// The enum number in `google/rpc/code.proto` (declaration order is 0…16).
        var number: Int {
            Known.allCases.firstIndex(of: self)!
        }

        var httpStatus: Int {
            switch self {
            case .ok: return 200
            case .cancelled: return 499
            case .unknown, .internal, .dataLoss: return 500
            case .invalidArgument, .failedPrecondition, .outOfRange: return 400
            case .deadlineExceeded: return 504
            case .notFound: return 404
            case .alreadyExists, .aborted: return 409
            case .permissionDenied: return 403
            case .unauthenticated: return 401
            case .resourceExhausted: return 429
            case .unimplemented: return 501
            case .unavailable: return 503
            }
        }
    }

    private enum Storage: Hashable, Sendable {
        case known(Known)
        case unknown(String)
    }

    private let storage: Storage

    private init(_ known: Known) { self.storage = .known(known) }

    /// Maps a `status` string as it appears on the wire; unknown names are kept verbatim.
    public init(rawValue: String) {
        if let known = Known(rawValue: rawValue) {
            self.storage = .known(known)
        } else {
            self.storage = .unknown(rawValue)
        }
    }

    /// The code with this `google.rpc.Code` number, or `nil` outside 0…16.
    public init?(number: Int) {
        guard Known.allCases.indices.contains(number) else { return nil }
        self.storage = .known(Known.allCases[number])
    }

    /// The name written in the `status` field, e.g. `NOT_FOUND`.
    public var rawValue: String {
        switch storage {
        case .known(let known): return known.rawValue
        case .unknown(let raw): return raw
        }
    }

    /// The name written in the `status` field (same as ``rawValue``).
    public var name: String { rawValue }

    /// The `google.rpc.Code` number; `nil` for a name this table does not know.
    public var number: Int? {
        switch storage {
        case .known(let known): return known.number
        case .unknown: return nil
        }
    }

    /// The HTTP status Google sends with this code (500 for unknown names, as for `UNKNOWN`).
    public var httpStatus: Int {
        switch storage {
        case .known(let known): return known.httpStatus
        case .unknown: return 500
        }
    }

    /// Whether this is one of the 17 canonical codes.
    public var isKnown: Bool {
        if case .known = storage { return true }
        return false
    }

    public var description: String { rawValue }

    /// Not an error; never appears in an error body.
    public static let ok = Self(.ok)
    /// The operation was cancelled, typically by the caller (HTTP 499).
    public static let cancelled = Self(.cancelled)
    /// Unknown error (HTTP 500).
    public static let unknown = Self(.unknown)
    /// The client specified an invalid argument (HTTP 400). Every FCM validation failure.
    public static let invalidArgument = Self(.invalidArgument)
    /// The deadline expired before the operation could complete (HTTP 504).
    public static let deadlineExceeded = Self(.deadlineExceeded)
    /// A requested entity was not found (HTTP 404). FCM: `UNREGISTERED` tokens.
    public static let notFound = Self(.notFound)
    /// The entity a client tried to create already exists (HTTP 409).
    public static let alreadyExists = Self(.alreadyExists)
    /// The caller may not perform this operation (HTTP 403). FCM: IAM, sender-ID mismatch.
    public static let permissionDenied = Self(.permissionDenied)
    /// A quota or rate limit was exhausted (HTTP 429). FCM: `QUOTA_EXCEEDED`.
    public static let resourceExhausted = Self(.resourceExhausted)
    /// The system is not in a state required for the operation (HTTP 400).
    public static let failedPrecondition = Self(.failedPrecondition)
    /// The operation was aborted, typically by a concurrency conflict (HTTP 409).
    public static let aborted = Self(.aborted)
    /// The operation was attempted past the valid range (HTTP 400).
    public static let outOfRange = Self(.outOfRange)
    /// The operation is not implemented (HTTP 501).
    public static let unimplemented = Self(.unimplemented)
    /// Internal error (HTTP 500).
    public static let `internal` = Self(.internal)
    /// The service is currently unavailable; retry with back-off (HTTP 503).
    public static let unavailable = Self(.unavailable)
    /// Unrecoverable data loss or corruption (HTTP 500).
    public static let dataLoss = Self(.dataLoss)
    /// The request lacks valid authentication credentials (HTTP 401).
    public static let unauthenticated = Self(.unauthenticated)

    /// The 17 canonical codes in `code.proto` order (numbers 0…16).
    public static let all: [GoogleRPCCode] = Known.allCases.map(GoogleRPCCode.init)
}
