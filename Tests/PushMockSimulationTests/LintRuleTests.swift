import PushMockCore
import PushMockJSON
import PushMockSimulation
import Testing

/// A rule, a notification that must trigger it, and a closely related one that must not.
struct LintRuleCase: Sendable, CustomTestStringConvertible {
    var code: LintCode
    var note: String
    var triggers: LintSample
    var passes: LintSample

    init(_ code: LintCode, _ note: String, triggers: LintSample, passes: LintSample) {
        self.code = code
        self.note = note
        self.triggers = triggers
        self.passes = passes
    }

    var testDescription: String { "\(code): \(note)" }
}

private let alert = #"{"aps":{"alert":{"title":"Hi","body":"There"}}}"#
private let background = #"{"aps":{"content-available":1},"sync":"inbox"}"#
private let entitled = LintConfiguration(criticalAlerts: .bundleIDs(["com.example.app"]))

extension LintRuleCase {
    static let apns: [LintRuleCase] = [
        LintRuleCase(
            .apnsMissingPushType, "header omitted",
            triggers: .apns(alert, type: nil),
            passes: .apns(alert, type: .alert)
        ),
        LintRuleCase(
            .apnsBackgroundHighPriority, "background at 10",
            triggers: .apns(background, type: .background, priority: .immediate),
            passes: .apns(background, type: .background, priority: .considerPower)
        ),
        LintRuleCase(
            .apnsBackgroundHighPriority, "background with priority omitted (means 10)",
            triggers: .apns(background, type: .background, priority: nil),
            passes: .apns(background, type: .background, priority: .prioritizePower)
        ),
        LintRuleCase(
            .apnsBackgroundHighPriority, "content-available-only payload sent as alert at 10",
            triggers: .apns(#"{"aps":{"content-available":1}}"#, type: .alert, priority: .immediate),
            passes: .apns(#"{"aps":{"content-available":1,"alert":"Hi"}}"#, type: .alert, priority: .immediate)
        ),
        LintRuleCase(
            .apnsExpirationInPast, "a duration instead of a UNIX time",
            triggers: .apns(alert, expiration: 300),
            passes: .apns(alert, expiration: 0)
        ),
        LintRuleCase(
            .apnsExpirationInPast, "one second ago",
            triggers: .apns(alert, expiration: lintNow.secondsSince1970 - 1),
            passes: .apns(alert, expiration: lintNow.secondsSince1970 + 3600)
        ),
        LintRuleCase(
            .apnsCollapseIDOnBackground, "background push",
            triggers: .apns(background, type: .background, priority: .considerPower, collapseID: "inbox"),
            passes: .apns(alert, type: .alert, collapseID: "inbox")
        ),
        LintRuleCase(
            .apnsPriorityOneUserFacing, "alert at priority 1",
            triggers: .apns(alert, priority: .prioritizePower),
            passes: .apns(alert, priority: .considerPower)
        ),
        LintRuleCase(
            .apnsPriorityOneUserFacing, "voip at priority 1",
            triggers: .apns(#"{"caller":"Alice"}"#, type: .voip, priority: .prioritizePower, topic: "com.example.app.voip"),
            passes: .apns(background, type: .background, priority: .prioritizePower)
        ),
        LintRuleCase(
            .apnsPayloadNotJSON, "truncated JSON",
            triggers: .apns(#"{"aps":{"alert":"Hi"}"#),
            passes: .apns(#"{"aps":{"alert":"Hi"}}"#)
        ),
        LintRuleCase(
            .apnsPayloadNotJSON, "an array",
            triggers: .apns(#"[{"aps":{"alert":"Hi"}}]"#),
            passes: .apns(#"{"aps":{"alert":"Hi"}}"#)
        ),
        LintRuleCase(
            .apnsApsMissing, "alert keys at the top level",
            triggers: .apns(#"{"alert":"Hi"}"#),
            passes: .apns(#"{"aps":{"alert":"Hi"}}"#)
        ),
        LintRuleCase(
            .apnsApsMissing, "aps is a string",
            triggers: .apns(#"{"aps":"Hi"}"#),
            passes: .apns(#"{"caller":"Alice"}"#, type: .voip, topic: "com.example.app.voip")
        ),
        LintRuleCase(
            .apnsAlertPushWithoutContent, "content-available only",
            triggers: .apns(#"{"aps":{"content-available":1}}"#, type: .alert, priority: .considerPower),
            passes: .apns(#"{"aps":{"content-available":1}}"#, type: .background, priority: .considerPower)
        ),
        LintRuleCase(
            .apnsAlertPushWithoutContent, "empty aps",
            triggers: .apns(#"{"aps":{"category":"MESSAGE"}}"#),
            passes: .apns(#"{"aps":{"category":"MESSAGE","badge":2}}"#)
        ),
        LintRuleCase(
            .apnsBackgroundWithUserContent, "sound on a background push",
            triggers: .apns(#"{"aps":{"content-available":1,"sound":"default"}}"#, type: .background, priority: .considerPower),
            passes: .apns(#"{"aps":{"content-available":1},"sound":"default"}"#, type: .background, priority: .considerPower)
        ),
        LintRuleCase(
            .apnsBackgroundWithoutContentAvailable, "custom data only",
            triggers: .apns(#"{"aps":{},"sync":"inbox"}"#, type: .background, priority: .considerPower),
            passes: .apns(background, type: .background, priority: .considerPower)
        ),
        LintRuleCase(
            .apnsContentAvailableNotOne, "true instead of 1",
            triggers: .apns(#"{"aps":{"content-available":true}}"#, type: .background, priority: .considerPower),
            passes: .apns(#"{"aps":{"content-available":1.0}}"#, type: .background, priority: .considerPower)
        ),
        LintRuleCase(
            .apnsContentAvailableNotOne, "0 on an alert",
            triggers: .apns(#"{"aps":{"alert":"Hi","content-available":0}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi"}}"#)
        ),
        LintRuleCase(
            .apnsMutableContentNotOne, "string \"1\"",
            triggers: .apns(#"{"aps":{"alert":"Hi","mutable-content":"1"}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","mutable-content":1}}"#)
        ),
        LintRuleCase(
            .apnsEmptyAlert, "title and body empty",
            triggers: .apns(#"{"aps":{"alert":{"title":"","body":""}}}"#),
            passes: .apns(#"{"aps":{"alert":{"title":"","body":"Hi"}}}"#)
        ),
        LintRuleCase(
            .apnsEmptyAlert, "empty string",
            triggers: .apns(#"{"aps":{"alert":"","sound":"default"}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","sound":"default"}}"#)
        ),
        LintRuleCase(
            .apnsEmptyAlert, "empty dictionary",
            triggers: .apns(#"{"aps":{"alert":{}}}"#),
            passes: .apns(#"{"aps":{"alert":{"loc-key":"NEW_MESSAGE"}}}"#)
        ),
        LintRuleCase(
            .apnsEmptyAlert, "a number",
            triggers: .apns(#"{"aps":{"alert":5}}"#),
            passes: .apns(#"{"aps":{"alert":"5"}}"#)
        ),
        LintRuleCase(
            .apnsMutableContentWithoutAlert, "sound only",
            triggers: .apns(#"{"aps":{"sound":"default","mutable-content":1}}"#),
            passes: .apns(#"{"aps":{"sound":"default","alert":{"body":"Hi"},"mutable-content":1}}"#)
        ),
        LintRuleCase(
            .apnsImageWithoutMutableContent, "image-url beside aps",
            triggers: .apns(#"{"aps":{"alert":"Hi"},"image-url":"https://example.com/a.png"}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","mutable-content":1},"image-url":"https://example.com/a.png"}"#)
        ),
        LintRuleCase(
            .apnsImageWithoutMutableContent, "FCM-style fcm_options.image",
            triggers: .apns(#"{"aps":{"alert":"Hi"},"fcm_options":{"image":"HTTPS://example.com/a.png"}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi"},"fcm_options":{"image":"a.png"}}"#)
        ),
        LintRuleCase(
            .apnsCriticalWithoutEntitlement, "interruption-level critical",
            triggers: .apns(#"{"aps":{"alert":"Fire","interruption-level":"critical"}}"#),
            passes: .apns(#"{"aps":{"alert":"Fire","interruption-level":"critical"}}"#, configuration: entitled)
        ),
        LintRuleCase(
            .apnsCriticalWithoutEntitlement, "critical sound dictionary",
            triggers: .apns(#"{"aps":{"alert":"Fire","sound":{"critical":1,"name":"default","volume":1}}}"#),
            passes: .apns(#"{"aps":{"alert":"Fire","sound":{"critical":0,"name":"default"}}}"#)
        ),
        LintRuleCase(
            .apnsCriticalWithoutEntitlement, "entitlement granted to another app",
            triggers: .apns(
                #"{"aps":{"alert":"Fire","interruption-level":"critical"}}"#,
                topic: "com.other.app",
                configuration: entitled
            ),
            passes: .apns(
                #"{"aps":{"alert":"Fire","interruption-level":"critical"}}"#,
                configuration: LintConfiguration(criticalAlerts: .all)
            )
        ),
        LintRuleCase(
            .apnsUnknownInterruptionLevel, "Apple's typo",
            triggers: .apns(#"{"aps":{"alert":"Hi","interruption-level":"time-senstive"}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","interruption-level":"time-sensitive"}}"#)
        ),
        LintRuleCase(
            .apnsUnknownInterruptionLevel, "camel case",
            triggers: .apns(#"{"aps":{"alert":"Hi","interruption-level":"timeSensitive"}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","interruption-level":"passive"}}"#)
        ),
        LintRuleCase(
            .apnsRelevanceScoreOutOfRange, "above 1",
            triggers: .apns(#"{"aps":{"alert":"Hi","relevance-score":1.5}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","relevance-score":0.5}}"#)
        ),
        LintRuleCase(
            .apnsRelevanceScoreOutOfRange, "Live Activities may use any number",
            triggers: .apns(#"{"aps":{"alert":"Hi","relevance-score":75}}"#),
            passes: .liveActivity(#"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"a":1},"relevance-score":75}}"#)
        ),
        LintRuleCase(
            .apnsCriticalVolumeOutOfRange, "volume 2",
            triggers: .apns(#"{"aps":{"alert":"Fire","sound":{"critical":1,"name":"default","volume":2}}}"#, configuration: entitled),
            passes: .apns(#"{"aps":{"alert":"Fire","sound":{"critical":1,"name":"default","volume":0.8}}}"#, configuration: entitled)
        ),
        LintRuleCase(
            .apnsBadgeInvalid, "negative",
            triggers: .apns(#"{"aps":{"alert":"Hi","badge":-1}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","badge":0}}"#)
        ),
        LintRuleCase(
            .apnsBadgeInvalid, "a string",
            triggers: .apns(#"{"aps":{"alert":"Hi","badge":"3"}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","badge":3}}"#)
        ),
        LintRuleCase(
            .apnsThreadIDEmpty, "empty string",
            triggers: .apns(#"{"aps":{"alert":"Hi","thread-id":""}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","thread-id":"chat-1"}}"#)
        ),
        LintRuleCase(
            .apnsMisspelledKey, "snake_case in aps",
            triggers: .apns(#"{"aps":{"alert":"Hi","mutable_content":1}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi","mutable-content":1}}"#)
        ),
        LintRuleCase(
            .apnsMisspelledKey, "camel case in aps",
            triggers: .apns(#"{"aps":{"contentAvailable":1}}"#, type: .background, priority: .considerPower),
            passes: .apns(#"{"aps":{"content-available":1}}"#, type: .background, priority: .considerPower)
        ),
        LintRuleCase(
            .apnsMisspelledKey, "snake_case in alert",
            triggers: .apns(#"{"aps":{"alert":{"title_loc_key":"T","body":"Hi"}}}"#),
            passes: .apns(#"{"aps":{"alert":{"title-loc-key":"T","body":"Hi"}}}"#)
        ),
        LintRuleCase(
            .apnsCustomKeyInAps, "an app key inside aps",
            triggers: .apns(#"{"aps":{"alert":"Hi","message-id":"42"}}"#),
            passes: .apns(#"{"aps":{"alert":"Hi"},"message-id":"42"}"#)
        ),
        LintRuleCase(
            .apnsLiveActivityMissingEvent, "no event",
            triggers: .liveActivity(#"{"aps":{"timestamp":1800000000,"content-state":{"a":1}}}"#),
            passes: .liveActivity(#"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"a":1}}}"#)
        ),
        LintRuleCase(
            .apnsLiveActivityMissingEvent, "unknown event",
            triggers: .liveActivity(#"{"aps":{"timestamp":1800000000,"event":"stop"}}"#),
            passes: .liveActivity(#"{"aps":{"timestamp":1800000000,"event":"end"}}"#)
        ),
        LintRuleCase(
            .apnsLiveActivityMissingTimestamp, "no timestamp",
            triggers: .liveActivity(#"{"aps":{"event":"update","content-state":{"a":1}}}"#),
            passes: .liveActivity(#"{"aps":{"event":"update","content-state":{"a":1},"timestamp":1799999990}}"#)
        ),
        LintRuleCase(
            .apnsLiveActivityTimestampInFuture, "milliseconds",
            triggers: .liveActivity(#"{"aps":{"event":"update","content-state":{"a":1},"timestamp":1800000000000}}"#),
            passes: .liveActivity(#"{"aps":{"event":"update","content-state":{"a":1},"timestamp":1800003600}}"#)
        ),
        LintRuleCase(
            .apnsLiveActivityMissingContentState, "update without state",
            triggers: .liveActivity(#"{"aps":{"event":"update","timestamp":1800000000}}"#),
            passes: .liveActivity(#"{"aps":{"event":"end","timestamp":1800000000}}"#)
        ),
        LintRuleCase(
            .apnsLiveActivityStartIncomplete, "start without attributes",
            triggers: .liveActivity(
                #"{"aps":{"event":"start","timestamp":1800000000,"content-state":{"a":1},"alert":{"title":"Go","body":"Now"}}}"#
            ),
            passes: .liveActivity(
                #"{"aps":{"event":"start","timestamp":1800000000,"content-state":{"a":1},"attributes-type":"MatchAttributes","attributes":{"home":"A"},"alert":{"title":"Go","body":"Now"}}}"#
            )
        ),
    ]

    static let fcm: [LintRuleCase] = [
        LintRuleCase(
            .fcmIOSDataOnlyHighPriority, "apns-priority 10",
            triggers: .fcm(
                #""data":{"k":"v"},"apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"content-available":1}}}"#, platform: .ios),
            passes: .fcm(
                #""data":{"k":"v"},"apns":{"headers":{"apns-priority":"5"},"payload":{"aps":{"content-available":1}}}"#, platform: .ios)
        ),
        LintRuleCase(
            .fcmIOSDataOnlyHighPriority, "not for Android",
            triggers: .fcm(#""data":{"k":"v"},"apns":{"headers":{"apns-priority":"10"}}"#, platform: .unknown),
            passes: .fcm(#""data":{"k":"v"},"apns":{"headers":{"apns-priority":"10"}}"#, platform: .android)
        ),
        LintRuleCase(
            .fcmIOSDataOnlyWithoutContentAvailable, "no apns payload",
            triggers: .fcm(#""data":{"k":"v"},"apns":{"headers":{"apns-priority":"5"}}"#, platform: .ios),
            passes: .fcm(
                #""data":{"k":"v"},"apns":{"headers":{"apns-priority":"5"},"payload":{"aps":{"content-available":1}}}"#, platform: .ios)
        ),
        LintRuleCase(
            .fcmIOSDataOnlyWithoutContentAvailable, "an alert in apns.payload is not data-only",
            triggers: .fcm(#""data":{"k":"v"}"#, platform: .ios),
            passes: .fcm(#""data":{"k":"v"},"apns":{"payload":{"aps":{"alert":"Hi"}}}"#, platform: .ios)
        ),
        LintRuleCase(
            .fcmIOSImageWithoutMutableContent, "notification.image",
            triggers: .fcm(#""notification":{"title":"Hi","image":"https://example.com/a.png"}"#, platform: .ios),
            passes: .fcm(
                #""notification":{"title":"Hi","image":"https://example.com/a.png"},"apns":{"payload":{"aps":{"mutable-content":1}}}"#,
                platform: .ios
            )
        ),
        LintRuleCase(
            .fcmIOSImageWithoutMutableContent, "apns.fcmOptions.image (camel case)",
            triggers: .fcm(#""notification":{"title":"Hi"},"apns":{"fcmOptions":{"image":"https://example.com/a.png"}}"#, platform: .ios),
            passes: .fcm(#""notification":{"title":"Hi"},"apns":{"fcmOptions":{"image":"https://example.com/a.png"}}"#, platform: .android)
        ),
        LintRuleCase(
            .fcmAndroidHighPriorityWithoutNotification, "data-only at HIGH",
            triggers: .fcm(#""data":{"k":"v"},"android":{"priority":"HIGH"}"#, platform: .android),
            passes: .fcm(#""data":{"k":"v"},"notification":{"title":"Hi"},"android":{"priority":"HIGH"}"#, platform: .android)
        ),
        LintRuleCase(
            .fcmAndroidHighPriorityWithoutNotification, "lower-case high, as the Admin SDKs send it",
            triggers: .fcm(#""data":{"k":"v"},"android":{"priority":"high"}"#, platform: .android),
            passes: .fcm(#""data":{"k":"v"},"android":{"priority":"normal"}"#, platform: .android)
        ),
        LintRuleCase(
            .fcmAndroidZeroTTLNormalPriority, "0s at default priority",
            triggers: .fcm(#""data":{"k":"v"},"android":{"ttl":"0s"}"#, platform: .android),
            passes: .fcm(#""data":{"k":"v"},"android":{"ttl":"0s","priority":"HIGH"},"notification":{"title":"Call"}"#, platform: .android)
        ),
        LintRuleCase(
            .fcmAndroidZeroTTLNormalPriority, "0.5s rounds down to 0",
            triggers: .fcm(#""data":{"k":"v"},"android":{"ttl":"0.5s","priority":"NORMAL"}"#, platform: .android),
            passes: .fcm(#""data":{"k":"v"},"android":{"ttl":"60s","priority":"NORMAL"}"#, platform: .android)
        ),
        LintRuleCase(
            .fcmEmptyNotification, "empty title",
            triggers: .fcm(#""notification":{"title":""}"#, platform: .android),
            passes: .fcm(#""notification":{"title":"Hi"}"#, platform: .android)
        ),
        LintRuleCase(
            .fcmEmptyNotification, "iOS gets the text from apns.payload",
            triggers: .fcm(#""notification":{}"#, platform: .ios),
            passes: .fcm(#""notification":{},"apns":{"payload":{"aps":{"alert":{"body":"Hi"}}}}"#, platform: .ios)
        ),
        LintRuleCase(
            .fcmEmptyNotification, "Android gets the text from android.notification",
            triggers: .fcm(##""android":{"notification":{"color":"#ff0000"}}"##, platform: .android),
            passes: .fcm(#""android":{"notification":{"body_loc_key":"NEW_MESSAGE"}}"#, platform: .android)
        ),
        LintRuleCase(
            .fcmFanOutHighPriority, "topic at HIGH",
            triggers: .fcm(#""topic":"news","notification":{"title":"Hi"},"android":{"priority":"HIGH"}"#, platform: .unknown),
            passes: .fcm(#""notification":{"title":"Hi"},"android":{"priority":"HIGH"}"#, platform: .unknown)
        ),
        // APNs payload rules applied to FCM's apns block.
        LintRuleCase(
            .apnsMisspelledKey, "FCM apns.payload with content_available",
            triggers: .fcm(#""data":{"k":"v"},"apns":{"payload":{"aps":{"content_available":1}}}"#, platform: .ios),
            passes: .fcm(#""data":{"k":"v"},"apns":{"payload":{"aps":{"content-available":1}}}"#, platform: .ios)
        ),
        LintRuleCase(
            .apnsCriticalWithoutEntitlement, "FCM apns.payload, bundle ID from the registry",
            triggers: .fcm(
                #""notification":{"title":"Fire"},"apns":{"payload":{"aps":{"interruption-level":"critical"}}}"#, platform: .ios),
            passes: .fcm(
                #""notification":{"title":"Fire"},"apns":{"payload":{"aps":{"interruption-level":"critical"}}}"#,
                platform: .ios,
                iosBundleID: "com.example.app",
                configuration: entitled
            )
        ),
        LintRuleCase(
            .apnsExpirationInPast, "FCM apns.headers",
            triggers: .fcm(#""notification":{"title":"Hi"},"apns":{"headers":{"apns-expiration":"60"}}"#, platform: .ios),
            passes: .fcm(#""notification":{"title":"Hi"},"apns":{"headers":{"apns-expiration":"0"}}"#, platform: .ios)
        ),
        LintRuleCase(
            .apnsLiveActivityMissingEvent, "FCM live_activity_token",
            triggers: .fcm(
                #""apns":{"live_activity_token":"abc","payload":{"aps":{"timestamp":1800000000,"content-state":{"a":1}}}}"#,
                platform: .ios
            ),
            passes: .fcm(
                #""apns":{"live_activity_token":"abc","payload":{"aps":{"timestamp":1800000000,"event":"update","content-state":{"a":1}}}}"#,
                platform: .ios
            )
        ),
        LintRuleCase(
            .apnsEmptyAlert, "FCM: the notification supplies the text",
            triggers: .fcm(#""data":{"k":"v"},"apns":{"payload":{"aps":{"alert":""}}}"#, platform: .ios),
            passes: .fcm(#""notification":{"title":"Hi"},"apns":{"payload":{"aps":{"alert":""}}}"#, platform: .ios)
        ),
    ]

    static let all = apns + fcm
}

@Suite("Lint rules")
struct LintRuleTests {
    @Test("each rule fires on its trigger and stays quiet on the related notification", arguments: LintRuleCase.all)
    func rule(_ ruleCase: LintRuleCase) {
        let triggered = ruleCase.triggers.findings()
        #expect(
            triggered.contains { $0.code == ruleCase.code },
            "\(ruleCase.code) did not fire on \(ruleCase.triggers); findings: \(triggered)"
        )
        let passed = ruleCase.passes.findings()
        #expect(
            !passed.contains { $0.code == ruleCase.code },
            "\(ruleCase.code) fired on \(ruleCase.passes): \(passed.filter { $0.code == ruleCase.code })"
        )
    }

    @Test("every rule in the catalogue has a test case")
    func everyRuleTested() {
        let tested = Set(LintRuleCase.all.map(\.code))
        let untested = LintRule.all.map(\.code).filter { !tested.contains($0) }
        #expect(untested.isEmpty, "no test case for \(untested)")
    }

    @Test("a finding carries its rule's severity and first source")
    func findingMatchesRule() throws {
        for ruleCase in LintRuleCase.all {
            for finding in ruleCase.triggers.findings() {
                let rule = try #require(finding.rule, "unknown code \(finding.code)")
                #expect(finding.severity == rule.severity)
                #expect(finding.source == rule.sources.first)
                #expect(!finding.message.isEmpty && !finding.field.isEmpty)
            }
        }
    }
}
