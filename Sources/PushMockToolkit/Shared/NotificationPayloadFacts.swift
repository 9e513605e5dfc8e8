internal import PushMockCore
import PushMockJSON
import PushMockRecording

/// What the checks need to know about one notification, read once from its record: the parsed
/// payload, who received it, and how it presents itself (silent or visible, interruption level,
/// priority). Both APNs payloads and FCM `SendMessageRequest` bodies are understood, with both
/// FCM field spellings (`fcm_options` / `fcmOptions`).
struct NotificationPayloadFacts: Sendable {
    let platform: Platform
    /// The request body as JSON; `nil` when it was not JSON.
    let payload: JSONValue?
    let pushType: String?
    let topic: String?
    /// `apns-collapse-id` (APNs, or FCM `apns.headers`), else FCM `android.collapse_key`.
    let collapseID: String?
    /// `aps.interruption-level` (APNs, or FCM `apns.payload.aps`); `active`, Apple's default,
    /// when absent. A critical-alert sound (`sound.critical: 1`) without a level counts as
    /// `critical`.
    let interruptionLevel: String
    /// Shows nothing to the user: an APNs background (or other invisible) push type, a
    /// content-available-only APNs payload, or an FCM data-only message.
    let isSilent: Bool
    /// The APNs priority the notification asked for: for APNs the recorded `apns-priority`
    /// (10 when omitted, as APNs assumes); for FCM the `apns-priority` in `message.apns.headers`
    /// if given, otherwise `nil` (FCM picks its own).
    let apnsPriority: Int?
    /// FCM only: `message.android.priority` lower-cased, or FCM's default when absent (`high` for
    /// notification messages, `normal` for data messages).
    let androidPriority: String?
    /// The notification category: `aps.category` (APNs, FCM `apns.payload.aps`), FCM
    /// `android.notification.click_action`, Expo `categoryId`.
    let category: String?
    /// The Android channel: FCM `android.notification.channel_id`, Expo `channelId`.
    let channel: String?

    /// Push types that never show anything to the user.
    static let invisiblePushTypes: Set<String> = ["background", "location", "fileprovider", "complication"]

    init(record: ExchangeRecord, platform: Platform) {
        let payload = record.request.body.jsonValue
        var recordedPriority = record.notification?.priority
        if recordedPriority == nil, let header = record.request.headers.first(named: "apns-priority") {
            recordedPriority = Int(header)
        }
        self.init(
            payload: payload,
            platform: platform,
            pushType: record.notification?.pushType ?? record.request.headers.first(named: "apns-push-type"),
            topic: record.notification?.topic ?? record.request.headers.first(named: "apns-topic"),
            collapseID: record.notification?.collapseID ?? record.request.headers.first(named: "apns-collapse-id"),
            recordedAPNsPriority: recordedPriority
        )
    }

    init(
        payload: JSONValue?,
        platform: Platform,
        pushType: String? = nil,
        topic: String? = nil,
        collapseID: String? = nil,
        recordedAPNsPriority: Int? = nil
    ) {
        self.platform = platform
        self.payload = payload
        self.topic = topic
        let aps: JSONValue?
        switch platform {
        case .fcm:
            let message = payload?["message"]
            let apnsConfig = message?["apns"]
            aps = apnsConfig?["payload"]?["aps"]
            let headers = apnsConfig?["headers"]
            self.pushType = pushType ?? headers?["apns-push-type"]?.stringValue
            self.collapseID =
                collapseID ?? headers?["apns-collapse-id"]?.stringValue
                ?? message?["android"]?["collapse_key"]?.stringValue ?? message?["android"]?["collapseKey"]?.stringValue
            self.apnsPriority = headers?["apns-priority"].flatMap(Self.integer)
            let hasNotification =
                message?["notification"] != nil
                || message?["android"]?["notification"] != nil
                || message?["webpush"]?["notification"] != nil
                || Self.apsShowsSomething(aps)
            self.isSilent = !hasNotification
            let android = message?["android"]?["priority"]?.stringValue?.lowercased()
            self.androidPriority = android ?? (hasNotification ? "high" : "normal")
            let androidNotification = message?["android"]?["notification"]
            self.category =
                aps?["category"]?.stringValue ?? androidNotification?["click_action"]?.stringValue
                ?? androidNotification?["clickAction"]?.stringValue
            self.channel = androidNotification?["channel_id"]?.stringValue ?? androidNotification?["channelId"]?.stringValue
        case .expo:
            // One record may carry up to 100 messages; the first one speaks for the request
            // here. The checks split such a request into its messages first
            // (`RecordedNotification`), so this reads the one message they pass.
            let message = payload?.arrayValue?.first ?? payload
            aps = nil
            self.pushType = pushType
            self.collapseID = collapseID ?? message?["collapseId"]?.stringValue
            let priority = message?["priority"]?.stringValue
            self.apnsPriority = recordedAPNsPriority ?? (priority == "normal" ? 5 : 10)
            let visible = [message?["title"], message?["subtitle"], message?["body"], message?["sound"], message?["badge"]]
                .contains { $0 != nil && $0?.isNull == false }
            self.isSilent = !visible
            self.androidPriority = priority == "high" ? "high" : "normal"
            self.category = message?["categoryId"]?.stringValue
            self.channel = message?["channelId"]?.stringValue
            self.interruptionLevel =
                message?["interruptionLevel"]?.stringValue
                ?? (message?["sound"]?["critical"]?.boolValue == true ? "critical" : "active")
            return
        default:
            aps = payload?["aps"]
            self.pushType = pushType
            self.collapseID = collapseID
            self.apnsPriority = recordedAPNsPriority ?? 10
            if let pushType, Self.invisiblePushTypes.contains(pushType.lowercased()) {
                self.isSilent = true
            } else {
                let contentAvailable = aps?["content-available"].flatMap(Self.integer) == 1
                self.isSilent = contentAvailable && !Self.apsShowsSomething(aps)
            }
            self.androidPriority = nil
            self.category = aps?["category"]?.stringValue
            self.channel = nil
        }
        if let level = aps?["interruption-level"]?.stringValue {
            self.interruptionLevel = level
        } else if aps?["sound"]?["critical"].flatMap(Self.integer) == 1 {
            self.interruptionLevel = "critical"
        } else {
            self.interruptionLevel = "active"
        }
    }

