import PushMockCore
import PushMockRecording
import PushMockSimulation

/// Lints accepted notifications for the recording (`docs/lint-rules.md`). Findings never
/// change the answer.
struct NotificationLinting {
    let configuration: LintConfiguration
    let fcmTokens: FCMRegistry

    /// An accepted `POST /3/device/<token>`.
    func apns(_ outcome: APNsExchange, now: Timestamp) -> [LintNote] {
        guard outcome.status == 200, let headers = outcome.headers else { return [] }
        let findings = APNsLinter.lint(APNsLintInput(headers, topic: outcome.topic), payload: outcome.request.body, now: now, configuration: configuration)
        return findings.map(Self.note)
    }

    /// An accepted FCM send; the target platform is known for registered single tokens.
    func fcm(_ outcome: FCMSendExchange, now: Timestamp) -> [LintNote] {
        guard outcome.status == 200, let send = outcome.send else { return [] }
        var platform = LintTargetPlatform.unknown
        if case .token(let token) = send.message.target, let record = fcmTokens.lookup(token) {
            platform = LintTargetPlatform(rawValue: record.platform.rawValue) ?? .unknown
        }
        return FCMLinter.lint(send, platform: platform, now: now, configuration: configuration).map(Self.note)
    }

    private static func note(_ finding: LintFinding) -> LintNote {
        LintNote(code: finding.code.rawValue, severity: finding.severity.rawValue, field: finding.field, message: finding.message, source: finding.source)
    }
}
