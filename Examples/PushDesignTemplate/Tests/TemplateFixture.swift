import Foundation
import PushDesignTemplateExample
import PushMockControl
import PushMockTestSupport
import PushMockTesting
import Testing

/// The example's definition files, next to this test.
enum TemplateFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pushmock")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }
}

enum Template {
    static let ingrid =
        "ingridPhone:APA91bBrHP5iVsVLsfh6jUvjxH1Fmfsn20xf5CiJP9tM7Afa9menLcjClX6AGlRxJvnWmbSxU1-TtqMzEoGqpEgKQeKk-PLBbWCtkqqgYrSJxqftI-BsRDn8FxiPsdVICsJp22U7z-1u"
    static let ola =
        "olaPhone:APA91bZ4ArnV_NvIdfYmvI25MpyLwcllyPGQFlRN5_H3jz_VOJUZGfEe9RKJE0eTFg6YZCxQ0b8f4rw4ECwdHFLObEzAusVEmZHYCDDKxrTCEqInUeJvIpP3_G0pjdro7raSD-j_LN83"
    static let noor =
        "noorPhone:APA91b_AW6_Cxy8RKsgu4pIVJCRDnMv9v8EgvXaHax-3Yh_yd2drUdk-DlnJeEmGKb2Rw4thvjmb8ohVpn6wIqzSCwmYFI3tWIrC3e8AGCMM6OB1_krmdRow74EXtdrnF4dZhKlg8Sz7"
    static let lee =
        "leePhone:APA91b34WrFY6h8hlfQ0p6rm5SkPzdWreIRhy6mKdbbyTsjJpTDzKk1FoBh9Ieq_65umG4CtzBK0tT1nO5srKqYXQUtdcEVkkXwE36w-_IagvwJzX-wCQBgtxEguV8WE3reQHpm8HNvf"
    static let secret = "template-s3cret"
    static let oslo = TimeZone(identifier: "Europe/Oslo")!

    /// Tuesday 2026-11-24 at `hour:minute` in Oslo (CET, UTC+1); `day` 1 is Wednesday.
    static func oslo(_ hour: Int, _ minute: Int = 0, day: Int = 0) -> Timestamp {
        // 2026-11-24T00:00+01:00 = 2026-11-23T23:00:00Z
        Timestamp(millisecondsSince1970: 1_795_474_800_000 + Int64(day * 86_400 + hour * 3600 + minute * 60) * 1000)
    }

    /// Users, FCM tokens (Lee's uninstalled since 20 November) and the behaviour model, from
    /// the files `pushmock serve` is given in the README.
    static func prepare(_ mock: PushMockHarness) async throws {
        let directory = try JSONDecoder().decode(UserDirectory.self, from: try TemplateFiles.data("users.json"))
        for user in directory.users { try mock.addUser(user) }
        mock.engagementModel = try JSONDecoder().decode(EngagementModel.self, from: try TemplateFiles.data("behaviour.json"))
        let config = try JSONValue(parsing: Array(try TemplateFiles.data("template.config.json")))
        let control = try mock.controlClient()
        _ = try await control.call("POST", "fcm/tokens", json: Array(try #require(config["fcm"]?["tokens"]).description.utf8))
        await control.close()
    }

    /// The backend's service with its users' devices and preferences (section 7).
    static func service(_ mock: PushMockHarness) throws -> NotificationService {
        let template = try NotificationTemplate(
            json: String(contentsOf: TemplateFiles.directory.appendingPathComponent("templates/notification.fcm.json"), encoding: .utf8))
        let service = NotificationService(
            sender: try FCMSender(configuration: mock.fcmSenderConfiguration()), template: template, clock: mock.clock)
        let night = NotificationPreferences.QuietHours(start: "22:00", end: "08:00", timeZone: oslo)
        service.register(.init(token: ingrid, platform: "android"), for: "ingrid")
        service.setPreferences(.init(channels: .init(marketing: true), quietHours: night), for: "ingrid")
        service.register(.init(token: ola, platform: "ios"), for: "ola")
        service.setPreferences(.init(quietHours: night), for: "ola")
        service.register(.init(token: noor, platform: "android"), for: "noor")
        service.register(.init(token: lee, platform: "android"), for: "lee")
        return service
    }
}

/// `pushmock/receiver.py` — the stand-in for the backend's analytics endpoint — as a child
/// process on a free port, and the requests it logged.
final class AnalyticsReceiver: Sendable {
    let port: Int
    private let process: ChildProcess
    private let logPath: String

    init() async throws {
        let directory = NSTemporaryDirectory() + "template-receiver-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let portFile = directory + "/port"
        logPath = directory + "/events.jsonl"
        process = try ChildProcess.spawn(
            "/usr/bin/python3",
            [TemplateFiles.path("receiver.py"), "--port", "0", "--port-file", portFile, "--secret", Template.secret, "--log", logPath],
            output: .discard)
        var port: Int?
        for _ in 0..<1200 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let value = Int(text) {
                port = value
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let port else {
            process.terminate(SIGKILL)
            _ = process.wait()
            throw ReceiverError(description: "receiver.py did not start")
        }
        self.port = port
    }

    var url: String { "http://127.0.0.1:\(port)/push-events" }

    func events() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Waits (generously: a loaded machine) until `count` events arrived.
    func wait(for count: Int, timeout: Duration = .seconds(90)) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let seen = events()
            if seen.count >= count { return seen }
            try await Task.sleep(for: .milliseconds(50))
        }
        return events()
    }

    func stop() {
        process.terminate(SIGKILL)
        _ = process.wait()
    }

    struct ReceiverError: Error, CustomStringConvertible {
        var description: String
    }
}
