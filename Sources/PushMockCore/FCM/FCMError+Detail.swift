extension FCMError {
    /// One entry of the `details` array of a Google error body. Each renders as an object whose
    /// first member is `@type`, followed by the message's fields in proto declaration order,
    /// with proto3 defaults (empty strings, empty lists) omitted as Google's JSON printer does.
    public enum Detail: Sendable, Hashable {
        /// `type.googleapis.com/google.firebase.fcm.v1.FcmError` `{"errorCode": …}` — what the
        /// Admin SDKs classify by.
        case fcmError(FCMErrorCode)
        /// `type.googleapis.com/google.rpc.BadRequest` `{"fieldViolations": […]}`. An empty list
        /// renders as a bare `{"@type": …}` object, as observed on "Android message is too big".
        case badRequest([FieldViolation])
        /// `type.googleapis.com/google.firebase.fcm.v1.ApnsError` `{"statusCode": …, "reason": …}`:
        /// the raw APNs answer FCM relays when delivery to an iOS device failed.
        case apnsError(statusCode: Int, reason: String)
        /// `type.googleapis.com/google.rpc.QuotaFailure` `{"violations": […]}` on 429 responses.
        case quotaFailure([QuotaViolation])
        /// `type.googleapis.com/google.rpc.ErrorInfo` `{"reason", "domain", "metadata"}` — what
        /// Google's front end attaches to some authentication failures (observed 2024:
        /// `CREDENTIALS_MISSING`, `ACCESS_TOKEN_EXPIRED`).
        case errorInfo(ErrorInfo)

        /// The `@type` URL of this detail.
        public var typeURL: String {
            switch self {
            case .fcmError: return "type.googleapis.com/google.firebase.fcm.v1.FcmError"
            case .badRequest: return "type.googleapis.com/google.rpc.BadRequest"
            case .apnsError: return "type.googleapis.com/google.firebase.fcm.v1.ApnsError"
            case .quotaFailure: return "type.googleapis.com/google.rpc.QuotaFailure"
            case .errorInfo: return "type.googleapis.com/google.rpc.ErrorInfo"
            }
        }
    }

    /// One `google.rpc.BadRequest.FieldViolation`: which request field was wrong and why.
    /// Google leaves `field` out for problems that concern the request body as a whole.
    public struct FieldViolation: Sendable, Hashable, CustomStringConvertible {
        /// The path of the field, e.g. `message.token` or `message.data[0].value`; `nil` to omit.
        public var field: String?
        /// The human-readable reason.
        public var description: String

        public init(field: String?, description: String) {
            self.field = field
            self.description = description
        }
    }

    /// One `google.rpc.QuotaFailure.Violation`: which quota subject ran out.
    public struct QuotaViolation: Sendable, Hashable {
        /// The subject the quota applies to (a project, a device, a topic); empty to omit.
        public var subject: String
        /// Why the quota check failed.
        public var description: String

        public init(subject: String, description: String) {
            self.subject = subject
            self.description = description
        }
    }

    /// A `google.rpc.ErrorInfo`: a machine-readable reason, its domain and string metadata
    /// (kept in order; the wire object is a map).
    public struct ErrorInfo: Sendable, Hashable {
        /// UPPER_SNAKE_CASE reason, e.g. `CREDENTIALS_MISSING`.
        public var reason: String
        /// The domain that defines the reason, e.g. `googleapis.com`.
        public var domain: String
        /// Extra key/value pairs, written in this order.
        public var metadata: [Metadata]

        /// One metadata entry.
        public struct Metadata: Sendable, Hashable {
            public var key: String
            public var value: String

            public init(_ key: String, _ value: String) {
                self.key = key
                self.value = value
            }
        }

        public init(reason: String, domain: String, metadata: [Metadata] = []) {
            self.reason = reason
            self.domain = domain
            self.metadata = metadata
        }

        /// The metadata Google attaches to errors of `messages:send`.
        public static func sendMessage(reason: String) -> ErrorInfo {
            ErrorInfo(
                reason: reason,
                domain: "googleapis.com",
                metadata: [
                    Metadata("method", "google.firebase.fcm.v1.FcmService.SendMessage"),
                    Metadata("service", "fcm.googleapis.com"),
                ]
            )
        }
    }
}
