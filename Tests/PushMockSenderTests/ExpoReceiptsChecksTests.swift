import PushMockSender
import PushMockTesting
import PushMockToolkit
import Testing

/// An Expo sender reads receipts with `getReceipts`; that request is no notification, so the
/// checks over the recordings must not judge it (found by the Loop Health example: a
/// "silent push at priority 10" and a push "without type" that were receipt requests).
@Suite("Checks leave Expo getReceipts requests out")
struct ExpoReceiptsChecksTests {
    @Test("links, policy and contracts count one notification after a send and a receipts request")
    func receiptsAreNoNotifications() async throws {
        try await withPushMock { mock in
            let sender = try ExpoSender(configuration: mock.expoSenderConfiguration())
            let report = await sender.send([
                ExpoPushMessage(to: "ExponentPushToken[receipts-check-0001]", title: "Hi", data: ["type": "greeting", "url": "app://home"])
            ])
            mock.clock.advance(by: .seconds(60))
            let receipts = try await sender.receipts(for: Array(report.receiptIDs.keys))
            await sender.shutdown()
            #expect(receipts.count == 1)
            #expect(mock.recordings.count == 2)

            let policy = try PolicyFile(
                parsing: #"{"version": 1, "priorityRules": [{"name": "silent-5", "match": {"silent": true}, "priority": 5}]}"#)
            let checked = mock.checkPolicy(policy)
            #expect(checked.notificationCount == 1)
            #expect(checked.isClean, "\(checked.text)")

            let contracts = try ContractFile(
                parsing:
                    #"{"version": 1, "typeField": "type", "requireContract": true, "contracts": [{"name": "greeting", "types": ["greeting"], "schema": {"required": ["url"]}}]}"#
            )
            let contractReport = mock.checkContracts(contracts)
            #expect(contractReport.notificationCount == 1)
            #expect(contractReport.isClean, "\(contractReport.text)")

            let routes = try RouteTable(
                parsing: #"{"version": 1, "scheme": "app", "routes": [{"name": "home", "pattern": "app://home", "screen": "/"}]}"#)
            #expect(mock.checkLinks(routes).notifications.count == 1)
        }
    }
}
