// Shared builders for the deep-link and policy tests (named like the test files of those two
// areas so it stays apart from the rest of the toolkit's tests).

import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit

enum LinkPolicyFixtures {
    static let token = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"
    static let otherToken = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
    static let fcmToken = "fcm-token-bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1"

    /// Milliseconds for `2026-03-28T22:00:00Z` (or with `.123`).
    static func time(_ iso: String) -> Int64 {
        guard let milliseconds = JournalTimestamp.parse(iso) else { fatalError("bad test timestamp \(iso)") }
        return milliseconds
    }

    /// An accepted (by default) APNs send.
    static func apns(
        _ payload: String,
        sequence: UInt64 = 1,
        at iso: String = "2026-03-28T12:00:00Z",
        token: String = token,
        pushType: String? = "alert",
        priority: Int? = 10,
        status: Int = 200
    ) -> ExchangeRecord {
        var headers = HTTPHeaderList()
        headers.append(name: "apns-topic", value: "health.loop.app")
        if let pushType { headers.append(name: "apns-push-type", value: pushType) }
        if let priority { headers.append(name: "apns-priority", value: String(priority)) }
        return ExchangeRecord(
            sequence: sequence,
            timeMilliseconds: time(iso),
            platform: .apns,
            request: RequestInfo(
                method: "POST",
                path: "/3/device/\(token)",
                headers: headers,
                body: RecordedBody(capturing: Array(payload.utf8)),
                bodySize: payload.utf8.count
            ),
            notification: NotificationInfo(
                token: token,
                topic: "health.loop.app",
                pushType: pushType,
                priority: priority ?? 10,
                messageID: "00000000-0000-4000-8000-\(String(repeating: "0", count: 12 - String(sequence).count))\(sequence)"
            ),
            response: ResponseInfo(status: status, reason: status == 200 ? nil : "BadDeviceToken")
        )
    }

    /// An accepted (by default) FCM send; `message` is the inside of `{"message": …}`.
    static func fcm(
        _ message: String,
        sequence: UInt64 = 1,
        at iso: String = "2026-03-28T12:00:00Z",
        token: String? = fcmToken,
        topic: String? = nil,
        resolvedTokens: [String]? = nil,
        status: Int = 200,
        validateOnly: Bool = false
    ) -> ExchangeRecord {
        let body = validateOnly ? #"{"validate_only":true,"message":\#(message)}"# : #"{"message":\#(message)}"#
        return ExchangeRecord(
            sequence: sequence,
            timeMilliseconds: time(iso),
            platform: .fcm,
            request: RequestInfo(
                method: "POST",
                path: "/v1/projects/loop-health/messages:send",
                body: RecordedBody(capturing: Array(body.utf8)),
                bodySize: body.utf8.count
            ),
            notification: NotificationInfo(
                token: token,
                topic: topic,
                messageID: "projects/loop-health/messages/0:\(sequence)",
                project: "loop-health",
                resolvedTokens: resolvedTokens ?? token.map { [$0] } ?? []
            ),
            response: ResponseInfo(status: status),
            annotations: validateOnly ? ["validateOnly": "true"] : [:]
        )
    }

    // MARK: The Loop example

    /// `Examples/LoopHealth/pushmock` in this checkout.
    static let loopDirectory: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Examples/LoopHealth/pushmock").path
    }()

    static func loopRoutes() throws -> RouteTable {
        try RouteTable(contentsOfFile: loopDirectory + "/routes.json")
    }

    static func loopPolicy() throws -> PolicyFile {
        try PolicyFile(contentsOfFile: loopDirectory + "/policy.json")
    }

    /// The six Loop workflows as APNs payloads (custom keys beside `aps`), with the user's zone.
    enum LoopPayload {
        static func doseReminder(protocolID: String = "p1", compound: String = "Semaglutide", level: String? = nil) -> String {
            let interruption = level.map { #","interruption-level":"\#($0)""# } ?? ""
            return #"""
                {"aps":{"alert":{"title":"Time for your \#(compound)","body":"Your weekly dose is due."},"category":"DOSE_REMINDER","sound":"default"\#(interruption)},"type":"dose_reminder","tz":"Europe/Berlin","protocol_id":"\#(protocolID)","deep_link":"loop://protocols/\#(protocolID)/log","actions":[{"id":"LOG_DOSE","title":"Log Dose","link":"loop://protocols/\#(protocolID)/log"},{"id":"SNOOZE_15M","title":"Snooze 15m"}]}
                """#
        }

        static let supplyLow = #"""
            {"aps":{"alert":{"title":"Semaglutide pens running low","body":"5 days remaining"},"category":"SUPPLY_LOW"},"type":"supply_low","tz":"Europe/Berlin","days_remaining":5,"reorder_url":"https://pharmacy.example/reorder/s1","deep_link":"loop://supplies/s1"}
            """#

        static let milestone = #"""
            {"aps":{"alert":{"title":"30-day streak!","body":"You logged every dose for 30 days."},"mutable-content":1},"type":"adherence_milestone","tz":"Europe/Berlin","streak_days":30,"image_url":"https://cdn.loop.example/badges/streak-30.png","deep_link":"loop://achievements"}
            """#

        static let labResults = #"""
            {"aps":{"alert":{"title":"Your lab results are ready","body":"Tap to review them with your clinician's notes."},"category":"LAB_RESULTS","interruption-level":"time-sensitive"},"type":"lab_results","tz":"Europe/Berlin","deep_link":"loop://labs/l1","actions":{"VIEW_RESULTS":"loop://labs/l1","ASK_LUNA":"loop://chat?context=lab_l1"}}
            """#

        static let protocolUpdated = #"""
            {"aps":{"alert":{"title":"Your protocol was updated","body":"Dr. Rivera changed your dose schedule."}},"type":"protocol_updated","tz":"Europe/Berlin","deep_link":"loop://protocols/p1"}
            """#

        static let weeklyCheckIn = #"""
            {"aps":{"alert":{"title":"Weekly check-in","body":"How was your week?"}},"type":"weekly_checkin","tz":"Europe/Berlin","deep_link":"loop://checkin"}
            """#

        static func marketing(_ title: String = "New: Loop Plus") -> String {
            #"{"aps":{"alert":{"title":"\#(title)","body":"Try it free for a month."}},"type":"marketing","tz":"Europe/Berlin","deep_link":"loop://achievements"}"#
        }
    }
}
