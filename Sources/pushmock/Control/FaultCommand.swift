import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore
import PushMockJSON
import PushMockSimulation

/// `pushmock fault`: fault rules in the running gateway.
struct FaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault",
        abstract: "Inject failures: gateway errors, latency, resets, GOAWAY, hangs, SETTINGS changes.",
        discussion: """
            A rule matches requests (platform, token/topic/project pattern, path, header,
            payload JSON path), fires on a trigger (always, a seeded probability, the next
            N, every Nth, after N, a time window on the gateway clock, beyond a rate) and
            acts. Presets cover the usual stories.

            Examples:
              pushmock fault add --platform apns --token '00fc*' --apns-error Unregistered
              pushmock fault add --platform fcm --fcm-error UNAVAILABLE --next 2
              pushmock fault add --platform expo --token '*[abc*' \\
                --expo-ticket-error DeviceNotRegistered
              pushmock fault add --reset --probability 0.1 --seed 7
              pushmock fault add --goaway Shutdown --next 1
              pushmock fault add --latency 300ms --platform apns
              pushmock fault preset outage --for 2m
              pushmock fault preset throttling --starts-in 2m --limit 5 --per 1s
              pushmock fault list
              pushmock fault clear
            """,
        subcommands: [List.self, Add.self, Remove.self, Clear.self, Presets.self, Preset.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rules with how often each matched and fired.")
        @OptionGroup var control: ControlOptions

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("GET", "faults")
                if control.json { return control.printJSON(response) }
                let rules = try response.decode([RuleStatus].self)
                if rules.isEmpty { print("no fault rules") }
                for status in rules {
                    print(describe(status.rule) + "  (matched \(status.matches), fired \(status.fired))")
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a rule from flags, or from JSON (--rule or --file; see docs/control-api.md)."
        )
        @OptionGroup var control: ControlOptions

        @Option(help: "The whole rule (or an array of rules) as JSON.")
        var rule: String?
        @Option(help: "A file with the rule(s) as JSON.")
        var file: String?
        @Option(help: "A name shown in listings and recordings.")
        var name: String?

        // Match.
        @Option(help: "apns, fcm, expo, oauth or iid.") var platform: Platform?
        @Option(help: "Device, registration or Expo push token pattern (* and ?).") var token: String?
        @Option(help: "APNs topic or FCM topic pattern.") var topic: String?
        @Option(help: "FCM project or Expo project (@owner/slug) pattern.") var project: String?
        @Option(help: "Request path pattern.") var path: String?
        @Option(help: "APNs environment: sandbox or production.") var environment: String?
        @Option(help: "A header that must be present: NAME or NAME=PATTERN.") var header: String?
        @Option(name: .customLong("token-fraction"), help: "A stable share of tokens (0…1), the same ones every time.") var tokenFraction:
            Double?
        @Option(help: "A payload JSON path: $.aps.alert.title or $.aps.alert.title=VALUE (JSON value or text).") var payload: String?

        // Trigger.
        @Option(help: "Fire with this probability (0…1).") var probability: Double?
        @Option(help: "Seed for probability and latency (same seed, same sequence).") var seed: UInt64?
        @Option(help: "Fire for the next N matching requests only.") var next: Int?
        @Option(help: "Fire on every Nth matching request.") var every: Int?
        @Option(help: "Let the first N matching requests through.") var after: Int?
        // `.unconditional`: a relative time (`-5m`) is the value, not another option.
        @Option(parsing: .unconditional, help: "Window start (gateway clock): ISO 8601, 10:02, +5m.") var from: String?
        @Option(parsing: .unconditional, help: "Window end (exclusive).") var until: String?
        @Option(name: .customLong("for"), help: "A window of this length from now (or from --starts-in): 2m, 90s.") var window: String?
        @Option(name: .customLong("starts-in"), help: "Start this long after the rule is added: 2m.") var startsIn: String?
        @Option(help: "Only requests beyond a rate: LIMIT/DURATION[:KEY], e.g. 5/1s:token (key: token, topic, project, connection, all).")
        var rate: String?

        // Action.
        @Option(name: .customLong("apns-error"), help: "Answer with this APNs reason (status from Apple's table).") var apnsError: String?
        @Option(name: .customLong("fcm-error"), help: "Answer with this FCM error code (QUOTA_EXCEEDED, UNAVAILABLE, UNREGISTERED…).")
        var fcmError: String?
        @Option(name: .customLong("oauth-error"), help: "Token endpoint error (invalid_grant…).") var oauthError: String?
        @Option(name: .customLong("iid-error"), help: "IID error (RESOURCE_EXHAUSTED…).") var iidError: String?
        @Option(name: .customLong("expo-error"), help: "Answer the Expo request with this error (TOO_MANY_REQUESTS…).")
        var expoError: String?
        @Option(
            name: .customLong("expo-ticket-error"),
            help: "Expo: this error ticket (DeviceNotRegistered…) for each matching recipient; the rest are delivered.")
        var expoTicketError: String?
        @Option(help: "The error's message (FCM, Expo).") var message: String?
        @Option(help: "HTTP status override for the error.") var status: Int?
        @Option(name: .customLong("retry-after"), help: "Retry-After seconds on the error.") var retryAfter: Int?
        @Option(help: "APNs 410 timestamp (default: now).") var timestamp: String?
        @Flag(help: "Reset the stream (RST_STREAM INTERNAL_ERROR).") var reset = false
        @Option(help: "Send GOAWAY with {\"reason\": REASON} and close.") var goaway: String?
        @Flag(help: "Close the connection without a word.") var close = false
        @Flag(help: "Never answer (the client's timeout has to fire).") var hang = false
        @Option(name: .customLong("max-streams"), help: "Announce SETTINGS MAX_CONCURRENT_STREAMS before answering.") var maxStreams:
            UInt32?
        @Option(help: "Delay: 300ms (fixed), 100ms..400ms (uniform), 200ms~50ms (normal: mean~stddev).") var latency: String?

        func validate() throws {
            try checkShare(probability, flag: "--probability")
            try checkShare(tokenFraction, flag: "--token-fraction")
        }

        func run() async throws {
            try await runControl(control) { client in
                let body: [UInt8]
                if let rule {
                    body = Array(rule.utf8)
                } else if let file {
                    let data: Data
                    do {
                        data = try FileContents.read(file)
                    } catch {
                        throw ValidationError("\(error)")
                    }
                    body = Array(data)
                } else {
                    body = try jsonBody(try await buildRule(client))
                }
                let response = try await client.call("POST", "faults", json: body)
                if control.json { return control.printJSON(response) }
                for added in try response.decode([FaultRule].self) {
                    print("added " + describe(added))
                }
            }
        }

        private func buildRule(_ client: PushMockControlClient) async throws -> FaultRule {
            var match = FaultMatch(
                platform: platform,
                token: token.map(Glob.init),
                topic: topic.map(Glob.init),
                project: project.map(Glob.init),
                path: path.map(Glob.init),
                environment: environment,
                tokenFraction: tokenFraction
            )
            if let header {
                let parts = header.split(separator: "=", maxSplits: 1).map(String.init)
                match.header = .init(name: parts[0], value: parts.count > 1 ? Glob(parts[1]) : nil)
            }
            if let payload {
                let parts = payload.split(separator: "=", maxSplits: 1).map(String.init)
                let value = parts.count > 1 ? ((try? JSONValue(parsing: parts[1])) ?? JSONValue(parts[1])) : nil
                match.payload = .init(path: parts[0], equals: value)
            }
            var trigger = FaultTrigger(probability: probability, seed: seed, count: next, everyNth: every, after: after)
            if let from { trigger.from = try await TimeArgument(text: from).resolve(using: client) }
            if let until { trigger.until = try await TimeArgument(text: until).resolve(using: client) }
            if let window { trigger.forSeconds = try seconds(window, flag: "--for") }
            if let startsIn { trigger.startsInSeconds = try seconds(startsIn, flag: "--starts-in") }
            if let rate { trigger.rate = try parseRate(rate) }

            var actions: [FaultAction] = []
            if let apnsError {
                var resolvedTimestamp: Int64?
                if let timestamp {
                    resolvedTimestamp = try await TimeArgument(text: timestamp).resolve(using: client).millisecondsSince1970
                }
                actions.append(.apnsError(reason: apnsError, status: status, timestamp: resolvedTimestamp, retryAfter: retryAfter))
            }
            if let fcmError {
                guard status == nil else {
                    throw ValidationError("--fcm-error takes its status from the code; drop --status")
                }
                actions.append(.fcmError(code: fcmError, retryAfter: retryAfter, message: message))
            }
            if let expoError {
                actions.append(.expoError(.request(code: expoError), message: message, status: status, retryAfter: retryAfter))
            }
            if let expoTicketError {
                guard status == nil else {
                    throw ValidationError("--expo-ticket-error answers HTTP 200 with error tickets; drop --status")
                }
                actions.append(.expoError(.ticket(code: expoTicketError), message: message, retryAfter: retryAfter))
            }
            if let oauthError { actions.append(.oauthError(error: oauthError, status: status)) }
            if let iidError { actions.append(.iidError(error: iidError, status: status, retryAfter: retryAfter)) }
            if reset { actions.append(.reset()) }
            if let goaway { actions.append(.goAway(reason: goaway)) }
            if close { actions.append(.close) }
            if hang { actions.append(.hang) }
            if let maxStreams { actions.append(.settings(maxConcurrentStreams: maxStreams)) }
            guard actions.count <= 1 else {
                throw ValidationError(
                    "give one action (--apns-error, --fcm-error, --expo-error, --expo-ticket-error, --oauth-error, --iid-error, --reset, --goaway, --close, --hang, --max-streams)"
                )
            }
            let latency = try self.latency.map(parseLatency)
            guard let action = actions.first ?? (latency != nil ? .pass : nil) else {
                throw ValidationError("give an action (e.g. --apns-error TooManyRequests, --reset, --goaway Shutdown) or --latency")
            }
            return FaultRule(name: name, match: match, trigger: trigger, action: action, latency: latency)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove one rule by id.")
        @OptionGroup var control: ControlOptions
        @Argument(help: "The rule id (from `pushmock fault list`).") var id: String

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("DELETE", "faults/\(id)")
                if control.json { return control.printJSON(response) }
                print("removed \(id)")
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every rule.")
        @OptionGroup var control: ControlOptions

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("DELETE", "faults")
                if control.json { return control.printJSON(response) }
                let removed = (try? JSONValue(parsing: response.body))?["removed"]?.intValue ?? 0
                print("removed \(removed) rule(s)")
            }
        }
    }

    struct Presets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the presets.")
        @OptionGroup var control: ControlOptions

        func run() async throws {
            try await runControl(control) { client in
                let response = try await client.call("GET", "faults/presets")
                if control.json { return control.printJSON(response) }
                for (name, summary) in try response.decode([String: String].self).sorted(by: { $0.key < $1.key }) {
                    print("\(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(summary)")
                }
            }
        }
    }

    struct Preset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Add a preset's rules: provider-token-expiry, device-token-expiry, throttling, outage, shutdown, flaky-network, slow-network."
        )
        @OptionGroup var control: ControlOptions
        @Argument(help: "The preset.") var preset: String
        @Option(name: .customLong("for"), help: "Window length (outage, provider-token-expiry): 2m.") var window: String?
        @Option(name: .customLong("starts-in"), help: "Start this long after now: 2m.") var startsIn: String?
        @Option(help: "Fire at most N times (provider-token-expiry, device-token-expiry, shutdown).") var count: Int?
        @Option(help: "Throttling: requests allowed per window and token.") var limit: Int?
        @Option(help: "Throttling: the window, e.g. 1s.") var per: String?
        @Option(help: "apns, fcm or expo only (default: all three).") var platform: Platform?
        @Option(name: .customLong("retry-after"), help: "Retry-After seconds (FCM; Expo's outage).") var retryAfter: Int?
        @Option(help: "flaky-network: reset probability.") var probability: Double?
        @Option(help: "Seed (flaky-network, slow-network).") var seed: UInt64?
        @Option(help: "slow-network: mean delay, e.g. 200ms.") var mean: String?
        @Option(help: "slow-network: standard deviation, e.g. 50ms.") var stddev: String?
        @Option(help: "device-token-expiry: token pattern (* and ?).") var token: String?
        @Option(help: "device-token-expiry: a stable share of the matching tokens (0…1).") var fraction: Double?

        func validate() throws {
            try checkShare(probability, flag: "--probability")
            try checkShare(fraction, flag: "--fraction")
        }

        func run() async throws {
            try await runControl(control) { client in
                var parameters = FaultPreset.Parameters()
                parameters.forSeconds = try window.map { try seconds($0, flag: "--for") }
                parameters.startsInSeconds = try startsIn.map { try seconds($0, flag: "--starts-in") }
                parameters.count = count
                parameters.limit = limit
                parameters.perSeconds = try per.map { try seconds($0, flag: "--per") }
                parameters.platform = platform
                parameters.retryAfter = retryAfter
                parameters.probability = probability
                parameters.seed = seed
                parameters.meanMs = try mean.map { try seconds($0, flag: "--mean") * 1000 }
                parameters.stddevMs = try stddev.map { try seconds($0, flag: "--stddev") * 1000 }
                parameters.token = token
                parameters.fraction = fraction
                let response = try await client.call("POST", "faults/presets/\(preset)", json: try jsonBody(parameters))
                if control.json { return control.printJSON(response) }
                for added in try response.decode([FaultRule].self) {
                    print("added " + describe(added))
                }
            }
        }
    }
}

