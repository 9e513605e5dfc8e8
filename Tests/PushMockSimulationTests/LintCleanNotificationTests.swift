import PushMockCore
import PushMockJSON
import PushMockSimulation
import Testing

/// Well-formed notifications of every common kind produce no findings at all: a rule that
/// fires on these would drown real problems in noise.
@Suite("Lint: clean notifications")
struct LintCleanNotificationTests {
    static let samples: [LintSample] = [
        .apns(#"{"aps":{"alert":{"title":"Hi","body":"There"},"sound":"default","badge":1,"thread-id":"chat-1"},"chat-id":"42"}"#),
        .apns(#"{"aps":{"alert":"Hello"}}"#, priority: .considerPower, expiration: lintNow.secondsSince1970 + 86_400, collapseID: "score"),
        .apns(
            #"{"aps":{"alert":{"title":"Photo","body":"Alice sent a photo"},"mutable-content":1,"category":"PHOTO"},"image-url":"https://example.com/a.jpg"}"#
        ),
        .apns(
            #"{"aps":{"alert":{"title":"Leave now","body":"Train in 5 min"},"interruption-level":"time-sensitive","relevance-score":0.9}}"#
        ),
        .apns(
            #"{"aps":{"alert":"Smoke detected","sound":{"critical":1,"name":"default","volume":1.0}}}"#,
            configuration: LintConfiguration(criticalAlerts: .bundleIDs(["com.example.app"]))
        ),
        .apns(#"{"aps":{"content-available":1},"sync":"inbox"}"#, type: .background, priority: .considerPower),
        .apns(#"{"caller":"Alice","uuid":"5c0a6e4e-8f1f-4d8e-9a53-3c1b0b8f6d12"}"#, type: .voip, topic: "com.example.app.voip"),
        .apns(#"{"aps":{"content-changed":true}}"#, type: .widgets, priority: .considerPower, topic: "com.example.app.push-type.widgets"),
        .liveActivity(
            #"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"score":"1-0"},"relevance-score":75,"stale-date":1800003600}}"#
        ),
        .liveActivity(
            #"{"aps":{"timestamp":1800000000,"event":"start","content-state":{"score":"0-0"},"attributes-type":"MatchAttributes","attributes":{"home":"A","away":"B"},"alert":{"title":"Kick-off","body":"A vs B"}}}"#
        ),
        .liveActivity(#"{"aps":{"timestamp":1800000000,"event":"end","dismissal-date":1800000600}}"#),
        .fcm(#""notification":{"title":"Hi","body":"There"},"data":{"k":"v"}"#, platform: .android),
        .fcm(#""data":{"k":"v"},"android":{"priority":"normal","ttl":"3600s"}"#, platform: .android),
        .fcm(#""notification":{"title":"Call"},"android":{"priority":"HIGH","ttl":"0s"}"#, platform: .android),
        .fcm(
            #""notification":{"title":"Photo","image":"https://example.com/a.jpg"},"apns":{"payload":{"aps":{"mutable-content":1,"sound":"default"}}}"#,
            platform: .ios
        ),
        .fcm(
            #""data":{"k":"v"},"apns":{"headers":{"apns-priority":"5","apns-push-type":"background"},"payload":{"aps":{"content-available":1}}}"#,
            platform: .ios
        ),
        .fcm(
            #""notification":{"title":"Hi"},"webpush":{"headers":{"TTL":"60"},"fcm_options":{"link":"https://example.com"}}"#,
            platform: .web),
        .fcm(#""topic":"news","notification":{"title":"Headline","body":"Text"}"#, platform: .unknown),
        .fcm(#""data":{"k":"v"},"android":{"priority":"HIGH"},"notification":{"title":"Hi"}"#, platform: .unknown),
    ]

    @Test("no findings", arguments: samples)
    func clean(_ sample: LintSample) {
        let findings = sample.findings()
        #expect(findings.isEmpty, "\(findings)")
    }
}
