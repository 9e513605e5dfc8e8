import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockSimulation
import PushMockTesting
import PushMockTransport
import Testing

/// 2026-11-21T10:00:00Z.
private let tenOClock = Timestamp(millisecondsSince1970: 1_795_255_200_000)
private let token = PushMockHarness.sampleDeviceToken

private func decodeJSON(_ response: ControlResponse) throws -> JSONValue {
    try JSONValue(parsing: response.body)
}

@Suite("Clock control")
struct ClockControlTests {
    @Test("freeze, set, advance, resume and reset over the control API")
    func controlAPI() async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let initial = try await control.call("GET", "clock").decode(ClockReading.self)
            #expect(initial.controllable)
            #expect(!initial.frozen)
            #expect(abs(initial.offsetMilliseconds) < 1000, "runs with real time by default")

            let frozen = try await control.call("POST", "clock/freeze", json: Array(#"{"at":"2026-11-21T10:00:00Z"}"#.utf8)).decode(
                ClockReading.self)
            #expect(frozen.frozen)
            #expect(frozen.now == "2026-11-21T10:00:00.000Z")
            #expect(mock.state.clock.now() == tenOClock, "everything reads the same clock")

            let advanced = try await control.call("POST", "clock/advance", json: Array(#"{"by":"1h30m"}"#.utf8)).decode(ClockReading.self)
            #expect(advanced.now == "2026-11-21T11:30:00.000Z")
            let seconds = try await control.call("POST", "clock/advance", json: Array(#"{"by":-90}"#.utf8)).decode(ClockReading.self)
            #expect(seconds.now == "2026-11-21T11:28:30.000Z", "a number is seconds")
            let set = try await control.call("POST", "clock/set", json: Array(#"{"to":1795255200000}"#.utf8)).decode(ClockReading.self)
            #expect(set.nowMilliseconds == tenOClock.millisecondsSince1970)
            #expect(set.frozen, "setting a frozen clock keeps it frozen")

            let resumed = try await control.call("POST", "clock/resume").decode(ClockReading.self)
            #expect(!resumed.frozen)
            #expect(resumed.nowMilliseconds - tenOClock.millisecondsSince1970 < 1000, "runs on from where it stood")
            let reset = try await control.call("POST", "clock/reset").decode(ClockReading.self)
            #expect(abs(reset.offsetMilliseconds) < 1000)

            #expect(try await control.request("POST", "clock/set").status == 400)
            let bad = try await control.request("POST", "clock/advance", json: Array(#"{"by":"soon"}"#.utf8))
            #expect(bad.status == 400)
            #expect(bad.errorMessage?.contains("duration") == true)
            // No such route: 404. A route with another method: 405.
            #expect(try await control.request("POST", "clock/rewind").status == 404)
            #expect(try await control.request("GET", "clock/freeze").status == 405)
            await control.close()
        }
    }

    @Test("an injected clock that is not virtual cannot be changed: 409")
    func injectedClock() async throws {
        try await withPushMock(clock: SystemClock()) { mock in
            let control = try mock.controlClient()
            let reading = try await control.call("GET", "clock").decode(ClockReading.self)
            #expect(!reading.controllable)
            let refused = try await control.request("POST", "clock/freeze")
            #expect(refused.status == 409)
            await control.close()
        }
    }

    @Test("provider-token age follows the virtual clock: one hour later the same token is expired")
    func providerTokenAge() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            let jwt = try mock.providerToken()
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: jwt)))
            mock.clock.advance(by: .seconds(3599))
            expectAccepted(try await connection.send(try mock.apnsRequest(providerToken: jwt)))
            mock.clock.advance(by: .seconds(2))
            expectAPNsError(
                try await connection.send(try mock.apnsRequest(providerToken: jwt)), status: 403, reason: "ExpiredProviderToken")
            await connection.close()
        }
    }
}

@Suite("Simulated devices")
struct SimulatedDeviceTests {
    /// Five notifications with one collapse id and a ten-minute expiration to an offline device.
    static func sendFive(_ mock: PushMockHarness, _ connection: HTTP2ClientConnection) async throws -> [String] {
        var ids: [String] = []
        let expiration = mock.state.clock.now().secondsSince1970 + 600
        for index in 1...5 {
            let response = try await connection.send(
                try mock.apnsRequest(
                    payload: #"{"aps":{"alert":{"title":"Score \#(index)","body":"match update"}}}"#,
                    headers: [("apns-collapse-id", "score"), ("apns-expiration", String(expiration))]
                ))
            expectAccepted(response)
            ids.append(try #require(response.header("apns-id")))
        }
        return ids
    }

    @Test(
        "the developer story: offline, five with one collapse id, clock advanced, back online",
        arguments: [
            (advanceSeconds: Int64(300), showsLast: true), (advanceSeconds: 900, showsLast: false),
        ])
    func offlineCollapseExpiration(advanceSeconds: Int64, showsLast: Bool) async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: tenOClock)
            mock.setConnectivity(.offline, token: token)
            let connection = try await mock.connect()
            let ids = try await Self.sendFive(mock, connection)
            await connection.close()

            let stored = try #require(mock.device(token))
            #expect(stored.stored.map(\.notification.id) == [ids[4]])
            #expect(stored.notifications.prefix(4).allSatisfy { $0.status == .collapsed })

            mock.clock.advance(by: .seconds(advanceSeconds))
            let device = mock.setConnectivity(.online, token: token)
            let report = DeviceReport(device, detailed: true)
            if showsLast {
                #expect(report.showing == [ids[4]])
                #expect(report.notifications?.last?.title == "Score 5")
                #expect(report.notifications?.last?.deliveredAt == "2026-11-21T10:05:00.000Z")
            } else {
                #expect(report.showing.isEmpty)
                #expect(report.notifications?.last?.status == .expired)
                #expect(report.notifications?.last?.statusAt == "2026-11-21T10:10:00.000Z", "expired at its apns-expiration")
            }
            #expect(report.notifications?.map(\.sequence) == [1, 2, 3, 4, 5], "each links to its recording")
        }
    }

