package import PushMockJSON

/// One Expo push message for one recipient, with every field of Expo's "Message request
/// format" read into its type. A message sent with a `to` list becomes one `ExpoMessage` per
/// token, as the service answers one ticket per token.
///
/// `object` keeps the message exactly as sent (members in order, unknown members included)
/// with `to` replaced by this recipient, for recordings and linting.
package struct ExpoMessage: Hashable, Sendable {
    /// The recipient as sent.
    package var to: String
    /// The recipient read as a token; `nil` when it is not one (the ticket is then an error).
    package var token: ExpoPushToken?
    /// Position of the message object in the request (0 for a single object).
    package var messageIndex: Int

    package var data: JSONObject?
    package var title: String?
    package var subtitle: String?
    package var body: String?
    package var sound: ExpoSound?
    /// `ttl`, seconds (fractions kept as sent).
    package var ttl: Double?
    /// `expiration`, seconds since the epoch; `ttl` wins when both are present.
    package var expiration: Double?
    package var priority: ExpoPriority?
    package var badge: Int?
    package var channelID: String?
    package var categoryID: String?
    package var icon: String?
    /// `richContent.image`.
    package var richContentImage: String?
    package var collapseID: String?
    package var tag: String?
    package var mutableContent: Bool?
    /// `_contentAvailable`.
    package var contentAvailable: Bool?
    package var interruptionLevel: ExpoInterruptionLevel?

    /// The message object as sent, `to` replaced by this recipient.
    package var object: JSONObject

    package init(to: String, token: ExpoPushToken?, messageIndex: Int = 0, object: JSONObject) {
        self.to = to
        self.token = token
        self.messageIndex = messageIndex
        self.object = object
    }
}

/// What part of a message the 4096-byte rule measures. Expo says "the total notification
/// payload sent to Apple and Google must be at most 4KiB" without saying how it is counted
/// (UNVERIFIED, docs/expo.md §5).
package enum ExpoPayloadSizeRule: Hashable, Sendable {
    /// UTF-8 bytes of the compact JSON of the message object without `to` — the closest stand-in
    /// for the APNs/FCM payload Expo builds from it (default).
    case messageWithoutRecipient
    /// UTF-8 bytes of the compact JSON of `data` alone (0 when absent).
    case dataOnly

    /// The measured size of `object` under this rule.
    package func size(of object: JSONObject) -> Int {
        var writer = JSONWriter(capacity: 256)
        switch self {
        case .messageWithoutRecipient:
            var copy = object
            copy["to"] = nil
            JSONValue.object(copy).write(to: &writer)
        case .dataOnly:
            guard let data = object["data"], !data.isNull else { return 0 }
            data.write(to: &writer)
        }
        writer.flush()
        return writer.bytes.count
    }
}

/// What the mock answers for a `to` that is not an Expo push token.
package enum ExpoInvalidTokenAnswer: Hashable, Sendable {
    /// An error ticket `"<to>" is not a valid Expo push token` / `DeviceNotRegistered` while the
    /// rest of the request goes on (observed; default).
    case ticketError
    /// A `VALIDATION_ERROR` for the whole request.
    case requestError
}

/// Where an over-size message is reported.
package enum ExpoMessageTooBigAnswer: Hashable, Sendable {
    /// An error ticket `MessageTooBig` right away (default; UNVERIFIED — the docs list it under
    /// receipt errors, the SDK types allow it on tickets).
    case ticketError
    /// An ok ticket; the gateway reports `MessageTooBig` in the receipt.
    case receiptError
}

/// The validation knobs, with defaults matching the service as far as it is known.
package struct ExpoValidationOptions: Hashable, Sendable {
    /// Notifications per request after expanding `to` lists (Expo: 100).
    package var maximumNotificationsPerRequest: Int
    /// The payload limit in bytes (Expo: 4096).
    package var maximumPayloadBytes: Int
    /// What the limit measures.
    package var payloadSizeRule: ExpoPayloadSizeRule
    /// Where an over-size message is reported.
    package var messageTooBigAnswer: ExpoMessageTooBigAnswer
    /// Which tokens count as Expo push tokens.
    package var tokenSyntax: ExpoTokenSyntax
    /// What a malformed token gets.
    package var invalidTokenAnswer: ExpoInvalidTokenAnswer
    /// Refuse members the docs do not define (the SDKs still send legacy `_category` and
    /// `_displayInForeground`, and the service accepts them, so the default is `false`).
    package var rejectsUnknownFields: Bool
    /// Deepest JSON nesting accepted.
    package var maximumJSONDepth: Int

    package init(
        maximumNotificationsPerRequest: Int = 100,
        maximumPayloadBytes: Int = 4096,
        payloadSizeRule: ExpoPayloadSizeRule = .messageWithoutRecipient,
        messageTooBigAnswer: ExpoMessageTooBigAnswer = .ticketError,
        tokenSyntax: ExpoTokenSyntax = .service,
        invalidTokenAnswer: ExpoInvalidTokenAnswer = .ticketError,
        rejectsUnknownFields: Bool = false,
        maximumJSONDepth: Int = 100
    ) {
        self.maximumNotificationsPerRequest = maximumNotificationsPerRequest
        self.maximumPayloadBytes = maximumPayloadBytes
        self.payloadSizeRule = payloadSizeRule
        self.messageTooBigAnswer = messageTooBigAnswer
        self.tokenSyntax = tokenSyntax
        self.invalidTokenAnswer = invalidTokenAnswer
        self.rejectsUnknownFields = rejectsUnknownFields
        self.maximumJSONDepth = maximumJSONDepth
    }
}
