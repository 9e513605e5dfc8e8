public import PushMockJSON

/// An FCM HTTP v1 error as it goes on the wire: the HTTP status, and a `google.rpc.Status`
/// body `{"error":{"code":…,"message":…,"status":…,"details":[…]}}`, plus the response headers
/// the gateway must add (`Retry-After`, `WWW-Authenticate`).
///
/// The catalogue of errors FCM actually sends (table C3 of the wire reference) lives in
/// `FCMError+Catalogue.swift`; validation failures come from ``FCMMessageValidator``.
///
/// Clients classify by `details[].errorCode` first, then by `status` — never by `message`,
/// whose wording Google changes — but testers read the message, so the catalogue reproduces
/// the observed texts exactly.
///
/// A success response never carries `Retry-After`; only 429 and 5xx errors may.
public struct FCMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status of the response (and the `code` of the body).
    public var httpStatus: Int
    /// The canonical code written as `status`.
    public var status: GoogleRPCCode
    /// The human-readable `message`.
    public var message: String
    /// The `details` array, in order; omitted from the body when empty.
    public var details: [Detail]
    /// Seconds for a `Retry-After` header, or `nil` for none.
    public var retryAfter: Int?
    /// The value of a `WWW-Authenticate` header, or `nil` for none.
    public var wwwAuthenticate: String?

    /// Creates an error; `httpStatus` defaults to the one Google pairs with `status`.
    public init(
        httpStatus: Int? = nil,
        status: GoogleRPCCode,
        message: String,
        details: [Detail] = [],
        retryAfter: Int? = nil,
        wwwAuthenticate: String? = nil
    ) {
        self.httpStatus = httpStatus ?? status.httpStatus
        self.status = status
        self.message = message
        self.details = details
        self.retryAfter = retryAfter
        self.wwwAuthenticate = wwwAuthenticate
    }

    /// The `errorCode` of the first `FcmError` detail, if any — what the Admin SDKs report.
    public var fcmErrorCode: FCMErrorCode? {
        for detail in details {
            if case .fcmError(let code) = detail { return code }
        }
        return nil
    }

    /// Every field violation of every `BadRequest` detail, in order.
    public var fieldViolations: [FieldViolation] {
        details.flatMap { detail -> [FieldViolation] in
            if case .badRequest(let violations) = detail { return violations }
            return []
        }
    }

    /// The value for a `Content-Type` header, as Google sends it.
    public static let contentType = "application/json; charset=UTF-8"

    /// The response body.
    ///
    /// Compact by default: SDKs parse either form, and compact is what the journal stores.
    /// Real FCM pretty-prints with two-space indentation, `": "` after names and a trailing
    /// newline; pass `prettyPrinted: true` to reproduce that byte for byte.
    public func body(prettyPrinted: Bool = false) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        write(to: &writer)
        writer.flush()
        guard prettyPrinted else { return writer.bytes }
        return GooglePrettyPrinter.format(writer.bytes)
    }

    /// Writes the body object through `writer` (for callers embedding it in a larger document).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.staticKey("error")
        writer.beginObject()
        writer.staticKey("code")
        writer.number(httpStatus)
        writer.staticKey("message")
        writer.string(message)
        writer.staticKey("status")
        writer.string(status.rawValue)
        if !details.isEmpty {
            writer.staticKey("details")
            writer.beginArray()
            for detail in details {
                Self.write(detail, to: &writer)
            }
            writer.endArray()
        }
        writer.endObject()
        writer.endObject()
    }

    /// The body as a ``JSONValue`` (tests, recordings).
    public var bodyValue: JSONValue {
        // The writer's output is always valid JSON, so parsing cannot fail.
        (try? JSONValue(parsing: body())) ?? .null
    }

    public var description: String {
        let code = fcmErrorCode.map { " \($0.rawValue)" } ?? ""
        return "\(httpStatus) \(status.rawValue)\(code): \(message)"
    }

    private static func write(_ detail: Detail, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.staticKey("@type")
        writer.string(detail.typeURL)
        switch detail {
        case .fcmError(let code):
            writer.staticKey("errorCode")
            writer.string(code.rawValue)
        case .badRequest(let violations):
            if !violations.isEmpty {
                writer.staticKey("fieldViolations")
                writer.beginArray()
                for violation in violations {
                    writer.beginObject()
                    if let field = violation.field, !field.isEmpty {
                        writer.staticKey("field")
                        writer.string(field)
                    }
                    writer.staticKey("description")
                    writer.string(violation.description)
                    writer.endObject()
                }
                writer.endArray()
            }
        case .apnsError(let statusCode, let reason):
            writer.staticKey("statusCode")
            writer.number(statusCode)
            if !reason.isEmpty {
                writer.staticKey("reason")
                writer.string(reason)
            }
        case .quotaFailure(let violations):
            if !violations.isEmpty {
                writer.staticKey("violations")
                writer.beginArray()
                for violation in violations {
                    writer.beginObject()
                    if !violation.subject.isEmpty {
                        writer.staticKey("subject")
                        writer.string(violation.subject)
                    }
                    if !violation.description.isEmpty {
                        writer.staticKey("description")
                        writer.string(violation.description)
                    }
                    writer.endObject()
                }
                writer.endArray()
            }
        case .errorInfo(let info):
            writer.staticKey("reason")
            writer.string(info.reason)
            writer.staticKey("domain")
            writer.string(info.domain)
            if !info.metadata.isEmpty {
                writer.staticKey("metadata")
                writer.beginObject()
                for entry in info.metadata {
                    writer.key(entry.key)
                    writer.string(entry.value)
                }
                writer.endObject()
            }
        }
        writer.endObject()
    }
}