    @Test(
        "the device keeps each notification's apns-id exactly as answered: sent in any case, or made by the gateway",
        arguments: [
            "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35", "4C1B5F0E-9A3D-4E2B-8F6A-0D9C7B2E1A35", "4c1B5F0E-9a3d-4e2b-8f6a-0d9c7b2e1a35", nil,
        ]
            as [String?])
    func apnsIDsAsAnswered(sent: String?) async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let response = try await connection.send(try mock.apnsRequest(headers: sent.map { [("apns-id", $0)] } ?? []))
            expectAccepted(response)
            let answered = try #require(response.header("apns-id"))
            if let sent { #expect(answered == sent) }
            await connection.close()
            let device = try #require(mock.device(token))
            #expect(device.notifications.map(\.notification.id) == [answered])
            #expect(device.timeline.compactMap(\.notificationID) == [answered])
        }
    }

    @Test("devices over the control API: list, show, connectivity, forget")
    func controlAPI() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            let control = try mock.controlClient()
            let offline = try decodeJSON(
                try await control.call("POST", "devices/apns/\(token.uppercased())", json: Array(#"{"connectivity":"offline"}"#.utf8)))
            #expect(offline["connectivity"]?.stringValue == "offline")
            #expect(offline["token"]?.stringValue == token, "canonical lower-case")

            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: #"{"aps":{"alert":"while away"}}"#)))
            expectAccepted(try await connection.send(try mock.apnsRequest(token: "aabbccddeeff00112233")))
            await connection.close()

            let list = try decodeJSON(try await control.call("GET", "devices"))
            #expect(list["devices"]?.arrayValue?.count == 2)
            #expect(list["devices"]?[0]?["notifications"] == nil, "listings are summaries")
            let offlineOnly = try decodeJSON(try await control.call("GET", "devices", query: [("connectivity", "offline")]))
            #expect(offlineOnly["devices"]?.arrayValue?.count == 1)

            let shown = try await control.call("GET", "devices/\(token)").decode(DeviceReport.self)
            #expect(shown.counts == ["stored": 1])
            #expect(shown.notifications?.first?.body == "while away")
            #expect(shown.timeline?.map(\.event) == ["connectivity", "stored"])

            let online = try await control.call("PATCH", "devices/apns/\(token)", json: Array(#"{"connectivity":"online"}"#.utf8)).decode(
                DeviceReport.self)
            #expect(online.showing.count == 1)

            #expect(try await control.request("GET", "devices/apns/0011223344556677").status == 404)
            #expect(try await control.request("GET", "devices/other/abc").status == 400)
            #expect(
                try await control.request("POST", "devices/apns/\(token)", json: Array(#"{"connectivity":"asleep"}"#.utf8)).status == 400)
            #expect(try await control.call("DELETE", "devices/apns/\(token)").status == 200)
            #expect(try decodeJSON(try await control.call("DELETE", "devices"))["removed"]?.intValue == 1)
            await control.close()
        }
    }

    @Test("idle devices get priority 10 at once and priority 5 when they wake")
    func idlePriority() async throws {
        try await withPushMock { mock in
            mock.setConnectivity(.idle, token: token)
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: #"{"aps":{"alert":"urgent"}}"#)))
            expectAccepted(
                try await connection.send(
                    try mock.apnsRequest(
                        pushType: "background",
                        payload: #"{"aps":{"content-available":1}}"#,
                        headers: [("apns-priority", "5")]
                    )))
            await connection.close()
            let idle = try #require(mock.device(token))
            #expect(idle.notifications.map(\.status) == [.delivered, .stored])
            let awake = mock.setConnectivity(.online, token: token)
            #expect(awake.notifications.map(\.status) == [.delivered, .delivered])
            #expect(DeviceReport(awake, detailed: true).showing.count == 1, "a background push is delivered but shows nothing")
        }
    }

    @Test("what a fault answered never reaches the device; a delayed answer does")
    func faultsAndDelivery() async throws {
        try await withPushMock { mock in
            _ = try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .apnsError(reason: "InternalServerError")))
            _ = try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .reset()))
            _ = try mock.addFault(FaultRule(trigger: FaultTrigger(count: 1), action: .pass, latency: Latency(fixedMs: 1)))
            let connection = try await mock.connect()
            #expect(try await connection.send(try mock.apnsRequest()).status == 500)
            await #expect(throws: (any Error).self) { _ = try await connection.send(try mock.apnsRequest()) }
            await connection.close()
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            #expect(mock.device(token)?.notifications.count == 1)
            #expect(mock.recordings.count == 3)
        }
    }

    @Test("device simulation can be turned off")
    func disabled() async throws {
        try await withPushMock(configure: { $0.simulation.simulateDevices = false }) { mock in
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            #expect(mock.state.simulatedDevices.count == 0)
        }
    }
}

