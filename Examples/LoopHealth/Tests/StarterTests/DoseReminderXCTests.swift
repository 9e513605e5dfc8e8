// The same example with XCTest. `mock.expect` throws an error whose description is the whole
// report (expected, received, nearest misses), so XCTest prints it on failure.
import PushMockTesting
import XCTest

final class DoseReminderXCTests: XCTestCase {
    let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"

    func testExactlyOneReminderWithTitleAndDeepLink() async throws {
        try await withPushMock { mock in
            let notifier = LoopNotifier(sender: mock.apnsSender)
            try await notifier.sendDoseReminder(to: self.token, for: .init(id: "p1", compoundName: "BPC-157"))

            let routes = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("pushmock/routes.json").path
            try await mock.expect(
                RecordingQuery(token: Glob(self.token), payload: [try .equals("$.aps.alert.title", "Time for your BPC-157")]),
                deepLink: try DeepLinkRequirement(routesFile: routes, screen: "/protocols/p1/log")
            )
        }
    }

    func testWrongTitleReportsTheNearestMiss() async throws {
        try await withPushMock { mock in
            let notifier = LoopNotifier(sender: mock.apnsSender)
            try await notifier.sendDoseReminder(to: self.token, for: .init(id: "p1", compoundName: "TB-500"))
            let query = RecordingQuery(token: Glob(self.token), payload: [try .equals("$.aps.alert.title", "Time for your BPC-157")])
            do throws(ExpectationFailure) {
                try await mock.expect(query)
                XCTFail("the expectation should not be met")
            } catch {
                XCTAssertTrue(error.description.contains("got Time for your TB-500"), error.description)
            }
        }
    }
}
