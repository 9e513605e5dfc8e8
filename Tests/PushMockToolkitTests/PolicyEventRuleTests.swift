import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

/// Event rules (the in-app config seed's `deliveryTime`, `eventInstance`, `cancelationEvents`),
/// delivery windows with days and exempt priorities, and the users' own preferences.
@Suite("Policy: event rules, delivery windows, user preferences")
struct PolicyEventRuleTests {
    static let setup = #"{"aps":{"alert":"Complete setup"},"type":"setup"}"#

    static func checker(instance: String, users: UserDirectory) throws -> PolicyChecker {
        PolicyChecker(
            policy: try PolicyFile(
                parsing: #"""
                    {"version":1,"types":[{"name":"setup","match":{"path":"$.type","equals":"setup"}}],
                     "eventRules":[{"name":"reminder","types":["setup"],
                       "deliveryTime":{"eventName":"bg","eventOffsetSeconds":600,"eventInstance":"\#(instance)"}}]}
                    """#),
            users: users)
    }

    static func ms(_ iso: String) -> Int64 { ISO8601Milliseconds.parse(iso)! }

    static func directory(events: [(String, String)]) -> UserDirectory {
        UserDirectory(
            users: [PushUser(id: "u", tokens: [LinkPolicyFixtures.token])],
            events: events.enumerated().map {
                AppEvent(user: "u", name: $0.element.1, timeMilliseconds: ms($0.element.0), sequence: UInt64($0.offset + 1))
            })
    }

    @Test(
        "latest-once, latest and first: which pushes after the events are repeats",
        arguments: [
            // bg at 10:00 and 12:00; pushes at 10:20, 11:00, 12:20.
            ("latest-once", [UInt64(2), 3]),
            ("latest", [2]),
            ("first", [2, 3]),
        ])
    func instances(instance: String, repeats: [UInt64]) throws {
        let users = Self.directory(events: [("2026-01-15T10:00:00Z", "bg"), ("2026-01-15T12:00:00Z", "bg")])
        let records = [
            LinkPolicyFixtures.apns(Self.setup, sequence: 1, at: "2026-01-15T10:20:00Z"),
            LinkPolicyFixtures.apns(Self.setup, sequence: 2, at: "2026-01-15T11:00:00Z"),
            LinkPolicyFixtures.apns(Self.setup, sequence: 3, at: "2026-01-15T12:20:00Z"),
        ]
        let report = try Self.checker(instance: instance, users: users).check(records)
        #expect(report.violations(.eventInstance).map(\.notification.sequence) == repeats, "\(report)")
        #expect(report.violations(.eventTiming).isEmpty, "\(report)")
    }

    /// A huge offset once overflowed the conversion to milliseconds and took the gateway's
    /// policy check down; it is a definition problem like a negative one.
    @Test("an event rule's offset: negative or beyond 10000 years is refused at its place", arguments: ["-1", "1e300", "315576000001"])
    func offsetBounds(offset: String) {
        #expect {
            try PolicyFile(
                parsing: #"{"version":1,"eventRules":[{"name":"r","deliveryTime":{"eventName":"bg","eventOffsetSeconds":\#(offset)}}]}"#)
        } throws: { error in
            "\(error)".contains("eventRules[0].deliveryTime.eventOffsetSeconds")
        }
    }

    @Test("first anchors on the first event: 5 minutes after a later one is still late enough")
    func firstAnchor() throws {
        let users = Self.directory(events: [("2026-01-15T10:00:00Z", "bg"), ("2026-01-15T12:00:00Z", "bg")])
        let early = [LinkPolicyFixtures.apns(Self.setup, at: "2026-01-15T12:05:00Z")]
        #expect(try Self.checker(instance: "first", users: users).check(early).isClean)
        let latest = try Self.checker(instance: "latest", users: users).check(early)
        #expect(latest.violations(.eventTiming).first?.event?.sequence == 2)
    }

    @Test("no event before the push, and no user for the token, are both violations")
    func missing() throws {
        let push = [LinkPolicyFixtures.apns(Self.setup, at: "2026-01-15T12:05:00Z")]
        let report = try Self.checker(instance: "latest-once", users: Self.directory(events: [])).check(push)
        #expect(report.violations(.eventTiming).map(\.message) == ["sent to user u before any bg event"])
        let strangers = try Self.checker(instance: "latest-once", users: UserDirectory()).check(push)
        #expect(strangers.violations(.eventTiming).count == 1)
    }

    @Test("delivery window: weekdays only, exempt priorities and interruption levels")
    func window() throws {
        let checker = PolicyChecker(
            policy: try PolicyFile(
                parsing: #"""
                    {"version":1,"timeZones":{"default":"Europe/Berlin"},
                     "deliveryWindows":[{"name":"day","start":"09:00","end":"21:00","days":["weekdays"],
                       "exemptPriorities":[5],"exemptInterruptionLevels":["critical","time-sensitive"]}]}
                    """#))
        let alert = #"{"aps":{"alert":"Hi"}}"#
        // Thursday 15 January 2026, Saturday 17 January (Berlin is UTC+1).
        #expect(checker.check([LinkPolicyFixtures.apns(alert, at: "2026-01-15T12:00:00Z")]).isClean)
        #expect(checker.check([LinkPolicyFixtures.apns(alert, at: "2026-01-15T20:00:00Z")]).violations(.deliveryWindow).count == 1)
        let saturday = checker.check([LinkPolicyFixtures.apns(alert, at: "2026-01-17T12:00:00Z")])
        #expect(saturday.violations(.deliveryWindow).first?.message.contains("Saturday 13:00") == true, "\(saturday)")
        #expect(checker.check([LinkPolicyFixtures.apns(alert, at: "2026-01-17T12:00:00Z", priority: 5)]).isClean)
        let timeSensitive = #"{"aps":{"alert":"Hi","interruption-level":"time-sensitive"}}"#
        #expect(checker.check([LinkPolicyFixtures.apns(timeSensitive, at: "2026-01-17T12:00:00Z")]).isClean)
        #expect(throws: PolicyError.self) {
            try PolicyFile(parsing: #"{"version":1,"deliveryWindows":[{"start":"09:00","end":"21:00","days":["Funday"]}]}"#)
        }
    }

    @Test("quiet hours may exempt priorities: APNs 5 and Android normal")
    func quietPriorities() throws {
        let checker = PolicyChecker(
            policy: try PolicyFile(
                parsing: #"{"version":1,"quietHours":[{"name":"night","start":"22:00","end":"07:00","exemptPriorities":[5,"normal"]}]}"#))
        let alert = #"{"aps":{"alert":"Hi"}}"#
        #expect(checker.check([LinkPolicyFixtures.apns(alert, at: "2026-01-15T23:30:00Z")]).violations(.quietHours).count == 1)
        #expect(checker.check([LinkPolicyFixtures.apns(alert, at: "2026-01-15T23:30:00Z", priority: 5)]).isClean)
    }

    @Test("the user's zone wins over the payload's; the payload's is the fallback")
    func userZone() throws {
        let checker = PolicyChecker(
            policy: try PolicyFile(
                parsing: #"{"version":1,"timeZones":{"paths":["$.tz"]},"quietHours":[{"name":"night","start":"22:00","end":"07:00"}]}"#),
            users: UserDirectory(users: [PushUser(id: "u", timeZone: "Asia/Tokyo", tokens: [LinkPolicyFixtures.token.uppercased()])]))
        // 14:00 UTC: 23:00 in Tokyo, 09:00 in New York.
        let report = checker.check([LinkPolicyFixtures.apns(#"{"aps":{"alert":"x"},"tz":"America/New_York"}"#, at: "2026-01-15T14:00:00Z")])
        #expect(report.violations(.quietHours).first?.timeZone == "Asia/Tokyo", "\(report)")
        let fallback = PolicyChecker(policy: checker.policy)
        #expect(
            fallback.check([LinkPolicyFixtures.apns(#"{"aps":{"alert":"x"},"tz":"America/New_York"}"#, at: "2026-01-15T14:00:00Z")]).isClean
        )
    }
}

@Suite("Route tables: bare app paths, universal links, external allow-list")
struct DeepLinkAppPathTests {
    static let table = #"""
        {"version":1,"scheme":"shop","universalLinkHosts":["app.shop.example"],
         "routes":[{"name":"order","pattern":"/orders/{id}","screen":"/orders/{id}"}],
         "externalURLs":["help.shop.example","*.stripe.com","https://shop.example/legal/"]}
        """#

    @Test(
        "resolutions",
        arguments: [
            ("/orders/123", "route"), ("shop://orders/123", "route"), ("https://app.shop.example/orders/9", "route"),
            ("https://app.shop.example/nothing", "no-route"), ("https://help.shop.example/faq", "external"),
            ("https://pay.stripe.com/x", "external"), ("https://shop.example/legal/terms", "external"),
            ("https://shop.example/other", "no-route"), ("https://evil.example/", "no-route"),
        ])
    func resolve(link: String, outcome: String) throws {
        let routes = try RouteTable(parsing: Self.table)
        #expect(routes.resolve(link).outcome == outcome)
        if link == "/orders/123" { #expect(routes.resolve(link).parameters == ["id": "123"]) }
    }

    @Test("the checker: a bare deepLinkPath routes; an external link off the list is its own problem")
    func checker() throws {
        let checker = DeepLinkChecker(routes: try RouteTable(parsing: Self.table))
        let good = checker.check(payload: #"{"aps":{"alert":"x"},"deepLinkPath":"/orders/1"}"#.json, platform: .apns)
        #expect(good.problems.isEmpty, "\(good)")
        let fcm = #"{"message":{"token":"t","notification":{"title":"x"},"data":{"deepLinkPath":"/orders/2"}}}"#
        #expect(checker.check(payload: fcm.json, platform: .fcm).problems.isEmpty)
        let bad = checker.check(payload: #"{"aps":{"alert":"x"},"url":"https://evil.example/"}"#.json, platform: .apns)
        #expect(bad.problems.map(\.kind) == [.externalNotAllowed])
    }
}

extension String {
    fileprivate var json: JSONValue { try! JSONValue(parsing: self) }
}
