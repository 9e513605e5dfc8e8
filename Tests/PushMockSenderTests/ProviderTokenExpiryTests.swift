import Foundation
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockSender
import PushMockSimulation
import PushMockTesting
import Testing

/// Issue #14: an update forced by an expiry (injected or real) is never "too many", however
/// many requests were in flight with the old token.
@Suite("Sender: provider-token expiry on a busy connection")
struct ProviderTokenExpiryTests {
    @Test(
        "after injected ExpiredProviderToken answers, the sender re-signs and every push is accepted",
        arguments: [1, 4], [true, false]
    )
    func injectedExpiry(faults: Int, warmedUp: Bool) async throws {
        try await withPushMock { mock in
            let configuration = try mock.apnsConfiguration { $0.connection.maximumConnections = 1 }
            try await withAPNsSender(configuration: configuration) { sender in
                if warmedUp {
                    // The connection uses its first token before the fault.
                    let first = await sender.send(APNsNotification(deviceToken: deviceToken(0), payload: alertPayload))
                    #expect(first.outcome.isAccepted)
                }
                // Without the warm-up the fault answers the connection's very first request while
                // the rest of the burst, already on the wire with the same token, is accepted.
                try mock.addFault(
                    FaultRule(trigger: FaultTrigger(count: faults), action: .apnsError(reason: "ExpiredProviderToken")))
                let summary = await sender.send(
                    contentsOf: (1...40).map { APNsNotification(deviceToken: deviceToken($0), payload: alertPayload) })
                #expect(summary.rejectedByReason["TooManyProviderTokenUpdates"] == nil, "\(summary)")
                let reasons = mock.recordings.records(limit: 1000).compactMap(\.response.reason)
                #expect(!reasons.contains("TooManyProviderTokenUpdates"), "\(reasons)")
                #expect(reasons.filter { $0 == "ExpiredProviderToken" }.count >= faults)
            }
        }
    }

    @Test("a real expiry (the gateway clock passes an hour) forces an update that is never too many")
    func realExpiry() async throws {
        try await withPushMock { mock in
            let configuration = try mock.apnsConfiguration { $0.connection.maximumConnections = 1 }
            try await withAPNsSender(configuration: configuration) { sender in
                let first = await sender.send(APNsNotification(deviceToken: deviceToken(0), payload: alertPayload))
                #expect(first.outcome.isAccepted)
                // 61 minutes of gateway time: the token in use has expired (the sender's clock is
                // the gateway's here, so it re-signs on its own or after ExpiredProviderToken).
                mock.state.virtualClock?.advance(by: .seconds(61 * 60))
                let summary = await sender.send(
                    contentsOf: (1...40).map { APNsNotification(deviceToken: deviceToken($0), payload: alertPayload) })
                #expect(summary.accepted == 40, "\(summary)")
                let reasons = mock.recordings.records(limit: 1000).compactMap(\.response.reason)
                #expect(!reasons.contains("TooManyProviderTokenUpdates"), "\(reasons)")
            }
        }
    }
}
