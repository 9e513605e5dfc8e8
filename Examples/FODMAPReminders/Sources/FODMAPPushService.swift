public import Foundation
public import PushMockJSON
public import PushMockSender

/// The backend half of the design (an Appwrite function in the team's stack): the reminders the
/// server knows about first — a test step starts, a washout starts or ends — sent as Expo pushes
/// under the same `ReminderRules` as the app's local notifications, with the history the
/// adaptive frequency reads, and the design's graceful degradation: when the user turned
/// notifications off (the app syncs `permissionGranted`) or Expo cannot be reached after the
/// sender's retries, the reminder becomes an in-app alert instead.
public actor FODMAPPushService {
    public struct User: Sendable, Hashable {
        public var id: String
        public var timeZone: TimeZone
        public var pushTokens: [String]
        public var rules: ReminderRules
        /// What the app last synced (`notificationPreferences.permissionGranted`).
        public var permissionGranted: Bool

        public init(id: String, timeZone: TimeZone, pushTokens: [String], rules: ReminderRules, permissionGranted: Bool = true) {
            self.id = id
            self.timeZone = timeZone
            self.pushTokens = pushTokens
            self.rules = rules
            self.permissionGranted = permissionGranted
        }
    }

    /// `NotificationHistoryEntry`: what was sent, when, and what the user did with it.
    public struct HistoryEntry: Sendable, Hashable {
        public var userID: String
        public var type: ReminderType
        public var title: String
        public var scheduledTime: Date
        public var sentTime: Date
        /// The Expo ticket id: the notification's id on the device.
        public var ticketID: String
        public var actionedTime: Date?
        /// `opened`, `dismissed`, `dose_marked_taken`, `symptom_logged`, `snoozed`, or the
        /// category's action id.
        public var action: String?
    }

    /// A reminder shown inside the app instead of as a notification.
    public struct InAppAlert: Sendable, Hashable {
        public var userID: String
        public var type: ReminderType
        public var title: String
        public var reason: String
    }

    /// What `remind` did.
    public enum Outcome: Sendable, Hashable {
        case sent(ticketIDs: [String])
        case held(until: Date)
        case dropped
        case inApp(reason: String)
    }

    private struct Pending: Sendable {
        var due: Date
        var type: ReminderType
        var userID: String
        var data: JSONObject
        var scheduledTime: Date
    }

    private let sender: ExpoSender
    private let templates: [ReminderType: NotificationTemplate]
    private let now: @Sendable () -> Date
    private var users: [String: User] = [:]
    private var pending: [Pending] = []
    public private(set) var history: [HistoryEntry] = []
    public private(set) var inAppAlerts: [InAppAlert] = []

    /// `templatesDirectory` holds `test-start.expo.json`, `washout-start.expo.json`,
    /// `washout-end.expo.json`.
    public init(sender: ExpoSender, templatesDirectory: String, now: @escaping @Sendable () -> Date) throws {
        var templates: [ReminderType: NotificationTemplate] = [:]
        let files: [ReminderType: String] = [.testStartReminder: "test-start", .washoutStart: "washout-start", .washoutEnd: "washout-end"]
        for (type, file) in files {
            templates[type] = try NotificationTemplate(
                json: String(contentsOfFile: "\(templatesDirectory)/\(file).expo.json", encoding: .utf8))
        }
        self.sender = sender
        self.templates = templates
        self.now = now
    }

    public func register(_ user: User) { users[user.id] = user }

    /// The app reports the permission it found (`checkPermission`) at start and on change.
    public func setPermissionGranted(_ granted: Bool, for userID: String) { users[userID]?.permissionGranted = granted }

    /// A reminder of `type` for `userID`, due now: sent, held for quiet hours or spacing,
    /// dropped over the daily cap, or shown in the app.
    @discardableResult
    public func remind(_ type: ReminderType, userID: String, data: JSONObject) async throws -> Outcome {
        let current = now()
        return try await attempt(Pending(due: current, type: type, userID: userID, data: data, scheduledTime: current))
    }

    /// Sends the held reminders that are due.
    @discardableResult
    public func sendDue() async throws -> [Outcome] {
        let current = now()
        let due = pending.filter { $0.due <= current }
        pending.removeAll { $0.due <= current }
        var outcomes: [Outcome] = []
        for item in due { outcomes.append(try await attempt(item)) }
        return outcomes
    }

    /// The app reports what the user did with a notification (`markNotificationAsActioned`).
    public func markActioned(ticketID: String, action: String, at time: Date) {
        guard let index = history.firstIndex(where: { $0.ticketID == ticketID }) else { return }
        history[index].action = action
        history[index].actionedTime = time
    }

    private func attempt(_ item: Pending) async throws -> Outcome {
        guard let user = users[item.userID], let template = templates[item.type] else { return .dropped }
        let current = now()
        let earlier = history.filter { $0.userID == user.id }.map { (type: $0.type, at: $0.sentTime) }
        switch user.rules.decide(item.type, due: max(item.due, current), earlier: earlier, in: user.timeZone) {
        case .drop:
            return .dropped
        case .deliver(let at) where at > current:
            var held = item
            held.due = at
            pending.append(held)
            return .held(until: at)
        case .deliver:
            break
        }
        guard case .object(let rendered) = try template.render(item.data) else { return .dropped }
        let title = rendered["title"]?.stringValue ?? ""
        guard user.permissionGranted else {
            inAppAlerts.append(InAppAlert(userID: user.id, type: item.type, title: title, reason: "notifications are turned off"))
            return .inApp(reason: "notifications are turned off")
        }
        let report = await sender.send(user.pushTokens.map { Self.message(rendered, to: $0) })
        var tickets: [String] = []
        for ticket in report.tickets {
            switch ticket.outcome {
            case .ok(let id):
                tickets.append(id)
                history.append(
                    HistoryEntry(
                        userID: user.id, type: item.type, title: title, scheduledTime: item.scheduledTime, sentTime: current, ticketID: id))
            case .error(let code, _) where code == "DeviceNotRegistered":
                users[user.id]?.pushTokens.removeAll { $0 == ticket.token }
            case .error, .requestFailed:
                break
            }
        }
        if tickets.isEmpty {
            // Expo could not take it even after the sender's backoff: the design's fallback.
            let reason = "push failed: " + (report.tickets.first?.outcome.errorCode ?? "no token")
            inAppAlerts.append(InAppAlert(userID: user.id, type: item.type, title: title, reason: reason))
            return .inApp(reason: reason)
        }
        return .sent(ticketIDs: tickets)
    }

    static func message(_ object: JSONObject, to token: String) -> ExpoPushMessage {
        let typed: Set<String> = ["title", "body", "data", "sound", "ttl", "priority"]
        var extra = JSONObject()
        for member in object.members where !typed.contains(member.key) { extra.append(key: member.key, value: member.value) }
        return ExpoPushMessage(
            to: token, title: object["title"]?.stringValue, body: object["body"]?.stringValue, data: object["data"]?.objectValue,
            sound: object["sound"]?.stringValue, ttl: object["ttl"]?.intValue, priority: object["priority"]?.stringValue, extra: extra)
    }
}
