import CriticalMomentsExample
import Foundation
import PushMockControl
import PushMockTesting
import PushMockToolkit
import Testing

/// The Critical Moments seed end to end, with the example's own files
/// (`Examples/CriticalMoments/pushmock/`). The app schedules its notifications on the phone
/// from `notifications.json`; no push service sees them. So this test checks two things:
///
/// - what the team's backend pushes (`LifeTrackerPush`: silent config and event pushes over
///   APNs, the setup reminder over FCM/APNs where the phone cannot schedule it) through the
///   real gateway: delivery, engagement, permission, failures, links, policy, contracts and the
///   funnel;
/// - what the phone would show, by playing `notifications.json` with `OnDeviceScheduler` over
///   the app events (and the device properties they carry) posted to the same gateway while
///   the virtual clock walks through the week.
@Suite("Example: Critical Moments (on-device schedule from a config, plus push)")
struct CriticalMomentsExampleTests {
    static let definitions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pushmock").path

    static func file(_ name: String) -> String { "\(definitions)/\(name)" }

    static func time(_ iso: String) -> Timestamp { Timestamp(millisecondsSince1970: ISO8601Milliseconds.parse(iso)!) }

    // The users' tokens, as in users.json.
    static let ada = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static let eve = "eeee13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static let dee = "dddd13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static let fay = "ffff13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static let ben = "bLifeTrackerBen:APA91bH7sQ2kX9mZ4vN1cR8tY6wP3jL5dF0gS7hK2aBen"
    static let cy = "cLifeTrackerCy:APA91bH7sQ2kX9mZ4vN1cR8tY6wP3jL5dF0gS7hK2aBcy0"
    static let fayReminderID = "5E7A0000-0000-4000-8000-000000000001"

    @Test("the config the app ships reads, with its conditions")
    func configReads() throws {
        let config = try InAppNotificationConfig(contentsOfFile: Self.file("notifications.json"))
        #expect(config.notifications.map(\.name) == ["completeSetupReminder", "streakNudge", "weekendReview"])
        let nudge = try #require(config.notifications.first { $0.name == "streakNudge" })
        #expect(nudge.scheduleCondition?.text == "eventCount('habit_logged') < 3")
        #expect(nudge.idealDeliveryConditions?.condition.propertyNames == ["app_state", "has_wifi"])
        #expect(nudge.idealDeliveryConditions?.maxWait == .seconds(3600))
    }

