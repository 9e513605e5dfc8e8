public import Foundation
public import PushMockCore
import PushMockJSON
public import PushMockSender

/// Whistl's intervention sender, as the team wrote it over the project's `APNsSender` and
/// `FCMSender`: the risk level picks priorities and channels, quiet hours hold back all but
/// critical interventions, each service is retried with the guide's backoff (the senders'
/// `RetryPolicy`), dead tokens are forgotten, and when one road fails the next is tried —
/// APNs, then FCM (an iPhone's Firebase token), then SMS for critical interventions or an
/// in-app message for the rest.
///
/// It takes its senders, templates and clock from its caller, so production passes the real
/// services and the CI test passes PushMock's.
public struct WhistlNotifier: Sendable {
    /// The guide's `sendWithRetry`: three attempts, waiting 2 s then 4 s (2^attempt), no
    /// jitter so the waits are exactly the documented ones. 429/500/503 and connection faults
    /// are retried; a `Retry-After` is honoured.
    public static let retryPolicy = RetryPolicy(maximumAttempts: 3, initialBackoff: .seconds(2), multiplier: 2, jitter: 0)

    public let apns: APNsSender
    public let fcm: FCMSender
    public let devices: DeviceRegistry
    public let templates: WhistlTemplates
    public let quietHours: QuietHours
    /// Whose "now" decides quiet hours and expirations (the gateway's virtual clock in CI).
    public let clock: any PushMockClock
    /// Critical interventions that no push road could take go out as SMS (Twilio in
    /// production); answers whether the SMS was accepted.
    public let sendSMS: @Sendable (_ userID: String, _ intervention: Intervention) async -> Bool

    public init(
        apns: APNsSender,
        fcm: FCMSender,
        devices: DeviceRegistry,
        templates: WhistlTemplates,
        quietHours: QuietHours = QuietHours(),
        clock: any PushMockClock = SystemClock(),
        sendSMS: @escaping @Sendable (_ userID: String, _ intervention: Intervention) async -> Bool
    ) {
        self.apns = apns
        self.fcm = fcm
        self.devices = devices
        self.templates = templates
        self.quietHours = quietHours
        self.clock = clock
        self.sendSMS = sendSMS
    }

    /// Pushes one intervention to a user and says how it went.
    public func send(_ intervention: Intervention, to userID: String) async throws(SenderError) -> DeliveryReport {
        let started = clock.now()
        var report = DeliveryReport(route: .noDevice)
        guard let registration = devices.registration(for: userID) else { return report }
        let startedDate = Date(timeIntervalSince1970: Double(started.millisecondsSince1970) / 1000)
        if quietHours.suppresses(intervention.riskLevel, at: startedDate, in: registration.timeZone) {
            report.route = .suppressed
            return report
        }

        for channel in roads(for: registration) {
            let result: SendResult
            switch channel {
            case .apns(let token):
                result = await apns.send(try apnsNotification(intervention, token: token, now: started))
            case .fcm(let token):
                result = await fcm.send(try fcmMessage(intervention, token: token))
            }
            report.attempts.append(
                DeliveryReport.Attempt(
                    channel: channel.name, outcome: result.outcome.kind.rawValue,
                    reason: result.outcome.reason, requests: result.attempts))
            switch result.outcome {
            case .accepted(let acceptance):
                report.route = .push(channel: channel.name, id: acceptance.id)
                report.timeToAccept = clock.now() - started
                return report
            case .tokenInvalid:
                // 410 Unregistered / ExpiredToken, 404 UNREGISTERED: the app is gone from
                // that phone (or the token was replaced); never send to it again.
                devices.forget(token: channel.token)
                report.forgottenTokens.append(channel.token)
            case .rejected, .failed:
                // A rejected request is our bug and is logged; a failed one survived every
                // retry. Either way the next road may still reach the user.
                break
            }
        }

        if intervention.riskLevel == .critical {
            report.route = await sendSMS(userID, intervention) ? .sms : .undelivered
        } else {
            report.route = .inApp
        }
        report.timeToAccept = clock.now() - started
        return report
    }

    private enum Road {
        case apns(String)
        case fcm(String)

        var name: String {
            switch self {
            case .apns: "apns"
            case .fcm: "fcm"
            }
        }

        var token: String {
            switch self {
            case .apns(let token), .fcm(let token): token
            }
        }
    }

    /// APNs first on an iPhone (direct, fastest), then the Firebase token.
    private func roads(for registration: DeviceRegistry.Registration) -> [Road] {
        var roads: [Road] = []
        if registration.platform == .ios, let token = registration.apnsToken { roads.append(.apns(token)) }
        if let token = registration.fcmToken { roads.append(.fcm(token)) }
        return roads
    }

    private func apnsNotification(_ intervention: Intervention, token: String, now: Timestamp) throws(SenderError) -> APNsNotification {
        APNsNotification(
            deviceToken: token,
            payloadJSON: try templates.apns.renderBytes(intervention.templateData(token: token)),
            pushType: .alert,
            priority: intervention.riskLevel.apnsPriority,
            expiration: .at(now + intervention.riskLevel.deliveryTarget),
            apnsID: intervention.id
        )
    }

    private func fcmMessage(_ intervention: Intervention, token: String) throws(SenderError) -> FCMPushMessage {
        // The template is the message without its target (`pushmock send fcm --token` fills
        // that in the same way).
        var message = try templates.fcm.render(intervention.templateData(token: token))
        if case .object(var object) = message {
            object["token"] = .string(token)
            message = .object(object)
        }
        return try FCMPushMessage(json: message)
    }
}

/// The team's two templates (`pushmock/templates/intervention.{apns,fcm}.json`).
public struct WhistlTemplates: Sendable {
    public var apns: NotificationTemplate
    public var fcm: NotificationTemplate

    public init(apns: NotificationTemplate, fcm: NotificationTemplate) {
        self.apns = apns
        self.fcm = fcm
    }

    /// Reads `intervention.apns.json` and `intervention.fcm.json` from `directory`.
    public init(directory: URL) throws {
        func read(_ name: String) throws -> NotificationTemplate {
            try NotificationTemplate(json: String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
        }
        self.init(apns: try read("intervention.apns.json"), fcm: try read("intervention.fcm.json"))
    }
}

/// What happened to one intervention.
public struct DeliveryReport: Sendable, Hashable {
    public enum Route: Sendable, Hashable {
        /// Accepted by `apns` or `fcm`, with the `apns-id` or FCM message name.
        case push(channel: String, id: String)
        /// Every push road failed; the critical intervention went out as SMS.
        case sms
        /// Every push road failed; shown in the app when it is next opened.
        case inApp
        /// Held back by quiet hours.
        case suppressed
        /// No push road and the SMS failed too.
        case undelivered
        /// The user has no registered device.
        case noDevice
    }

    /// One road tried: its outcome class (`accepted`, `rejected`, `invalid-token`, `failed`),
    /// the service's reason and how many requests the sender made (retries included).
    public struct Attempt: Sendable, Hashable {
        public var channel: String
        public var outcome: String
        public var reason: String?
        public var requests: Int
    }

    public var route: Route
    public var attempts: [Attempt] = []
    /// Tokens the services called dead, now removed from the registry.
    public var forgottenTokens: [String] = []
    /// From the risk engine's decision to acceptance (or to the fallback), on the clock —
    /// retries and backoff included, which the gateway's latency report (acceptance to
    /// delivery) does not see.
    public var timeToAccept: Duration = .zero
}
