public import PushMockCore

/// The headers of an accepted APNs device push that the lint rules read.
public struct APNsLintInput: Sendable, Hashable {
    /// `apns-push-type` as sent, or `nil` when the header was absent.
    public var pushTypeSent: APNsPushType?
    /// The push type in effect: the header, or what the gateway inferred from the topic.
    public var pushType: APNsPushType
    /// `apns-priority` as sent, or `nil` when absent (APNs then uses 10).
    public var prioritySent: APNsPriority?
    /// `apns-expiration` in seconds since the epoch (`0`: now or never), or `nil`.
    public var expiration: Int64?
    /// `apns-collapse-id`, or `nil`.
    public var collapseID: String?
    /// `apns-topic` (or the certificate's topic), or `nil` when unknown.
    public var topic: String?

    public init(
        pushTypeSent: APNsPushType?,
        pushType: APNsPushType,
        prioritySent: APNsPriority?,
        expiration: Int64? = nil,
        collapseID: String? = nil,
        topic: String? = nil
    ) {
        self.pushTypeSent = pushTypeSent
        self.pushType = pushType
        self.prioritySent = prioritySent
        self.expiration = expiration
        self.collapseID = collapseID
        self.topic = topic
    }

    /// The values of parsed request headers. `topic` overrides `headers.topic` when the gateway
    /// resolved it otherwise (a certificate's single topic); the push type in effect is then
    /// inferred from it the same way the gateway does.
    public init(_ headers: APNsNotificationHeaders, topic: String? = nil) {
        let resolvedTopic = topic ?? headers.topic
        self.init(
            pushTypeSent: headers.pushType,
            pushType: headers.pushType ?? resolvedTopic.map { APNsPushType.inferred(fromTopic: $0) } ?? .alert,
            prioritySent: headers.priority,
            expiration: headers.expiration,
            collapseID: headers.collapseID,
            topic: resolvedTopic
        )
    }

    /// The priority APNs applies: the header, or 10.
    public var priority: APNsPriority { prioritySent ?? .immediate }

    /// The app's bundle ID: the topic without the push type's suffix.
    public var bundleID: String? {
        guard let topic else { return nil }
        return pushType.bundleID(fromTopic: topic) ?? topic
    }
}
