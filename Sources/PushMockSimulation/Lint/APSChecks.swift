import PushMockCore
import PushMockJSON

/// The payload rules shared by direct APNs requests and FCM's `apns.payload`: everything that
/// depends on the `aps` dictionary alone (plus the app's entitlement and the time).
struct APSChecks {
    /// Where `aps` sits, for the findings' `field`: `aps` or `message.apns.payload.aps`.
    var apsPath: String
    /// The push type the notification goes out with; `nil` when unknown (FCM without an
    /// `apns-push-type` header), in which case type-specific rules stay quiet.
    var pushType: APNsPushType?
    /// The app's bundle ID, for the critical-alerts entitlement; `nil` when unknown.
    var bundleID: String?
    var now: Timestamp

    func field(_ key: String) -> String { "\(apsPath).\(key)" }

    /// Rules that apply to any `aps`, whatever the push type. `alertTextElsewhere`: FCM
    /// supplies alert text from `message.notification`, so an empty `aps.alert` is not alone.
    func checkContent(_ facts: APSFacts, alertTextElsewhere: Bool = false, into report: inout LintReport) {
        if let alert = facts.alert, !alertTextElsewhere, let emptiness = APSFacts.emptinessOfAlert(alert) {
            report.add(
                .apnsEmptyAlert,
                field: field("alert"),
                "\(field("alert")) \(emptiness) (\(LintText.show(alert))): there is no text to display."
            )
        }
        if facts.isCritical, !report.configuration.criticalAlerts.isGranted(to: bundleID) {
            let key = facts.interruptionLevel?.stringValue == "critical" ? "interruption-level" : "sound.critical"
            let value = key == "interruption-level" ? "critical" : (facts.sound?["critical"]).map(LintText.show) ?? "1"
            let app = bundleID.map { "app \($0)" } ?? "the app (bundle ID unknown)"
            report.add(
                .apnsCriticalWithoutEntitlement,
                field: field(key),
                "\(field(key)) is \(value), but \(app) is not configured as holding the Critical Alerts entitlement; without it the notification does not bypass mute or Focus."
            )
        }
        if let level = facts.interruptionLevel, !APSKeys.interruptionLevels.contains(level.stringValue ?? "") {
            let hint =
                level.stringValue == "time-senstive" ? " (Apple's documentation once had this typo; the value is time-sensitive)" : ""
            report.add(
                .apnsUnknownInterruptionLevel,
                field: field("interruption-level"),
                "\(field("interruption-level")) is \(LintText.show(level))\(hint); only passive, active, time-sensitive and critical are recognised, so the default level applies."
            )
        }
        if let score = facts.relevanceScore, pushType != .liveactivity, !Self.isUnitInterval(score) {
            report.add(
                .apnsRelevanceScoreOutOfRange,
                field: field("relevance-score"),
                "\(field("relevance-score")) is \(LintText.show(score)); Apple defines it as a number between 0 and 1."
            )
        }
        if case .object(let sound) = facts.sound, let volume = sound["volume"], !Self.isUnitInterval(volume) {
            report.add(
                .apnsCriticalVolumeOutOfRange,
                field: field("sound.volume"),
                "\(field("sound.volume")) is \(LintText.show(volume)); the volume must be between 0.0 and 1.0."
            )
        }
        if let badge = facts.badge, !((badge.int64Value ?? -1) >= 0) {
            report.add(
                .apnsBadgeInvalid,
                field: field("badge"),
                "\(field("badge")) is \(LintText.show(badge)); it should be a non-negative integer (0 removes the badge)."
            )
        }
        if let threadID = facts.threadID, (threadID.stringValue ?? "").isEmpty {
            report.add(
                .apnsThreadIDEmpty,
                field: field("thread-id"),
                "\(field("thread-id")) is \(LintText.show(threadID)); an empty thread identifier groups nothing."
            )
        }
        if let value = facts.contentAvailable, !APSFacts.isNumberOne(value) {
            report.add(
                .apnsContentAvailableNotOne,
                field: field("content-available"),
                "\(field("content-available")) is \(LintText.show(value)); Apple documents only the number 1 (omit the key otherwise)."
            )
        }
        if let value = facts.mutableContent, !APSFacts.isNumberOne(value) {
            report.add(
                .apnsMutableContentNotOne,
                field: field("mutable-content"),
                "\(field("mutable-content")) is \(LintText.show(value)); only the number 1 runs the notification service extension."
            )
        }
    }

