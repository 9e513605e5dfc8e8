import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

/// The worked example: `Examples/LoopHealth/pushmock/routes.json` against the six Loop workflows.
@Suite("Deep links: the Loop example")
struct DeepLinkLoopExampleTests {
    typealias Payload = LinkPolicyFixtures.LoopPayload

    struct Workflow: Sendable, CustomStringConvertible {
        var name: String
        var payload: String
        /// Location → (route, screen, parameters).
        var expected: [String: (String, String, [String: String])]
        var description: String { name }
    }

    static let workflows: [Workflow] = [
        Workflow(
            name: "daily dose reminder", payload: Payload.doseReminder(),
            expected: [
                "$.deep_link": ("protocol", "/protocols/p1/log", ["id": "p1"]),
                "$.actions[0].link": ("protocol", "/protocols/p1/log", ["id": "p1"]),
            ]),
        Workflow(
            name: "supply running low", payload: Payload.supplyLow,
            expected: [
                "$.deep_link": ("supply", "/supplies/s1", ["id": "s1"])
            ]),
        Workflow(
            name: "adherence milestone", payload: Payload.milestone,
            expected: [
                "$.deep_link": ("achievements", "/achievements", [:])
            ]),
        Workflow(
            name: "lab results ready", payload: Payload.labResults,
            expected: [
                "$.deep_link": ("lab-results", "/labs/l1", ["id": "l1"]),
                "$.actions.VIEW_RESULTS": ("lab-results", "/labs/l1", ["id": "l1"]),
                "$.actions.ASK_LUNA": ("chat", "/chat", ["context": "lab_l1"]),
            ]),
        Workflow(
            name: "protocol updated by a clinician", payload: Payload.protocolUpdated,
            expected: [
                "$.deep_link": ("protocol", "/protocols/p1", ["id": "p1"])
            ]),
        Workflow(
            name: "weekly check-in", payload: Payload.weeklyCheckIn,
            expected: [
                "$.deep_link": ("check-in", "/checkin", [:])
            ]),
    ]

    @Test("every workflow's links resolve to the right screen", arguments: workflows)
    func workflow(_ workflow: Workflow) throws {
        let checker = DeepLinkChecker(routes: try LinkPolicyFixtures.loopRoutes())
        let report = try #require(checker.check(LinkPolicyFixtures.apns(workflow.payload)))
        #expect(report.isClean, "\(report)")
        #expect(report.links.count == workflow.expected.count)
        for (location, (route, screen, parameters)) in workflow.expected {
            let resolution = try #require(report.resolution(at: location), "no resolution at \(location)")
            #expect(resolution.route == route)
            #expect(resolution.screen == screen)
            #expect(resolution.parameters == parameters)
        }
    }

    @Test("the six workflows together make a clean report")
    func allWorkflows() throws {
        let records = Self.workflows.enumerated().map { LinkPolicyFixtures.apns($0.element.payload, sequence: UInt64($0.offset + 1)) }
        let report = DeepLinkChecker(routes: try LinkPolicyFixtures.loopRoutes()).check(records)
        #expect(report.isClean, "\(report)")
        #expect(report.summary == "Deep links: 6 notifications, 9 links, 0 problems")
    }

    @Test("lab results over FCM: data link, web push universal link, intent action ignored")
    func labResultsOverFCM() throws {
        let record = LinkPolicyFixtures.fcm(
            #"""
            {"token":"t","notification":{"title":"Your lab results are ready"},
             "data":{"type":"lab_results","deep_link":"loop://labs/l1","ask_luna":"loop://chat?context=lab_l1"},
             "android":{"notification":{"click_action":"OPEN_LAB_RESULTS"}},
             "webpush":{"fcm_options":{"link":"https://loop.example/labs/l1"}},
             "apns":{"payload":{"aps":{"category":"LAB_RESULTS"},"actions":{"ASK_LUNA":"loop://chat?context=lab_l1"}}}}
            """#)
        let report = try #require(DeepLinkChecker(routes: try LinkPolicyFixtures.loopRoutes()).check(record))
        #expect(report.isClean, "\(report)")
        #expect(
            report.links.map(\.location) == [
                "$.message.data.deep_link", "$.message.webpush.fcm_options.link", "$.message.apns.payload.actions.ASK_LUNA",
            ])
        #expect(report.resolution(at: "$.message.webpush.fcm_options.link")?.route == "lab-results-web")
        #expect(report.screens == ["/labs/l1", "/labs/l1", "/chat"])
    }

    @Test("a link Loop does not know falls back to the home screen, and is reported")
    func unknownLink() throws {
        let routes = try LinkPolicyFixtures.loopRoutes()
        #expect(routes.resolve("loop://settings/notifications") == .fallback(screen: "/"))
        let record = LinkPolicyFixtures.apns(#"{"aps":{"alert":"Hi"},"deep_link":"loop://supplies"}"#)
        let report = DeepLinkChecker(routes: routes).check([record])
        #expect(report.findings.map(\.problem.kind) == [.fallback])
    }
}
