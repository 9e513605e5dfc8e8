import Foundation
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockSender
import PushMockTesting
import PushMockToolkit
import Testing

/// The worked example (issue #6 item 9): the six notification workflows of the example health
/// app "Loop", written as sender templates under `Examples/LoopHealth/pushmock/templates/`, rendered
/// with the sample data in `Examples/LoopHealth/pushmock/data/`, sent through the real in-process
/// gateway by PushMockSender, and compared with the golden files in
/// `Examples/LoopHealth/pushmock/golden/`.
///
/// Changing a template, its data or the headers below changes what the gateway records, so the
/// golden check fails with a diff. Re-record after an intended change with
/// `PUSHMOCK_RECORD_GOLDEN=1 swift test --filter LoopGolden` and review the files' diff.
@Suite("Loop worked example: templates → sender → gateway → golden files", .serialized)
struct LoopGoldenTests {
    @Test("each workflow renders, is accepted and matches its golden file", arguments: LoopWorkflow.all)
    func workflowMatchesGolden(_ workflow: LoopWorkflow) async throws {
        try await withPushMock { mock in
            try await send(workflow, through: mock)
            try mock.assertGolden(LoopExample.goldenPath(workflow.name))
        }
    }

    @Test("every template's variables are in its sample data (no default hides a missing one)")
    func sampleDataCoversTemplates() throws {
        for workflow in LoopWorkflow.all {
            let data = try LoopExample.data(workflow.name)
            for platform in workflow.platforms {
                let template = try LoopExample.template(workflow.name, platform: platform)
                #expect(template.missingVariables(in: data).isEmpty, "\(workflow.name).\(platform)")
                #expect(template.hasPlaceholders, "\(workflow.name).\(platform) is a template")
            }
        }
    }

    @Test("a changed template fails the golden check with a diff that names the changed field")
    func changedTemplateFails() async throws {
        let workflow = try #require(LoopWorkflow.all.first { $0.name == "dose-reminder" })
        try await withPushMock { mock in
            // The same workflow with one word of the title changed, as an edit to the template would.
            try await send(workflow, through: mock) { text in
                text.replacingOccurrences(of: "Time for your", with: "Time to take your")
            }
            let error = try #require(throws: GoldenError.self) {
                try mock.assertGolden(
                    LoopExample.goldenPath(workflow.name),
                    environment: GoldenEnvironment([:])
                )
            }
            #expect(error.code == .mismatch)
            #expect(error.description.contains(#"~ [0].payload.aps.alert.title: "Time for your BPC-157" ≠ "Time to take your BPC-157""#))
            #expect(
                error.description.contains(
                    #"~ [1].payload.message.notification.title: "Time for your BPC-157" ≠ "Time to take your BPC-157""#))
            #expect(error.description.contains(#"+            "title": "Time to take your BPC-157""#))
        }
    }

    @Test("the golden files hold no volatile values: tokens, apns-ids and message names are placeholders")
    func goldenFilesAreNormalised() throws {
        for workflow in LoopWorkflow.all {
            let path = try #require(GoldenFile.packageRoot(forSourceFile: #filePath)) + "/" + LoopExample.goldenPath(workflow.name)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains(LoopExample.apnsToken))
            #expect(!text.contains(LoopExample.fcmToken))
            #expect(text.contains("<apns-id-1>"))
            #expect(!text.contains("eyJ"))
        }
    }

