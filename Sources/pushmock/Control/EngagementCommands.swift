import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockSimulation

/// `pushmock device open|dismiss|act|display|permission|behaviour|engagements`: what the user does
/// after delivery (`docs/engagement.md`).
extension DeviceCommand {
    /// What every engagement command names: the gateway, the device and the notification.
    struct EngagedNotificationArguments: ParsableArguments {
        @OptionGroup var control: ControlOptions
        @OptionGroup var device: DeviceSelector
        @Argument(help: "The notification id (apns-id, FCM message name or Expo ticket id).")
        var id: String

        func engage(_ verb: String, body: [UInt8] = []) async throws {
            try await engageNotification(verb, device, id, control, body: body)
        }
    }

    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user taps a delivered notification.")
        @OptionGroup var notification: EngagedNotificationArguments

        func run() async throws { try await notification.engage("open") }
    }

    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user swipes a delivered notification away.")
        @OptionGroup var notification: EngagedNotificationArguments

        func run() async throws { try await notification.engage("dismiss") }
    }

    struct Act: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The user chooses an action button of a delivered notification.")
        @OptionGroup var notification: EngagedNotificationArguments
        @Argument(help: "The action identifier (from the notification's category).")
        var action: String

        func run() async throws { try await notification.engage("action", body: jsonBody(["action": action])) }
    }

    struct Display: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record that the app displayed a notification itself (e.g. a data message shown as a local notification).")
        @OptionGroup var notification: EngagedNotificationArguments

        func run() async throws { try await notification.engage("display") }
    }

    struct Permission: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set whether the app may show notifications: granted, provisional (quietly) or denied (delivered, not displayed).")
        @OptionGroup var control: ControlOptions
        @OptionGroup var device: DeviceSelector
        @Argument(help: "granted, provisional, denied (or revoked).")
        var permission: String

        func validate() throws {
            guard NotificationPermission(rawValue: permission) != nil else {
                throw ValidationError("permission must be \(NotificationPermission.expectedValues)")
            }
        }

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("POST", device.path, json: jsonBody(["permission": permission]))
                if control.json { return control.printJSON(response) }
                let report = try response.decode(DeviceReport.self)
                print("\(report.service) \(report.token): notifications \(report.permission?.rawValue ?? "granted")")
            }
        }
    }

    struct Behaviour: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show, set (--file model.json) or clear (--clear) the seeded behaviour model.",
            discussion: """
                The model gives, per category, push type, priority or app, the chance of a tap,
                a dismissal or each action and the delay after delivery; the same seed gives
                the same reactions on every run. See docs/engagement.md.
                """
        )
        @OptionGroup var control: ControlOptions
        @Option(help: "A JSON file holding the model.")
        var file: String?
        @Flag(help: "Remove the model: only commands engage.")
        var clear = false

        func validate() throws {
            if file != nil && clear { throw ValidationError("give --file or --clear, not both") }
        }

        func run() async throws {
            try await runControl(control) { client in
                let response: ControlResponse
                if let file {
                    let body = try Data(contentsOf: URL(fileURLWithPath: file))
                    response = try await client.call("PUT", "engagement/model", json: Array(body))
                } else if clear {
                    response = try await client.call("DELETE", "engagement/model")
                    if !control.json { return print("behaviour model removed") }
                } else {
                    response = try await client.call("GET", "engagement/model")
                }
                control.printJSON(response)
            }
        }
    }

    struct Engagements: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List engagements (displayed, opened, dismissed, action) on every device, with the recording's sequence.")
        @OptionGroup var control: ControlOptions
        @Option(help: "Only this recording sequence number.")
        var sequence: UInt64?
        @Option(help: "Only displayed, opened, dismissed or action.")
        var event: String?

        func run() async throws {
            try await runControl(control) { client in
                var query: [(String, String)] = []
                if let sequence { query.append(("sequence", String(sequence))) }
                if let event { query.append(("event", event)) }
                let response = try await client.call("GET", "engagement/events", query: query)
                if control.json { return control.printJSON(response) }
                let events = try response.decode(EngagementList.self).events
                if events.isEmpty { print("no engagements yet") }
                for event in events {
                    var line =
                        "\(event.at)  \(event.event.padding(toLength: 9, withPad: " ", startingAt: 0)) \(event.service)/\(event.token)"
                    line += "  \(event.id ?? "-")"
                    if let sequence = event.sequence { line += " #\(sequence)" }
                    if let action = event.action { line += " \(action)" }
                    if let reason = event.reason { line += " — \(reason)" }
                    print(line)
                }
            }
        }
    }
}

private struct EngagementList: Decodable {
    struct Event: Decodable {
        var at: String
        var service: String
        var token: String
        var event: String
        var id: String?
        var sequence: UInt64?
        var action: String?
        var reason: String?
    }

    var events: [Event]
}

private struct EngagedNotification: Decodable {
    var notification: DeviceReport.NotificationReport
}

private func engageNotification(_ verb: String, _ device: DeviceSelector, _ id: String, _ control: ControlOptions, body: [UInt8] = [])
    async throws
{
    try await runControl(control) { client in
        let encodedID = id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? id
        let response = try await client.call("POST", "\(device.path)/notifications/\(encodedID)/\(verb)", json: body)
        if control.json { return control.printJSON(response) }
        let notification = try response.decode(EngagedNotification.self).notification
        let what = notification.engagement.map { $0 == "action" ? "action \(notification.action ?? "")" : $0 } ?? "displayed"
        print("\(notification.id): \(what) at \(notification.engagedAt ?? notification.displayedAt ?? "-")")
    }
}
