import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// Lints accepted notifications for the recording (`docs/lint-rules.md`). Findings never
/// change the answer.
struct NotificationLinting {
    let configuration: LintConfiguration
    let fcmTokens: FCMRegistry
    let expoTokens: ExpoRegistry

    /// An accepted `POST /3/device/<token>`.
    func apns(_ outcome: APNsExchange, now: Timestamp) -> [LintNote] {
        guard outcome.status == 200, let headers = outcome.headers else { return [] }
        let input = APNsLintInput(headers, topic: outcome.topic)
        let findings: [LintFinding]
        switch outcome.payload.result {
        case .success(let json)?:
            // The body the fault rules may already have parsed: not parsed again.
            findings = APNsLinter.lint(input, payload: json, now: now, configuration: configuration)
        case .failure?, nil:
            // Empty or not JSON: the byte form reports why (rare, so parsing again is fine).
            findings = APNsLinter.lint(input, payload: outcome.request.body, now: now, configuration: configuration)
        }
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

    /// The APNs rules that still mean something for what Expo builds from a message (the
    /// others would only judge our stand-in for Expo's undocumented APNs payload).
    static let expoRelevantAPNsRules: Set<LintCode> = [
        .apnsBackgroundHighPriority, .apnsExpirationInPast, .apnsCollapseIDOnBackground,
        .apnsMutableContentWithoutAlert, .apnsCriticalWithoutEntitlement,
    ]

    /// An accepted Expo send: each distinct message relayed to an iOS token (or a token of
    /// unknown platform) is linted once as the APNs request Expo would make of it — push type,
    /// `apns-priority` (`normal` → 5, else 10), expiration, collapse id and an `aps` built from
    /// its fields. The mapping is ours (Expo does not document its APNs payload), so only the
    /// rules in ``expoRelevantAPNsRules`` apply, reported against the Expo field names.
    /// Android deliveries are not linted.
    func expo(_ outcome: ExpoSendExchange, now: Timestamp) -> [LintNote] {
        guard outcome.status == 200, let send = outcome.send else { return [] }
        let firstByte = outcome.request.body.first {
            $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\t")
        }
        let isArray = firstByte == UInt8(ascii: "[")
        var linted = Set<Int>()
        var notes: [LintNote] = []
        for index in outcome.relayed {
            let message = send.entries[index].message
            guard outcome.platforms[index] != .android, linted.insert(message.messageIndex).inserted else { continue }
            let bundleID = expoTokens.project(named: send.project ?? "")?.bundleIdentifier
            let (input, payload) = Self.apnsRequest(for: message, topic: bundleID, now: now)
            let prefix = isArray ? "[\(message.messageIndex)]." : ""
            for finding in APNsLinter.lint(input, payload: payload, now: now, configuration: configuration)
            where Self.expoRelevantAPNsRules.contains(finding.code) {
                var note = Self.note(finding)
                note.field = prefix + Self.expoField(forAPNsField: finding.field)
                note.message = "As relayed to APNs: " + finding.message
                notes.append(note)
            }
        }
        return notes
    }

    /// The APNs request Expo would make of `message` (our mapping, see ``expo(_:now:)``).
    static func apnsRequest(for message: ExpoMessage, topic: String?, now: Timestamp) -> (APNsLintInput, JSONValue) {
        var aps = JSONObject()
        var alert = JSONObject()
        if let title = message.title { alert.append(key: "title", value: .string(title)) }
        if let subtitle = message.subtitle { alert.append(key: "subtitle", value: .string(subtitle)) }
        if let body = message.body { alert.append(key: "body", value: .string(body)) }
        if !alert.isEmpty { aps.append(key: "alert", value: .object(alert)) }
        if let sound = message.object["sound"], !sound.isNull {
            if var object = sound.objectValue {
                if object["critical"]?.boolValue == true { object["critical"] = JSONValue(1) }
                aps.append(key: "sound", value: .object(object))
            } else {
                aps.append(key: "sound", value: sound)
            }
        }
        if let badge = message.badge { aps.append(key: "badge", value: JSONValue(badge)) }
        if message.contentAvailable == true { aps.append(key: "content-available", value: JSONValue(1)) }
        if message.mutableContent == true { aps.append(key: "mutable-content", value: JSONValue(1)) }
        if let level = message.interruptionLevel { aps.append(key: "interruption-level", value: .string(level.rawValue)) }
        if let category = message.categoryID { aps.append(key: "category", value: .string(category)) }
        var payload = JSONObject()
        payload.append(key: "aps", value: .object(aps))
        if let data = message.data { payload.append(key: "body", value: .object(data)) }

        let visible = aps["alert"] != nil || aps["sound"] != nil || aps["badge"] != nil
        let pushType: APNsPushType = visible ? .alert : .background
        let priority: APNsPriority = message.priority == .normal ? .considerPower : .immediate
        var expiration: Int64?
        if let ttl = message.ttl {
            expiration = ttl <= 0 ? 0 : now.secondsSince1970 + Int64(ttl)
        } else if let at = message.expiration {
            expiration = Int64(at)
        }
        let input = APNsLintInput(
            pushTypeSent: pushType,
            pushType: pushType,
            prioritySent: priority,
            expiration: expiration,
            collapseID: message.collapseID,
            topic: topic
        )
        return (input, .object(payload))
    }

    /// The Expo field a finding about our APNs stand-in is really about.
    static func expoField(forAPNsField field: String) -> String {
        switch field {
        case "apns-priority": return "priority"
        case "apns-expiration": return "expiration"
        case "apns-collapse-id": return "collapseId"
        case "aps.mutable-content": return "mutableContent"
        case "aps.content-available": return "_contentAvailable"
        case "aps.interruption-level": return "interruptionLevel"
        case "aps.sound.critical": return "sound.critical"
        default: return field
        }
    }

    private static func note(_ finding: LintFinding) -> LintNote {
        LintNote(
            code: finding.code.rawValue, severity: finding.severity.rawValue, field: finding.field, message: finding.message,
            source: finding.source)
    }
}
