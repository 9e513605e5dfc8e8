import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockToolkit

/// `pushmock check schedule`: plays an in-app notification config forward for one user over the
/// app events posted to the gateway, and prints what the phone would show when.
struct CheckSchedule: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Play an in-app notification config for a user: what the phone would show, when (docs/on-device-scheduling.md).",
        discussion: """
            The app schedules these notifications itself; no push service sees them.
            PushMock plays the config's delivery times, windows, days of the week,
            cancelation events, scheduleCondition and idealDeliveryConditions over the
            user's app events (and the properties they carry) on the gateway clock. Users
            and events come from the gateway (--server) or a `pushmock user export` file
            (--users). Exit 0 after printing.

            Example:
              pushmock check schedule --config pushmock/notifications.json --user ada \\
                  --from 2026-01-05T08:00:00Z
            """
    )

    @Option(help: ArgumentHelp("The app's config file, with a \"notifications\" section.", valueName: "file"))
    var config: String

    @Option(help: ArgumentHelp("The user whose device to play.", valueName: "id"))
    var user: String

    // `.unconditional`: a relative time (`-2h`) is the value, not another option.
    @Option(
        parsing: .unconditional, help: ArgumentHelp("When the config reached the device (ISO 8601, now, -2h, 10:02).", valueName: "time"))
    var from: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Play until this time (default: the gateway clock's now).", valueName: "time"))
    var until: String?

    @Option(
        help: ArgumentHelp("Users and events from this file (the GET /_pushmock/users form) instead of the gateway.", valueName: "file"))
    var users: String?

    @Option(help: ArgumentHelp("Background checks of ideal delivery conditions every (default 15m).", valueName: "duration"))
    var checkEvery: String?

    @OptionGroup var control: ControlOptions

    func run() async throws {
        try await runCheck {
            let notifications: InAppNotificationConfig
            do {
                notifications = try InAppNotificationConfig(contentsOfFile: config)
            } catch {
                throw CheckError("\(config): \(readable: error)")
            }
            var options = OnDeviceScheduler.Options()
            if let checkEvery {
                guard let interval = DurationText.parse(checkEvery), interval > .zero else {
                    throw CheckError("--check-every \(checkEvery) is not a duration (15m, 1h)")
                }
                options.backgroundCheckInterval = interval
            }
            let directory: UserDirectory
            let now: Timestamp
            if let users {
                do {
                    let read = try JSONDecoder().decode(UserDirectory.self, from: Data(contentsOf: URL(fileURLWithPath: users)))
                    try UserDefinitionCheck.check(read)
                    directory = read
                } catch {
                    throw CheckError("cannot read the users file \(users): \(reason: error)")
                }
                now = directory.events.map { Timestamp(millisecondsSince1970: $0.timeMilliseconds) }.max() ?? Timestamp(secondsSince1970: 0)
            } else {
                let client = try control.makeClient()
                do {
                    directory = try await client.call("GET", "users").decode(UserDirectory.self)
                    now = try await client.call("GET", "clock").decode(ClockReading.self).timestamp
                    await client.close()
                } catch {
                    await client.close()
                    throw error
                }
            }
            guard let owner = directory.users.first(where: { $0.id == user }) else { throw CheckError("no user \"\(user)\"") }
            let start: Timestamp
            let end: Timestamp
            do {
                start = try TimeArgument(text: from).resolve(gatewayNow: now)
                end = try until.map { try TimeArgument(text: $0).resolve(gatewayNow: now) } ?? now
            } catch {
                throw CheckError("\(readable: error)")
            }
            let schedule = OnDeviceScheduler(config: notifications, options: options).schedule(
                for: owner, events: directory.events, from: start, until: end)
            if control.json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(schedule), as: UTF8.self))
            } else {
                print(schedule)
            }
        }
    }
}