    /// Keys Apple does not define: misspellings of Apple keys (warning) and custom keys (info).
    func checkKeys(_ facts: APSFacts, into report: inout LintReport) {
        for key in facts.otherKeys {
            if let apple = APSKeys.appleSpelling(of: key, in: APSKeys.aps) {
                report.add(
                    .apnsMisspelledKey,
                    field: field(key),
                    "\(field(key)) is not an APNs key; Apple spells it \(apple), so this setting is ignored."
                )
            } else {
                report.add(
                    .apnsCustomKeyInAps,
                    field: field(key),
                    "\(field(key)) is not an Apple key; APNs ignores custom keys inside aps — put them beside aps."
                )
            }
        }
        if case .object(let alert) = facts.alert {
            for key in alert.keys where !APSKeys.alert.contains(key) {
                if let apple = APSKeys.appleSpelling(of: key, in: APSKeys.alert) {
                    report.add(
                        .apnsMisspelledKey,
                        field: field("alert.\(key)"),
                        "\(field("alert.\(key)")) is not an APNs key; Apple spells it \(apple), so it is ignored."
                    )
                }
            }
        }
    }

    /// `mutable-content: 1` on a notification that shows no alert text. `alertTextElsewhere`:
    /// FCM supplies the alert from `message.notification`.
    func checkMutableContentNeedsAlert(_ facts: APSFacts, alertTextElsewhere: Bool = false, into report: inout LintReport) {
        guard facts.isMutableContent, !facts.alertHasText, !alertTextElsewhere else { return }
        report.add(
            .apnsMutableContentWithoutAlert,
            field: field("mutable-content"),
            "\(field("mutable-content")) is 1 but there is no alert text; notification service extensions only run for notifications that display an alert."
        )
    }

    /// Live Activity payload rules (push type `liveactivity`).
    func checkLiveActivity(_ facts: APSFacts, into report: inout LintReport) {
        let event = facts.event?.stringValue
        switch event {
        case "start", "update", "end":
            break
        default:
            let actual = facts.event.map { "is \(LintText.show($0))" } ?? "is missing"
            report.add(
                .apnsLiveActivityMissingEvent,
                field: field("event"),
                "\(field("event")) \(actual); a Live Activity push needs start, update or end."
            )
        }
        if let timestamp = facts.timestamp, let seconds = timestamp.doubleValue {
            let limit = Double(now.secondsSince1970) + Self.liveActivityMaximumLead
            if seconds > limit {
                let unit = seconds > 100_000_000_000 ? " — it looks like milliseconds; ActivityKit expects seconds" : ""
                report.add(
                    .apnsLiveActivityTimestampInFuture,
                    field: field("timestamp"),
                    "\(field("timestamp")) is \(LintText.show(timestamp)), more than 8 hours after now (\(now.secondsSince1970))\(unit); such updates are dropped."
                )
            }
        } else {
            let actual = facts.timestamp.map { "is \(LintText.show($0)), not a number" } ?? "is missing"
            report.add(
                .apnsLiveActivityMissingTimestamp,
                field: field("timestamp"),
                "\(field("timestamp")) \(actual); ActivityKit orders updates by this UNIX time in seconds and ignores stale ones."
            )
        }
        if event == "start" || event == "update", facts.contentState?.objectValue == nil {
            let actual = facts.contentState.map { "is \(LintText.kind(of: $0))" } ?? "is missing"
            report.add(
                .apnsLiveActivityMissingContentState,
                field: field("content-state"),
                "\(field("content-state")) \(actual) on a Live Activity \(event ?? "") push; there is no new state to show."
            )
        }
        if event == "start" {
            var missing: [String] = []
            if facts.attributesType?.stringValue?.isEmpty ?? true { missing.append("attributes-type") }
            if facts.attributes?.objectValue == nil { missing.append("attributes") }
            if facts.alert == nil { missing.append("alert") }
            if !missing.isEmpty {
                report.add(
                    .apnsLiveActivityStartIncomplete,
                    field: field(missing[0]),
                    "A Live Activity start push lacks \(LintText.list(missing.map { "\(apsPath).\($0)" })); no Live Activity starts without them."
                )
            }
        }
    }

    /// The first image or attachment URL found under the configured keys
    /// (``LintConfiguration/imageURLKeys``): its key path and value.
    static func imageURL(in payload: JSONObject, configuration: LintConfiguration) -> (path: String, url: String)? {
        guard payload.members.contains(where: { configuration.imageURLRoots.contains($0.key) }) else { return nil }
        for path in configuration.imageURLPaths {
            guard let first = path.first, var value = payload[first] else { continue }
            for key in path.dropFirst() {
                guard let next = value[key] else { value = .null; break }
                value = next
            }
            if let url = value.stringValue, isHTTPURL(url) {
                return (path.joined(separator: "."), url)
            }
        }
        return nil
    }

    /// Starts with `http://` or `https://`, in any case.
    static func isHTTPURL(_ text: String) -> Bool {
        let lowered = text.prefix(8).lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// Apple DTS: Live Activity timestamps more than 8 hours ahead are dropped.
    static let liveActivityMaximumLead: Double = 8 * 3600

    static func isUnitInterval(_ value: JSONValue) -> Bool {
        guard let number = value.doubleValue else { return false }
        return number >= 0 && number <= 1
    }
}
