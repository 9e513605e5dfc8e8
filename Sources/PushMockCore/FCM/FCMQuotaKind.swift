/// Which of FCM's three documented rate quotas a 429 `QUOTA_EXCEEDED` reports.
///
/// Firebase's ErrorCode page lists three causes ("Message rate exceeded", "Device message rate
/// exceeded", "Topic message rate exceeded"); the cause travels in a `google.rpc.QuotaFailure`
/// detail. Only the topic wording of the top-level message has been observed
/// ("Topic quota exceeded."); the other two follow its pattern.
public struct FCMQuotaKind: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case messageRate = "message-rate"
        case deviceMessageRate = "device-message-rate"
        case topicMessageRate = "topic-message-rate"
    }

    private let known: Known

    private init(_ known: Known) { self.known = known }

    /// Parses `message-rate`, `device-message-rate` or `topic-message-rate` (configuration and
    /// control API spelling).
    public init?(rawValue: String) {
        guard let known = Known(rawValue: rawValue) else { return nil }
        self.known = known
    }

    /// The configuration spelling.
    public var rawValue: String { known.rawValue }
    public var description: String { known.rawValue }

    /// The top-level `message` of the 429 body.
    public var message: String {
        switch known {
        case .messageRate: return "Project quota exceeded."
        case .deviceMessageRate: return "Device quota exceeded."
        case .topicMessageRate: return "Topic quota exceeded."
        }
    }

    /// The `description` of the `QuotaFailure` violation (Firebase's ErrorCode wording).
    public var violationDescription: String {
        switch known {
        case .messageRate: return "Message rate exceeded: the rate of messages sent by the project is too high."
        case .deviceMessageRate:
            return "Device message rate exceeded: the rate of messages to a particular device is too high."
        case .topicMessageRate:
            return "Topic message rate exceeded: the rate of messages to subscribers of a particular topic is too high."
        }
    }

    /// The project's overall sending rate.
    public static let messageRate = Self(.messageRate)
    /// Messages to one device.
    public static let deviceMessageRate = Self(.deviceMessageRate)
    /// Messages to one topic's subscribers.
    public static let topicMessageRate = Self(.topicMessageRate)

    /// All three kinds.
    public static let all: [FCMQuotaKind] = Known.allCases.map(FCMQuotaKind.init)
}
