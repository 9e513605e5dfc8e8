import Foundation
import PushMockCore
import PushMockJSON
public import PushMockSender

/// LifeTracker's backend push, beside the Critical Moments SDK that schedules the app's
/// notifications on the phone from `notifications.json`. The backend never sends those
/// reminders to iOS devices; it pushes what the phone cannot know by itself:
///
/// - `config-updated`: a silent APNs push (priority 5) when a new config is published, so
///   the app fetches it and replans;
/// - `app-event`: a silent APNs push carrying an event that happened elsewhere (setup
///   completed on the web), which the app logs into the SDK — a cancelation event;
/// - `setup-reminder`: the config's `completeSetupReminder` as a visible push where the SDK
///   cannot schedule it — Android (FCM; the SDK is iOS-only) and iPhones with background app
///   refresh off (APNs). Title and body come from the same config.
///
/// The gateway, CA and credentials come from the caller (`APNsSender`, `FCMSender`), so the
/// same code talks to Apple and Google in production and to PushMock in CI.
public struct LifeTrackerPush: Sendable {
    public let apns: APNsSender
    public let fcm: FCMSender
    let configUpdated: NotificationTemplate
    let appEvent: NotificationTemplate
    let reminderAPNs: NotificationTemplate
    let reminderFCM: NotificationTemplate
    /// The reminder's title and body, from the config's `completeSetupReminder`.
    public let reminderTitle: String
    public let reminderBody: String

    /// `definitions`: the directory holding `templates/` and `notifications.json`.
    public init(apns: APNsSender, fcm: FCMSender, definitions: String) throws {
        self.apns = apns
        self.fcm = fcm
        func template(_ name: String) throws -> NotificationTemplate {
            try NotificationTemplate(json: try String(contentsOfFile: "\(definitions)/templates/\(name)", encoding: .utf8))
        }
        configUpdated = try template("config-updated.apns.json")
        appEvent = try template("app-event.apns.json")
        reminderAPNs = try template("setup-reminder.apns.json")
        reminderFCM = try template("setup-reminder.fcm.json")
        let config = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: "\(definitions)/notifications.json"))))
        let reminder = config["notifications"]?["completeSetupReminder"]
        guard let title = reminder?["title"]?.stringValue, let body = reminder?["body"]?.stringValue else {
            throw SenderError(.invalidPayload, "notifications.json has no completeSetupReminder with a title and body")
        }
        reminderTitle = title
        reminderBody = body
    }

    /// Tells the iOS apps that config `version` is published at `url`. Silent, priority 5,
    /// one per device (a newer announcement replaces a stored one: same collapse id).
    public func announceConfig(version: Int, url: String, to tokens: [String]) async throws -> [SendResult] {
        let payload = try configUpdated.renderBytes(["version": JSONValue(version), "url": JSONValue(url)])
        var results: [SendResult] = []
        for token in tokens {
            results.append(
                await apns.send(
                    APNsNotification(
                        deviceToken: token, payloadJSON: payload, pushType: .background, priority: .considerPower,
                        collapseID: "cm-config")))
        }
        return results
    }

    /// Forwards an event that happened outside the app (`completeSetup` on the web) to the
    /// user's iPhone, which logs it into the SDK. Silent, priority 5.
    public func forwardEvent(_ name: String, to token: String) async throws -> SendResult {
        let payload = try appEvent.renderBytes(["event": JSONValue(name)])
        return await apns.send(APNsNotification(deviceToken: token, payloadJSON: payload, pushType: .background, priority: .considerPower))
    }

    /// The setup reminder as a visible APNs push (an iPhone without background app refresh).
    /// `id` is the `apns-id`, so a retried job does not show it twice.
    public func sendSetupReminder(apnsToken token: String, id: String) async throws -> SendResult {
        let payload = try reminderAPNs.renderBytes(["title": JSONValue(reminderTitle), "body": JSONValue(reminderBody)])
        return await apns.send(APNsNotification(deviceToken: token, payloadJSON: payload, pushType: .alert, apnsID: id))
    }

    /// The setup reminder as an FCM notification message (Android, channel `onboarding`).
    public func sendSetupReminder(fcmToken token: String) async throws -> SendResult {
        let message = try reminderFCM.render([
            "token": JSONValue(token), "title": JSONValue(reminderTitle), "body": JSONValue(reminderBody),
        ])
        return await fcm.send(try FCMPushMessage(json: message))
    }

    /// Tokens the services said are gone (uninstalled app, expired token): the backend deletes
    /// them and stops pushing to them.
    public static func tokensToDelete(_ results: [SendResult]) -> [String] {
        results.compactMap { result in
            if case .tokenInvalid = result.outcome { return result.recipient }
            return nil
        }
    }
}