    @Test("a week of LifeTracker: config push, on-device schedule, reminder pushes, engagement, permission, failures, checks")
    func weekOfLifeTracker() async throws {
        try await withPushMock { mock in
            let monday = Self.time("2026-01-05T08:00:00.000Z")  // 09:00 in Oslo, 03:00 in New York
            mock.clock.freeze()
            mock.clock.set(to: monday)
            for user in try JSONDecoder().decode(UserDirectory.self, from: Data(contentsOf: URL(fileURLWithPath: Self.file("users.json"))))
                .users
            {
                try mock.addUser(user)
            }
            mock.engagementModel = try JSONDecoder().decode(
                EngagementModel.self, from: Data(contentsOf: URL(fileURLWithPath: Self.file("behaviour.json"))))
            let config = try InAppNotificationConfig(contentsOfFile: Self.file("notifications.json"))
            let push = try LifeTrackerPush(apns: mock.apnsSender, fcm: mock.fcmSender, definitions: Self.definitions)
            let control = try mock.controlClient()

            // 1 + 5. Publish the config to the iPhones. Dee uninstalled the app last week: APNs
            // answers 410 Unregistered and the backend deletes the token.
            _ = try await control.call(
                "PATCH", "apns/tokens/\(Self.dee)", json: Array(#"{"state":"unregistered","at":"2026-01-01T12:00:00Z"}"#.utf8))
            let announced = try await push.announceConfig(
                version: 1, url: "https://config.lifetracker.app/cm/v1.json", to: [Self.ada, Self.eve, Self.dee])
            #expect(announced.map(\.outcome.kind) == [.accepted, .accepted, .tokenInvalid])
            #expect(LifeTrackerPush.tokensToDelete(announced) == [Self.dee])
            #expect(mock.device(Self.ada)?.notifications.first?.notification.kind == "background")

            // 2. Walk the clock. Monday 12:00 Oslo / 06:00 New York: everyone leaves the app.
            mock.clock.set(to: Self.time("2026-01-05T11:00:00.000Z"))
            for user in ["ada", "eve", "fay", "ben", "cy"] { try mock.postEvent("app_entered_background", user: user) }

            // 11:05: Eve and Cy finish setup on the web. The backend forwards it to Eve's
            // iPhone while APNs has a hiccup (503): the sender retries and gets through; the
            // app logs the event, which cancels the on-device reminder.
            mock.clock.set(to: Self.time("2026-01-05T11:05:00.000Z"))
            try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .apnsError(reason: "ServiceUnavailable")))
            let forwarded = try await push.forwardEvent("completeSetup", to: Self.eve)
            #expect(forwarded.outcome.kind == .accepted)
            #expect(forwarded.attempts == 2, "one 503, then accepted")
            #expect(mock.device(Self.eve)?.notifications.count == 2, "config and event pushes reached Eve's phone")
            try mock.postEvent("completeSetup", user: "eve")
            try mock.postEvent("completeSetup", user: "cy")

            // Ada logs a habit on mobile data, gets wifi at 14:40 Oslo.
            mock.clock.set(to: Self.time("2026-01-05T11:30:00.000Z"))
            try mock.postEvent("habit_logged", user: "ada", properties: ["has_wifi": "false"])
            mock.clock.set(to: Self.time("2026-01-05T12:00:00.000Z"))
            // 4. Cy turns LifeTracker's notifications off in Android settings.
            mock.setPermission(.denied, token: Self.cy, service: .fcm)
            mock.clock.set(to: Self.time("2026-01-05T13:40:00.000Z"))
            try mock.postEvent("network_changed", user: "ada", properties: ["has_wifi": "true"])

            // 14:00 UTC = 09:00 New York. Android has no Critical Moments; the backend job sends
            // the reminder when the config says the phone would have: due 06:10 local, moved
            // into 09:00–21:00. The same model tells the job when.
            let benPlan = try mock.onDeviceSchedule(
                config, user: "ben", from: monday, until: Self.time("2026-01-05T23:00:00.000Z"))
            #expect(benPlan.deliveryTimes("completeSetupReminder") == [Self.time("2026-01-05T14:00:00.000Z")])
            #expect(benPlan.entry("completeSetupReminder")?.deliveries.first?.reason == .movedIntoWindow)
            mock.clock.set(to: Self.time("2026-01-05T14:00:00.000Z"))
            let toBen = try await push.sendSetupReminder(fcmToken: Self.ben)
            let toFay = try await push.sendSetupReminder(apnsToken: Self.fay, id: Self.fayReminderID)
            // A buggy job also reminds Cy, who completed setup at 11:05: FCM accepts it (it
            // cannot know), the phone shows nothing (permission denied), the policy flags it.
            let toCy = try await push.sendSetupReminder(fcmToken: Self.cy)
            #expect([toBen, toFay, toCy].map(\.outcome.kind) == [.accepted, .accepted, .accepted])

            // 3. Engagement. Ben taps his reminder three minutes later (by command) …
            mock.clock.advance(by: .seconds(180))
            guard case .accepted(let benAcceptance) = toBen.outcome, case .accepted(let cyAcceptance) = toCy.outcome else {
                Issue.record("the reminders were not accepted")
                return
            }
            let opened = try mock.open(benAcceptance.id, token: Self.ben, service: .fcm)
            #expect(opened.engagement == .opened)
            // … Cy cannot: nothing was displayed.
            do throws(EngagementRefusal) {
                try mock.open(cyAcceptance.id, token: Self.cy, service: .fcm)
                Issue.record("Cy's reminder could be opened")
            } catch {
                #expect(error.status == 409)
            }
            #expect(mock.device(Self.cy, service: .fcm)?.notifications.last?.displayedAt == nil)
            // … and Fay reacts as behaviour.json says (seed 2026, delay 60–900 s): repeatable.
            mock.clock.advance(by: .seconds(15 * 60))
            let fayReminder = try #require(mock.device(Self.fay)?.notifications.first { $0.notification.id == Self.fayReminderID })
            // The model's draw for this seed, token and her first judged notification: she swipes it
            // away after 793.302 s.
            #expect(fayReminder.engagement == .dismissed)
            #expect(fayReminder.engagedAt == Self.time("2026-01-05T14:13:13.302Z"))

            // Tuesday: Ada logs a habit on mobile data and keeps the app open; Wednesday another.
            mock.clock.set(to: Self.time("2026-01-06T08:00:00.000Z"))
            try mock.postEvent("habit_logged", user: "ada", properties: ["has_wifi": "false"])
            mock.clock.set(to: Self.time("2026-01-06T08:50:00.000Z"))
            try mock.postEvent("app_entered_foreground", user: "ada")
            mock.clock.set(to: Self.time("2026-01-07T08:00:00.000Z"))
            try mock.postEvent("habit_logged", user: "ada")
            // Through to Saturday noon.
            mock.clock.set(to: Self.time("2026-01-10T11:00:00.000Z"))

            // What Ada's iPhone showed, from the config and her events.
            let adaWeek = try mock.onDeviceSchedule(config, user: "ada", from: monday)
            // 10 minutes after she left the app, inside 09:00–21:00: 12:10 Oslo.
            #expect(adaWeek.deliveryTimes("completeSetupReminder") == [Self.time("2026-01-05T11:10:00.000Z")])
            #expect(adaWeek.entry("completeSetupReminder")?.deliveries.first?.reason == .onTime)
            // Due 13:30; the 13:45 background check found her app in the background on wifi.
            // Tuesday: due 10:00, app in the foreground and no wifi until the wait ended at 11:00.
            // Wednesday: the third habit_logged makes scheduleCondition false.
            let nudges = adaWeek.entry("streakNudge")?.deliveries ?? []
            #expect(nudges.map(\.time) == [Self.time("2026-01-05T13:45:00.000Z"), Self.time("2026-01-06T11:00:00.000Z")])
            #expect(nudges.map(\.reason) == [.idealConditionsMet, .idealWaitEnded])
            #expect(
                adaWeek.entry("streakNudge")?.outcome == .conditionNotMet("scheduleCondition \"eventCount('habit_logged') < 3\" is false"))
            // First habit Monday 12:30 Oslo + 1 h, weekend only 10:00–18:00: Saturday 10:00 Oslo.
            #expect(adaWeek.deliveryTimes("weekendReview") == [Self.time("2026-01-10T09:00:00.000Z")])
            #expect(adaWeek.entry("weekendReview")?.deliveries.first?.localTime == "Sat 2026-01-10 10:00")
            #expect(adaWeek.entry("weekendReview")?.deliveries.first?.reason == .movedIntoWindow)
            // Eve's reminder was canceled by the event the backend forwarded.
            let eveWeek = try mock.onDeviceSchedule(config, user: "eve", from: monday)
            #expect(eveWeek.allDeliveries.isEmpty)
            guard case .canceled(let cancel)? = eveWeek.entry("completeSetupReminder")?.outcome else {
                Issue.record("Eve's reminder should be canceled: \(eveWeek)")
                return
            }
            #expect(
                cancel.name == "completeSetup" && cancel.timeMilliseconds == Self.time("2026-01-05T11:05:00.000Z").millisecondsSince1970)