private struct RuleStatus: Decodable {
    var rule: FaultRule
    var matches: Int
    var fired: Int
}

/// A probability or share: from 0 to 1. `nan` once reached the JSON encoder, which threw
/// an `EncodingError` at the user; 2 went to the gateway for a 400.
private func checkShare(_ value: Double?, flag: String) throws {
    if let value, !(0...1).contains(value) {
        throw ValidationError("\(flag) must be from 0 to 1, not \(value).")
    }
}

private func seconds(_ text: String, flag: String) throws -> Double {
    guard let duration = DurationText.parse(text) else { throw ValidationError("\(flag) \(text) is not a duration (90s, 2m, 1h)") }
    return Double(duration.wholeMilliseconds) / 1000
}

/// `5/1s` or `5/1s:token`.
private func parseRate(_ text: String) throws -> FaultTrigger.Rate {
    let keyParts = text.split(separator: ":", maxSplits: 1).map(String.init)
    let parts = keyParts[0].split(separator: "/").map(String.init)
    guard parts.count == 2, let limit = Int(parts[0]) else {
        throw ValidationError("--rate \(text): use LIMIT/DURATION[:KEY], e.g. 5/1s:token")
    }
    return FaultTrigger.Rate(limit: limit, perSeconds: try seconds(parts[1], flag: "--rate"), key: keyParts.count > 1 ? keyParts[1] : nil)
}

