import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockSimulation

/// `pushmock device`: the simulated devices behind the tokens.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Take simulated devices offline or online, and see what they would show.",
        discussion: """
            Every token the gateway accepts a notification for has a simulated device:
            online (delivered at once), idle (high priority only; the rest waits) or
            offline (the service stores notifications under APNs's or FCM's rules). `show`
            prints the inbox, what is on screen, and the delivery timeline.

            Examples:
              pushmock device offline 00fc13ad…
              pushmock clock advance 10m
              pushmock device online 00fc13ad…
              pushmock device show 00fc13ad…
              pushmock device open 00fc13ad… 8C2B4D1E-…
              pushmock device act 00fc13ad… 8C2B4D1E-… TAKEN
              pushmock device permission 00fc13ad… denied
            """,
        subcommands: [
            List.self, Show.self, Online.self, Idle.self, Offline.self, Forget.self,
            Open.self, Dismiss.self, Act.self, Display.self, Permission.self, Behaviour.self, Engagements.self,
        ],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the simulated devices.")
        @OptionGroup var control: ControlOptions
        @Option(help: "Only apns, fcm or expo devices.")
        var service: PushServiceArgument?

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("GET", "devices", query: service.map { [("service", $0.platform.rawValue)] } ?? [])
                if control.json { return control.printJSON(response) }
                let devices = try response.decode(DeviceList.self).devices
                if devices.isEmpty {
                    print("no simulated devices yet: they appear with their first notification")
                }
                for device in devices {
                    let counts = DeliveryStatus.all.compactMap { status in
                        device.counts[status.rawValue].map { "\($0) \(status)" }
                    }.joined(separator: ", ")
                    print("\(device.service) \(device.token)  \(device.connectivity)  \(counts.isEmpty ? "empty" : counts)")
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one device: what it shows, what waits, and the timeline.")
        @OptionGroup var control: ControlOptions
        @OptionGroup var device: DeviceSelector

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("GET", device.path)
                if control.json { return control.printJSON(response) }
                printReport(try response.decode(DeviceReport.self))
            }
        }
    }

    struct Online: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Bring a device online: what the service stored is delivered.")
        @OptionGroup var control: ControlOptions
        @OptionGroup var device: DeviceSelector

        func run() async throws { try await setConnectivity(.online, device, control) }
    }

    struct Idle: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put a device to sleep: only high priority arrives.")
        @OptionGroup var control: ControlOptions
        @OptionGroup var device: DeviceSelector

        func run() async throws { try await setConnectivity(.idle, device, control) }
    }

    struct Offline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take a device offline: the service stores what comes.")
        @OptionGroup var control: ControlOptions
        @OptionGroup var device: DeviceSelector

        func run() async throws { try await setConnectivity(.offline, device, control) }
    }

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget one device, or all with --all.")
        @OptionGroup var control: ControlOptions
        @Argument(help: "The device token.")
        var token: String?
        @Option(help: "apns, fcm or expo (default: from the token's shape).")
        var service: PushServiceArgument?
        @Flag(help: "Forget every device.")
        var all = false

        func validate() throws {
            if all == (token != nil) { throw ValidationError("give a token or --all") }
        }

        func run() async throws {
            try await runControl(control) { client in
                let path = token.map { DeviceSelector(token: $0, service: service?.platform).path } ?? "devices"
                let response = try await client.call("DELETE", path)
                if control.json { return control.printJSON(response) }
                print(all ? "forgot every device" : "forgot \(token ?? "")")
            }
        }
    }
}

/// A device on the command line: its token, and the service when the shape does not say.
struct DeviceSelector: ParsableArguments {
    @Argument(help: "The device token (APNs hex token, FCM registration token or ExponentPushToken[…]).")
    var token: String

    @Option(help: "apns, fcm or expo (default: hex tokens are APNs, ExponentPushToken[…] Expo, others FCM).")
    var service: PushServiceArgument?

    init() {}

    init(token: String, service: Platform?) {
        self.token = token
        self.service = service.flatMap { PushServiceArgument(argument: $0.rawValue) }
    }

    var resolvedService: Platform {
        if let service { return service.platform }
        if token.hasPrefix("ExponentPushToken[") || token.hasPrefix("ExpoPushToken[") { return .expo }
        return token.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) } && token.count % 2 == 0
            ? .apns : .fcm
    }

    var path: String { "devices/\(resolvedService)/\(encodedToken)" }

    /// The token as a path segment (Expo tokens carry brackets).
    var encodedToken: String {
        token.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "[]/"))) ?? token
    }
}

private struct DeviceList: Decodable {
    var devices: [DeviceReport]
}

private func setConnectivity(_ connectivity: Connectivity, _ device: DeviceSelector, _ control: ControlOptions) async throws {
    try await runControl(control) { client in
        let response = try await client.call("POST", device.path, json: jsonBody(["connectivity": connectivity.rawValue]))
        if control.json { return control.printJSON(response) }
        printReport(try response.decode(DeviceReport.self))
    }
}

private func printReport(_ report: DeviceReport) {
    let permission = report.permission.map { $0 == .granted ? "" : ", notifications \($0)" } ?? ""
    print("\(report.service) \(report.token): \(report.connectivity)\(permission) (\(report.storage) storage rules)")
    let notifications = report.notifications ?? []
    let showing = notifications.filter(\.shown)
    print(showing.isEmpty ? "showing: nothing" : "showing:")
    for entry in showing {
        print("  \(entry.id)  \(describe(entry))")
    }
    let waiting = notifications.filter { $0.status == .stored }
    if !waiting.isEmpty {
        print("stored by the service:")
        for entry in waiting {
            print("  \(entry.id)  \(describe(entry))  until \(entry.expiresAt ?? "-")")
        }
    }
    if report.deletedMessagesPending {
        print("FCM discarded stored messages; the app is told (onDeletedMessages) when the device is reachable")
    }
    let timeline = report.timeline ?? []
    if !timeline.isEmpty {
        print("timeline:")
        for event in timeline {
            var line = "  \(event.at)  \(event.event.padding(toLength: 12, withPad: " ", startingAt: 0))"
            if let id = event.id { line += " \(id)" }
            if let connectivity = event.connectivity { line += " \(connectivity)" }
            if let action = event.action { line += " \(action)" }
            if let permission = event.permission { line += " \(permission)" }
            if let reason = event.reason { line += " — \(reason)" }
            print(line)
        }
    }
}

private func describe(_ entry: DeviceReport.NotificationReport) -> String {
    var parts: [String] = [entry.kind, "priority \(entry.priority)"]
    if let collapse = entry.collapseKey { parts.append("collapse \(collapse)") }
    let text = [entry.title, entry.body].compactMap { $0 }.joined(separator: " — ")
    if !text.isEmpty { parts.append("\"\(text)\"") }
    return parts.joined(separator: ", ")
}
