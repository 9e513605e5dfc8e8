import Foundation
import PushMockCore
import PushMockJSON
import PushMockSimulation
import Testing

/// A request for fault matching, built by hand.
struct TestSubject: FaultSubject {
    var platform = Platform.apns
    var path = "/3/device/00fc13ad"
    var environment: String? = "sandbox"
    var token: String? = "00fc13ad"
    var topic: String? = "com.example.app"
    var project: String? = nil
    var payload: JSONValue? = try? JSONValue(parsing: #"{"aps":{"alert":{"title":"Hello"},"content-available":1}}"#)
    var connectionID: UInt64 = 1
    var headers: [String: [String]] = ["apns-push-type": ["alert"], "authorization": ["bearer x"]]

    func headerValues(named name: String) -> [String] { headers[name] ?? [] }
}

let now = Timestamp(secondsSince1970: 1_800_000_000)

@Suite("Glob patterns")
struct GlobTests {
    @Test(
        arguments: [
            ("com.example.*", "com.example.app", true), ("com.example.*", "com.other.app", false),
            ("*", "", true), ("a?c", "abc", true), ("a?c", "ac", false), ("*:APA91b*", "x:APA91bzz", true),
            ("00fc*", "00fc13ad", true), ("exact", "exact", true), ("exact", "exactly", false), ("*a*b*", "xxaxxbxx", true),
            ("*a*b", "ab", true), ("*a*b", "ba", false),
        ] as [(String, String, Bool)])
    func glob(pattern: String, text: String, expected: Bool) {
        #expect(Glob(pattern).matches(text) == expected)
    }
}

@Suite("Fault matching")
struct FaultMatchTests {
    @Test("each condition narrows the match")
    func conditions() {
        let subject = TestSubject()
        #expect(FaultMatch().matches(subject))
        #expect(FaultMatch(platform: .apns).matches(subject))
        #expect(!FaultMatch(platform: .fcm).matches(subject))
        #expect(FaultMatch(token: Glob("00fc*")).matches(subject))
        #expect(!FaultMatch(token: Glob("ff*")).matches(subject))
        #expect(FaultMatch(topic: Glob("com.example.*")).matches(subject))
        #expect(!FaultMatch(project: Glob("*")).matches(subject), "no project: a project condition cannot hold")
        #expect(FaultMatch(path: Glob("/3/device/*")).matches(subject))
        #expect(FaultMatch(environment: "sandbox").matches(subject))
        #expect(!FaultMatch(environment: "production").matches(subject))
        #expect(FaultMatch(header: .init(name: "APNs-Push-Type", value: Glob("alert"))).matches(subject))
        #expect(FaultMatch(header: .init(name: "authorization")).matches(subject))
        #expect(!FaultMatch(header: .init(name: "apns-collapse-id")).matches(subject))
        #expect(FaultMatch(payload: .init(path: "$.aps.alert.title", equals: "Hello")).matches(subject))
        #expect(FaultMatch(payload: .init(path: "$.aps['content-available']", equals: 1)).matches(subject))
        #expect(!FaultMatch(payload: .init(path: "$.aps.alert.title", equals: "Bye")).matches(subject))
        #expect(FaultMatch(payload: .init(path: "$.aps.alert.title", matches: Glob("Hel*"))).matches(subject))
        #expect(FaultMatch(payload: .init(path: "$.aps.alert")).matches(subject))
        #expect(!FaultMatch(payload: .init(path: "$.aps.sound")).matches(subject))
    }
}

@Suite("Fault triggers")
struct FaultTriggerTests {
    /// Runs `requests` matching requests through one rule and returns which ones fired (1-based).
    static func fired(
        _ trigger: FaultTrigger, requests: Int = 20, times: (Int) -> Timestamp = { _ in now },
        subject: (Int) -> TestSubject = { _ in TestSubject() }
    ) throws -> [Int] {
        let engine = FaultEngine()
        try engine.add(FaultRule(trigger: trigger, action: .apnsError(reason: "TooManyRequests")), now: now)
        return (1...requests).filter { engine.evaluate(subject($0), now: times($0)) != nil }
    }