/// `300ms`, `100ms..400ms`, `200ms~50ms`.
private func parseLatency(_ text: String) throws -> Latency {
    func milliseconds(_ part: some StringProtocol) throws -> Double {
        guard let duration = DurationText.parse(part) else { throw ValidationError("--latency \(text): \(part) is not a duration") }
        return Double(duration.wholeMilliseconds)
    }
    if let range = text.range(of: "..") {
        return Latency(uniformMs: [try milliseconds(text[..<range.lowerBound]), try milliseconds(text[range.upperBound...])])
    }
    if let tilde = text.firstIndex(of: "~") {
        return Latency(normalMs: .init(mean: try milliseconds(text[..<tilde]), stddev: try milliseconds(text[text.index(after: tilde)...])))
    }
    return Latency(fixedMs: try milliseconds(text))
}

private func describe(_ rule: FaultRule) -> String {
    var text = "\(rule.id ?? "?")"
    if let name = rule.name { text += " (\(name))" }
    text += ": \(rule.action)"
    var conditions: [String] = []
    let match = rule.match
    if let platform = match.platform { conditions.append("platform \(platform)") }
    if let token = match.token { conditions.append("token \(token.pattern)") }
    if let topic = match.topic { conditions.append("topic \(topic.pattern)") }
    if let project = match.project { conditions.append("project \(project.pattern)") }
    if let path = match.path { conditions.append("path \(path.pattern)") }
    if let header = match.header { conditions.append("header \(header.name)") }
    if let fraction = match.tokenFraction { conditions.append("\(Int(fraction * 100)) % of tokens") }
    if let payload = match.payload { conditions.append("payload \(payload.path)") }
    let trigger = rule.trigger
    if let probability = trigger.probability { conditions.append("p=\(probability) seed \(trigger.seed ?? 1)") }
    if let count = trigger.count { conditions.append("next \(count)") }
    if let every = trigger.everyNth { conditions.append("every \(every)th") }
    if let after = trigger.after { conditions.append("after \(after)") }
    if let from = trigger.from { conditions.append("from \(from)") }
    if let until = trigger.until { conditions.append("until \(until)") }
    if let rate = trigger.rate { conditions.append("beyond \(rate.limit) per \(rate.perSeconds)s per \(rate.key ?? "token")") }
    if rule.latency != nil { conditions.append("with latency") }
    // Matched and counted per recipient of a request (Expo's error tickets), not per request.
    if rule.action.scope == .recipient { conditions.append("per recipient") }
    return conditions.isEmpty ? text : text + " when " + conditions.joined(separator: ", ")
}