    @Test(
        "the whole example together: the six templates' links all open known screens, a day passes the policy in each user's own zone (users.json), a late check-in and a third dose reminder do not"
    )
    func linksAndPolicy() async throws {
        let routes = try RouteTable(contentsOfFile: try LoopExample.absolutePath("routes.json"))
        let policy = try PolicyFile(contentsOfFile: try LoopExample.absolutePath("policy.json"))
        try await withPushMock { mock in
            // The users behind the tokens, with their zones and preferences: the APNs device is
            // Maya's (Berlin), the FCM device Sam's (New York).
            for user in try LoopExample.users().users { try mock.addUser(user) }
            // Saturday 21 November 2026, 15:00 in Berlin, 09:00 in New York.
            mock.clock.set(to: Timestamp(millisecondsSince1970: ISO8601Milliseconds.parse("2026-11-21T14:00:00Z") ?? 0))
            mock.clock.freeze()
            for workflow in LoopWorkflow.all {
                try await send(workflow, through: mock)
                mock.clock.advance(by: .seconds(600))
            }

            let links = mock.checkLinks(routes)
            #expect(links.isClean, "\(links.detailedText)")
            #expect(links.notifications.count == 9, "six APNs and three FCM notifications")
            #expect(
                Set(links.notifications.flatMap(\.screens)).isSuperset(of: [
                    "/protocols/p-4821/log", "/supplies/s-118", "/achievements", "/labs/lab-9930", "/chat", "/protocols/p-4821", "/checkin",
                ]), "\(links.detailedText)")
            let day = mock.checkPolicy(policy)
            #expect(day.isClean, "\(day.text)")

            // 03:30 UTC: Sunday 04:30 for Maya in Berlin, still Saturday 22:30 for Sam in New
            // York. The passive check-in breaks Loop's night and Maya's own quiet hours. The dose
            // reminder is time-sensitive on APNs, so exempt there — but its FCM variant carries
            // no such marker (Android has none), so the night and Sam's quiet hours flag it: the
            // kind of gap this check is for. Sent twice, it is Sam's third dose reminder of his
            // Saturday; for Maya a new day has begun, so her two are within the cap.
            mock.clock.set(to: Timestamp(millisecondsSince1970: ISO8601Milliseconds.parse("2026-11-22T03:30:00Z") ?? 0))
            let checkIn = try #require(LoopWorkflow.all.first { $0.name == "weekly-checkin" })
            let dose = try #require(LoopWorkflow.all.first { $0.name == "dose-reminder" })
            try await send(checkIn, through: mock)
            try await send(dose, through: mock)
            try await send(dose, through: mock)
            let night = mock.checkPolicy(policy)
            let quiet = night.violations(rule: "night")
            #expect(quiet.map(\.notificationType) == ["check-in", "dose-reminder", "dose-reminder"], "\(night.text)")
            #expect(quiet.first?.timeZone == "Europe/Berlin", "\(night.text)")
            #expect(quiet.dropFirst().allSatisfy { $0.notification.platform == .fcm && $0.timeZone == "America/New_York" }, "\(night.text)")
            #expect(night.violations(rule: "users.maya.quietHours[0]").map(\.notificationType) == ["check-in"], "\(night.text)")
            #expect(night.violations(rule: "users.sam.quietHours[0]").count == 2, "\(night.text)")
            let cap = night.violations(rule: "dose-reminders-per-day")
            #expect(cap.map(\.notification.platform) == [.fcm], "only Sam's Saturday has three: \(night.text)")
            #expect(cap.first?.localTime?.hasPrefix("2026-11-21 22:30") == true, "\(night.text)")
        }
    }

    /// Renders the workflow's templates with its sample data and sends them: APNs first, then
    /// FCM when the workflow has an FCM variant. `edit` changes the template text first.
    private func send(
        _ workflow: LoopWorkflow,
        through mock: PushMockHarness,
        edit: (String) -> String = { $0 }
    ) async throws {
        let data = try LoopExample.data(workflow.name)
        let apnsTemplate = try NotificationTemplate(json: edit(LoopExample.templateText(workflow.name, platform: "apns")))
        let notification = APNsNotification(
            deviceToken: LoopExample.apnsToken,
            payloadJSON: try apnsTemplate.renderBytes(data),
            topic: LoopExample.topic,
            pushType: .alert,
            priority: workflow.priority,
            expiration: workflow.expiresAfterSeconds.map { seconds in
                .at(Timestamp(millisecondsSince1970: mock.state.clock.now().millisecondsSince1970 + seconds * 1000))
            },
            collapseID: try workflow.collapseID.map { try NotificationTemplate.renderText($0, data: data) }
        )
        try await withAPNsSender(configuration: try mock.apnsConfiguration()) { sender in
            let result = await sender.send(notification)
            guard case .accepted = result.outcome else {
                Issue.record("\(workflow.name) (APNs) was not accepted: \(result)")
                return
            }
        }
        guard workflow.platforms.contains("fcm") else { return }
        let fcmTemplate = try NotificationTemplate(json: edit(LoopExample.templateText(workflow.name, platform: "fcm")))
        guard case .object(var message) = try fcmTemplate.render(data) else {
            Issue.record("\(workflow.name).fcm.json is not a JSON object")
            return
        }
        // The recipient supplies the target, as `pushmock send fcm --message` does.
        message["token"] = .string(LoopExample.fcmToken)
        let fcmMessage = try FCMPushMessage(json: .object(message))
        try await withFCMSender(configuration: try mock.fcmConfiguration()) { sender in
            let result = await sender.send(fcmMessage)
            guard case .accepted = result.outcome else {
                Issue.record("\(workflow.name) (FCM) was not accepted: \(result)")
                return
            }
        }
    }
}

