import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore

/// `pushmock user`: the users behind the tokens (time zone, locale, preferences) and the app
/// events a test posts for them (`docs/users.md`).
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add users (time zone, locale, preferences, tokens) and post their app events.",
        discussion: """
            The policy checks judge each push against its recipient's user: the user's time
            zone, opt-outs, quiet hours and caps, and the app events posted for the user.

            Examples:
              pushmock user add ada --tz Europe/Oslo --token 740f4707… \\
                  --quiet 22:00-07:00 --opt-out-type marketing --cap 2/day=dose-reminder
              pushmock user add --file users.json
              pushmock user event ada app_entered_background
              pushmock user list
              pushmock user export --output users.json   # for check policy --users
            """,
        subcommands: [Add.self, List.self, Show.self, Remove.self, Event.self, Export.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add or replace a user (by id).")
        @OptionGroup var control: ControlOptions
        @Argument(help: "The user's id (omit with --file).") var id: String?
        @Option(name: .customLong("file"), help: "A JSON file: a user, an array of users, or {\"users\": […]}.") var file: String?
        @Option(name: .customLong("tz"), help: "Time zone: Europe/Oslo, +02:00.") var timeZone: String?
        @Option(help: "Locale: nb-NO.") var locale: String?
        @Option(name: .customLong("token"), help: "A token of the user (repeat).") var tokens: [String] = []
        @Option(name: .customLong("opt-out-type"), help: "A notification type the user opted out of (repeat).") var optOutTypes: [String] =
            []
        @Option(name: .customLong("opt-out-category"), help: "A category the user opted out of (repeat).")
        var optOutCategories: [String] = []
        @Option(name: .customLong("opt-out-channel"), help: "An Android channel the user opted out of (repeat).")
        var optOutChannels: [String] = []
        @Option(name: .customLong("quiet"), help: "Quiet hours START-END, optionally =type,type (repeat): 22:00-07:00=marketing.")
        var quiet: [String] = []
        @Option(name: .customLong("cap"), help: "A cap LIMIT/WINDOW, optionally =type,type (repeat): 2/day, 3/7d=marketing.")
        var caps: [String] = []
        @Flag(name: .customLong("push-off"), help: "The user turned push notifications off.") var pushOff = false

        func run() async throws {
            let body: [UInt8]
            if let file {
                guard id == nil else { throw ValidationError("give an id or --file, not both") }
                let data: Data
                do {
                    data = try FileContents.read(file)
                } catch {
                    throw ValidationError(error.description)
                }
                if let directory = try? JSONDecoder().decode(UserDirectory.self, from: data), !directory.users.isEmpty {
                    body = try jsonBody(directory.users)
                } else {
                    body = Array(data)
                }
            } else {
                guard let id else { throw ValidationError("give the user's id (or --file)") }
                body = try jsonBody(try makeUser(id))
            }
            try await runControl(control) { client in
                let response = try await client.call("POST", "users", json: body)
                if control.json {
                    control.printJSON(response)
                } else {
                    for user in try response.decode(UserList.self).users {
                        print(UserCommand.line(user))
                    }
                }
            }
        }

        func makeUser(_ id: String) throws -> PushUser {
            var preferences = UserPreferences(
                pushEnabled: !pushOff,
                optedOut: .init(types: optOutTypes, categories: optOutCategories, channels: optOutChannels))
            do {
                for text in quiet {
                    let (range, types) = UserCommand.splitTypes(text)
                    let parts = range.split(separator: "-", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else { throw ValidationError("--quiet \(text): expected START-END, e.g. 22:00-07:00") }
                    preferences.quietHours.append(try UserQuietHours(start: parts[0], end: parts[1], types: types))
                }
                for text in caps {
                    let (cap, types) = UserCommand.splitTypes(text)
                    let parts = cap.split(separator: "/", maxSplits: 1).map(String.init)
                    guard parts.count == 2, let limit = Int(parts[0]) else {
                        throw ValidationError("--cap \(text): expected LIMIT/WINDOW, e.g. 2/day or 3/7d")
                    }
                    let calendar = ["day", "week", "month"].contains(parts[1]) ? parts[1] : nil
                    preferences.caps.append(
                        try UserCap(types: types, limit: limit, window: calendar == nil ? parts[1] : nil, calendar: calendar))
                }
            } catch let error as UserDefinitionError {
                throw ValidationError(error.message)
            }
            return PushUser(id: id, timeZone: timeZone, locale: locale, tokens: tokens, preferences: preferences)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users and how many events each has.")
        @OptionGroup var control: ControlOptions

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("GET", "users")
                if control.json { return control.printJSON(response) }
                let directory = try response.decode(UserDirectory.self)
                if directory.users.isEmpty { print("no users") }
                for user in directory.users {
                    let events = directory.events.filter { $0.user == user.id }.count
                    print(UserCommand.line(user) + "  \(events) event\(events == 1 ? "" : "s")")
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user with its preferences and events.")
        @OptionGroup var control: ControlOptions
        @Argument var id: String

        func run() async throws {
            try await runControl(control) { client in
                control.printJSON(try await client.call("GET", "users/\(UserCommand.escaped(id))"))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget a user (or --all users) and their events.")
        @OptionGroup var control: ControlOptions
        @Argument var id: String?
        @Flag var all = false

        func run() async throws {
            guard (id == nil) == all else { throw ValidationError("give a user id or --all") }
            try await runControl(control) { client in
                let response = try await client.call("DELETE", id.map { "users/\(UserCommand.escaped($0))" } ?? "users")
                control.json ? control.printJSON(response) : print("removed \(id ?? "all users")")
            }
        }
    }

    struct Event: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Post an app event for a user (recorded at the gateway clock's now).")
        @OptionGroup var control: ControlOptions
        @Argument(help: "The user's id.") var id: String
        @Argument(help: "The event: app_entered_background, completeSetup, …") var name: String
        @Option(name: .customLong("property"), help: "KEY=VALUE (repeat).") var properties: [String] = []

        func run() async throws {
            var object: [String: Any] = ["name": name]
            if !properties.isEmpty {
                var values: [String: String] = [:]
                for property in properties {
                    let parts = property.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else { throw ValidationError("--property \(property): expected KEY=VALUE") }
                    values[parts[0]] = parts[1]
                }
                object["properties"] = values
            }
            try await runControl(control) { client in
                let response = try await client.call("POST", "users/\(UserCommand.escaped(id))/events", json: jsonBody(object))
                if control.json { return control.printJSON(response) }
                for event in try response.decode(EventList.self).events {
                    print("\(event.user): \(event)")
                }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print (or save) every user and event: the --users file of `pushmock check policy`.")
        @OptionGroup var control: ControlOptions
        @Option(help: "Write to this file instead of standard output.") var output: String?

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("GET", "users")
                if let output {
                    try Data(response.body).write(to: URL(fileURLWithPath: output))
                } else {
                    print(String(decoding: response.body, as: UTF8.self))
                }
            }
        }
    }

    struct UserList: Decodable { var users: [PushUser] }
    struct EventList: Decodable { var events: [AppEvent] }

    /// `ada  Europe/Oslo  nb-NO  2 tokens`.
    static func line(_ user: PushUser) -> String {
        [user.id, user.timeZone ?? "(no time zone)", user.locale ?? "", "\(user.tokens.count) token\(user.tokens.count == 1 ? "" : "s")"]
            .filter { !$0.isEmpty }.joined(separator: "  ")
    }

    /// `22:00-07:00=marketing,promo` → (`22:00-07:00`, [marketing, promo]).
    static func splitTypes(_ text: String) -> (String, [String]?) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        return (parts[0], parts.count == 2 ? parts[1].split(separator: ",").map(String.init) : nil)
    }

    static func escaped(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? id
    }
}
