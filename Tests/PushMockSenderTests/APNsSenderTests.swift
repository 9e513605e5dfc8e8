import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockSender
import PushMockSimulation
import PushMockTesting
import Testing

@Suite("APNs sender against the gateway over TLS")
struct APNsSenderTests {
    @Test("accepted: apns-id, one connection, the request as sent")
    func accepted() async throws {
        try await withPushMock { mock in
            try await withAPNsSender(configuration: try mock.apnsConfiguration()) { sender in
                let result = await sender.send(
                    APNsNotification(deviceToken: PushMockHarness.sampleDeviceToken, payload: alertPayload, apnsID: "123e4567-e89b-12d3-a456-4266554400a0")
                )
                guard case .accepted(let acceptance) = result.outcome else {
                    Issue.record("\(result)")
                    return
                }
                #expect(acceptance.id == "123e4567-e89b-12d3-a456-4266554400a0")
                #expect(acceptance.uniqueID != nil)
                #expect(result.attempts == 1)
                #expect(sender.openConnectionCount == 1)
                let record = try #require(mock.recordings.records(limit: 1).first)
                #expect(record.response.status == 200)
                #expect(record.notification?.token == PushMockHarness.sampleDeviceToken)
            }
        }
    }
}
