import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

import struct PushMockToolkit.Expectation

@Suite("Expectations with a deep-link requirement")
struct DeepLinkExpectationTests {
    static let loopRoutes = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/LoopHealth/pushmock/routes.json").path

    static func alert(_ title: String, link: String?, sequence: UInt64, token: String = LinkPolicyFixtures.token) -> ExchangeRecord {
        let linkMember = link.map { #","deep_link":"\#($0)""# } ?? ""
        return LinkPolicyFixtures.apns(#"{"aps":{"alert":{"title":"\#(title)"}}\#(linkMember)}"#, sequence: sequence, token: token)
    }

    static func doseExpectation(screen: String = "/protocols/{id}/log", parameters: [String: String] = ["id": "p1"]) throws -> Expectation {
        Expectation(
            name: "dose reminder opens the log",
            query: RecordingQuery(
                token: Glob(LinkPolicyFixtures.token), payload: [try PayloadPredicate(parsing: "$.aps.alert.title=Time for BPC-157")]),
            count: .exactly(1),
            deepLink: try DeepLinkRequirement(routesFile: loopRoutes, screen: screen, parameters: parameters)
        )
    }

    @Test("one expectation: token, title and the screen the link opens")
    func passes() throws {
        let records = [
            Self.alert("Time for BPC-157", link: "loop://protocols/p1/log", sequence: 1),
            Self.alert("Weekly check-in", link: "loop://checkin", sequence: 2),
        ]
        let result = ExpectationEvaluator.evaluate(try Self.doseExpectation(), records: records)
        #expect(result.passed, "\(result.message)")
        #expect(result.matched.map(\.sequence) == [1])
        #expect(result.expected.contains("whose deep link opens /protocols/{id}/log with id=p1"))
    }

    @Test(
        "the resolved screen and parameters must match",
        arguments: [
            ("/protocols/{id}/log", ["id": "p1"], true),
            ("/protocols/p1/log", [:], true),
            ("/protocols/{id}/log", ["id": "p2"], false),
            ("/protocols/{id}", ["id": "p1"], false),
            ("/labs/{id}", [:], false),
        ] as [(String, [String: String], Bool)]
    )
    func screenAndParameters(screen: String, parameters: [String: String], passes: Bool) throws {
        let records = [Self.alert("Time for BPC-157", link: "loop://protocols/p1/log", sequence: 1)]
        let result = ExpectationEvaluator.evaluate(try Self.doseExpectation(screen: screen, parameters: parameters), records: records)
        #expect(result.passed == passes, "\(result.message)")
    }

    @Test("a near miss shows where its link actually leads")
    func nearestMissShowsResolvedLink() throws {
        let records = [
            Self.alert("Time for BPC-157", link: "loop://protocols/p2/log", sequence: 1),
            Self.alert("Time for BPC-157", link: nil, sequence: 2),
        ]
        let result = ExpectationEvaluator.evaluate(try Self.doseExpectation(), records: records)
        #expect(!result.passed)
        let misses = Dictionary(uniqueKeysWithValues: result.nearestMisses.map { ($0.record.sequence, $0.mismatches) })
        #expect(misses[1]?.map(\.condition) == ["deepLink"])
        #expect(misses[1]?.first?.actual == "$.deep_link: loop://protocols/p2/log -> /protocols/p2/log (route protocol; id=p2)")
        #expect(misses[2]?.first?.actual == "(no deep link)")
        #expect(
            result.message.contains("deepLink: expected opens /protocols/{id}/log with id=p1, got $.deep_link: loop://protocols/p2/log"))
    }

    @Test("a fallback link never satisfies a route or parameter requirement, but may satisfy its screen")
    func fallback() throws {
        let table = try RouteTable(contentsOfFile: Self.loopRoutes)
        #expect(DeepLinkRequirement(routes: table, screen: "/").accepts(table.resolve("loop://settings")))
        #expect(!DeepLinkRequirement(routes: table, screen: "/", parameters: ["id": "x"]).accepts(table.resolve("loop://settings")))
        #expect(!DeepLinkRequirement(routes: table).accepts(table.resolve("loop://settings")))
        #expect(DeepLinkRequirement(routes: table, route: "chat").accepts(table.resolve("loop://chat?context=lab_7")))
        #expect(!DeepLinkRequirement(routes: table, route: "chat").accepts(table.resolve("loop://checkin")))
    }

    @Test("JSON: routes inline or as a file; expectations without deepLink read as before")
    func json() throws {
        let plain = #"{"query":{"token":"00fc*"},"count":1}"#
        let old = try JSONDecoder().decode(Expectation.self, from: Data(plain.utf8))
        #expect(old.deepLink == nil)
        #expect(!String(decoding: try JSONEncoder().encode(old), as: UTF8.self).contains("deepLink"))

        let withFile = #"{"query":{},"deepLink":{"routes":"\#(Self.loopRoutes)","screen":"/labs/{id}","parameters":{"id":"L9"}}}"#
        let decoded = try JSONDecoder().decode(Expectation.self, from: Data(withFile.utf8))
        let requirement = try #require(decoded.deepLink)
        #expect(requirement.routesFile == Self.loopRoutes)
        #expect(requirement.parameters == ["id": "L9"])
        let reencoded = try JSONDecoder().decode(Expectation.self, from: try JSONEncoder().encode(decoded))
        #expect(reencoded == decoded)

        let inline =
            #"{"query":{},"deepLink":{"routes":{"version":1,"routes":[{"pattern":"loop://labs/{id}","screen":"/labs/{id}"}]},"screen":"/labs/L9"}}"#
        let inlineDecoded = try JSONDecoder().decode(Expectation.self, from: Data(inline.utf8))
        let record = Self.alert("Lab results", link: "loop://labs/L9", sequence: 1)
        #expect(inlineDecoded.matches(record))
        #expect(!inlineDecoded.matches(Self.alert("Lab results", link: "loop://labs/L8", sequence: 2)))
        // A table built in code travels as its definition and reads back equal.
        let roundTripped = try JSONDecoder().decode(Expectation.self, from: try JSONEncoder().encode(inlineDecoded))
        #expect(roundTripped.deepLink?.routes == inlineDecoded.deepLink?.routes)

        let broken = #"{"query":{},"deepLink":{"routes":"/no/such/routes.json"}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Expectation.self, from: Data(broken.utf8)) }
    }

    @Test("a route table's definition reads back as the same table, link locations included")
    func routeTableDefinitionRoundTrip() throws {
        let table = try RouteTable(contentsOfFile: Self.loopRoutes)
        #expect(try RouteTable(definition: table.definition) == table)
        let custom = try RouteTable(
            scheme: "loop",
            routes: [try RouteTable.Route(pattern: "/labs/{id}", screen: "/labs/{id}")],
            linkLocations: [
                try DeepLinkLocation("$.actions[*].target", platform: .apns, urlsOnly: true),
                try DeepLinkLocation("$.message.data['open-url']", platform: .fcm),
            ]
        )
        #expect(try RouteTable(definition: custom.definition) == custom)
    }
}

@Suite("JUnit reports of the checks")
struct CheckJUnitTests {
    @Test("deep links: one case per notification, failed when it has problems")
    func links() throws {
        let table = try RouteTable(contentsOfFile: DeepLinkExpectationTests.loopRoutes)
        let report = DeepLinkChecker(routes: table).check([
            DeepLinkExpectationTests.alert("ok", link: "loop://checkin", sequence: 1),
            DeepLinkExpectationTests.alert("bad", link: "loop://settings", sequence: 2),
        ])
        let cases = JUnitReport.testCases(report)
        #expect(cases.count == 2)
        #expect(cases[0].failure == nil)
        #expect(cases[1].failure?.contains("fallback") == true)
        let xml = JUnitReport.render(cases, suite: "pushmock.links")
        #expect(xml.contains(#"tests="2" failures="1""#))
    }

    @Test("policy: one case per rule, so a clean run lists what was checked")
    func policy() throws {
        let policy = try PolicyFile(
            parsing: #"""
                {"version":1,
                 "quietHours":[{"name":"night","start":"22:00","end":"08:00"}],
                 "frequencyCaps":[{"name":"hourly","limit":1,"window":"1h"}],
                 "priorityRules":[{"name":"silent-5","match":{"silent":true},"priority":5}]}
                """#)
        let records = [
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"a"}}"#, sequence: 1, at: "2026-03-28T12:00:00Z"),
            LinkPolicyFixtures.apns(#"{"aps":{"alert":"b"}}"#, sequence: 2, at: "2026-03-28T12:10:00Z"),
        ]
        let report = PolicyChecker(policy: policy).check(records)
        let cases = JUnitReport.testCases(report, policy: policy)
        #expect(cases.map(\.name) == ["quiet-hours night", "frequency-cap hourly", "priority silent-5"])
        #expect(cases.map { $0.failure != nil } == [false, true, false])
        #expect(cases[1].failure?.contains("#2") == true)
    }
}
