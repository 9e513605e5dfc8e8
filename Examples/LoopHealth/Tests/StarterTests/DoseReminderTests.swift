// An example to copy: testing a notification sender with Swift Testing and PushMock.
//
// `withPushMock` starts a real gateway in-process on free ports with throwaway TLS
// credentials; `mock.apnsSender` is already configured for it. The code under test sends;
// the test asserts what the gateway received.
import Foundation
import PushMockTesting
import Testing

@Suite("Example: dose reminders (Swift Testing)")
struct DoseReminderTests {
    let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    /// The app's route table (which links open which screens), kept next to the app's code.
    static let routesFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pushmock/routes.json").path

    @Test("exactly one alert with this title and this deep link")
    func oneReminder() async throws {
        try await withPushMock { mock in
            let notifier = LoopNotifier(sender: mock.apnsSender)
            try await notifier.sendDoseReminder(to: token, for: .init(id: "p1", compoundName: "BPC-157"))

            try await mock.expect(
                RecordingQuery(token: Glob(token), pushType: "alert", payload: [try .equals("$.aps.alert.title", "Time for your BPC-157")]),
                count: .exactly(1),
                // Whose deep link opens the dose-logging screen of protocol p1, as the app's
                // route table resolves it.
                deepLink: try DeepLinkRequirement(routesFile: Self.routesFile, screen: "/protocols/p1/log")
            )
            // …and nothing else at all.
            try await mock.expect(RecordingQuery(), count: .exactly(1))
        }
    }

    @Test("a wrong sender fails with what was expected, what arrived and the nearest miss")
    func failureReport() async throws {
        try await withPushMock { mock in
            let notifier = LoopNotifier(sender: mock.apnsSender)
            // The "bug": the reminder names another compound.
            try await notifier.sendDoseReminder(to: token, for: .init(id: "p1", compoundName: "TB-500"))

            let failure = await #expect(throws: ExpectationFailure.self) {
                try await mock.expect(
                    RecordingQuery(token: Glob(token), payload: [try .equals("$.aps.alert.title", "Time for your BPC-157")]))
            }
            let report = try #require(failure).description
            #expect(report.contains("expected exactly 1 exchange"))
            #expect(report.contains("nearest misses"))
            #expect(report.contains("$.aps.alert.title: expected Time for your BPC-157, got Time for your TB-500"))
        }
    }

    @Test("a link to the wrong protocol fails and shows where the link leads")
    func wrongDeepLink() async throws {
        try await withPushMock { mock in
            let notifier = LoopNotifier(sender: mock.apnsSender)
            try await notifier.sendDoseReminder(to: token, for: .init(id: "p2", compoundName: "BPC-157"))
            let failure = await #expect(throws: ExpectationFailure.self) {
                try await mock.expect(
                    RecordingQuery(token: Glob(token)),
                    deepLink: try DeepLinkRequirement(routesFile: Self.routesFile, screen: "/protocols/p1/log")
                )
            }
            #expect(try #require(failure).description.contains("loop://protocols/p2/log -> /protocols/p2/log"))
        }
    }

    @Test("an asynchronous sender: wait until it has sent", .timeLimit(.minutes(5)))
    func asynchronous() async throws {
        try await withPushMock { mock in
            let notifier = LoopNotifier(sender: mock.apnsSender)
            Task { try await notifier.sendDoseReminder(to: token, for: .init(id: "p2", compoundName: "NAD+")) }
            try await mock.expect(RecordingQuery(token: Glob(token), payload: [try .equals("$.protocol_id", "p2")]), within: .seconds(60))
        }
    }
}
