import PushMockCore
import PushMockJSON
import PushMockSimulation
import Testing

/// The gateway's clock in the lint tests.
let lintNow = Timestamp(secondsSince1970: 1_800_000_000)

/// One notification to lint: a direct APNs push or an FCM send.
struct LintSample: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case apns(APNsLintInput, payload: String)
        case fcm(body: String, platform: LintTargetPlatform, iosBundleID: String?)
    }

    var kind: Kind
    var configuration = LintConfiguration()

    /// An APNs push to `topic`; `type: nil` omits `apns-push-type` (the gateway then infers it
    /// from the topic), `priority: nil` omits `apns-priority`.
    static func apns(
        _ payload: String,
        type: APNsPushType? = .alert,
        priority: APNsPriority? = .immediate,
        expiration: Int64? = nil,
        collapseID: String? = nil,
        topic: String = "com.example.app",
        configuration: LintConfiguration = LintConfiguration()
    ) -> LintSample {
        let input = APNsLintInput(
            pushTypeSent: type,
            pushType: type ?? APNsPushType.inferred(fromTopic: topic),
            prioritySent: priority,
            expiration: expiration,
            collapseID: collapseID,
            topic: topic
        )
        return LintSample(kind: .apns(input, payload: payload), configuration: configuration)
    }

    /// A Live Activity push (topic `com.example.app.push-type.liveactivity`, priority 5).
    static func liveActivity(_ payload: String) -> LintSample {
        apns(payload, type: .liveactivity, priority: .considerPower, topic: "com.example.app.push-type.liveactivity")
    }

    /// An FCM send; `message` is the JSON of `message` without the braces' target, which is
    /// added (`"token":"device-token-1"`) unless the text names a target itself.
    static func fcm(
        _ message: String,
        platform: LintTargetPlatform,
        iosBundleID: String? = nil,
        configuration: LintConfiguration = LintConfiguration()
    ) -> LintSample {
        let hasTarget = message.contains("\"topic\"") || message.contains("\"condition\"") || message.contains("\"token\"")
        let body = "{\"message\":{\(hasTarget ? "" : "\"token\":\"device-token-1\",")\(message)}}"
        return LintSample(kind: .fcm(body: body, platform: platform, iosBundleID: iosBundleID), configuration: configuration)
    }

    /// The findings the linter reports; an FCM body the validator rejects is a test failure.
    func findings(sourceLocation: SourceLocation = #_sourceLocation) -> [LintFinding] {
        switch kind {
        case .apns(let input, let payload):
            return APNsLinter.lint(input, payload: Array(payload.utf8), now: lintNow, configuration: configuration)
        case .fcm(let body, let platform, let iosBundleID):
            switch FCMMessageValidator.validate(body: Array(body.utf8)) {
            case .success(let request):
                return FCMLinter.lint(request, platform: platform, iosBundleID: iosBundleID, now: lintNow, configuration: configuration)
            case .failure(let error):
                Issue.record("FCM rejected the sample \(body): \(error)", sourceLocation: sourceLocation)
                return []
            }
        }
    }

    var description: String {
        switch kind {
        case .apns(let input, let payload):
            let type = input.pushTypeSent.map { "\($0)" } ?? "no push type"
            let priority = input.prioritySent.map { "priority \($0)" } ?? "no priority"
            return "APNs \(type), \(priority): \(payload)"
        case .fcm(let body, let platform, _):
            return "FCM to \(platform): \(body)"
        }
    }
}