    /// Whether an `aps` dictionary asks for an alert, a sound or a badge.
    static func apsShowsSomething(_ aps: JSONValue?) -> Bool {
        guard let aps else { return false }
        return aps["alert"] != nil || aps["sound"] != nil || aps["badge"] != nil
    }

    /// An integer written as a JSON number or a numeric string (`"5"`, as FCM's string maps carry it).
    static func integer(_ value: JSONValue) -> Int? {
        value.intValue ?? value.stringValue.flatMap { Int($0) }
    }

    /// The recipients a send reached: the tokens a topic or condition resolved to, else the token
    /// (APNs tokens canonical lower-case), else `topic:<name>` / `condition:<expression>`.
    static func recipients(of record: ExchangeRecord, platform: Platform) -> [String] {
        let notification = record.notification
        if let resolved = notification?.resolvedTokens, !resolved.isEmpty {
            return resolved.map { canonicalToken($0, platform: platform) }
        }
        if let token = notification?.token { return [canonicalToken(token, platform: platform)] }
        if platform == .fcm, let topic = notification?.topic { return ["topic:\(topic)"] }
        if let condition = notification?.condition { return ["condition:\(condition)"] }
        return ["(unknown recipient)"]
    }

    static func canonicalToken(_ token: String, platform: Platform) -> String {
        platform == .apns ? APNsDeviceTokenFormat.canonical(token) : token
    }

    /// Whether an FCM send only validated (`validate_only`): nothing reached a device.
    /// An Expo `getReceipts` request: the sender asking for receipts, not a notification, so
    /// the checks (links, policy, contracts) leave it out.
    static func isExpoReceiptsRequest(_ record: ExchangeRecord) -> Bool {
        guard record.platform == .expo else { return false }
        let path = record.request.path.split(separator: "?", maxSplits: 1).first ?? ""
        return path.hasSuffix("/getReceipts")
    }

    static func isValidateOnly(_ record: ExchangeRecord) -> Bool {
        if record.annotations["validateOnly"] == "true" { return true }
        guard let body = record.request.body.jsonValue else { return false }
        return body["validate_only"]?.boolValue == true || body["validateOnly"]?.boolValue == true
    }

    /// The title a person would recognise the notification by (see ``NotificationReference/title``).
    static func title(in payload: JSONValue, platform: Platform?) -> String? {
        func alertText(_ aps: JSONValue?) -> String? {
            guard let alert = aps?["alert"] else { return nil }
            if let text = alert.stringValue { return text }
            return alert["title"]?.stringValue ?? alert["body"]?.stringValue
        }
        switch platform {
        case .fcm:
            let message = payload["message"]
            return message?["notification"]?["title"]?.stringValue
                ?? message?["android"]?["notification"]?["title"]?.stringValue
                ?? alertText(message?["apns"]?["payload"]?["aps"])
                ?? message?["webpush"]?["notification"]?["title"]?.stringValue
                ?? message?["notification"]?["body"]?.stringValue
        case .apns:
            return alertText(payload["aps"])
        case .expo:
            let message = payload.arrayValue?.first ?? payload
            return message["title"]?.stringValue ?? message["body"]?.stringValue
        default:
            return nil
        }
    }
}
