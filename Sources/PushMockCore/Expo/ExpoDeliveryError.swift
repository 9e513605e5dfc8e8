package import PushMockJSON

/// Why one message failed, as an error ticket or error receipt carries it:
/// `"message":…` and `"details":{"error":…,"expoPushToken":…}`.
///
/// The factories reproduce the texts the service is known to send; where no text was found the
/// wording is ours and marked so (docs/expo.md §6).
package struct ExpoDeliveryError: Hashable, Sendable, CustomStringConvertible {
    /// `details.error`.
    package var code: ExpoErrorCode
    /// `message`.
    package var message: String
    /// `details.expoPushToken`; the service adds it at least for `DeviceNotRegistered`
    /// (expo-server-sdk-node PR #74/#97), `nil` leaves it out.
    package var expoPushToken: String?
    /// `details.sentAt` (seconds since the epoch); observed on receipts, never on tickets.
    package var sentAt: Int64?

    package init(code: ExpoErrorCode, message: String, expoPushToken: String? = nil, sentAt: Int64? = nil) {
        self.code = code
        self.message = message
        self.expoPushToken = expoPushToken
        self.sentAt = sentAt
    }

    package var description: String { "\(code.rawValue): \(message)" }

    /// Writes `"message":…,"details":{…}` (the members after `"status":"error"`).
    package func writeMembers(to writer: inout JSONWriter) {
        writer.staticKey("message")
        writer.string(message)
        writer.staticKey("details")
        writer.beginObject()
        writer.staticKey("error")
        writer.string(code.rawValue)
        if let expoPushToken {
            writer.staticKey("expoPushToken")
            writer.string(expoPushToken)
        }
        if let sentAt {
            writer.staticKey("sentAt")
            writer.number(sentAt)
        }
        writer.endObject()
    }
}

extension ExpoDeliveryError {
    /// `"<token>" is not a registered push notification recipient` (observed, Expo docs).
    package static func deviceNotRegistered(_ token: String) -> ExpoDeliveryError {
        ExpoDeliveryError(
            code: .deviceNotRegistered,
            message: "\"\(token)\" is not a registered push notification recipient",
            expoPushToken: token
        )
    }

    /// A `to` that is not an Expo push token: a ticket error
    /// `"<to>" is not a valid Expo push token` with `DeviceNotRegistered` (observed, 2024+).
    package static func invalidToken(_ token: String) -> ExpoDeliveryError {
        ExpoDeliveryError(
            code: .deviceNotRegistered,
            message: "\"\(token)\" is not a valid Expo push token",
            expoPushToken: token
        )
    }

    /// The relayed payload is over the limit (wording ours: UNVERIFIED).
    package static func messageTooBig(_ token: String, size: Int, limit: Int) -> ExpoDeliveryError {
        ExpoDeliveryError(
            code: .messageTooBig,
            message: "Message too big: the notification payload is \(size) bytes; "
                + "the total payload sent to Apple and Google must be at most \(limit) bytes.",
            expoPushToken: token
        )
    }

    /// Too many messages to one device (wording ours: UNVERIFIED).
    package static func messageRateExceeded(_ token: String) -> ExpoDeliveryError {
        ExpoDeliveryError(
            code: .messageRateExceeded,
            message: "\"\(token)\" is receiving messages too frequently. "
                + "Implement exponential backoff and retry sending later.",
            expoPushToken: token
        )
    }

    /// FCM sender ID mismatch (wording ours: UNVERIFIED).
    package static func mismatchSenderId(_ token: String) -> ExpoDeliveryError {
        ExpoDeliveryError(
            code: .mismatchSenderId,
            message: "The FCM sender ID of \"\(token)\" does not match the sender ID of the "
                + "project's FCM credentials.",
            expoPushToken: token
        )
    }

    /// Missing APNs credentials: `Could not find APNs credentials for <bundle> (<project>). You may
    /// need to generate or upload new push credentials.` (observed, 2024+).
    package static func missingAPNsCredentials(bundleIdentifier: String, project: String) -> ExpoDeliveryError {
        ExpoDeliveryError(
            code: .invalidCredentials,
            message: "Could not find APNs credentials for \(bundleIdentifier) (\(project)). "
                + "You may need to generate or upload new push credentials."
        )
    }

    /// Missing or rejected FCM credentials (wording ours: UNVERIFIED).
    package static func invalidFCMCredentials(project: String) -> ExpoDeliveryError {
        ExpoDeliveryError(
            code: .invalidCredentials,
            message: "Unable to retrieve the FCM server credentials for \(project). "
                + "Upload a valid FCM V1 service account key."
        )
    }

    /// APNs dropped the connection (observed receipt text, 2025; `ProviderError`).
    package static func apnsDroppedConnection(sentAt: Int64?) -> ExpoDeliveryError {
        ExpoDeliveryError(
            code: .providerError,
            message: "The Apple Push Notification service unexpectedly dropped the connection. "
                + "Retry sending the notification later. If this error recurs very frequently, "
                + "there is likely an issue with your Apple push notification credentials.",
            sentAt: sentAt
        )
    }
}
