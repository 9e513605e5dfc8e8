public import Foundation
public import PushMockCore
import PushMockJSON
public import PushMockSender
import Synchronization

/// The backend's notification service of the design (section 1, "POST /notifications
/// {userId, type, data}"), sending through FCM HTTP v1 for Android and iOS alike with the
/// project's `FCMSender`. Before anything goes out it applies the user's preferences
/// (section 7) and the rate limits (section 8); it forgets tokens FCM calls unregistered.
///
/// - Marketing during the user's quiet hours is held and sent when they end (``flush()``).
/// - Marketing beyond 2 in 7 days is dropped ("drop excess, no queue").
/// - Messages beyond 100 in an hour are batched into one "N new messages" notification,
///   sent by ``flush()`` once the window has room.
public final class NotificationService: Sendable {
    /// A device the app registered (`POST /users/push-token`).
    public struct Device: Sendable, Hashable {
        public var token: String
        public var platform: String

        public init(token: String, platform: String) {
            self.token = token
            self.platform = platform
        }
    }

    /// What became of one `notify` call.
    public enum Outcome: Sendable, Hashable {
        /// Accepted by FCM, one message name per device.
        case sent([String])
        /// Held until quiet hours end.
        case held(until: Date)
        /// Over the limit and dropped (marketing), or not wanted (preferences).
        case dropped(String)
        /// Counted into the next "N new messages" summary.
        case batched(pending: Int)
        /// No device left to send to (all tokens gone, or none registered).
        case noDevice
    }

    public let sender: FCMSender
    public let template: NotificationTemplate
    public let limits: RateLimits
    public let clock: any PushMockClock

    private struct State {
        var devices: [String: [Device]] = [:]
        var preferences: [String: NotificationPreferences] = [:]
        var log = SendLog()
        var held: [(user: String, request: Request, until: Date)] = []
        var batches: [String: (count: Int, lastChat: String)] = [:]
        var forgotten: [String] = []
    }

    private struct Request: Sendable {
        var type: NotificationType
        var entityID: String
        var title: String
        var body: String
    }

    private let state = Mutex(State())

    public init(
        sender: FCMSender, template: NotificationTemplate, limits: RateLimits = RateLimits(), clock: any PushMockClock = SystemClock()
    ) {
        self.sender = sender
        self.template = template
        self.limits = limits
        self.clock = clock
    }

    // MARK: What the apps post

    public func register(_ device: Device, for user: String) {
        state.withLock { $0.devices[user, default: []].append(device) }
    }

    public func setPreferences(_ preferences: NotificationPreferences, for user: String) {
        state.withLock { $0.preferences[user] = preferences }
    }

    public func devices(of user: String) -> [Device] { state.withLock { $0.devices[user] ?? [] } }

    /// Tokens FCM answered `UNREGISTERED` for, in order.
    public var forgottenTokens: [String] { state.withLock { $0.forgotten } }

    // MARK: Sending

    /// `POST /notifications {userId, type, data}`.
    public func notify(
        _ user: String, type: NotificationType, entityID: String, title: String, body: String
    ) async throws(SenderError) -> Outcome {
        let request = Request(type: type, entityID: entityID, title: title, body: body)
        let now = date(clock.now())
        let decision: Outcome? = state.withLock { state in
            let preferences = state.preferences[user] ?? NotificationPreferences()
            guard preferences.allows(type) else { return .dropped("\(type.channel) notifications are off") }
            if type.category == .marketing, let end = preferences.quietHours?.end(around: now) {
                state.held.append((user, request, end))
                return .held(until: end)
            }
            if state.log.nextSlot(user: user, category: type.category, limits: limits, at: now) == nil {
                state.log.record(user: user, category: type.category, at: now)
                return nil  // within the limits: send it
            }
            switch type.category {
            case .messages:
                var batch = state.batches[user] ?? (0, entityID)
                batch.count += 1
                batch.lastChat = entityID
                state.batches[user] = batch
                return .batched(pending: batch.count)
            default:
                return .dropped("\(type.category.rawValue) limit reached")
            }
        }
        if let decision { return decision }
        return try await deliver(request, to: user, at: now)
    }

    /// Sends what waited: marketing held by quiet hours that have ended, and message
    /// summaries whose hour has room again. Run it from the backend's scheduler.
    @discardableResult
    public func flush() async throws(SenderError) -> [Outcome] {
        let now = date(clock.now())
        let (due, summaries) = state.withLock { state -> ([(String, Request)], [(String, Request)]) in
            let due = state.held.filter { $0.until <= now }.map { ($0.user, $0.request) }
            state.held.removeAll { $0.until <= now }
            var summaries: [(String, Request)] = []
            for (user, batch) in state.batches.sorted(by: { $0.key < $1.key })
            where state.log.nextSlot(user: user, category: .messages, limits: limits, at: now) == nil {
                state.log.record(user: user, category: .messages, at: now)
                summaries.append(
                    (
                        user,
                        Request(
                            type: .messageReceived, entityID: batch.lastChat, title: "\(batch.count) new messages", body: "Open your chats")
                    ))
                state.batches[user] = nil
            }
            return (due, summaries)
        }
        var outcomes: [Outcome] = []
        for (user, request) in due {
            let now = date(clock.now())
            let counted: Bool = state.withLock { state in
                guard state.log.nextSlot(user: user, category: request.type.category, limits: limits, at: now) == nil else { return false }
                state.log.record(user: user, category: request.type.category, at: now)
                return true
            }
            outcomes.append(counted ? try await deliver(request, to: user, at: now) : .dropped("marketing limit reached"))
        }
        for (user, summary) in summaries {
            outcomes.append(try await deliver(summary, to: user, at: now, summaryPath: "/chats"))
        }
        return outcomes
    }

    private func deliver(_ request: Request, to user: String, at now: Date, summaryPath: String? = nil) async throws(SenderError) -> Outcome
    {
        let devices = devices(of: user)
        guard !devices.isEmpty else { return .noDevice }
        var names: [String] = []
        for device in devices {
            let data: JSONObject = [
                "title": .string(request.title),
                "body": .string(request.body),
                "notificationType": .string(request.type.rawValue),
                "entityType": .string(request.type.entityType),
                "entityId": .string(request.entityID),
                "deepLinkPath": .string(summaryPath ?? request.type.deepLinkPath(entityID: request.entityID)),
                "timestamp": .string(Self.iso8601(now)),
                "channel": .string(request.type.channel),
                "androidPriority": .string(request.type.androidPriority),
                "apnsPriority": .string(request.type.apnsPriority),
            ]
            // The template is the message without its target, as `pushmock send fcm --token` takes it.
            var message = try template.render(data)
            if case .object(var object) = message {
                object["token"] = .string(device.token)
                message = .object(object)
            }
            let result = await sender.send(try FCMPushMessage(json: message))
            switch result.outcome {
            case .accepted(let acceptance):
                names.append(acceptance.id)
            case .tokenInvalid:
                // 404 UNREGISTERED: the app was uninstalled (or the token replaced). A user
                // who only turned notifications off still gets 200 — the phone hides it.
                state.withLock { state in
                    state.devices[user]?.removeAll { $0.token == device.token }
                    state.forgotten.append(device.token)
                }
            case .rejected, .failed:
                break
            }
        }
        return names.isEmpty ? .noDevice : .sent(names)
    }

    private func date(_ timestamp: Timestamp) -> Date { Date(timeIntervalSince1970: Double(timestamp.millisecondsSince1970) / 1000) }

    private static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
