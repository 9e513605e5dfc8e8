internal import PushMockCore
import PushMockJSON
import PushMockQuery
import PushMockRecording

/// One notification of a recorded send, as the checks judge it. An APNs or FCM send is one
/// notification. An Expo request of several messages is one notification per message: each
/// message has its own type, priority, silence, data and links, and reaches its own
/// recipients, and an Expo backend batches different messages to different people into one
/// request (the SDKs' chunks of 100), so judging a batch by its first message would put every
/// recipient under that message's rules.
struct RecordedNotification {
    let facts: NotificationPayloadFacts
    let reference: NotificationReference
    /// The recipients it reached (see ``NotificationPayloadFacts/recipients(of:platform:)``).
    let recipients: [String]

    /// The notifications of `record`, a send of `platform`.
    static func all(in record: ExchangeRecord, platform: Platform) -> [RecordedNotification] {
        if platform == .expo, let messages = ExpoRecordedMessages(record: record) {
            return messages.notifications
        }
        return [
            RecordedNotification(
                facts: NotificationPayloadFacts(record: record, platform: platform),
                reference: NotificationReference(record: record),
                recipients: NotificationPayloadFacts.recipients(of: record, platform: platform)
            )
        ]
    }
}

/// The messages of a recorded Expo send whose body is an array of more than one message,
/// each with the recipients its tickets say were accepted.
struct ExpoRecordedMessages {
    let record: ExchangeRecord
    /// The messages, in request order.
    let messages: [JSONValue]
    /// Each recipient's ticket status (`ok` or `error`) in request order (messages in order,
    /// each message's `to` in order), when the answer carried tickets.
    let ticketStatuses: [String]?

    init?(record: ExchangeRecord) {
        guard case .array(let messages)? = record.request.body.jsonValue, messages.count > 1 else { return nil }
        self.record = record
        self.messages = messages
        self.ticketStatuses = record.response.body.jsonValue?["data"]?.arrayValue?.map { $0["status"]?.stringValue ?? "" }
    }

    var notifications: [RecordedNotification] {
        // The tokens the gateway relayed, for answers without readable tickets.
        let relayed = Set(record.notification?.resolvedTokens ?? [])
        var position = 0
        var notifications: [RecordedNotification] = []
        notifications.reserveCapacity(messages.count)
        for (index, message) in messages.enumerated() {
            let sent = RecordingQuery.expoRecipients(of: message)
            var reached: [String] = []
            for token in sent {
                defer { position += 1 }
                if let statuses = ticketStatuses {
                    if position < statuses.count, statuses[position] == "ok" { reached.append(token) }
                } else if relayed.contains(token) {
                    reached.append(token)
                }
            }
            // The message alone, as an array of one: paths written for the request body
            // (`$[*].data.type`, `$[0].data`) read this message.
            let payload = JSONValue.array([message])
            var reference = NotificationReference(record: record)
            reference.messageIndex = index
            reference.token = sent.count == 1 ? sent[0] : nil
            reference.title = NotificationPayloadFacts.title(in: payload, platform: .expo)
            reference.messageID = nil
            notifications.append(
                RecordedNotification(
                    facts: NotificationPayloadFacts(payload: payload, platform: .expo),
                    reference: reference,
                    recipients: reached
                ))
        }
        return notifications
    }
}