@Suite("Simulated FCM devices")
struct SimulatedFCMDeviceTests {
    static let android = "android-token-1:APA91bXYZ"
    static let iphone = "ios-token-1:APA91bXYZ"

    /// FCM's platform blocks are outside its 4 KB budget, so a message may carry most of a
    /// megabyte, and a device keeps 200: three tokens sent 210 such messages held 600 MB.
    @Test("the payloads devices hold are bounded in bytes: the least recently active devices are forgotten")
    func payloadBudget() async throws {
        try await withPushMock(configure: { $0.simulation.limits.payloadMebibytes = 1 }) { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let big = String(repeating: "x", count: 200_000)
            let tokens = (0..<4).map { "budget-token-\($0):APA91bXYZ" }
            for token in tokens {
                for round in 0..<3 {
                    let response = try await connection.send(
                        mock.fcmSend(
                            #"{"message":{"token":"\#(token)","android":{"data":{"n":"\#(round)","pad":"\#(big)"}}}}"#,
                            accessToken: accessToken))
                    #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
                }
            }
            await connection.close()
            // 2.4 MB were sent; what the devices hold stays within the budget (the last batch's
            // payload may still be in flight when the budget is checked, hence one more).
            #expect(mock.state.simulatedDevices.contentLedger.heldBytes <= (1 << 20) + 200_100)
            #expect(mock.device(tokens[3], service: .fcm)?.notifications.count == 3, "the most recent device stays")
            #expect(mock.device(tokens[0], service: .fcm) == nil, "the least recently active is forgotten")
            // Every push is still in the recordings: only the devices' copies are bounded.
            #expect(mock.recordings.records { $0.platform == .fcm }.count == 12)
        }
    }

