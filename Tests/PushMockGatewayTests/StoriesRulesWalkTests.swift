import Foundation
import PushMockControl
import PushMockCore
import PushMockJSON
import PushMockTesting
import PushMockToolkit
import PushMockTransport
import Testing

/// The seed teams' rules end to end: users and events through the control API, pushes through
/// the real sender library over TLS, the virtual clock walked across a Friday night and a
/// weekend, and the policy check (REST and Swift) naming exactly the pushes that broke a rule.
@Suite("Stories: users, windows, events over a night and a weekend")
struct StoriesRulesWalkTests {
    static let ada = PushMockHarness.sampleDeviceToken
    static let cy = String(repeating: "c", count: 64)
    static let dee = String(repeating: "d", count: 64)
    static let eve = String(repeating: "e", count: 64)
    /// No user owns it: the payload's `tz` decides (the fallback).
    static let stranger = String(repeating: "f", count: 64)

    static let policy = #"""
        {"version": 1, "name": "stories",
         "types": [
           {"name": "reminder", "match": {"path": "$.type", "equals": "reminder"}},
           {"name": "promo", "match": {"path": "$.type", "equals": "promo"}},
           {"name": "setup", "match": {"path": "$.type", "equals": "setup"}}],
         "timeZones": {"default": "UTC", "paths": ["$.tz"]},
         "deliveryWindows": [
           {"name": "reminders-weekday-daytime", "types": ["reminder"], "start": "09:00", "end": "21:00", "days": ["weekdays"]}],
         "eventRules": [
           {"name": "completeSetupReminder", "types": ["setup"],
            "deliveryTime": {"eventName": "app_entered_background", "eventOffsetSeconds": 600, "eventInstance": "latest-once"},
            "cancelationEvents": ["completeSetup"],
            "deliveryTimeOfDayStart": "09:00", "deliveryTimeOfDayEnd": "21:00"}]}
        """#

    static let users = #"""
        [{"id": "ada", "timeZone": "Europe/Oslo", "locale": "nb-NO", "tokens": ["\#(ada)"],
          "preferences": {"optedOut": {"types": ["promo"]},
                          "quietHours": [{"start": "22:00", "end": "07:00"}],
                          "caps": [{"types": ["reminder"], "limit": 2, "calendar": "day"}]}},
         {"id": "cy", "timeZone": "Europe/Oslo", "tokens": ["\#(cy)"]},
         {"id": "dee", "timeZone": "Europe/Oslo", "tokens": ["\#(dee)"]},
         {"id": "eve", "timeZone": "Europe/Oslo", "tokens": ["\#(eve)"]}]
        """#

    /// Oslo wall-clock time in January 2026 (UTC+1) as a gateway time.
    static func oslo(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Timestamp {
        let text = "2026-01-\(day < 10 ? "0" : "")\(day)T00:00:00Z"
        let midnight = ISO8601Milliseconds.parse(text)!
        return Timestamp(millisecondsSince1970: midnight + Int64((hour - 1) * 3600 + minute * 60) * 1000)
    }

    enum Step {
        case push(String, token: String, payload: String, expected: Set<PolicyRuleKind>)
        case event(user: String, name: String)
    }

    @Test("quiet hours, window, cap, opt-out, event and cancelation rules catch exactly the violating pushes")
    func walk() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            let control = try mock.controlClient()
            let added = try await control.request("POST", "users", json: Array(Self.users.utf8))
            #expect(added.status == 201, "\(added.text)")
            let sender = try APNsSender(configuration: try mock.apnsSenderConfiguration())

            func reminder(_ extra: String = "") -> String { #"{"aps":{"alert":"Take your dose"\#(extra)},"type":"reminder"}"# }
            let setup = #"{"aps":{"alert":"Complete setup"},"type":"setup"}"#
            // Friday 9 January 2026 to Monday 12 January, Oslo time.
            let steps: [(Timestamp, Step)] = [
                (Self.oslo(9, 10), .push("Fri 10:00 reminder", token: Self.ada, payload: reminder(), expected: [])),
                (Self.oslo(9, 12), .push("Fri 12:00 reminder (2nd of the day)", token: Self.ada, payload: reminder(), expected: [])),
                (
                    Self.oslo(9, 13),
                    .push("Fri 13:00 reminder (3rd: the user's cap)", token: Self.ada, payload: reminder(), expected: [.frequencyCap])
                ),
                (
                    Self.oslo(9, 14),
                    .push(
                        "Fri 14:00 promo (opted out)", token: Self.ada, payload: #"{"aps":{"alert":"Sale"},"type":"promo"}"#,
                        expected: [.optedOut])
                ),
                (Self.oslo(9, 14), .event(user: "cy", name: "app_entered_background")),
                (Self.oslo(9, 14), .event(user: "dee", name: "app_entered_background")),
                (
                    Self.oslo(9, 14, 5),
                    .push("Fri 14:05 setup to cy (300 s after the event)", token: Self.cy, payload: setup, expected: [.eventTiming])
                ),
                (Self.oslo(9, 14, 11), .push("Fri 14:11 setup to dee (660 s after)", token: Self.dee, payload: setup, expected: [])),
                (Self.oslo(9, 15), .event(user: "dee", name: "completeSetup")),
                (Self.oslo(9, 15, 20), .event(user: "dee", name: "app_entered_background")),
                (
                    Self.oslo(9, 15, 31),
                    .push(
                        "Fri 15:31 setup to dee after completeSetup", token: Self.dee, payload: setup,
                        expected: [.canceled, .eventInstance])
                ),
                (Self.oslo(9, 22), .event(user: "eve", name: "app_entered_background")),
                (
                    Self.oslo(9, 22, 15),
                    .push("Fri 22:15 setup to eve (outside 09–21)", token: Self.eve, payload: setup, expected: [.deliveryWindow])
                ),
                (
                    Self.oslo(9, 23, 30),
                    .push(
                        "Fri 23:30 reminder (quiet hours, window, 4th of the day)", token: Self.ada, payload: reminder(),
                        expected: [.quietHours, .deliveryWindow, .frequencyCap])
                ),
                (
                    Self.oslo(9, 23, 40),
                    .push(
                        "Fri 23:40 critical reminder (exempt from quiet hours and window, not from the cap)", token: Self.ada,
                        payload: reminder(#","interruption-level":"critical""#), expected: [.frequencyCap])
                ),
                (
                    Self.oslo(10, 2),
                    .push(
                        "Sat 02:00 silent refresh (exempt)", token: Self.ada,
                        payload: #"{"aps":{"content-available":1},"type":"reminder"}"#, expected: [])
                ),
                (
                    Self.oslo(10, 10),
                    .push("Sat 10:00 reminder (weekend)", token: Self.ada, payload: reminder(), expected: [.deliveryWindow])
                ),
                (
                    Self.oslo(11, 11),
                    .push("Sun 11:00 reminder (weekend)", token: Self.ada, payload: reminder(), expected: [.deliveryWindow])
                ),
                (
                    Self.oslo(12, 7, 30),
                    .push("Mon 07:30 reminder (before the window)", token: Self.ada, payload: reminder(), expected: [.deliveryWindow])
                ),
                (Self.oslo(12, 9, 30), .push("Mon 09:30 reminder", token: Self.ada, payload: reminder(), expected: [])),
                (
                    Self.oslo(12, 14),
                    .push(
                        "Mon 14:00 reminder, New York zone from the payload (08:00 there)", token: Self.stranger,
                        payload: #"{"aps":{"alert":"Dose"},"type":"reminder","tz":"America/New_York"}"#, expected: [.deliveryWindow])
                ),
                (
                    Self.oslo(12, 16),
                    .push(
                        "Mon 16:00 reminder, New York zone from the payload (10:00 there)", token: Self.stranger,
                        payload: #"{"aps":{"alert":"Dose"},"type":"reminder","tz":"America/New_York"}"#, expected: [])
                ),
            ]

            var expected: [UInt64: (String, Set<PolicyRuleKind>)] = [:]
            var sequence: UInt64 = 0
            for (time, step) in steps {
                mock.clock.set(to: time)
                switch step {
                case .event(let user, let name):
                    let posted = try await control.request("POST", "users/\(user)/events", json: Array(#"{"name":"\#(name)"}"#.utf8))
                    #expect(posted.status == 201, "\(posted.text)")
                case .push(let label, let token, let payload, let kinds):
                    let result = await sender.send(APNsNotification(deviceToken: token, payloadJSON: Array(payload.utf8)))
                    // The sender keeps working across every clock move.
                    #expect(result.outcome.isAccepted, "\(label): \(result)")
                    sequence += 1
                    expected[sequence] = (label, kinds)
                }
            }
            await sender.shutdown()

            // The recorded sequence numbers are the pushes in order (events are not exchanges).
            let records = mock.records()
            #expect(records.map(\.sequence) == Array(1...sequence))

            let body: JSONValue = ["policy": try JSONValue(parsing: Self.policy)]
            let answer = try await control.request("POST", "checks/policy", json: body.compactBytes)
            #expect(answer.status == 417, "\(answer.text)")
            let report = try answer.decode(CheckOutcome<PolicyReport>.self).report
            let local = mock.checkPolicy(try PolicyFile(parsing: Self.policy))
            #expect(local == report, "the Swift check and the REST check agree")

            for (number, (label, kinds)) in expected.sorted(by: { $0.key < $1.key }) {
                let found = Set(report.violations(sequence: number).map(\.kind))
                #expect(found == kinds, "#\(number) \(label): \(report.violations(sequence: number))")
            }
            // Each violation names its push, and the event rules name the event.
            let canceled = try #require(report.violations(.canceled).first)
            #expect(canceled.event?.name == "completeSetup")
            #expect(canceled.user == "dee")
            let early = try #require(report.violations(.eventTiming).first)
            #expect(early.event?.name == "app_entered_background")
            #expect(early.message.contains("5m"), "\(early.message)")
            let quiet = try #require(report.violations(.quietHours).first)
            #expect(quiet.timeZone == "Europe/Oslo")
            #expect(quiet.localTime == "2026-01-09 23:30:00 +01:00")
            await control.close()
        }
    }

    @Test("users over REST: add, replace, token conflicts, events at gateway-clock time, export form, errors")
    func usersAPI() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: Timestamp(millisecondsSince1970: 1_768_000_000_000))
            let control = try mock.controlClient()
            let first = try await control.request(
                "POST", "users", json: Array(#"{"id":"ada","timeZone":"Europe/Oslo","tokens":["\#(Self.ada.uppercased())"]}"#.utf8))
            #expect(first.status == 201, "\(first.text)")
            let replaced = try await control.request(
                "PUT", "users/ada", json: Array(#"{"timeZone":"+02:00","locale":"nb-NO","tokens":["\#(Self.ada)"]}"#.utf8))
            #expect(replaced.status == 200, "\(replaced.text)")
            #expect(mock.user("ada")?.timeZone == "+02:00")

            // One token, one user (APNs tokens compared case-insensitively).
            let conflict = try await control.request(
                "POST", "users", json: Array(#"{"id":"bob","tokens":["\#(Self.ada.uppercased())"]}"#.utf8))
            #expect(conflict.status == 409, "\(conflict.text)")
            #expect(try await control.request("POST", "users", json: Array(#"{"id":"bob","timeZone":"Mars/Olympus"}"#.utf8)).status == 400)
            #expect(try await control.request("POST", "users", json: Array(#"{"id":"bob","quietHours":[]}"#.utf8)).status == 400)
            #expect(
                try await control.request(
                    "POST", "users", json: Array(#"{"id":"bob","preferences":{"quietHours":[{"start":"25:00","end":"07:00"}]}}"#.utf8)
                ).status == 400)
            #expect(
                try await control.request("POST", "users", json: Array(#"{"id":"bob","preferences":{"caps":[{"limit":2}]}}"#.utf8))
                    .status == 400)

            let event = try await control.request(
                "POST", "users/ada/events", json: Array(#"{"name":"completeSetup","properties":{"screen":"home"}}"#.utf8))
            #expect(event.status == 201, "\(event.text)")
            #expect(try await control.request("POST", "users/nobody/events", json: Array(#"{"name":"x"}"#.utf8)).status == 404)
            #expect(try await control.request("GET", "users/nobody").status == 404)

            let directory = try (try await control.request("GET", "users")).decode(UserDirectory.self)
            #expect(directory.users.map(\.id) == ["ada"])
            #expect(directory.events.map(\.name) == ["completeSetup"])
            #expect(directory.events.first?.timeMilliseconds == 1_768_000_000_000, "stamped with the gateway clock")
            #expect(directory.events.first?.properties == ["screen": "home"])
            #expect(directory == mock.userDirectory)

            let removed = try await control.request("DELETE", "users/ada")
            #expect(removed.status == 200)
            #expect(mock.userDirectory.events.isEmpty)
            await control.close()
        }
    }

    @Test("POST /checks/contracts: every push against its type's schema; 200 when clean, 417 with the findings")
    func contracts() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let good =
                #"{"aps":{"alert":"Order confirmed"},"data":{"notificationType":"order.confirmed","entityId":"o-1","deepLinkPath":"/orders/o-1","version":"1"}}"#
            let bad =
                #"{"aps":{"alert":"Order confirmed"},"data":{"notificationType":"order.confirmed","entityId":7,"deepLinkPath":"orders"}}"#
            let unknown = #"{"aps":{"alert":"?"},"data":{"notificationType":"mystery"}}"#
            for payload in [good, bad, unknown] {
                expectAccepted(try await connection.send(try mock.apnsRequest(payload: payload)))
            }
            await connection.close()
            let contracts = #"""
                {"version": 1, "name": "template", "requireContract": true,
                 "contracts": [{"name": "order.confirmed", "types": ["order.confirmed"],
                   "schema": {"type": "object", "required": ["entityId", "deepLinkPath", "version"],
                              "properties": {"entityId": {"type": "string"}, "deepLinkPath": {"$ref": "#/$defs/path"}},
                              "$defs": {"path": {"type": "string", "pattern": "^/"}}}}]}
                """#
            let control = try mock.controlClient()
            let body: JSONValue = ["contracts": try JSONValue(parsing: contracts)]
            let answer = try await control.request("POST", "checks/contracts", json: body.compactBytes)
            #expect(answer.status == 417, "\(answer.text)")
            let report = try answer.decode(CheckOutcome<ContractReport>.self).report
            #expect(report.notificationCount == 3)
            #expect(report.violations(sequence: 1).isEmpty)
            #expect(
                Set(report.violations(sequence: 2).map(\.code)) == [
                    "contract.order.confirmed.required", "contract.order.confirmed.type", "contract.order.confirmed.pattern",
                ])
            #expect(report.violations(sequence: 2).map(\.field).contains("/entityId"))
            #expect(report.violations(sequence: 3).map(\.contract) == ["(requireContract)"])
            #expect(report == mock.checkContracts(try ContractFile(parsing: contracts)))

            let clean = try await control.request(
                "POST", "checks/contracts", query: [("where", "$.data.entityId=o-1")], json: body.compactBytes)
            #expect(clean.status == 200, "\(clean.text)")
            let broken: JSONValue = ["contracts": ["version": 1, "contracts": [["name": "x", "schema": ["$ref": "#/$defs/none"]]]]]
            #expect(try await control.request("POST", "checks/contracts", json: broken.compactBytes).status == 400)
            await control.close()
        }
    }

    @Test("contracts at intake: PUT /contracts, every accepted push's record carries its violations as findings; DELETE stops")
    func contractsAtIntake() async throws {
        try await withPushMock { mock in
            let contracts = #"""
                {"version": 1, "name": "template",
                 "contracts": [{"name": "order.confirmed", "types": ["order.confirmed"],
                   "schema": {"type": "object", "required": ["entityId"], "properties": {"entityId": {"type": "string"}}}}]}
                """#
            let control = try mock.controlClient()
            #expect(try JSONValue(parsing: try await control.request("GET", "contracts").body)["installed"]?.boolValue == false)
            let installed = try await control.request("PUT", "contracts", json: Array(contracts.utf8))
            #expect(installed.status == 200, "\(installed.text)")
            #expect(
                try JSONValue(parsing: try await control.request("GET", "contracts").body)["contracts"]
                    == .array([.string("order.confirmed")]))

            let connection = try await mock.connect()
            let good = #"{"aps":{"alert":"Order confirmed"},"data":{"notificationType":"order.confirmed","entityId":"o-1"}}"#
            let bad = #"{"aps":{"alert":"Order confirmed"},"data":{"notificationType":"order.confirmed","entityId":7}}"#
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: good)))
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: bad)))
            // A background push at priority 10 keeps its lint finding beside the contract's.
            expectAccepted(
                try await connection.send(
                    try mock.apnsRequest(
                        pushType: "background",
                        payload: #"{"aps":{"content-available":1},"data":{"notificationType":"order.confirmed"}}"#)))
            #expect(try JSONValue(parsing: try await control.request("DELETE", "contracts").body)["removed"]?.boolValue == true)
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: bad)))
            await connection.close()

            let records = mock.recordings.records(newestFirst: false)
            #expect(records.count == 4)
            #expect(records[0].notification?.lint.isEmpty == true)
            let badNotes = records[1].notification?.lint ?? []
            #expect(badNotes.map(\.code) == ["contract.order.confirmed.type"], "\(badNotes)")
            #expect(badNotes.first?.field == "/entityId")
            #expect(badNotes.first?.severity == "error")
            #expect(badNotes.first?.source == "contract:order.confirmed")
            #expect(
                Set(records[2].notification?.lint.map(\.code) ?? []) == [
                    "apns.background-high-priority", "contract.order.confirmed.required",
                ])
            #expect(records[3].notification?.lint.isEmpty == true, "removed: no longer checked")
            // The journal line as stored says the same (the REST view).
            let listing = try await control.request("GET", "recordings", query: [("limit", "4")])
            #expect(listing.text.contains("contract.order.confirmed.type"))

            // The Swift form, the same annotator.
            mock.checkContractsAtIntake(try ContractFile(parsing: contracts))
            let again = try await mock.connect()
            expectAccepted(try await again.send(try mock.apnsRequest(payload: bad)))
            await again.close()
            #expect(mock.recordings.records(limit: 1).first?.notification?.lint.map(\.code) == ["contract.order.confirmed.type"])
            await control.close()
        }
    }
}
