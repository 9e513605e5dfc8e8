import Foundation
import PushMockControl
import PushMockTesting
import Synchronization
import Testing
import WhistlExample

/// The example's definition files, found next to this test (no bundle resources).
enum WhistlFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pushmock")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }
}

/// The people of the example (tokens as in `pushmock/users.json`).
enum Whistl {
    static let jordanAPNs = "b154b63c7598edc971ebb12207fc8945db93f10b3e41d92365ef8f08e0907078"
    static let jordanFCM =
        "jordanIPhone15:APA91bVJMZboOJ_n81zYyqI6Z8ktKNw1jpWve11Bs8zh7S_79J8mFYgWXrkIBhn78Jr5r35JhuRaEFG_moRjFmQiyhu4PZMBqS64oZciB0ZSOh9GLmZGAhvVV69K-Kg5h42WblBDtF32"
    static let priyaFCM =
        "priyaPixel8:APA91bGrwdSBExoxReky-pGLes5L1LM-yIuVp0eTXBHS9OMsxmbcpDip12CmV4oJc-chaaT7dvJRqg5Bx_B6QvcGj8Xl6J0jGC_quiKAkw1jPvOxbIJM3ITpqT0DVq0zdGgkgpjP_Vw7"
    static let priyaFCMRefreshed =
        "priyaPixel8b:APA91bRNhlOl7Qu-L1UbRP3LVvNaHUxq47XDhKJ_XFTEuSVfpUrGeouAa5gax0WI5RzAsMFaC03kiWhNp5aLg-gd69BFLAEX-NWXRMWehT3YWU-CUKwW_4Q7uTytAzcjK1AVpa2dErrx"
    static let samAPNs = "a293a7d22e59a3d95fc77c1355c0255e7defc0f6934d2a340fdaa56854f65cdb"
    static let samAPNsReinstalled = "8dd3e644142dbc8955d46c94ffda98c4c83eb23279119bafe96495983eac44a3"

    static let melbourne = TimeZone(identifier: "Australia/Melbourne")!

    /// Monday 2026-11-23 at `hour:minute` in Melbourne (AEDT, UTC+11).
    static func melbourne(_ hour: Int, _ minute: Int = 0) -> Timestamp {
        // 2026-11-23T00:00+11:00 = 2026-11-22T13:00:00Z
        Timestamp(millisecondsSince1970: 1_795_352_400_000 + Int64(hour * 3600 + minute * 60) * 1000)
    }

    /// The registry as the apps filled it: Jordan's iPhone has an APNs and a Firebase token.
    static func registry() -> DeviceRegistry {
        DeviceRegistry([
            .init(userID: "jordan", platform: .ios, timeZone: melbourne, apnsToken: jordanAPNs, fcmToken: jordanFCM),
            .init(userID: "priya", platform: .android, timeZone: melbourne, fcmToken: priyaFCM),
            .init(userID: "sam", platform: .ios, timeZone: TimeZone(identifier: "Australia/Sydney")!, apnsToken: samAPNs),
        ])
    }

    /// Intervention ids are UUIDs and double as `apns-id`s, so the seeded behaviour model
    /// draws the same reactions on every run.
    static func id(_ number: Int) -> String { String(format: "0000A11E-0000-4000-8000-%012d", number) }

    static func briefing(_ number: Int) -> Intervention {
        Intervention(
            id: id(number), type: "daily_briefing", riskLevel: .low, riskScore: 0.12, title: "Your morning briefing",
            body: "3 days without a bet. Here is today's plan.", actionURL: "whistl://briefing/2026-11-23")
    }

    static func venue(_ number: Int) -> Intervention {
        Intervention(
            id: id(number), type: "venue_proximity", riskLevel: .high, riskScore: 0.78, title: "Your risk is elevated",
            body: "We noticed you're near Crown Casino. Want to call your sponsor?", venueName: "Crown Casino",
            actionURL: "whistl://intervention/venue")
    }

    static func riskAlert(_ number: Int) -> Intervention {
        Intervention(
            id: id(number), type: "risk_alert", riskLevel: .moderate, riskScore: 0.52, title: "Payday is a risky day",
            body: "Take two minutes to check in with yourself.", actionURL: "whistl://intervention/check-in")
    }

    static func spending(_ number: Int) -> Intervention {
        Intervention(
            id: id(number), type: "spending_detected", riskLevel: .critical, riskScore: 0.94, title: "Critical: Spending detected",
            body: "Transaction at Sportsbet blocked. Tap to review.", actionURL: "whistl://intervention/spending/tx-\(number)")
    }

    /// The targets of the guide's priority table, as the report takes them. The report groups
    /// latency by wire priority, so critical and high (both 10) are judged together, as are
    /// moderate and low (both 5): the stricter target of each pair is the one that binds.
    static let targets = [
        try! LatencyTarget(parsing: "critical=high:10s"),
        try! LatencyTarget(parsing: "high=high:1m"),
        try! LatencyTarget(parsing: "moderate=normal:10m"),
        try! LatencyTarget(parsing: "low=normal:30m"),
    ]

    /// Loads users, categories, iPhone/Android FCM tokens and the behaviour model into the
    /// gateway, from the same files `pushmock serve` is given in the README.
    static func prepare(_ mock: PushMockHarness) async throws {
        let directory = try JSONDecoder().decode(UserDirectory.self, from: try WhistlFiles.data("users.json"))
        for user in directory.users { try mock.addUser(user) }
        mock.engagementModel = try JSONDecoder().decode(EngagementModel.self, from: try WhistlFiles.data("behaviour.json"))
        let config = try JSONValue(parsing: Array(try WhistlFiles.data("whistl.config.json")))
        let control = try mock.controlClient()
        _ = try await control.call("POST", "categories", json: Array(try #require(config["categories"]).description.utf8))
        _ = try await control.call("POST", "fcm/tokens", json: Array(try #require(config["fcm"]?["tokens"]).description.utf8))
        await control.close()
    }

    /// The team's senders for this gateway, with the guide's retry policy; the waits between
    /// attempts move the gateway's clock instead of the test's (and are written down).
    static func notifier(
        _ mock: PushMockHarness, sleeps: SleepLog, sms: SMSLog
    ) throws -> WhistlNotifier {
        let sleep = RetrySleep { duration in
            sleeps.append(duration)
            mock.clock.advance(by: duration)
        }
        let apns = try APNsSender(
            configuration: mock.apnsSenderConfiguration(retry: WhistlNotifier.retryPolicy) { $0.sleep = sleep })
        let fcm = try FCMSender(configuration: mock.fcmSenderConfiguration(retry: WhistlNotifier.retryPolicy) { $0.sleep = sleep })
        return WhistlNotifier(
            apns: apns, fcm: fcm, devices: registry(),
            templates: try WhistlTemplates(directory: WhistlFiles.directory.appendingPathComponent("templates")),
            clock: mock.clock
        ) { userID, _ in
            sms.append(userID)
            return true
        }
    }
}

/// What the retry sleep was asked to wait.
final class SleepLog: Sendable {
    private let entries = Mutex<[Duration]>([])
    func append(_ duration: Duration) { entries.withLock { $0.append(duration) } }
    func drain() -> [Duration] {
        entries.withLock { all in
            defer { all = [] }; return all
        }
    }
}

/// The SMS fallback's outbox.
final class SMSLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ userID: String) { entries.withLock { $0.append(userID) } }
    var all: [String] { entries.withLock { $0 } }
}