    @Test("Android: TTL, collapse keys and priority; iOS through FCM: APNs's one-per-app rule; dry runs deliver nothing")
    func fcmStorage() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.state.fcmTokens.register(
                FCMTokenRecord(token: FCMRegistrationToken(Self.android), project: FCMProjectID(mock.project), platform: .android))
            mock.state.fcmTokens.register(
                FCMTokenRecord(token: FCMRegistrationToken(Self.iphone), project: FCMProjectID(mock.project), platform: .ios))
            mock.setConnectivity(.offline, token: Self.android, service: .fcm)
            mock.setConnectivity(.offline, token: Self.iphone, service: .fcm)
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            func send(_ message: String) async throws {
                let response = try await connection.send(mock.fcmSend(#"{"message":\#(message)}"#, accessToken: accessToken))
                #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            }
            try await send(#"{"token":"\#(Self.android)","data":{"n":"1"},"android":{"ttl":"60s"}}"#)
            try await send(#"{"token":"\#(Self.android)","data":{"n":"2"},"android":{"collapse_key":"sync"}}"#)
            try await send(#"{"token":"\#(Self.android)","data":{"n":"3"},"android":{"collapseKey":"sync","ttl":"3600s"}}"#)
            try await send(#"{"token":"\#(Self.android)","data":{"n":"4"},"android":{"ttl":"0s"}}"#)
            try await send(#"{"token":"\#(Self.android)","notification":{"title":"Hi"}}"#)
            let dryRun = try await connection.send(
                mock.fcmSend(#"{"validate_only":true,"message":{"token":"\#(Self.android)","data":{"n":"dry"}}}"#, accessToken: accessToken)
            )
            #expect(dryRun.status == 200)
            try await send(#"{"token":"\#(Self.iphone)","notification":{"title":"first"}}"#)
            try await send(#"{"token":"\#(Self.iphone)","notification":{"title":"second"}}"#)
            await connection.close()

            let android = try #require(mock.device(Self.android, service: .fcm))
            #expect(android.policy == .fcm)
            #expect(android.notifications.map(\.status) == [.stored, .collapsed, .stored, .dropped, .stored])
            #expect(android.notifications.last?.notification.priority == .high, "notification messages default to high")
            #expect(android.notifications.first?.notification.priority == .normal, "data messages to normal")

            mock.clock.advance(by: .seconds(120))
            let back = mock.setConnectivity(.online, token: Self.android, service: .fcm)
            #expect(back.notifications.map(\.status) == [.expired, .collapsed, .delivered, .dropped, .delivered])
            #expect(DeviceReport(back, detailed: true).showing.count == 1, "only the notification message shows")

            let iphone = try #require(mock.device(Self.iphone, service: .fcm))
            #expect(iphone.policy == .apns)
            #expect(iphone.notifications.map(\.status) == [.dropped, .stored], "APNs keeps the newest per app")
        }
    }

    @Test("a topic send reaches every subscribed device")
    func topicFanOut() async throws {
        try await withPushMock { mock in
            for name in ["a-token-123", "b-token-123"] {
                mock.state.fcmTokens.register(
                    FCMTokenRecord(token: FCMRegistrationToken(name), project: FCMProjectID(mock.project), topics: ["news"]))
            }
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let response = try await connection.send(
                mock.fcmSend(#"{"message":{"topic":"news","notification":{"title":"Extra"}}}"#, accessToken: accessToken))
            #expect(response.status == 200)
            await connection.close()
            #expect(mock.device("a-token-123", service: .fcm)?.displayed.count == 1)
            #expect(mock.device("b-token-123", service: .fcm)?.displayed.count == 1)
        }
    }
}

@Suite("Token lifecycle")
struct TokenLifecycleTests {
    @Test("QA story: uninstalled at 10:02 through the control API; the next send is 410 with that timestamp")
    func uninstalledAt() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            mock.clock.set(to: tenOClock)
            let control = try mock.controlClient()
            let patched = try decodeJSON(
                try await control.call(
                    "PATCH", "apns/tokens/\(token)", json: Array(#"{"state":"unregistered","at":"2026-11-21T10:02:00Z"}"#.utf8)
                ))
            #expect(patched["state"]?.stringValue == "unregistered")
            #expect(patched["bundleId"] == nil, "a token registered only to script it is bound to no app")
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            mock.clock.advance(by: .seconds(300))
            let gone = try await mock.sendOnNewConnection(try mock.apnsRequest())
            expectAPNsError(gone, status: 410, reason: "Unregistered")
            #expect(gone.apnsTimestamp == tenOClock.millisecondsSince1970 + 120_000)
            #expect(try await control.request("PATCH", "apns/tokens/\(token)", json: Array(#"{"state":"gone"}"#.utf8)).status == 400)
            #expect(try await control.request("PATCH", "apns/tokens/xyz", json: Array(#"{"state":"active"}"#.utf8)).status == 400)
            await control.close()
        }
    }

    @Test(
        "APNs: expire after N sends, as ExpiredToken or Unregistered",
        arguments: [
            (endOfLife: "expired", reason: "ExpiredToken"), (endOfLife: "unregistered", reason: "Unregistered"),
        ])
    func apnsExpireAfterSends(endOfLife: String, reason: String) async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            _ = try await control.call(
                "PATCH", "apns/tokens/\(token)", json: Array(#"{"expireAfterSends":2,"expireAs":"\#(endOfLife)"}"#.utf8))
            let connection = try await mock.connect()
            expectAPNsError(try await connection.send(try mock.apnsRequest(payload: "")), status: 400, reason: "PayloadEmpty")
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            expectAccepted(try await connection.send(try mock.apnsRequest()))
            expectAPNsError(try await connection.send(try mock.apnsRequest()), status: 410, reason: reason)
            await connection.close()
            let record = try decodeJSON(try await control.call("GET", "apns/tokens/\(token)"))
            #expect(record["sends"]?.intValue == 2, "a rejected request uses up no send")
            await control.close()
        }
    }

    @Test("rotation: the old token dies, the new one works for the same app")
    func apnsRotation() async throws {
        try await withPushMock { mock in
            mock.state.devices.register(APNsDeviceRecord(token: APNsDeviceToken(token), bundleID: mock.topic, environment: .sandbox))
            let control = try mock.controlClient()
            let rotation = try decodeJSON(try await control.call("POST", "apns/tokens/\(token)/rotate"))
            let newToken = try #require(rotation["new"]?["token"]?.stringValue)
            #expect(newToken.count == 64)
            #expect(rotation["old"]?["replacedBy"]?.stringValue == newToken)
            #expect(rotation["new"]?["bundleId"]?.stringValue == mock.topic)
            expectAPNsError(try await mock.sendOnNewConnection(try mock.apnsRequest()), status: 410, reason: "Unregistered")
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(token: newToken)))
            let chosen = try decodeJSON(
                try await control.call("POST", "apns/tokens/\(newToken)/rotate", json: Array(#"{"newToken":"AABBCCDDEEFF0011"}"#.utf8)))
            #expect(chosen["new"]?["token"]?.stringValue == "aabbccddeeff0011")
            await control.close()
        }
    }

    @Test("FCM: expire after N sends (404 UNREGISTERED), rotation keeps topic subscriptions")
    func fcmLifecycle() async throws {
        try await withPushMock { mock in
            let registration = PushMockHarness.sampleRegistrationToken
            mock.state.fcmTokens.register(
                FCMTokenRecord(token: FCMRegistrationToken(registration), project: FCMProjectID(mock.project), topics: ["news"]))
            let control = try mock.controlClient()
            _ = try await control.call("PATCH", "fcm/tokens/\(registration)", json: Array(#"{"expireAfterSends":1}"#.utf8))
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let body = #"{"message":{"token":"\#(registration)","data":{"k":"v"}}}"#
            let dryRun = try await connection.send(
                mock.fcmSend(#"{"validate_only":true,"message":{"token":"\#(registration)"}}"#, accessToken: accessToken))
            #expect(dryRun.status == 200, "a dry run uses up no send")
            #expect(try await connection.send(mock.fcmSend(body, accessToken: accessToken)).status == 200)
            let gone = try await connection.send(mock.fcmSend(body, accessToken: accessToken))
            #expect(gone.status == 404)
            #expect(gone.googleError?.errorCode == "UNREGISTERED")

            let rotation = try decodeJSON(try await control.call("POST", "fcm/tokens/\(registration)/rotate"))
            let newToken = try #require(rotation["new"]?["token"]?.stringValue)
            #expect(FCMRegistrationToken.isWellFormed(newToken, rule: .realistic))
            #expect(rotation["new"]?["topics"]?.arrayValue?.compactMap(\.stringValue) == ["news"])
            let fresh = try await connection.send(
                mock.fcmSend(#"{"message":{"token":"\#(newToken)","data":{"k":"v"}}}"#, accessToken: accessToken))
            #expect(fresh.status == 200)
            await connection.close()
            await control.close()
        }
    }
}

@Suite("Simulation stories in Swift")
struct SimulationStoryTests {
    @Test("CI story: APNs is down for 2 minutes, then throttles")
    func outageThenThrottling() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            let control = try mock.controlClient()
            _ = try await control.call("POST", "faults/presets/outage", json: Array(#"{"forSeconds":120,"platform":"apns"}"#.utf8))
            _ = try await control.call(
                "POST", "faults/presets/throttling",
                json: Array(#"{"startsInSeconds":120,"limit":1,"perSeconds":1,"platform":"apns"}"#.utf8))
            let connection = try await mock.connect()
            func status() async throws -> String {
                let response = try await connection.send(try mock.apnsRequest())
                return response.apnsReason ?? String(response.status)
            }
            #expect(try await status() == "ServiceUnavailable")
            mock.clock.advance(by: .seconds(120))
            #expect(try await status() == "200")
            #expect(try await status() == "TooManyRequests")
            mock.clock.advance(by: .seconds(1))
            #expect(try await status() == "200")
            await connection.close()
            await control.close()
        }
    }

    @Test("device-token-expiry preset: APNs 410 Unregistered stamped now, FCM 404 UNREGISTERED, only for matching tokens")
    func deviceTokenExpiryPreset() async throws {
        try await withPushMock { mock in
            mock.clock.freeze()
            let control = try mock.controlClient()
            _ = try await control.call("POST", "faults/presets/device-token-expiry", json: Array(#"{"token":"00fc*"}"#.utf8))
            let gone = try await mock.sendOnNewConnection(try mock.apnsRequest())
            expectAPNsError(gone, status: 410, reason: "Unregistered")
            #expect(gone.apnsTimestamp == mock.state.clock.now().millisecondsSince1970)
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest(token: "aabbccddeeff00112233")))
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let fcm = try await connection.send(
                mock.fcmSend(#"{"message":{"token":"00fc-registration-token","data":{"k":"v"}}}"#, accessToken: accessToken))
            #expect(fcm.status == 404)
            #expect(fcm.googleError?.errorCode == "UNREGISTERED")
            await connection.close()
            await control.close()
        }
    }

    @Test("the configuration file sets the clock and starts devices offline")
    func configurationFile() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/pushmock.json"
        try """
        {"clock": {"start": "2026-11-21T10:00:00Z", "frozen": true},
         "simulation": {"defaultConnectivity": "online", "devices": [{"service": "apns", "token": "\(token)", "connectivity": "offline"}]},
         "apns": {"tokens": [{"token": "aabbccdd00112233", "expireAfterSends": 1}]}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let file = try ConfigurationFile.load(path: path)
        try await withPushMock(configure: { file.apply(to: &$0) }) { mock in
            try file.register(in: mock.state)
            #expect(mock.state.clock.now() == tenOClock)
            #expect(mock.device(token)?.connectivity == .offline)
            #expect(mock.state.devices.lookup("aabbccdd00112233")?.expireAfterSends == 1)
        }
        try #"{"clock": {"begin": "now"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: DefinitionError.self) { try ConfigurationFile.load(path: path) }
    }
}

@Suite("Lint findings in recordings")
struct LintRecordingTests {
    @Test("an accepted background push at priority 10 is recorded with a finding; the answer is unchanged")
    func apnsFinding() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            expectAccepted(
                try await connection.send(try mock.apnsRequest(pushType: "background", payload: #"{"aps":{"content-available":1}}"#)))
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: #"{"aps":{"alert":{"title":"Clean","body":"alert"}}}"#)))
            expectAPNsError(try await connection.send(try mock.apnsRequest(payload: "")), status: 400, reason: "PayloadEmpty")
            await connection.close()
            let records = mock.recordings.records(newestFirst: false)
            #expect(records.count == 3)
            let codes = records.map { $0.notification?.lint.map(\.code) ?? [] }
            #expect(codes[0] == ["apns.background-high-priority"])
            #expect(codes[1].isEmpty, "a clean alert has no findings")
            #expect(codes[2].isEmpty, "rejected requests are not linted")
            #expect(records[0].notification?.lint.first?.source.hasPrefix("https://developer.apple.com") == true)

            // The REST view carries the same findings (the journal line as stored).
            let control = try mock.controlClient()
            let listing = try JSONValue(parsing: try await control.call("GET", "recordings", query: [("limit", "3")]).body)
            let oldest = listing["records"]?.arrayValue?.last
            #expect(oldest?["notification"]?["lint"]?[0]?["code"]?.stringValue == "apns.background-high-priority")
            await control.close()
        }
    }

    @Test("one template to many tokens: every record keeps its findings; expiration is judged at each request's second")
    func apnsRepeatedTemplate() async throws {
        try await withPushMock { mock in
            let clock = try #require(mock.state.virtualClock)
            clock.freeze()
            let connection = try await mock.connect()
            let expiresAt = clock.now().secondsSince1970 + 2
            for index in 0..<5 {
                expectAccepted(
                    try await connection.send(
                        try mock.apnsRequest(
                            token: String(repeating: "0", count: 63) + String(index), pushType: "background",
                            payload: #"{"aps":{"content-available":1}}"#, headers: [("apns-expiration", String(expiresAt))])))
            }
            // Same request bytes, three seconds later: now the expiration is in the past.
            clock.advance(by: .seconds(3))
            expectAccepted(
                try await connection.send(
                    try mock.apnsRequest(
                        pushType: "background", payload: #"{"aps":{"content-available":1}}"#,
                        headers: [("apns-expiration", String(expiresAt))])))
            await connection.close()
            let records = mock.recordings.records(newestFirst: false)
            #expect(records.count == 6)
            for record in records.prefix(5) {
                #expect(record.notification?.lint.map(\.code) == ["apns.background-high-priority"])
            }
            #expect(records[5].notification?.lint.map(\.code).sorted() == ["apns.background-high-priority", "apns.expiration-in-past"])
        }
    }

    @Test("requests that alternate on one connection each keep their own findings")
    func apnsAlternatingTemplates() async throws {
        try await withPushMock { mock in
            let clock = try #require(mock.state.virtualClock)
            clock.freeze()
            let connection = try await mock.connect()
            let background = #"{"aps":{"content-available":1}}"#
            // The same payload at priority 10 (a finding) and 5 (none), and an alert (none):
            // each request's findings are its own, whichever request came just before.
            let shapes: [(payload: String, pushType: String, headers: [(String, String)], codes: [String])] = [
                (background, "background", [], ["apns.background-high-priority"]),
                (background, "background", [("apns-priority", "5")], []),
                (#"{"aps":{"alert":"Hi"}}"#, "alert", [], []),
            ]
            let order = [0, 1, 0, 2, 2, 1, 1, 0, 0, 2, 0]
            for shape in order {
                expectAccepted(
                    try await connection.send(
                        try mock.apnsRequest(
                            pushType: shapes[shape].pushType, payload: shapes[shape].payload, headers: shapes[shape].headers)))
            }
            await connection.close()
            let records = mock.recordings.records(newestFirst: false)
            #expect(records.count == order.count)
            for (record, shape) in zip(records, order) {
                #expect(record.notification?.lint.map(\.code) ?? [] == shapes[shape].codes, "request shape \(shape)")
            }
        }
    }

    @Test("a data-only FCM message to an iOS token at apns-priority 10 is recorded with a finding")
    func fcmFinding() async throws {
        try await withPushMock { mock in
            let iphone = "ios-token-1:APA91bXYZ"
            mock.state.fcmTokens.register(
                FCMTokenRecord(token: FCMRegistrationToken(iphone), project: FCMProjectID(mock.project), platform: .ios))
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let body = #"{"message":{"token":"\#(iphone)","data":{"k":"v"},"apns":{"headers":{"apns-priority":"10"}}}}"#
            #expect(try await connection.send(mock.fcmSend(body, accessToken: accessToken)).status == 200)
            await connection.close()
            let record = try #require(mock.recordings.records(filter: { $0.platform == .fcm }).first)
            #expect(record.notification?.lint.map(\.code).contains("fcm.ios-data-only-high-priority") == true)
        }
    }

    @Test("linting can be turned off")
    func disabled() async throws {
        try await withPushMock(configure: { $0.simulation.lint = nil }) { mock in
            expectAccepted(
                try await mock.sendOnNewConnection(
                    try mock.apnsRequest(pushType: "background", payload: #"{"aps":{"content-available":1}}"#)))
            #expect(mock.recordings.records(filter: { _ in true }).first?.notification?.lint.isEmpty == true)
        }
    }
}