    @Test("always") func always() throws { #expect(try Self.fired(.always) == Array(1...20)) }
    @Test("count: the next N") func count() throws { #expect(try Self.fired(FaultTrigger(count: 3)) == [1, 2, 3]) }
    @Test("every Nth") func everyNth() throws { #expect(try Self.fired(FaultTrigger(everyNth: 5)) == [5, 10, 15, 20]) }
    @Test("after N") func after() throws { #expect(try Self.fired(FaultTrigger(after: 17)) == [18, 19, 20]) }
    @Test("after and every Nth combine") func afterEvery() throws {
        #expect(try Self.fired(FaultTrigger(everyNth: 2, after: 10)) == [12, 14, 16, 18, 20])
    }

    @Test("time window on the gateway clock")
    func window() throws {
        let trigger = FaultTrigger(from: now + .seconds(5), until: now + .seconds(10))
        #expect(try Self.fired(trigger, times: { now + .seconds(Int64($0)) }) == [5, 6, 7, 8, 9])
    }

    @Test("forSeconds opens a window when the rule is added")
    func forSeconds() throws {
        #expect(try Self.fired(FaultTrigger(forSeconds: 3), times: { now + .seconds(Int64($0 - 1)) }) == [1, 2, 3])
    }

    @Test("startsInSeconds delays the start; with forSeconds it opens a later window")
    func startsIn() throws {
        #expect(try Self.fired(FaultTrigger(startsInSeconds: 17), times: { now + .seconds(Int64($0)) }) == [17, 18, 19, 20])
        #expect(try Self.fired(FaultTrigger(forSeconds: 3, startsInSeconds: 5), times: { now + .seconds(Int64($0)) }) == [5, 6, 7])
    }

    @Test("down for two minutes, then throttled: two presets in sequence")
    func outageThenThrottling() throws {
        let engine = FaultEngine()
        var outage = FaultPreset.Parameters()
        outage.forSeconds = 120
        outage.platform = .apns
        var throttling = FaultPreset.Parameters()
        throttling.startsInSeconds = 120
        throttling.platform = .apns
        throttling.limit = 1
        for rule in try FaultPreset.outage.rules(outage) + FaultPreset.throttling.rules(throttling) {
            try engine.add(rule, now: now)
        }
        func reason(at seconds: Int64) -> String? {
            engine.evaluate(TestSubject(), now: now + .seconds(seconds))?.action.apnsReason
        }
        #expect(reason(at: 0) == "ServiceUnavailable")
        #expect(reason(at: 119) == "ServiceUnavailable")
        #expect(reason(at: 120) == nil, "the first request per second passes")
        #expect(reason(at: 120) == "TooManyRequests")
        #expect(reason(at: 600) == nil)
        #expect(reason(at: 600) == "TooManyRequests")
        #expect(engine.rules.allSatisfy { $0.rule.trigger.startsInSeconds == nil }, "resolved into from/until when added")
    }

    @Test("rate per token: only requests beyond the limit in the window")
    func rate() throws {
        // Two tokens alternate, one request per 100 ms each; limit 3 per second per token.
        let fired = try Self.fired(
            FaultTrigger(rate: .init(limit: 3, perSeconds: 1, key: "token")),
            requests: 20,
            times: { now + .milliseconds(Int64($0 / 2) * 100) },
            subject: {
                var subject = TestSubject(); subject.token = $0 % 2 == 0 ? "a" : "b"; return subject
            }
        )
        // Per token: requests 1–3 pass, from the 4th within the second they fail.
        #expect(fired == [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20])
        let global = try Self.fired(FaultTrigger(rate: .init(limit: 5, perSeconds: 1, key: "all")), requests: 8)
        #expect(global == [6, 7, 8])
    }

    @Test("seeded probability gives the same sequence twice, and another seed another one")
    func probability() throws {
        let first = try Self.fired(FaultTrigger(probability: 0.3, seed: 42), requests: 200)
        let second = try Self.fired(FaultTrigger(probability: 0.3, seed: 42), requests: 200)
        let other = try Self.fired(FaultTrigger(probability: 0.3, seed: 43), requests: 200)
        #expect(first == second)
        #expect(first != other)
        #expect((40...80).contains(first.count), "about 30 % of 200: \(first.count)")
        #expect(try Self.fired(FaultTrigger(probability: 0), requests: 50).isEmpty)
        #expect(try Self.fired(FaultTrigger(probability: 1), requests: 50).count == 50)
    }

    @Test(
        "invalid triggers are rejected with a reason",
        arguments: [
            FaultTrigger(probability: 1.5), FaultTrigger(count: 0), FaultTrigger(everyNth: 0), FaultTrigger(after: -1),
            FaultTrigger(forSeconds: 0), FaultTrigger(rate: .init(limit: 1, perSeconds: 0)),
            FaultTrigger(rate: .init(limit: 1, perSeconds: 1, key: "ip")),
            FaultTrigger(from: now, until: now), FaultTrigger(startsInSeconds: -1), FaultTrigger(from: now, startsInSeconds: 5),
        ])
    func invalid(trigger: FaultTrigger) {
        #expect(throws: FaultRuleError.self) {
            try FaultEngine().add(FaultRule(trigger: trigger, action: .reset()), now: now)
        }
    }
}

@Suite("Fault engine")
struct FaultEngineTests {
    @Test("rules are tried in order; the first that fires wins; platform of the action is respected")
    func order() throws {
        let engine = FaultEngine()
        try engine.add(FaultRule(id: "fcm-only", action: .fcmError(code: "UNAVAILABLE")), now: now)
        try engine.add(FaultRule(id: "first", trigger: FaultTrigger(count: 1), action: .apnsError(reason: "InternalServerError")), now: now)
        try engine.add(FaultRule(id: "second", action: .apnsError(reason: "ServiceUnavailable")), now: now)
        #expect(engine.evaluate(TestSubject(), now: now)?.ruleID == "first")
        #expect(engine.evaluate(TestSubject(), now: now)?.ruleID == "second")
        var fcm = TestSubject()
        fcm.platform = .fcm
        #expect(engine.evaluate(fcm, now: now)?.ruleID == "fcm-only")
        let counters = engine.rules.map { ($0.rule.id ?? "", $0.matches, $0.fired) }
        #expect(counters.map(\.0) == ["fcm-only", "first", "second"])
        #expect(counters.map(\.2) == [1, 1, 1])
        #expect(engine.remove(id: "second"))
        #expect(engine.evaluate(TestSubject(), now: now) == nil)
        engine.removeAll()
        #expect(!engine.isActive)
    }

    /// An Expo error ticket answers one recipient: its rule is decided per recipient and never
    /// for a whole request, and the other rules never per recipient.
    @Test("scopes: error-ticket rules are decided per recipient, every other rule per request")
    func scopes() throws {
        let engine = FaultEngine()
        try engine.add(FaultRule(id: "tickets", action: .expoError(.ticket(code: "DeviceNotRegistered"))), now: now)
        try engine.add(
            FaultRule(id: "request", trigger: FaultTrigger(count: 1), action: .expoError(.request(code: "TOO_MANY_REQUESTS"))), now: now)
        try engine.add(FaultRule(id: "reset", trigger: FaultTrigger(count: 1), action: .reset()), now: now)
        var expo = TestSubject()
        expo.platform = .expo
        #expect(FaultAction.expoError(.ticket(code: "X")).scope == .recipient)
        #expect(FaultAction.expoError(.request(code: "X")).scope == .request)
        #expect(engine.evaluate(expo, now: now)?.ruleID == "request")
        #expect(engine.evaluate(expo, now: now)?.ruleID == "reset")
        #expect(engine.evaluate(expo, now: now) == nil)
        #expect(engine.evaluate(expo, now: now, scope: .recipient)?.ruleID == "tickets")
        #expect(engine.rules.map(\.matches) == [1, 3, 2])
        #expect(
            FaultDecision.summary(ofRecipients: [
                FaultDecision(ruleID: "fault-2", ruleName: "gone", action: .expoError(.ticket(code: "DeviceNotRegistered"))),
                FaultDecision(ruleID: "fault-3", action: .expoError(.ticket(code: "MessageRateExceeded")), delay: .milliseconds(5)),
                FaultDecision(ruleID: "fault-2", ruleName: "gone", action: .expoError(.ticket(code: "DeviceNotRegistered"))),
            ])
                == "fault-2 (gone): expo-error ticket DeviceNotRegistered, 2 recipients; fault-3: expo-error ticket MessageRateExceeded, 1 recipient"
        )
    }

    @Test("a token condition holds when any of a request's recipients matches")
    func anyRecipient() throws {
        struct Batch: FaultSubject {
            var platform = Platform.expo
            var path = "/--/api/v2/push/send"
            var environment: String? = nil
            var token: String? = "ExponentPushToken[a]"
            var tokens = ["ExponentPushToken[a]", "ExponentPushToken[b]"]
            var topic: String? = nil
            var project: String? = nil
            var payload: JSONValue? = nil
            var connectionID: UInt64 = 1
            func headerValues(named name: String) -> [String] { [] }
        }
        #expect(FaultMatch(token: Glob("*[b]")).matches(Batch()))
        #expect(!FaultMatch(token: Glob("*[c]")).matches(Batch()))
        #expect(FaultMatch(tokenFraction: 1).matches(Batch()))
        var none = Batch()
        none.tokens = []
        #expect(!FaultMatch(tokenFraction: 0.999).matches(none))
        // A subject that names one token matches on it (the protocol's default `tokens`).
        #expect(FaultMatch(token: Glob("00fc*")).matches(TestSubject()))
    }

    @Test("ids are assigned, and re-adding an id replaces the rule")
    func ids() throws {
        let engine = FaultEngine()
        let added = try engine.add(FaultRule(action: .reset()), now: now)
        #expect(added.id == "fault-1")
        try engine.add(FaultRule(id: "fault-1", action: .close), now: now)
        #expect(engine.rules.count == 1)
        #expect(engine.rules.first?.rule.action == .close)
    }

    @Test("latency: fixed, uniform, normal and exponential, seeded")
    func latency() throws {
        var random = FastRandom(seed: 9)
        #expect(Latency.fixed(250).sample(using: &random) == .milliseconds(250))
        // The types are spelled out: inferring them through `#expect` and the literals took the
        // type checker over four seconds.
        let uniform: [Int64] = (0..<1000).map { _ in Latency(uniformMs: [50, 100]).sample(using: &random).wholeMilliseconds }
        #expect(uniform.allSatisfy { (50...100).contains($0) })
        let normal: [Double] = (0..<2000).map { _ in
            Double(Latency(normalMs: .init(mean: 200, stddev: 20)).sample(using: &random).wholeMilliseconds)
        }
        let mean: Double = normal.reduce(0, +) / Double(normal.count)
        #expect(abs(mean - 200) < 5, "mean \(mean)")
        let exponential: [Double] = (0..<2000).map { _ in
            Double(Latency(exponentialMs: .init(mean: 100)).sample(using: &random).wholeMilliseconds)
        }
        let exponentialMean: Double = exponential.reduce(0, +) / 2000
        #expect(abs(exponentialMean - 100) < 10)
        var a = FastRandom(seed: 5)
        var b = FastRandom(seed: 5)
        #expect(
            (0..<50).map { _ in Latency(uniformMs: [0, 1000]).sample(using: &a) }
                == (0..<50).map { _ in Latency(uniformMs: [0, 1000]).sample(using: &b) })
        #expect(throws: FaultRuleError.self) { try Latency(fixedMs: 1, uniformMs: [1, 2]).validate() }
        #expect(throws: FaultRuleError.self) { try Latency(uniformMs: [5, 1]).validate() }
    }

    @Test("rules round-trip through JSON, the control API's and config file's format")
    func codable() throws {
        let json = #"""
            {"name": "throttle one device", "match": {"platform": "apns", "token": "00fc*", "payload": {"path": "$.aps.alert.title", "equals": "Hi"}},
             "trigger": {"rate": {"limit": 2, "perSeconds": 1}, "seed": 3},
             "action": {"type": "apns-error", "reason": "TooManyRequests"},
             "latency": {"uniformMs": [10, 20]}}
            """#
        let rule = try JSONDecoder().decode(FaultRule.self, from: Data(json.utf8))
        #expect(rule.match.token == Glob("00fc*"))
        #expect(rule.match.payload?.equals == "Hi")
        #expect(rule.trigger.rate?.limit == 2)
        #expect(rule.action == .apnsError(reason: "TooManyRequests"))
        let again = try JSONDecoder().decode(FaultRule.self, from: try JSONEncoder().encode(rule))
        #expect(again == rule)
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(FaultRule.self, from: Data(#"{"action": {"type": "explode"}}"#.utf8))
        }
    }

    /// A misspelt member once left its default in force: `"probablity": 0.5` made a rule that
    /// fires on every request. Every level refuses what it does not know, and names it.
    @Test(
        "a member a fault does not know is refused at its level, with the members it takes",
        arguments: [
            (#"{"action":{"type":"close"},"bogus":1}"#, #"unknown member "bogus" in a fault (expected: id, name"#),
            (
                #"{"action":{"type":"close"},"trigger":{"probablity":0.5}}"#,
                #"unknown member "probablity" in trigger (expected: probability"#
            ),
            (#"{"action":{"type":"close"},"match":{"tokens":"00fc*"}}"#, #"unknown member "tokens" in match (expected: platform, token"#),
            (#"{"action":{"type":"close"},"match":{"header":{"name":"a","valu":"b"}}}"#, #"unknown member "valu" in match.header"#),
            (#"{"action":{"type":"close"},"match":{"payload":{"path":"$.a","equal":1}}}"#, #"unknown member "equal" in match.payload"#),
            (
                #"{"action":{"type":"close"},"trigger":{"rate":{"limit":1,"perSeconds":1,"per":"token"}}}"#,
                #"unknown member "per" in trigger.rate"#
            ),
            (#"{"latency":{"fixedms":5}}"#, #"unknown member "fixedms" in latency (expected: fixedMs"#),
            (#"{"latency":{"normalMs":{"mean":5,"stdev":1}}}"#, #"unknown member "stdev" in latency.normalMs"#),
            (#"{"latency":{"exponentialMs":{"mean":5,"max":9}}}"#, #"unknown member "max" in latency.exponentialMs"#),
            (
                #"{"action":{"type":"apns-error","reason":"BadDeviceToken","reasn":"x"}}"#,
                #"unknown member "reasn" in an action of type apns-error (expected: type, reason, retryAfter, status, timestamp)"#
            ),
        ])
    func unknownMembers(json: String, message: String) {
        do {
            _ = try JSONDecoder().decode(FaultRule.self, from: Data(json.utf8))
            Issue.record("\(json) was read")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    /// Every member the types read, given at once, is still taken (a member added to a type
    /// but not to its list would be refused here).
    @Test("every member a fault takes is taken, null members too")
    func everyMember() throws {
        let json = #"""
            {"id": "f", "name": "n",
             "match": {"platform": "apns", "token": "a*", "topic": "t*", "project": "p*", "path": "/3/*", "environment": "sandbox",
                       "header": {"name": "apns-priority", "value": "10"}, "payload": {"path": "$.a", "equals": 1, "matches": null},
                       "tokenFraction": 0.5},
             "trigger": {"probability": 0.5, "seed": 1, "count": 2, "everyNth": 1, "after": 0, "from": 1000, "until": 2000,
                         "forSeconds": null, "startsInSeconds": null, "rate": {"limit": 1, "perSeconds": 1, "key": "token"}},
             "action": {"type": "apns-error", "reason": "TooManyRequests", "status": 429, "timestamp": null, "retryAfter": 5},
             "latency": {"normalMs": {"mean": 5, "stddev": 1}}}
            """#
        let rule = try JSONDecoder().decode(FaultRule.self, from: Data(json.utf8))
        #expect(rule.trigger.rate?.key == "token")
        #expect(try JSONDecoder().decode(FaultRule.self, from: try JSONEncoder().encode(rule)) == rule)
        #expect(throws: Never.self) {
            try JSONDecoder().decode(
                FaultRule.self, from: Data(#"{"action":{"type":"close"},"match":null,"trigger":null,"latency":null}"#.utf8))
        }
    }

    @Test(
        "actions need their fields, and take no others",
        arguments: [
            #"{"type": "apns-error"}"#, #"{"type": "fcm-error"}"#, #"{"type": "iid-error"}"#, #"{"type": "oauth-error"}"#,
            #"{"type": "settings"}"#, #"{"type": "apns-error", "reason": ""}"#,
            #"{"type": "fcm-error", "code": "UNAVAILABLE", "status": 503}"#, #"{"type": "reset", "reason": "Shutdown"}"#,
            #"{"type": "close", "code": "CANCEL"}"#, #"{"type": "reset", "code": "NOT_A_CODE"}"#,
            #"{"type": "goaway", "lastStream": "first"}"#,
        ])
    func actionDecoding(json: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(FaultAction.self, from: Data(json.utf8)) }
    }

    @Test(
        "action values out of range are refused",
        arguments: [
            FaultAction.apnsError(reason: "X", status: 999), .iidError(error: "INTERNAL", status: 42),
            .fcmError(code: "INTERNAL", retryAfter: -1),
        ])
    func actionValidation(action: FaultAction) {
        #expect(throws: FaultRuleError.self) { try action.validate() }
    }

    @Test(
        "every action kind round-trips through its JSON form",
        arguments: [
            FaultAction.apnsError(reason: "Unregistered", status: 410, timestamp: 1_700_000_000_000, retryAfter: 5),
            .fcmError(code: "QUOTA_EXCEEDED", retryAfter: 60, message: "slow down"), .iidError(error: "RESOURCE_EXHAUSTED", status: 429),
            .oauthError(error: "invalid_grant", description: "no", status: 400), .reset(.refusedStream),
            .goAway(reason: "Shutdown", code: .noError, lastStream: .last, close: false), .close, .hang, .settings(maxConcurrentStreams: 1),
            .pass,
        ])
    func actionRoundTrip(action: FaultAction) throws {
        #expect(try JSONDecoder().decode(FaultAction.self, from: JSONEncoder().encode(action)) == action)
    }

    @Test("a rule whose action belongs to another platform than its match is rejected")
    func platformMismatch() {
        #expect(throws: FaultRuleError.self) {
            try FaultEngine().add(FaultRule(match: FaultMatch(platform: .fcm), action: .apnsError(reason: "TooManyRequests")), now: now)
        }
    }

    @Test("presets expand into valid rules", arguments: FaultPreset.allCases)
    func presets(preset: FaultPreset) throws {
        let engine = FaultEngine()
        let rules = try preset.rules()
        #expect(!rules.isEmpty)
        for rule in rules {
            try engine.add(rule, now: now)
        }
        let platformOnly = try FaultPreset.throttling.rules(
            {
                var parameters = FaultPreset.Parameters(); parameters.platform = .fcm; return parameters
            }())
        #expect(platformOnly.map(\.action.kind) == [.fcmError])
    }

    /// Every parameter a preset lists changes the rules it makes (the list is true); every
    /// other one is refused, naming the parameter (it would have been ignored without a word).
    @Test("a preset takes the parameters it lists and refuses the others", arguments: FaultPreset.allCases)
    func presetParameters(preset: FaultPreset) throws {
        func encoded(_ rules: [FaultRule]) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return String(decoding: try encoder.encode(rules), as: UTF8.self)
        }
        let plain = try encoded(preset.rules())
        for name in FaultPreset.Parameters.CodingKeys.allCases {
            var parameters = FaultPreset.Parameters()
            switch name {
            case .count: parameters.count = 2
            case .forSeconds: parameters.forSeconds = 10
            case .startsInSeconds: parameters.startsInSeconds = 5
            case .limit: parameters.limit = 7
            case .perSeconds: parameters.perSeconds = 2
            case .platform: parameters.platform = .apns
            case .retryAfter: parameters.retryAfter = 5
            case .probability: parameters.probability = 0.5
            case .seed: parameters.seed = 7
            case .meanMs: parameters.meanMs = 10
            case .stddevMs: parameters.stddevMs = 1
            case .token: parameters.token = "00*"
            case .fraction: parameters.fraction = 0.5
            }
            if preset.parameters.contains(name) {
                let rules = try preset.rules(parameters)
                #expect(try encoded(rules) != plain, "\(preset.rawValue) lists \(name.rawValue) but ignores it")
            } else {
                #expect {
                    try preset.rules(parameters)
                } throws: { error in
                    "\(error)".hasPrefix("\(preset.rawValue) does not take \(name.rawValue); it takes ")
                }
            }
        }
    }

    @Test("preset parameters: an unknown member is refused; the config file's `preset` is the name")
    func presetParameterNames() throws {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(FaultPreset.Parameters.self, from: Data(#"{"forSecond": 60}"#.utf8))
        }
        let use = try JSONDecoder().decode(FaultPresetUse.self, from: Data(#"{"preset": "outage", "forSeconds": 60}"#.utf8))
        #expect(use.preset == .outage)
        #expect(use.parameters.forSeconds == 60)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(FaultPresetUse.self, from: Data(#"{"preset": "outage", "duration": 60}"#.utf8))
        }
    }

    @Test(
        "the service presets answer on APNs, FCM and Expo unless narrowed to one",
        arguments: [FaultPreset.outage, .throttling, .deviceTokenExpiry])
    func everyService(preset: FaultPreset) throws {
        let rules = try preset.rules()
        #expect(rules.map(\.match.platform) == [.apns, .fcm, .expo])
        #expect(rules.map(\.action.kind) == [.apnsError, .fcmError, .expoError])
        var expoOnly = FaultPreset.Parameters()
        expoOnly.platform = .expo
        #expect(try preset.rules(expoOnly).map(\.match.platform) == [.expo])
    }
}

@Suite("Device-token expiry preset")
struct DeviceTokenExpiryPresetTests {
    @Test("a stable fraction of tokens: the same ones every time, about the share asked for")
    func fraction() throws {
        var parameters = FaultPreset.Parameters()
        parameters.fraction = 0.25
        parameters.platform = .apns
        let engine = FaultEngine()
        for rule in try FaultPreset.deviceTokenExpiry.rules(parameters) {
            try engine.add(rule, now: now)
        }
        let tokens = (0..<400).map { String(format: "%064x", $0 * 7919) }
        func hit() -> [String] {
            tokens.filter { token in
                var subject = TestSubject()
                subject.token = token
                return engine.evaluate(subject, now: now)?.action.apnsReason == "Unregistered"
            }
        }
        let first = hit()
        #expect(first == hit())
        #expect((60...140).contains(first.count), "about a quarter of 400: \(first.count)")
        // Tokens that differ only in their last characters, as tests name them, are spread too.
        for names in [(0..<400).map { "token-\(String(format: "%03d", $0))" }, (0..<400).map { "ExponentPushToken[device\($0)]" }] {
            let sampled = names.filter { FaultMatch.tokenIsSampled($0, fraction: 0.25) }.count
            #expect((60...140).contains(sampled), "about a quarter of \(names[0])…: \(sampled)")
        }
        #expect(
            FaultMatch.tokenIsSampled("ABCD", fraction: 0.5) == FaultMatch.tokenIsSampled("abcd", fraction: 0.5), "hex case does not matter"
        )
    }

    @Test("a token pattern, every platform (Expo on sends only); bad fractions are refused")
    func pattern() throws {
        var parameters = FaultPreset.Parameters()
        parameters.token = "00fc*"
        let rules = try FaultPreset.deviceTokenExpiry.rules(parameters)
        #expect(
            rules.map(\.action) == [
                .apnsError(reason: "Unregistered"), .fcmError(code: "UNREGISTERED"), .expoError(.ticket(code: "DeviceNotRegistered")),
            ])
        #expect(rules.allSatisfy { $0.match.token == Glob("00fc*") })
        #expect(rules.map(\.match.path) == [nil, nil, Glob("/--/api/v2/push/send")])
        parameters.fraction = 2
        #expect(throws: FaultRuleError.self) { try FaultPreset.deviceTokenExpiry.rules(parameters) }
    }
}

extension FaultAction {
    /// The reason of an `apns-error`, for compact expectations.
    fileprivate var apnsReason: String? {
        if case .apnsError(reason: let reason, _, _, _) = self { return reason }
        return nil
    }
}

@Suite("Fault rules under concurrent changes")
struct FaultEngineRaceTests {
    /// The hot path reads a rule count kept beside the rules; it was stored after the lock, so
    /// a `removeAll` racing an `add` could leave a listed rule that never fired.
    @Test("after concurrent adds and removals, the engine is active exactly when it holds rules")
    func activeMatchesRules() async throws {
        let engine = FaultEngine()
        let now = Timestamp(secondsSince1970: 1_000)
        for round in 0..<500 {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = try? engine.add(FaultRule(trigger: FaultTrigger(count: 1), action: .reset()), now: now) }
                group.addTask { engine.removeAll() }
                group.addTask { _ = engine.remove(id: "fault-\(round)") }
            }
            #expect(engine.isActive == !engine.rules.isEmpty, "round \(round)")
        }
    }
}
