import Foundation
import PushMockControl
import PushMockCore
import PushMockJSON
import PushMockTesting
import PushMockToolkit
import Testing

/// `POST /_pushmock/checks/schedule`: an in-app notification config played over the users and
/// app events posted to the gateway, on its clock; the same answer as `mock.onDeviceSchedule`.
@Suite("Control API: the on-device schedule check")
struct ScheduleAPITests {
    static let config = #"""
        {"notifications": {"reminder": {
          "cancelationEvents": ["completeSetup"], "deliveryTimeOfDayStart": "09:00", "deliveryTimeOfDayEnd": "21:00",
          "deliveryTime": {"eventName": "app_entered_background", "eventOffsetSeconds": 600},
          "idealDeliveryConditions": {"condition": "app_state == 'background' && has_wifi", "maxWaitTimeSeconds": 1800}}}}
        """#

    @Test("events and properties posted over REST; the schedule as JSON and text; bad bodies answer 400 and 404")
    func scheduleOverREST() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: Timestamp(millisecondsSince1970: ISO8601Milliseconds.parse("2026-01-05T10:00:00Z")!))
            let control = try mock.controlClient()
            _ = try await control.call("POST", "users", json: Array(#"{"id":"ada","timeZone":"Europe/Oslo"}"#.utf8))
            _ = try await control.call(
                "POST", "users/ada/events", json: Array(#"{"name":"app_entered_background","properties":{"has_wifi":"false"}}"#.utf8))
            mock.clock.advance(by: .seconds(20 * 60))
            _ = try await control.call("POST", "users/ada/events", json: Array(#"{"name":"net","properties":{"has_wifi":"true"}}"#.utf8))
            mock.clock.advance(by: .seconds(3600))

            let body = Array(#"{"config": \#(Self.config), "user": "ada", "from": "2026-01-05T09:00:00Z"}"#.utf8)
            let answer = try await control.call("POST", "checks/schedule", json: body)
            let json = try JSONValue(parsing: answer.body)
            #expect(json["until"]?.stringValue == "2026-01-05T11:20:00.000Z")
            let reminder = json["notifications"]?[0]
            // Due 10:10; the check at 10:15 finds no wifi, the one at 10:30 finds it.
            #expect(reminder?["deliveries"]?[0]?["time"]?.stringValue == "2026-01-05T10:30:00.000Z")
            #expect(reminder?["deliveries"]?[0]?["reason"]?.stringValue == "ideal-conditions-met")
            #expect(reminder?["deliveries"]?[0]?["localTime"]?.stringValue == "Mon 2026-01-05 11:30")
            #expect(reminder?["outcome"]?["state"]?.stringValue == "delivered")

            let config = try InAppNotificationConfig(json: Array(Self.config.utf8))
            let local = try mock.onDeviceSchedule(
                config, user: "ada", from: Timestamp(millisecondsSince1970: ISO8601Milliseconds.parse("2026-01-05T09:00:00Z")!))
            #expect(local.deliveryTimes("reminder").map(\.description) == ["2026-01-05T10:30:00.000Z"])

            let text = try await control.call("POST", "checks/schedule", query: [("format", "text")], json: body)
            #expect(String(decoding: text.body, as: UTF8.self).contains("reminder: 1 delivered, delivered"))

            let badCondition = try await control.request(
                "POST", "checks/schedule",
                json: Array(
                    #"{"config": {"notifications": {"n": {"deliveryTime": {"eventName": "x"}, "scheduleCondition": "a ="}}}, "user": "ada", "from": 0}"#
                        .utf8))
            #expect(badCondition.status == 400)
            #expect(badCondition.errorMessage?.contains("config: notifications.n.scheduleCondition:") == true, "\(badCondition.text)")
            let unknown = try await control.request(
                "POST", "checks/schedule", json: Array(#"{"config": \#(Self.config), "user": "zed", "from": 0}"#.utf8))
            #expect(unknown.status == 404)
            let noFrom = try await control.request(
                "POST", "checks/schedule", json: Array(#"{"config": \#(Self.config), "user": "ada"}"#.utf8))
            #expect(noFrom.status == 400)
            #expect(try await control.request("GET", "checks/schedule").status == 405)
            await control.close()
        }
    }
}
