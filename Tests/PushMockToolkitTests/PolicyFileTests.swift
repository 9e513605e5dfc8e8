import Foundation
import PushMockJSON
import PushMockToolkit
import Testing

@Suite("Policy: file format")
struct PolicyFileTests {
    @Test("the Loop policy loads")
    func loopPolicy() throws {
        let policy = try LinkPolicyFixtures.loopPolicy()
        #expect(policy.name == "Loop notification policy")
        #expect(
            policy.types.map(\.name) == [
                "dose-reminder", "supply-low", "milestone", "lab-results", "protocol-updated", "check-in", "marketing",
            ])
        #expect(policy.timeZones.defaultZone.identifier == "Europe/Berlin")
        // Zones come from the users (users.json), not from the payload.
        #expect(policy.timeZones.paths.isEmpty)
        #expect(policy.deliveryWindows.map(\.name) == ["marketing-weekday-daytime"])
        let night = try #require(policy.quietHours.first)
        #expect(night.name == "night")
        #expect(night.start.description == "22:00")
        #expect(night.end.description == "08:00")
        #expect(night.exemptInterruptionLevels == ["critical", "time-sensitive"])
        #expect(policy.frequencyCaps.map(\.name) == ["dose-reminders-per-day", "marketing-per-week"])
        #expect(policy.frequencyCaps.map { $0.window?.description } == ["calendar day", "7d"])
        #expect(policy.frequencyCaps.map(\.limit) == [2, 2])
        #expect(policy.priorityRules.first?.priorities == [5])
        #expect(policy.priorityRules.first?.match?.description == "silent")
        #expect(!policy.countRejected)
    }

    @Test("defaults of an almost empty policy")
    func defaults() throws {
        let policy = try PolicyFile(parsing: #"{"version":1,"quietHours":[{"start":"22:00","end":"7:30"}]}"#)
        #expect(policy.timeZones.defaultZone.secondsFromGMT() == 0)
        let rule = try #require(policy.quietHours.first)
        #expect(rule.name == "quietHours[0]")
        #expect(rule.end.description == "07:30")
        #expect(rule.exemptInterruptionLevels == ["critical", "time-sensitive"])
        #expect(rule.exemptSilent)
        #expect(rule.types == nil)
    }

    @Test(
        "times of day",
        arguments: [
            ("22:00", "22:00" as String?), ("0:05", "00:05"), ("23:59", "23:59"),
            ("24:00", nil), ("12:60", nil), ("1200", nil), ("12:5", nil), ("", nil), ("-1:00", nil), ("ab:cd", nil), ("12:00:00", nil),
        ])
    func timeOfDay(text: String, expected: String?) {
        #expect(PolicyFile.TimeOfDay(text)?.description == expected)
    }

    @Test(
        "unusable policies are reported with the place and the value",
        arguments: [
            (#"{"types":[]}"#, PolicyError.Code.unsupportedVersion, "version: missing"),
            (#"{"version":3}"#, .unsupportedVersion, "version 3 is not supported"),
            (#"{"version":1,"quietHour":[]}"#, .invalidDefinition, "unknown member \"quietHour\""),
            (#"{"version":1,"types":[{"name":"a"}]}"#, .invalidDefinition, "types[0].match: missing"),
            (
                #"{"version":1,"types":[{"name":"a","match":{}}]}"#, .invalidDefinition,
                "types[0].match: a match needs at least one condition"
            ),
            (
                #"{"version":1,"types":[{"name":"a","match":{"path":"$.type"}}]}"#, .invalidDefinition,
                "\"path\" needs exactly one of equals, oneOf, exists, prefix"
            ),
            (
                #"{"version":1,"types":[{"name":"a","match":{"path":"$.type","equals":1,"prefix":"x"}}]}"#, .invalidDefinition,
                "needs exactly one of"
            ),
            (#"{"version":1,"types":[{"name":"a","match":{"equals":"x"}}]}"#, .invalidDefinition, "types[0].match.equals: needs \"path\""),
            (
                #"{"version":1,"types":[{"name":"a","match":{"path":"type","equals":"x"}}]}"#, .invalidDefinition,
                "types[0].match.path: invalid JSON path"
            ),
            (#"{"version":1,"types":[{"name":"a","match":{"type":"b"}}]}"#, .invalidDefinition, "a type definition cannot depend on types"),
            (#"{"version":1,"types":[{"name":"a","match":{"platform":"web"}}]}"#, .invalidDefinition, "\"web\": expected apns or fcm"),
            (
                #"{"version":1,"types":[{"name":"a","match":{"all":[]}}]}"#, .invalidDefinition,
                "types[0].match.all: needs at least one match"
            ),
            (
                #"{"version":1,"types":[{"name":"a","match":{"interruptionLevel":"urgent"}}]}"#, .invalidDefinition,
                "\"urgent\" is not an interruption level"
            ),
            (
                #"{"version":1,"types":[{"name":"a","match":{"silent":true}},{"name":"a","match":{"silent":false}}]}"#, .duplicateName,
                "types[1].name: another type is already named \"a\""
            ),
            (
                #"{"version":1,"quietHours":[{"start":"25:00","end":"08:00"}]}"#, .invalidDefinition,
                "quietHours[0].start: expected a time \"HH:MM\" (00:00 to 23:59), found \"25:00\""
            ),
            (#"{"version":1,"quietHours":[{"start":"22:00"}]}"#, .invalidDefinition, "quietHours[0].end: missing"),
            (
                #"{"version":1,"quietHours":[{"start":"22:00","end":"22:00"}]}"#, .invalidDefinition,
                "quietHours[0]: start and end are both 22:00"
            ),
            (
                #"{"version":1,"quietHours":[{"start":"22:00","end":"08:00","exemptInterruptionLevels":["time_sensitive"]}]}"#,
                .invalidDefinition, "\"time_sensitive\" is not an interruption level"
            ),
            (
                #"{"version":1,"quietHours":[{"start":"22:00","end":"08:00","types":["promo"]}]}"#, .unknownType,
                "quietHours[0].types: unknown type \"promo\" (the file defines no types)"
            ),
            (
                #"{"version":1,"quietHours":[{"start":"22:00","end":"08:00","exempt":{"type":"promo"}}]}"#, .unknownType,
                "quietHours[0].exempt: unknown type \"promo\""
            ),
            (
                #"{"version":1,"frequencyCaps":[{"limit":2}]}"#, .invalidDefinition,
                "frequencyCaps[0]: \"limit\" and a window (\"window\" or \"calendar\") go together"
            ),
            (#"{"version":1,"frequencyCaps":[{"window":"7d"}]}"#, .invalidDefinition, "go together"),
            (
                #"{"version":1,"frequencyCaps":[{"name":"x"}]}"#, .invalidDefinition,
                "needs \"limit\" with a window, \"minimumSpacing\", or both"
            ),
            (
                #"{"version":1,"frequencyCaps":[{"limit":2,"window":"7 days"}]}"#, .invalidDefinition,
                "frequencyCaps[0].window: \"7 days\" is not a duration"
            ),
            (#"{"version":1,"frequencyCaps":[{"limit":2,"window":"0s"}]}"#, .invalidDefinition, "\"window\" must be longer than zero"),
            (#"{"version":1,"frequencyCaps":[{"limit":-1,"window":"1d"}]}"#, .invalidDefinition, "\"limit\" cannot be negative (was -1)"),
            (
                #"{"version":1,"frequencyCaps":[{"limit":2,"window":"1d","calendar":"day"}]}"#, .invalidDefinition,
                "give \"window\" (rolling) or \"calendar\", not both"
            ),
            (
                #"{"version":1,"frequencyCaps":[{"limit":2,"calendar":"fortnight"}]}"#, .invalidDefinition,
                "\"fortnight\": expected day, week or month"
            ),
            (#"{"version":1,"frequencyCaps":[{"minimumSpacing":"soon"}]}"#, .invalidDefinition, "\"soon\" is not a duration"),
            (
                #"{"version":1,"frequencyCaps":[{"limit":2.5,"window":"1d"}]}"#, .invalidDefinition,
                "limit: expected an integer, found the number 2.5"
            ),
            (
                #"{"version":1,"frequencyCaps":[{"name":"a","minimumSpacing":"1h"}],"priorityRules":[{"name":"a","priority":5}]}"#,
                .duplicateName, "priorityRules[0].name: another rule is already named \"a\""
            ),
            (
                #"{"version":1,"priorityRules":[{"name":"p"}]}"#, .invalidDefinition,
                "priorityRules[0]: a priority rule needs \"priority\", \"androidPriority\" or both"
            ),
            (#"{"version":1,"priorityRules":[{"priority":7}]}"#, .invalidDefinition, "7 is not an APNs priority (expected 1, 5 or 10)"),
            (
                #"{"version":1,"priorityRules":[{"priority":"high"}]}"#, .invalidDefinition,
                "expected a priority (1, 5 or 10) or an array of them"
            ),
            (#"{"version":1,"priorityRules":[{"androidPriority":"urgent"}]}"#, .invalidDefinition, "\"urgent\" is not an Android priority"),
            (#"{"version":1,"priorityRules":[{"types":["x"],"priority":5}]}"#, .unknownType, "priorityRules[0].types: unknown type \"x\""),
            (
                #"{"version":1,"timeZones":{"default":"Mars/Olympus_Mons"}}"#, .unknownTimeZone,
                "timeZones.default: \"Mars/Olympus_Mons\" is not a time zone"
            ),
            (#"{"version":1,"timeZones":{"byRecipient":{"abc":"Europe/Nowhere"}}}"#, .unknownTimeZone, "timeZones.byRecipient.abc"),
            (#"{"version":1,"timeZones":{"paths":["tz"]}}"#, .invalidDefinition, "timeZones.paths[0]: invalid JSON path"),
            (#"{"version":1,"timeZones":{"zone":"UTC"}}"#, .invalidDefinition, "unknown member \"zone\""),
            (#"{"version":1,"countRejected":"yes"}"#, .invalidDefinition, "countRejected: expected true or false"),
            (#"{"version":1,"#, .invalidJSON, "not valid JSON"),
        ])
    func unusable(text: String, code: PolicyError.Code, message: String) {
        #expect {
            _ = try PolicyFile(parsing: text)
        } throws: { error in
            guard let error = error as? PolicyError else { return false }
            if !(error.code == code && error.description.contains(message)) {
                Issue.record("got \(error.code): \(error)")
                return false
            }
            return true
        }
    }

    @Test("file errors name the file")
    func fileErrors() {
        #expect {
            _ = try PolicyFile(contentsOfFile: "/nonexistent/policy.json")
        } throws: { error in
            (error as? PolicyError)?.description == "/nonexistent/policy.json: cannot read the policy file: No such file or directory"
                && (error as? PolicyError)?.code == .unreadableFile
        }
    }

    @Test(
        "time zones: identifiers and offsets",
        arguments: [
            ("Europe/Berlin", true), ("UTC", true), ("America/New_York", true), ("+02:00", true), ("-0530", true), ("+5", true),
            ("Mars/Base", false), ("", false), ("+25:00", false), ("+02:75", false),
        ])
    func timeZoneNames(name: String, valid: Bool) {
        let text = #"{"version":1,"timeZones":{"default":"\#(name)"}}"#
        #expect(((try? PolicyFile(parsing: text)) != nil) == valid)
    }

    @Test("a policy in code: unknown types are caught")
    func inCode() throws {
        let marketing = PolicyFile.NotificationType(
            name: "marketing", match: try .path("$.type", "$.message.data.type", equals: "marketing"))
        let cap = try PolicyFile.FrequencyCap(name: "weekly", types: ["marketing"], limit: 2, window: .rolling(.seconds(7 * 86_400)))
        let policy = try PolicyFile(types: [marketing], frequencyCaps: [cap])
        #expect(policy.frequencyCaps[0].window?.description == "7d")
        #expect {
            try PolicyFile(frequencyCaps: [cap])
        } throws: { error in
            (error as? PolicyError)?.code == .unknownType
        }
        #expect(throws: PolicyError.self) { try PolicyMatch.path("type", equals: "x") }
        #expect(throws: PolicyError.self) { try PolicyFile.FrequencyCap(name: "x", limit: 1) }
        #expect(throws: PolicyError.self) {
            try PolicyFile.QuietHours(name: "q", start: .init(hour: 1, minute: 0)!, end: .init(hour: 1, minute: 0)!)
        }
    }

    @Test("Decodable reads the same format")
    func decodable() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: LinkPolicyFixtures.loopDirectory + "/policy.json"))
        #expect(try JSONDecoder().decode(PolicyFile.self, from: data) == (try LinkPolicyFixtures.loopPolicy()))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PolicyFile.self, from: Data(#"{"version":1,"x":1}"#.utf8)) }
    }

    @Test("match descriptions")
    func matchDescriptions() throws {
        let match = try PolicyFile(
            parsing: #"""
                {"version":1,"types":[{"name":"t","match":{"any":[{"path":["$.type","$.aps['interruption-level']"],"oneOf":["a",1]},
                  {"not":{"pushType":["background","voip"]}},{"platform":"fcm","topic":"news"},{"path":"$.x","exists":false},{"path":"$.y","prefix":"p"}]}}]}
                """#
        ).types[0].match
        #expect(
            match.description
                == #"any([$.type, $.aps.interruption-level] in ["a",1], not(pushType [background, voip]), all(platform fcm, topic news), $.x absent, $.y starts with "p")"#
        )
    }

    @Test("every error code has a distinct name")
    func errorCodes() {
        #expect(Set(PolicyError.Code.all.map(\.description)).count == PolicyError.Code.all.count)
    }
}