/// One Loop workflow: its name (the file stem under templates/, data/ and golden/) and the
/// APNs headers its sender sets (a template holds only the payload, as for `pushmock send
/// --payload`).
struct LoopWorkflow: Sendable, CustomTestStringConvertible {
    var name: String
    var platforms: [String]
    var priority: APNsPriority
    var collapseID: String?
    var expiresAfterSeconds: Int64?

    var testDescription: String { name }

    static let all: [LoopWorkflow] = [
        // A dose is only useful around its time: time-sensitive, immediate, gone after an hour,
        // and a newer reminder for the same dose replaces the older one.
        LoopWorkflow(
            name: "dose-reminder",
            platforms: ["apns", "fcm"],
            priority: .immediate,
            collapseID: "dose-{{ dose_id }}",
            expiresAfterSeconds: 3600
        ),
        LoopWorkflow(
            name: "supply-low", platforms: ["apns", "fcm"], priority: .immediate, collapseID: "supply-{{ supply_id }}",
            expiresAfterSeconds: 86_400),
        LoopWorkflow(name: "adherence-milestone", platforms: ["apns"], priority: .immediate, expiresAfterSeconds: 86_400),
        LoopWorkflow(
            name: "lab-results-ready", platforms: ["apns", "fcm"], priority: .immediate, collapseID: "lab-{{ lab_id }}",
            expiresAfterSeconds: 604_800),
        LoopWorkflow(
            name: "protocol-updated", platforms: ["apns"], priority: .immediate, collapseID: "protocol-{{ protocol_id }}",
            expiresAfterSeconds: 604_800),
        // Marketing-ish and passive: delivered when the device is awake anyway.
        LoopWorkflow(
            name: "weekly-checkin", platforms: ["apns"], priority: .considerPower, collapseID: "weekly-checkin",
            expiresAfterSeconds: 172_800),
    ]
}

/// Where the example's files are and the fixed recipients the test sends to (the golden files
/// show them as `<token-1>`, `<token-2>`).
enum LoopExample {
    static let directory = "Examples/LoopHealth/pushmock"
    static let topic = "com.example.loop"
    static let apnsToken = "8f3c2a9e4b7d1f6a0c5e8b2d4f7a9c1e3b5d7f9a2c4e6b8d0f1a3c5e7b9d2f4a"
    static let fcmToken = "eLoopSampleRegistrationToken:APA91bH7sQ2kX9mZ4vN1cR8tY6wP3jL5dF0gS7hK2aB"

    static func goldenPath(_ workflow: String) -> String {
        "\(directory)/golden/\(workflow).json"
    }

    static func absolutePath(_ relative: String) throws -> String {
        guard let root = GoldenFile.packageRoot(forSourceFile: #filePath) else {
            throw LoopExampleError("no package root above \(#filePath)")
        }
        return root + "/" + directory + "/" + relative
    }

    static func templateText(_ workflow: String, platform: String) throws -> String {
        try String(contentsOfFile: absolutePath("templates/\(workflow).\(platform).json"), encoding: .utf8)
    }

    static func template(_ workflow: String, platform: String) throws -> NotificationTemplate {
        try NotificationTemplate(json: templateText(workflow, platform: platform))
    }

    /// users.json: Maya (Berlin) owns the APNs token, Sam (New York) the FCM token.
    static func users() throws -> UserDirectory {
        try JSONDecoder().decode(UserDirectory.self, from: Data(contentsOf: URL(fileURLWithPath: absolutePath("users.json"))))
    }

    static func data(_ workflow: String) throws -> JSONObject {
        let text = try String(contentsOfFile: absolutePath("data/\(workflow).json"), encoding: .utf8)
        guard case .object(let object) = try JSONValue(parsing: text) else {
            throw LoopExampleError("data/\(workflow).json is not a JSON object")
        }
        return object
    }
}

struct LoopExampleError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