            // 6. Links, policy, contracts, funnel — over what the backend pushed.
            let links = mock.checkLinks(try RouteTable(contentsOfFile: Self.file("routes.json")))
            #expect(links.isClean, "\(links)")
            #expect(links.linkCount == 3)
            #expect(Set(links.notifications.flatMap(\.screens)) == ["/setup"])

            let policy = mock.checkPolicy(try PolicyFile(contentsOfFile: Self.file("policy.json")))
            #expect(policy.notificationCount == 6)
            #expect(policy.violations.map(\.kind) == [.canceled], "\(policy)")
            #expect(policy.violations.first?.user == "cy")
            #expect(policy.violations.first?.event?.name == "completeSetup")

            let contracts = mock.checkContracts(try ContractFile(contentsOfFile: Self.file("contracts/lifetracker.json")))
            #expect(contracts.isClean, "\(contracts)")
            #expect(contracts.notificationCount == 6)

            let funnel = mock.funnelReport()
            #expect(funnel.total.sent == 8)  // 3 config, 2 event attempts (one 503), 3 reminders
            #expect(funnel.total.accepted == 6)
            #expect(funnel.total.delivered == 6)
            #expect(funnel.total.displayed == 2)  // Ben and Fay; silent pushes and Cy's show nothing
            #expect(funnel.total.opened == 1)  // Ben, by command
            #expect(funnel.total.dismissed == 1)  // Fay, by the model
            let android = try #require(funnel.groups.first { $0.dimension == "platform" && $0.value == "fcm" })
            #expect(
                [android.stages.sent, android.stages.delivered, android.stages.displayed, android.stages.opened] == [2, 2, 1, 1] as [Int])
            await control.close()
        }
    }
}
