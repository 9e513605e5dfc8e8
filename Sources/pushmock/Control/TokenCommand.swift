import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore

/// `pushmock token`: device-token lifecycles in the running gateway.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Register tokens and script their lifecycle: unregister, expire, rotate.",
        discussion: """
            APNs tokens (hex) answer 410 Unregistered (with the time as "timestamp") or 410
            ExpiredToken once their time has come; FCM tokens answer 404 UNREGISTERED; Expo
            tokens (ExponentPushToken[…]) get DeviceNotRegistered tickets, and the receipts
            of messages relayed after that time say DeviceNotRegistered too. Times are
            resolved against the gateway's clock: 2026-11-21T10:02:00Z, 10:02 (today, local
            time zone), now, +5m.

            Examples:
              pushmock token unregister 00fc13ad… --at 10:02
              pushmock token expire 00fc13ad… --after-sends 3
              pushmock token rotate dQw4w9WgXcQ:APA91b…
              pushmock token add 00fc13ad… --app com.example.app --environment production
              pushmock token add 'ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]' \\
                  --project @acme/app --platform android
              pushmock token unregister 'ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]'
            """,
        subcommands: [List.self, Show.self, Add.self, Unregister.self, Expire.self, Activate.self, Rotate.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered tokens.")
        @OptionGroup var control: ControlOptions
        @Option(help: "Only apns, fcm or expo tokens.")
        var service: PushServiceArgument?

        func run() async throws {
            try await runControl(control) { client in
                for service in Platform.all where service.isPushService && (self.service == nil || self.service?.platform == service) {
                    let response = try await client.call("GET", "\(service)/tokens")
                    if control.json {
                        control.printJSON(response)
                        continue
                    }
                    for token in try tokenObjects(response) {
                        print("\(service) \(describeToken(token))")
                    }
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one token.")
        @OptionGroup var control: ControlOptions
        @OptionGroup var token: TokenSelector

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("GET", token.path)
                try printToken(response, control)
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register (or replace) a token.")
        @OptionGroup var control: ControlOptions
        @OptionGroup var token: TokenSelector
        @Option(help: "APNs: the app's bundle ID (omit: any app).")
        var app: String?
        @Option(help: "APNs: sandbox or production (omit: either; the other answers BadDeviceToken).")
        var environment: String?
        @Option(
            help:
                "FCM: the project (default: the sample project). Expo: the experience id @owner/slug or project id (default: @pushmock/sample)."
        )
        var project: String?
        @Option(help: "FCM: android, ios or web. Expo: ios (default) or android.")
        var platform: String?
        @Option(name: .customLong("topic"), help: "FCM: a topic the token is subscribed to. Repeatable.")
        var topics: [String] = []

        func run() async throws {
            try await runControl(control) { client in
                var definition: [String: Any] = ["token": token.token]
                if token.resolvedService == .apns {
                    definition["bundleId"] = app
                    definition["environment"] = environment
                } else {
                    definition["project"] = project
                    definition["platform"] = platform
                    if token.resolvedService == .fcm, !topics.isEmpty { definition["topics"] = topics }
                }
                let response = try await client.call("POST", "\(token.resolvedService)/tokens", json: jsonBody(definition))
                if control.json { return control.printJSON(response) }
                for object in try tokenObjects(response) {
                    print("registered \(token.resolvedService) \(describeToken(object))")
                }
            }
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a token uninstalled: APNs 410 Unregistered (timestamp = that time), FCM 404 UNREGISTERED."
        )
        @OptionGroup var control: ControlOptions
        @OptionGroup var token: TokenSelector
        @Option(help: "From when (default: now): 2026-11-21T10:02:00Z, 10:02, +5m.")
        var at: String?
        @Option(
            help:
                "FCM and Expo: the project of a token the gateway does not know yet (default: the sample project; FCM answers 404 UNREGISTERED for an unregistered token whatever the project)."
        )
        var project: String?

        func validate() throws {
            try token.checkProject(project)
        }

        func run() async throws {
            try await runControl(control) { client in
                var patch: [String: Any] = ["state": "unregistered"]
                if let project { patch["project"] = project }
                if let at { patch["at"] = try await TimeArgument(text: at).resolve(using: client).millisecondsSince1970 }
                try printToken(try await client.call("PATCH", token.path, json: jsonBody(patch)), control)
            }
        }
    }

    struct Expire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Expire a token at a time, or after N more accepted notifications.",
            discussion: """
                APNs: 410 ExpiredToken (or Unregistered with --as unregistered).
                FCM: 404 UNREGISTERED.
                """
        )
        @OptionGroup var control: ControlOptions
        @OptionGroup var token: TokenSelector
        @Option(help: "When (default: now, unless --after-sends): 2026-11-21T10:02:00Z, 10:02, +5m.")
        var at: String?
        @Option(name: .customLong("after-sends"), help: "Expire after this many more accepted notifications.")
        var afterSends: Int?
        @Option(name: .customLong("as"), help: "APNs: expired (ExpiredToken, default) or unregistered (Unregistered).")
        var endOfLife: String?
        @Option(
            help:
                "FCM and Expo: the project of a token the gateway does not know yet (default: the sample project; FCM answers 404 UNREGISTERED for an unregistered token whatever the project)."
        )
        var project: String?

        func validate() throws {
            try token.checkProject(project)
            if at != nil, afterSends != nil { throw ValidationError("give --at or --after-sends, not both") }
            if let afterSends, afterSends < 1 { throw ValidationError("--after-sends must be at least 1") }
            if let endOfLife, !["expired", "unregistered"].contains(endOfLife) { throw ValidationError("--as is expired or unregistered") }
        }

        func run() async throws {
            try await runControl(control) { client in
                var patch: [String: Any] = [:]
                let apns = token.resolvedService == .apns
                if let project { patch["project"] = project }
                if let afterSends {
                    patch["expireAfterSends"] = afterSends
                    if apns, let endOfLife { patch["expireAs"] = endOfLife }
                } else {
                    patch["state"] = apns ? (endOfLife ?? "expired") : "unregistered"
                    if let at { patch["at"] = try await TimeArgument(text: at).resolve(using: client).millisecondsSince1970 }
                }
                try printToken(try await client.call("PATCH", token.path, json: jsonBody(patch)), control)
            }
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a token valid again.")
        @OptionGroup var control: ControlOptions
        @OptionGroup var token: TokenSelector

        func run() async throws {
            try await runControl(control) { client in
                try printToken(try await client.call("PATCH", token.path, json: jsonBody(["state": "active"])), control)
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a token: the old one dies, a new one (printed) is live for the same app."
        )
        @OptionGroup var control: ControlOptions
        @OptionGroup var token: TokenSelector
        @Option(name: .customLong("new"), help: "The new token (default: a fresh random one).")
        var newToken: String?
        @Option(help: "When the old token dies (default: now).")
        var at: String?
        @Option(
            help:
                "FCM and Expo: the project of a token the gateway does not know yet (default: the sample project; FCM answers 404 UNREGISTERED for an unregistered token whatever the project)."
        )
        var project: String?

        func validate() throws {
            try token.checkProject(project)
        }

        func run() async throws {
            try await runControl(control) { client in
                var body: [String: Any] = [:]
                if let project { body["project"] = project }
                if let newToken { body["newToken"] = newToken }
                if let at { body["at"] = try await TimeArgument(text: at).resolve(using: client).millisecondsSince1970 }
                let response = try await client.call("POST", token.path + "/rotate", json: body.isEmpty ? [] : jsonBody(body))
                if control.json { return control.printJSON(response) }
                let object = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
                let new = object["new"] as? [String: Any]
                print(new?["token"] as? String ?? response.text)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget a token (unknown tokens are accepted unless the gateway rejects them).")
        @OptionGroup var control: ControlOptions
        @OptionGroup var token: TokenSelector

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("DELETE", token.path)
                if control.json { return control.printJSON(response) }
                print("removed \(token.token)")
            }
        }
    }
}

/// A token on the command line, and its service.
struct TokenSelector: ParsableArguments {
    @Argument(help: "The token: APNs hex device token, FCM registration token or ExponentPushToken[…].")
    var token: String

    @Option(help: "apns, fcm or expo (default: hex tokens are APNs, ExponentPushToken[…] Expo, others FCM).")
    var service: PushServiceArgument?

    var resolvedService: Platform { DeviceSelector(token: token, service: service?.platform).resolvedService }

    var path: String { "\(resolvedService)/tokens/\(DeviceSelector(token: token, service: service?.platform).encodedToken)" }

    /// `--project` names an FCM or Expo project; APNs tokens belong to apps (`--app`).
    func checkProject(_ project: String?) throws {
        if project != nil, resolvedService == .apns {
            throw ValidationError("--project is for FCM and Expo tokens; an APNs token belongs to an app (token add --app)")
        }
    }
}

private func tokenObjects(_ response: ControlResponse) throws -> [[String: Any]] {
    let object = try JSONSerialization.jsonObject(with: Data(response.body))
    if let array = object as? [[String: Any]] { return array }
    if let single = object as? [String: Any] { return [single] }
    return []
}

private func printToken(_ response: ControlResponse, _ control: ControlOptions) throws {
    if control.json { return control.printJSON(response) }
    for object in try tokenObjects(response) {
        print(describeToken(object))
    }
}

private func describeToken(_ object: [String: Any]) -> String {
    var parts = [object["token"] as? String ?? "?"]
    parts.append(object["state"] as? String ?? "active")
    if let at = object["at"] as? String { parts.append("at \(at)") }
    if let app = object["bundleId"] as? String ?? object["project"] as? String { parts.append(app) }
    if let environment = object["environment"] as? String { parts.append(environment) }
    if let platform = object["platform"] as? String { parts.append(platform) }
    if let limit = object["expireAfterSends"] as? Int {
        parts.append("ends after \(limit) sends (\(object["sends"] as? Int ?? 0) so far)")
    }
    if let replacement = object["replacedBy"] as? String { parts.append("replaced by \(replacement)") }
    return parts.joined(separator: "  ")
}
