package import PushMockJSON

/// A request-level error of the Expo push API: the whole request failed, no ticket was issued.
///
/// It renders its own response — the HTTP status and
/// `{"errors":[{"code":…,"message":…,"isTransient":…,"details":…,"requestId":…}]}` — the way
/// ``APNsError`` and ``FCMError`` do for their services. The member layout follows errors
/// observed from Expo's API (`code`, `message`, `isTransient`, `requestId`; `details` only where
/// the docs say so, e.g. `PUSH_TOO_MANY_EXPERIENCE_IDS`).
package struct ExpoRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    package var code: ExpoRequestErrorCode
    package var message: String
    /// `details`, written when present.
    package var details: JSONValue?
    /// `isTransient`; defaults to the code's.
    package var isTransient: Bool
    /// The HTTP status; defaults to the code's.
    package var httpStatus: Int

    package init(
        code: ExpoRequestErrorCode,
        message: String,
        details: JSONValue? = nil,
        isTransient: Bool? = nil,
        httpStatus: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.details = details
        self.isTransient = isTransient ?? code.isTransient
        self.httpStatus = httpStatus ?? code.httpStatus
    }

    /// The `Content-Type` of every Expo API answer (UNVERIFIED: the charset parameter).
    package static let contentType = "application/json; charset=utf-8"

    /// The body; `requestID` becomes `requestId` (the service sends one; `nil` leaves it out).
    package func body(requestID: String? = nil) -> [UInt8] {
        var writer = JSONWriter(capacity: 128 + message.utf8.count)
        writer.beginObject()
        writer.staticKey("errors")
        writer.beginArray()
        writer.beginObject()
        writer.staticKey("code")
        writer.string(code.rawValue)
        writer.staticKey("message")
        writer.string(message)
        writer.staticKey("isTransient")
        writer.bool(isTransient)
        if let details {
            writer.staticKey("details")
            details.write(to: &writer)
        }
        if let requestID {
            writer.staticKey("requestId")
            writer.string(requestID)
        }
        writer.endObject()
        writer.endArray()
        writer.endObject()
        writer.flush()
        return writer.bytes
    }

    package var description: String { "\(httpStatus) \(code.rawValue): \(message)" }
}

extension ExpoRequestError {
    /// `VALIDATION_ERROR` for one field: `<path> <problem>.`, e.g. `[0].data must be of type
    /// object.` (observed wording for arrays; single-object paths drop the index).
    package static func validation(_ path: String, _ problem: String) -> ExpoRequestError {
        ExpoRequestError(code: .validationError, message: "\(path) \(problem).")
    }

    /// The body is not JSON (wording ours: UNVERIFIED).
    package static let malformedJSON = ExpoRequestError(
        code: .validationError,
        message: "The request body must be valid JSON."
    )

    /// `You can send a maximum of 100 notifications per request (received 115); divide your
    /// requests.` (observed via the PHP and Ruby SDKs).
    package static func tooManyNotifications(received: Int, limit: Int = 100) -> ExpoRequestError {
        ExpoRequestError(
            code: .pushTooManyNotifications,
            message: "You can send a maximum of \(limit) notifications per request (received \(received)); "
                + "divide your requests."
        )
    }

    /// Tokens of several projects in one request; `details` maps each project (its experience
    /// id, `@owner/slug`) to its tokens from the request, in order of first appearance.
    /// Message observed in client fixtures.
    package static func tooManyExperienceIDs(_ groups: [(project: String, tokens: [String])]) -> ExpoRequestError {
        var object = JSONObject()
        for group in groups {
            object.append(key: group.project, value: .array(group.tokens.map(JSONValue.string)))
        }
        return ExpoRequestError(
            code: .pushTooManyExperienceIDs,
            message: "All push notification messages in the same request must be for the same project.",
            details: .object(object)
        )
    }

    /// More than 1000 receipt ids (wording ours, modelled on the notifications one: UNVERIFIED).
    package static func tooManyReceipts(received: Int, limit: Int = 1000) -> ExpoRequestError {
        ExpoRequestError(
            code: .pushTooManyReceipts,
            message: "You can request a maximum of \(limit) push receipts per request (received \(received)); "
                + "divide your requests."
        )
    }

    /// Over the project's notification rate (wording ours: UNVERIFIED).
    package static func tooManyRequests(limitPerSecond: Int = 600) -> ExpoRequestError {
        ExpoRequestError(
            code: .tooManyRequests,
            message: "You are exceeding the limit of \(limitPerSecond) notifications per second for this project. "
                + "Slow down and retry with exponential backoff."
        )
    }

    /// Enhanced push security without a valid access token (wording ours: UNVERIFIED).
    package static let unauthorized = ExpoRequestError(
        code: .unauthorized,
        message: "This project requires a valid access token to send push notifications. "
            + "Pass it in the Authorization header as \"Bearer <access token>\"."
    )

    /// A server failure, for fault injection (wording ours).
    package static let internalServerError = ExpoRequestError(
        code: .internalServerError,
        message: "An unexpected error occurred on the Expo push notification service. Please try again."
    )
}
