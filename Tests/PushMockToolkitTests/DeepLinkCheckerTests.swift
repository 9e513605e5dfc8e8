import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

@Suite("Deep links: checker and report")
struct DeepLinkCheckerTests {
    static func checker(_ options: DeepLinkChecker.Options = .init(), fallback: String? = "/") throws -> DeepLinkChecker {
        let table = try RouteTable(
            routes: [
                try RouteTable.Route(name: "protocol", pattern: "loop://protocols/{id}[/log]", screen: "/protocols/{id}[/log]"),
                try RouteTable.Route(name: "chat", pattern: "loop://chat?context={context}", screen: "/chat"),
            ],
            fallback: fallback
        )
        return DeepLinkChecker(routes: table, options: options)
    }

    @Test(
        "every problem kind",
        arguments: [
            (#"{"aps":{"alert":"Hi"}}"#, [DeepLinkProblemKind.noLink]),
            (#"{"aps":{"alert":"Hi"},"deep_link":"loop://protocols/p1/log"}"#, []),
            (#"{"aps":{"alert":"Hi"},"deep_link":"loop://settings"}"#, [.fallback]),
            (#"{"aps":{"alert":"Hi"},"deep_link":"loop://protocols/{{ id }}/log"}"#, [.malformedURL]),
            (#"{"aps":{"alert":"Hi"},"deep_link":42}"#, [.malformedURL]),
            (#"{"aps":{"alert":"Hi"},"deep_link":"loop://protocols//log"}"#, [.emptyParameter]),
            (#"{"aps":{"alert":"Hi"},"deep_link":"loop://chat?context="}"#, [.emptyParameter]),
            (
                #"{"aps":{"alert":"Hi"},"deep_link":"loop://protocols/p1","actions":{"A":"loop://nowhere","B":"loop://chat?context=x"}}"#,
                [.fallback]
            ),
        ])
    func problemKinds(payload: String, expected: [DeepLinkProblemKind]) throws {
        let report = try Self.checker().check([LinkPolicyFixtures.apns(payload)])
        #expect(report.notifications.count == 1)
        #expect(report.findings.map(\.problem.kind) == expected)
        #expect(report.isClean == expected.isEmpty)
    }

    @Test("without a fallback, an unknown link matches no route")
    func noRoute() throws {
        let report = try Self.checker(fallback: nil).check([LinkPolicyFixtures.apns(#"{"aps":{"alert":"Hi"},"link":"loop://settings"}"#)])
        let finding = try #require(report.findings.first)
        #expect(
            finding.problem == DeepLinkProblem(kind: .noRoute, link: "loop://settings", location: "$.link", message: "matches no route"))
        #expect(finding.problem.description == "no-route: $.link loop://settings matches no route")
    }

    @Test("options: silent notifications, fallback, link requirement")
    func options() throws {
        let silent = LinkPolicyFixtures.apns(#"{"aps":{"content-available":1},"type":"sync"}"#, pushType: "background", priority: 5)
        #expect(try Self.checker().check([silent]).isClean)
        #expect(try Self.checker(.init(requireLinkOnSilent: true)).check([silent]).findings.map(\.problem.kind) == [.noLink])
        let fcmDataOnly = LinkPolicyFixtures.fcm(#"{"token":"t","data":{"type":"sync"}}"#)
        #expect(try Self.checker().check([fcmDataOnly]).isClean)

        let fallback = LinkPolicyFixtures.apns(#"{"aps":{"alert":"Hi"},"link":"loop://settings"}"#)
        #expect(try Self.checker(.init(fallbackIsProblem: false)).check([fallback]).isClean)
        let noLink = LinkPolicyFixtures.apns(#"{"aps":{"alert":"Hi"}}"#)
        #expect(try Self.checker(.init(requireLink: false)).check([noLink]).isClean)
    }

    @Test("rejected, validate-only and non-push records are left out unless asked for")
    func selection() throws {
        let rejected = LinkPolicyFixtures.apns(#"{"aps":{"alert":"Hi"}}"#, sequence: 1, status: 400)
        let validateOnly = LinkPolicyFixtures.fcm(#"{"token":"t","notification":{"title":"Hi"}}"#, sequence: 2, validateOnly: true)
        var oauth = LinkPolicyFixtures.apns("{}", sequence: 3)
        oauth.platform = .oauth
        let accepted = LinkPolicyFixtures.apns(#"{"aps":{"alert":"Hi"},"link":"loop://protocols/p1"}"#, sequence: 4)
        let records = [rejected, validateOnly, oauth, accepted]
        #expect(try Self.checker().check(records).notifications.map(\.notification.sequence) == [4])
        let all = try Self.checker(.init(includeRejected: true)).check(records)
        #expect(all.notifications.map(\.notification.sequence) == [1, 2, 4])
        #expect(all.findings.map(\.notification.sequence) == [1, 2])
    }

    @Test("FCM: links from every platform block of one message")
    func fcmMessage() throws {
        let record = LinkPolicyFixtures.fcm(
            #"""
            {"token":"t","notification":{"title":"Results ready"},
             "data":{"deep_link":"loop://chat?context=lab_l1"},
             "android":{"notification":{"click_action":"OPEN_LAB"}},
             "webpush":{"fcm_options":{"link":"https://elsewhere.example/labs/l1"}}}
            """#)
        let report = try #require(try Self.checker(fallback: nil).check(record))
        #expect(report.links.map(\.location) == ["$.message.data.deep_link", "$.message.webpush.fcm_options.link"])
        #expect(report.links[0].match.parameters == ["context": "lab_l1"])
        #expect(report.problems.map(\.kind) == [.noRoute])
        #expect(report.notification.title == "Results ready")
    }

    @Test("payloads that were never recorded")
    func payloadCheck() throws {
        let result = try Self.checker().check(
            payload: JSONValue(parsing: #"{"aps":{"alert":"x"},"url":"loop://protocols/p9"}"#), platform: .apns)
        #expect(result.problems.isEmpty)
        #expect(result.links.map(\.match.screen) == ["/protocols/p9"])
    }

    @Test("the report: summary, text, lookups")
    func reportText() throws {
        let records = [
            LinkPolicyFixtures.apns(
                #"{"aps":{"alert":{"title":"Dose"}},"deep_link":"loop://protocols/p1/log"}"#, sequence: 1, at: "2026-03-28T08:00:00Z"),
            LinkPolicyFixtures.apns(
                #"{"aps":{"alert":{"title":"Promo"}},"deep_link":"loop://settings"}"#, sequence: 2, at: "2026-03-28T09:00:00Z"),
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"Plain"}}"#, sequence: 3, at: "2026-03-28T10:00:00Z"),
        ]
        let report = try Self.checker().check(records)
        #expect(report.summary == "Deep links: 3 notifications, 2 links, 2 problems (1 no-link, 1 fallback)")
        #expect(
            report.text == """
                Deep links: 3 notifications, 2 links, 2 problems (1 no-link, 1 fallback)
                #2 2026-03-28T09:00:00.000Z apns 740f4707… "Promo"
                  $.deep_link: loop://settings -> fallback /
                  PROBLEM fallback: $.deep_link loop://settings matches no route; the app falls back to /
                #3 2026-03-28T10:00:00.000Z apns 740f4707… "Plain"
                  PROBLEM no-link: no deep link at any of the \(DeepLinkLocation.defaults.count) link locations
                """)
        #expect(report.detailedText.contains("$.deep_link: loop://protocols/p1/log -> /protocols/p1/log (route protocol; id=p1)"))
        #expect(report.notification(sequence: 1)?.screens == ["/protocols/p1/log"])
        #expect(report.notification(sequence: 1)?.resolution(at: "$.deep_link")?.parameters == ["id": "p1"])
        #expect(report.findings(.fallback).map(\.notification.sequence) == [2])
        #expect(report.description == report.text)
    }

    @Test("the report round-trips through Codable")
    func codable() throws {
        let records = [
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"a"},"deep_link":"loop://protocols/p1/log","url":"bad link"}"#, sequence: 1),
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"b"},"deep_link":"loop://settings"}"#, sequence: 2),
            LinkPolicyFixtures.fcm(#"{"token":"t","notification":{"title":"c"},"data":{"link":"loop://nowhere"}}"#, sequence: 3),
        ]
        let report = try Self.checker(fallback: nil).check(records)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(report)
        #expect(try JSONDecoder().decode(DeepLinkReport.self, from: data) == report)
        let json = try JSONValue(parsing: Array(data))
        #expect(json["problemCount"] == 3)
        #expect(json["linkCount"] == 4)
        let expectedMatch: JSONValue = [
            "outcome": "route", "route": "protocol", "pattern": "loop://protocols/{id}/log", "screen": "/protocols/p1/log",
            "parameters": ["id": "p1"],
        ]
        #expect(json["notifications"]?[0]?["links"]?[0]?["match"] == expectedMatch)
        #expect(json["notifications"]?[0]?["links"]?[1]?["match"]?["outcome"] == "malformed")
        #expect(json["notifications"]?[1]?["problems"]?[0]?["kind"] == "no-route")
        #expect(json["notifications"]?[0]?["notification"]?["messageID"] == "00000000-0000-4000-8000-000000000001")
    }

    @Test(
        "matches round-trip through Codable",
        arguments: [
            DeepLinkMatch.routed(DeepLinkResolution(route: "r", pattern: "loop://x/{id}", screen: "/x/1", parameters: ["id": "1"])),
            .fallback(screen: "/"),
            .noRoute,
            .malformed(reason: "empty link"),
        ])
    func matchCodable(match: DeepLinkMatch) throws {
        let data = try JSONEncoder().encode(match)
        #expect(try JSONDecoder().decode(DeepLinkMatch.self, from: data) == match)
    }

    @Test("problem kinds have stable names")
    func kindNames() {
        #expect(
            DeepLinkProblemKind.all.map(\.rawValue) == [
                "no-link", "no-route", "fallback", "malformed-url", "empty-parameter", "external-not-allowed",
            ])
        #expect(DeepLinkProblemKind(rawValue: "fallback") == .fallback)
        #expect(DeepLinkProblemKind(rawValue: "nope") == nil)
    }
}
