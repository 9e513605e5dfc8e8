public import Foundation
public import PushMockJSON
public import PushMockSender

/// The slice of Loop's backend that PushMock tests: Knock's part of the design, written out —
/// trigger a workflow for a user, hold it through the user's quiet hours (the seed's
/// `scheduleSmartNotification`: five minutes after they end), group what is due by type into one
/// summary (`batchNotifications`), send to the user's Expo push tokens, and forget tokens Expo
/// reports as `DeviceNotRegistered` (in tickets and in receipts).
///
/// In production `sender` talks to `https://exp.host`; in tests to PushMock's Expo endpoint.
/// `now` is the backend's clock (the gateway's virtual clock in tests).
public actor LoopNotifications {
    /// A workflow run waiting for its time.
    public struct ScheduledNotification: Sendable, Hashable {
        public var due: Date
        public var workflow: LoopWorkflow
        public var userID: String
        public var data: JSONObject
        /// Only these tokens (a retry after an outage); nil: every token of the user.
        public var tokens: [String]?
    }

    /// An accepted message: its ticket (receipt) id — the notification's id on the device.
    public struct SentMessage: Sendable, Hashable {
        public var ticketID: String
        public var token: String
        public var workflow: LoopWorkflow
        public var userID: String
        public var sentAt: Date
    }

    /// What `trigger` did.
    public enum Delivery: Sendable {
        case sent(ExpoSendReport)
        case scheduled(at: Date)
        /// The user has no push token left.
        case noTokens
    }

    /// The seed sends a held notification five minutes after the quiet hours end.
    public static let afterQuietHours: TimeInterval = 5 * 60
    /// When Expo could not be reached even after the sender's retries, try again this much later.
    public static let retryAfterOutage: TimeInterval = 5 * 60

    private let sender: ExpoSender
    private let templates: LoopTemplates
    private let now: @Sendable () -> Date
    private var recipients: [String: LoopRecipient] = [:]
    public private(set) var scheduled: [ScheduledNotification] = []
    public private(set) var sent: [SentMessage] = []
    /// Tokens dropped because Expo said `DeviceNotRegistered`, in the order they were dropped.
    public private(set) var removedTokens: [String] = []
    private var receiptsChecked: Set<String> = []

    public init(sender: ExpoSender, templates: LoopTemplates, now: @escaping @Sendable () -> Date) {
        self.sender = sender
        self.templates = templates
        self.now = now
    }

    public func register(_ recipient: LoopRecipient) {
        recipients[recipient.id] = recipient
    }

    public func recipient(_ id: String) -> LoopRecipient? { recipients[id] }

    /// `knock.workflows.trigger(workflow, {recipients: [user], data})`: sends now, or inside
    /// the user's quiet hours schedules it for five minutes after they end.
    @discardableResult
    public func trigger(_ workflow: LoopWorkflow, for userID: String, data: JSONObject) async throws -> Delivery {
        guard let recipient = recipients[userID] else { throw LoopNotificationError.unknownRecipient(userID) }
        let current = now()
        if let end = recipient.endOfQuietHours(after: current) {
            let due = end.addingTimeInterval(Self.afterQuietHours)
            scheduled.append(ScheduledNotification(due: due, workflow: workflow, userID: userID, data: data, tokens: nil))
            return .scheduled(at: due)
        }
        guard let report = try await send(workflow, to: recipient, data: data, tokens: recipient.pushTokens) else { return .noTokens }
        return .sent(report)
    }

    /// Sends every scheduled notification that is due. Several of one type for one user become
    /// one summary (`supply-batch-alert`, `dose-batch-reminder`), as the seed's batching does.
    @discardableResult
    public func sendDue() async throws -> [ExpoSendReport] {
        let current = now()
        let due = scheduled.filter { $0.due <= current }
        scheduled.removeAll { $0.due <= current }
        var groups: [(key: String, items: [ScheduledNotification])] = []
        for (index, item) in due.enumerated() {
            // Only supply alerts and dose reminders have a summary; the rest go one by one.
            let batches = [LoopWorkflow.supplyLow.type, LoopWorkflow.doseReminder.type].contains(item.workflow.type)
            let key = "\(item.userID)|\(batches ? item.workflow.type : "#\(index)")|\(item.tokens?.joined(separator: ",") ?? "*")"
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].items.append(item)
            } else {
                groups.append((key, [item]))
            }
        }
        var reports: [ExpoSendReport] = []
        for group in groups {
            guard let first = group.items.first, let recipient = recipients[first.userID] else { continue }
            let tokens = first.tokens ?? recipient.pushTokens
            let (workflow, data) = group.items.count == 1 ? (first.workflow, first.data) : Self.summary(of: group.items)
            if let report = try await send(workflow, to: recipient, data: data, tokens: tokens) {
                reports.append(report)
            }
        }
        return reports
    }

    /// Asks Expo for the receipts of every accepted message not checked yet, and drops the tokens
    /// whose receipt says `DeviceNotRegistered`. Receipts not ready yet are asked for next time.
    @discardableResult
    public func checkReceipts() async throws -> [String: ExpoReceiptOutcome] {
        let pending = sent.filter { !receiptsChecked.contains($0.ticketID) }
        guard !pending.isEmpty else { return [:] }
        let receipts = try await sender.receipts(for: pending.map(\.ticketID))
        for message in pending {
            guard let receipt = receipts[message.ticketID] else { continue }
            receiptsChecked.insert(message.ticketID)
            if case .error(let code, _) = receipt, code == "DeviceNotRegistered" {
                drop(message.token, of: message.userID)
            }
        }
        return receipts
    }

    // MARK: Sending

    private func send(_ workflow: LoopWorkflow, to recipient: LoopRecipient, data: JSONObject, tokens: [String]) async throws
        -> ExpoSendReport?
    {
        let live = tokens.filter { recipient.pushTokens.contains($0) }
        guard !live.isEmpty else { return nil }
        let messages = try templates.messages(workflow, data: data, to: live)
        let report = await sender.send(messages)
        let sentAt = now()
        var unreachable: [String] = []
        for ticket in report.tickets {
            switch ticket.outcome {
            case .ok(let id):
                sent.append(SentMessage(ticketID: id, token: ticket.token, workflow: workflow, userID: recipient.id, sentAt: sentAt))
            case .error(let code, _) where code == "DeviceNotRegistered":
                drop(ticket.token, of: recipient.id)
            case .error:
                break
            case .requestFailed:
                unreachable.append(ticket.token)
            }
        }
        if !unreachable.isEmpty {
            // Expo was down through the sender's own retries: keep the notification and try later.
            scheduled.append(
                ScheduledNotification(
                    due: sentAt.addingTimeInterval(Self.retryAfterOutage), workflow: workflow, userID: recipient.id, data: data,
                    tokens: unreachable))
        }
        return report
    }

    private func drop(_ token: String, of userID: String) {
        guard var recipient = recipients[userID], recipient.pushTokens.contains(token) else { return }
        recipient.pushTokens.removeAll { $0 == token }
        recipients[userID] = recipient
        removedTokens.append(token)
    }

    /// The summary of several notifications of one type (the seed's `sendBatchedNotification`).
    static func summary(of items: [ScheduledNotification]) -> (LoopWorkflow, JSONObject) {
        let type = items[0].workflow.type
        let nameKey = type == LoopWorkflow.supplyLow.type ? "compound_name" : "protocol_name"
        let names = items.compactMap { $0.data[nameKey]?.stringValue }
        var data = JSONObject()
        data.append(key: "count", value: JSONValue(items.count))
        data.append(key: type == LoopWorkflow.supplyLow.type ? "supplies" : "protocols", value: .array(names.map(JSONValue.string)))
        data.append(key: "names", value: .string(names.joined(separator: ", ")))
        return (type == LoopWorkflow.supplyLow.type ? .supplyBatchAlert : .doseBatchReminder, data)
    }
}
