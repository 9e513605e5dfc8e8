public import PushMockCore
public import PushMockRecording

/// Names one recorded notification in a report, so a reader can find it in the journal or the
/// control API: sequence number, time, platform, target, message id and the title the user saw.
///
/// JSON form (the optional members are omitted when absent):
/// ```json
/// {"sequence":12,"time":"2026-03-28T22:00:00.000Z","timeMilliseconds":1774735200000,
///  "platform":"apns","token":"740f4707…","topic":"health.loop.app",
///  "messageID":"EC1BF194-…","title":"Time for your Semaglutide"}
/// ```
public struct NotificationReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The record's sequence number (`seq` in the journal).
    public var sequence: UInt64
    /// When the gateway received the send, in milliseconds since the Unix epoch (gateway clock).
    public var timeMilliseconds: Int64
    /// The same instant as ISO-8601 UTC with milliseconds, for people.
    public var time: String
    /// `apns` or `fcm`.
    public var platform: Platform
    /// Device token (APNs) or registration token / installation ID (FCM), if the send named one.
    public var token: String?
    /// `apns-topic`, or the FCM topic a topic send went to.
    public var topic: String?
    /// The FCM condition of a condition send.
    public var condition: String?
    /// `apns-id`, or the FCM message name.
    public var messageID: String?
    /// The alert title, or for an alert without one its text; `nil` for silent notifications.
    public var title: String?
    /// Expo: which message of a request of several this is (0-based, as in `$[3]`); the checks
    /// judge each message of such a request on its own. `nil` for every other send.
    public var messageIndex: Int?

    public init(
        sequence: UInt64,
        timeMilliseconds: Int64,
        platform: Platform,
        token: String? = nil,
        topic: String? = nil,
        condition: String? = nil,
        messageID: String? = nil,
        title: String? = nil,
        messageIndex: Int? = nil
    ) {
        self.sequence = sequence
        self.timeMilliseconds = timeMilliseconds
        self.time = JournalTimestamp.string(millisecondsSinceEpoch: timeMilliseconds)
        self.platform = platform
        self.token = token
        self.topic = topic
        self.condition = condition
        self.messageID = messageID
        self.title = title
        self.messageIndex = messageIndex
    }

    /// The reference for a recorded send.
    public init(record: ExchangeRecord) {
        let payload = record.request.body.jsonValue
        self.init(
            sequence: record.sequence,
            timeMilliseconds: record.timeMilliseconds,
            platform: record.platform,
            token: record.notification?.token,
            topic: record.notification?.topic,
            condition: record.notification?.condition,
            messageID: record.notification?.messageID,
            title: payload.flatMap { NotificationPayloadFacts.title(in: $0, platform: record.platform.pushService) }
        )
    }

    /// `#12 2026-03-28T22:00:00.000Z apns 740f4707… "Time for your Semaglutide"` (an Expo
    /// request's fourth message: `#12[3] …`): tokens are
    /// shortened to their first 8 characters (Expo's to `Expo[AbCd…StUv]`); the JSON form
    /// keeps them whole.
    public var description: String {
        var text = "#\(sequence)\(messageIndex.map { "[\($0)]" } ?? "") \(time) \(platform)"
        if let token {
            text += " " + TokenText.short(token, keep: 8, limit: 12)
        } else if let topic, platform == .fcm {
            text += " topic \(topic)"
        } else if let condition {
            text += " condition \(condition)"
        }
        if let title { text += " \"\(title)\"" }
        return text
    }
}
