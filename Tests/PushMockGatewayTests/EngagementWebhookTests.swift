import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockTesting
import Testing

/// [engagement] item 3: delivery receipts and engagement reach the app's backend through the
/// existing webhook dispatcher (HMAC, retries, attempts), checked by a Python receiver.
@Suite("Engagement webhooks, delivered to a Python http.server", .serialized)
struct EngagementWebhookTests {
    @Test("delivery receipt and open, signed and retried; recordings not sent unless asked for")
    func receiptAndOpen() async throws {
        let receiver = try await WebhookReceiver(secret: "s3cret", failFirst: 1)
        defer { receiver.stop() }
        try await withPushMock { mock in
            mock.clock.freeze()
            let control = try mock.controlClient()
            // A 60 s timeout: on a loaded machine the Python receiver can take more than the
            // default 5 s, and a timed-out attempt would add attempts the count below excludes.
            let definition = #"""
                {"id":"analytics","url":"\#(receiver.url)","secret":"s3cret","events":["delivery-receipt","engagement"],
                 "maxAttempts":3,"initialBackoff":"100ms","timeout":"60s"}
                """#
            let added = try JSONValue(parsing: try await control.call("POST", "webhooks", json: Array(definition.utf8)).body)
            #expect(
                added["webhooks"]?.arrayValue?.first?["events"]?.arrayValue?.compactMap(\.stringValue) == [
                    "delivery-receipt", "engagement",
                ])
            let id = "00000000-0000-4000-8000-0000000000aa"
            let response = try await mock.sendOnNewConnection(
                try mock.apnsRequest(payload: #"{"aps":{"alert":"Dose due","category":"DOSE"}}"#, headers: [("apns-id", id)]))
            #expect(response.status == 200)
            try mock.act("TAKEN", on: id, token: PushMockHarness.sampleDeviceToken)

            // One failed attempt, then both events delivered: three requests.
            let requests = try await receiver.waitForRequests(3)
            try #require(requests.count == 3)
            #expect(requests.allSatisfy { $0["signatureValid"] as? Bool == true })
            let types = requests.compactMap { ($0["headers"] as? [String: String])?["x-pushmock-event"] }
            #expect(Set(types) == ["delivery-receipt", "engagement"])
            let bodies = requests.compactMap { $0["body"] as? [String: Any] }
            let engagement = try #require(bodies.first { $0["type"] as? String == "engagement" }?["data"] as? [String: Any])
            #expect(engagement["event"] as? String == "action")
            #expect(engagement["action"] as? String == "TAKEN")
            #expect(engagement["id"] as? String == id)
            #expect(engagement["sequence"] as? Int == 1)
            let receipt = try #require(bodies.first { $0["type"] as? String == "delivery-receipt" }?["data"] as? [String: Any])
            #expect(receipt["event"] as? String == "delivered")
            #expect(receipt["token"] as? String == PushMockHarness.sampleDeviceToken)

            var hook: JSONValue?
            for _ in 0..<600 {
                hook = try JSONValue(parsing: try await control.call("GET", "webhooks/analytics").body)
                if hook?["counts"]?["delivered"]?.intValue == 2 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(hook?["counts"]?["attempts"]?.intValue == 3)
            #expect(hook?["counts"]?["enqueued"]?.intValue == 2, "no recording event: the webhook did not ask for them")
            #expect(
                try await control.request("POST", "webhooks", json: Array(#"{"url":"http://x/","events":["clicks"]}"#.utf8)).status == 400)

            // With the webhook gone, the simulator stops collecting.
            #expect(try await control.request("DELETE", "webhooks/analytics").status == 200)
            _ = try await mock.sendOnNewConnection(try mock.apnsRequest())
            #expect(try receiver.requests().count == 3)
            await control.close()
        }
    }
}
