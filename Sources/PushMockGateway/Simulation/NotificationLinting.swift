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
    /// The connection's recent APNs findings (one instance per connection: the endpoints that
    /// share this value run on the connection's event loop only).
    let memo = APNsLintMemo()

    /// An accepted `POST /3/device/<token>`. Lint is a pure function of the lint-relevant
    /// headers, the payload bytes and the second of the gateway clock (expiration and Live
    /// Activity times are judged against it), so a sender pushing one template to many tokens
    /// lints it once per second per connection; each record still carries its findings.
    func apns(_ outcome: APNsExchange, now: Timestamp) -> [LintNote] {
        guard outcome.status == 200, let headers = outcome.headers else { return [] }
        let input = APNsLintInput(headers, topic: outcome.topic)
        let key = APNsLintMemo.Key(input: input, payload: outcome.request.body, second: now.secondsSince1970)
        if let notes = memo.notes(for: key) { return notes }
        let notes = lintAPNs(outcome, input: input, now: now)
        memo.remember(notes, for: key)
        return notes
    }

    private func lintAPNs(_ outcome: APNsExchange, input: APNsLintInput, now: Timestamp) -> [LintNote] {
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
        if case .token(let token) = send.message.target, let record = fcmTokens.lookup(FCMRegistrationToken(token)) {
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

    /// The FCM rules that still mean something for what Expo relays to Android: Expo sends a
    /// data message that the app's expo-notifications code displays, so "shows a notification"
    /// means the message has a title or body, and priority and TTL are Expo's own fields.
    static let expoRelevantFCMRules: Set<LintCode> = [
        .fcmAndroidHighPriorityWithoutNotification, .fcmAndroidZeroTTLNormalPriority,
    ]

    /// An accepted Expo send: each distinct message is linted once per platform it is relayed
    /// to. For an iOS token (or a token of unknown platform) it is linted as the APNs request
    /// Expo would make of it — push type, `apns-priority` (`normal` → 5, else 10), expiration,
    /// collapse id and an `aps` built from its fields; for an Android token as the FCM message
    /// (`android.priority`: `high` → HIGH, else NORMAL; `android.ttl` from `ttl`/`expiration`;
    /// a notification when the message has a title or body). The mappings are ours (Expo
    /// documents neither payload), so only the rules in ``expoRelevantAPNsRules`` and
    /// ``expoRelevantFCMRules`` apply, reported against the Expo field names.
    func expo(_ outcome: ExpoSendExchange, now: Timestamp) -> [LintNote] {
        guard outcome.status == 200, let send = outcome.send else { return [] }
        let firstByte = outcome.request.body.first {
            $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\t")
        }
        let isArray = firstByte == UInt8(ascii: "[")
        var lintedForIOS = Set<Int>()
        var lintedForAndroid = Set<Int>()
        var notes: [LintNote] = []
        for index in outcome.relayed {
            let message = send.entries[index].message
            let prefix = isArray ? "[\(message.messageIndex)]." : ""
            if outcome.platforms[index] == .android {
                guard lintedForAndroid.insert(message.messageIndex).inserted else { continue }
                guard let relayed = Self.fcmMessage(for: message, now: now) else { continue }
                for finding in FCMLinter.lint(relayed, platform: .android, now: now, configuration: configuration)
                where Self.expoRelevantFCMRules.contains(finding.code) {
                    var note = Self.note(finding)
                    note.field = prefix + Self.expoField(forFCMField: finding.field, of: message)
                    note.message = "As relayed to FCM: " + finding.message
                    notes.append(note)
                }
                continue
            }
            guard lintedForIOS.insert(message.messageIndex).inserted else { continue }
            let bundleID = send.project.flatMap { expoTokens.project(named: ExpoProjectName($0)) }?.bundleIdentifier
            let (input, payload) = Self.apnsRequest(for: message, topic: bundleID, now: now)
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

    /// The FCM message Expo would relay of `message` to an Android token (our mapping, see
    /// ``expo(_:now:)``); `nil` fields stay out, as a sender would leave them out.
    static func fcmMessage(for message: ExpoMessage, now: Timestamp) -> FCMMessage? {
        var android = JSONObject()
        // Expo: "default" is normal priority on Android.
        android.append(key: "priority", value: .string(message.priority == .high ? "HIGH" : "NORMAL"))
        var ttlSeconds: Int64?
        if let ttl = message.ttl {
            ttlSeconds = ttl <= 0 ? 0 : Int64(min(ttl, Double(FCMMessageValidator.maximumTTLSeconds)))
        } else if let expiration = message.expiration {
            let remaining = expiration - Double(now.secondsSince1970)
            ttlSeconds = remaining <= 0 ? 0 : Int64(min(remaining, Double(FCMMessageValidator.maximumTTLSeconds)))
        }
        if let ttlSeconds { android.append(key: "ttl", value: .string("\(ttlSeconds)s")) }
        var notification = JSONObject()
        if let title = message.title { notification.append(key: "title", value: .string(title)) }
        if let body = message.body { notification.append(key: "body", value: .string(body)) }
        if !notification.isEmpty {
            if let channel = message.channelID { notification.append(key: "channel_id", value: .string(channel)) }
            android.append(key: "notification", value: .object(notification))
        }
        let root = JSONValue.object(["message": .object(["token": .string("expo-relay"), "android": .object(android)])])
        // Built from already-validated Expo fields, so it validates; `nil` would only mean a
        // mapping bug, and then nothing is linted rather than something wrong.
        guard case .success(let request) = FCMMessageValidator.validate(json: root) else { return nil }
        return request.message
    }

    /// The Expo field a finding about our FCM stand-in is really about.
    static func expoField(forFCMField field: String, of message: ExpoMessage) -> String {
        switch field {
        case "message.android.priority": return "priority"
        case "message.android.ttl": return message.ttl == nil && message.expiration != nil ? "expiration" : "ttl"
        case "message.android.notification", "message.notification": return "title"
        default: return field
        }
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

/// The findings of the last distinct APNs requests of one connection, by everything lint reads.
/// Confined to the connection's event loop (never shared between connections, so no lock).
final class APNsLintMemo {
    struct Key: Hashable {
        var input: APNsLintInput
        var payload: [UInt8]
        var second: Int64

        // Array's own hashing and equality go element by element; the payload is hashed and
        // compared as one block of bytes instead (the memo is looked up on every APNs push).
        func hash(into hasher: inout Hasher) {
            hasher.combine(input)
            hasher.combine(second)
            payload.withUnsafeBytes { hasher.combine(bytes: $0) }
        }

        static func == (left: Key, right: Key) -> Bool {
            left.second == right.second && left.payload.count == right.payload.count && left.input == right.input
                && left.payload.hasSameBytes(as: right.payload)
        }
    }

    /// Distinct requests remembered; when full the memo starts over (a cheap bound: a sender
    /// that never repeats itself pays one dictionary insert per request, nothing more).
    static let capacity = 64
    /// Payloads larger than this are linted every time (hashing them would cost more than it saves).
    static let maximumPayloadBytes = 4096

    private(set) var entries: [Key: [LintNote]] = [:]
    /// The entry found or remembered last: a bulk send repeats one request shape back to back,
    /// and comparing with it (`memcmp` on the payload) costs far less than hashing the key
    /// (SipHash over every payload byte was 1.7 % of the default server's samples).
    private var last: (key: Key, notes: [LintNote])?

    /// The findings remembered for `key`, if any.
    func notes(for key: Key) -> [LintNote]? {
        if let last, last.key == key { return last.notes }
        guard let notes = entries[key] else { return nil }
        last = (key, notes)
        return notes
    }

    func remember(_ notes: [LintNote], for key: Key) {
        guard key.payload.count <= Self.maximumPayloadBytes else { return }
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = notes
        last = (key, notes)
    }
}
