public import PushMockCore
import PushMockJSON

/// Lint rules for an FCM HTTP v1 send (`messages:send`) that passed ``FCMMessageValidator``:
/// things FCM accepts but devices throttle, drop, ignore or render badly, plus the APNs
/// payload rules applied to `message.apns.payload` for iOS. `docs/lint-rules.md` lists every
/// rule with its source.
///
/// Works on the validated ``FCMMessage``, so snake_case and lowerCamelCase spellings are
/// already unified and nothing is parsed again.
///
/// Platform rules run when the target platform is that platform. For
/// ``LintTargetPlatform/unknown`` (topics, conditions, tokens the registry does not know), iOS
/// rules run when the message has an `apns` block and Android rules when it has an `android`
/// block — the sender's own sign that it expects such devices — while the cross-platform
/// `notification` rules always run.
///
/// ```swift
/// let findings = FCMLinter.lint(
///     sendRequest,
///     platform: tokenRecord.map { LintTargetPlatform(rawValue: $0.platform.rawValue) ?? .unknown } ?? .unknown,
///     now: clock.now(),
///     configuration: lintConfiguration
/// )
/// ```
public enum FCMLinter {
    /// Lints a validated send request.
    public static func lint(
        _ request: FCMSendRequest,
        platform: LintTargetPlatform,
        iosBundleID: String? = nil,
        now: Timestamp,
        configuration: LintConfiguration = .standard
    ) -> [LintFinding] {
        lint(request.message, platform: platform, iosBundleID: iosBundleID, now: now, configuration: configuration)
    }

    /// Lints a validated message.
    ///
    /// - Parameters:
    ///   - platform: the device kind the message goes to, as far as the gateway knows.
    ///   - iosBundleID: the iOS app's bundle ID when known (for the critical-alerts
    ///     entitlement); otherwise `apns.headers` `apns-topic` is used, if any.
    ///   - now: the gateway's time, for `apns-expiration` and Live Activity timestamps.
    public static func lint(
        _ message: FCMMessage,
        platform: LintTargetPlatform,
        iosBundleID: String? = nil,
        now: Timestamp,
        configuration: LintConfiguration = .standard
    ) -> [LintFinding] {
        var report = LintReport(configuration: configuration)
        let notificationHasText = hasText(message.notification?.title) || hasText(message.notification?.body)
        let payloadObject = message.apns?.payload?.objectValue
        let apsFacts = payloadObject.map(APSFacts.init(payload:))

        if platform == .ios || (platform == .unknown && message.apns != nil) {
            lintIOS(
                message,
                payloadObject: payloadObject,
                apsFacts: apsFacts,
                notificationHasText: notificationHasText,
                iosBundleID: iosBundleID,
                now: now,
                into: &report
            )
        }
        if platform == .android || (platform == .unknown && message.android != nil) {
            lintAndroid(message, into: &report)
        }
        lintEmptyNotification(message, platform: platform, apsFacts: apsFacts, notificationHasText: notificationHasText, into: &report)
        if message.target.isFanOut, message.android?.priority == .high {
            report.add(
                .fcmFanOutHighPriority,
                field: "message.android.priority",
                "android.priority is HIGH on a \(message.target.fieldName) send; topic messages are optimised for throughput, not latency — send time-critical messages to tokens."
            )
        }
        return report.findings
    }

    // MARK: iOS

    private static func lintIOS(
        _ message: FCMMessage,
        payloadObject: JSONObject?,
        apsFacts: APSFacts?,
        notificationHasText: Bool,
        iosBundleID: String?,
        now: Timestamp,
        into report: inout LintReport
    ) {
        let apns = message.apns
        let headerValues = apns?.headerValues ?? APNsNotificationHeaders()
        let isLiveActivity = apns?.liveActivityToken != nil || headerValues.pushType == .liveactivity
        let apsPath = "message.apns.payload.aps"

        if !isLiveActivity, message.notification == nil, !(apsFacts?.hasUserFacingKey ?? false) {
            if headerValues.priority == .immediate {
                report.add(
                    .fcmIOSDataOnlyHighPriority,
                    field: "message.apns.headers.apns-priority",
                    "A data-only message for iOS is sent with apns-priority 10; Firebase requires 5 for data messages to Apple devices (real FCM may reject it with INVALID_ARGUMENT), and APNs throttles it as a background push."
                )
            }
            if !(apsFacts?.isContentAvailable ?? false) {
                report.add(
                    .fcmIOSDataOnlyWithoutContentAvailable,
                    field: "\(apsPath).content-available",
                    "A data-only message for iOS without \(apsPath).content-available: 1 shows nothing and does not wake the app to receive the data."
                )
            }
        }

        if !(apsFacts?.isMutableContent ?? false),
            let image = imageForIOS(message, payloadObject: payloadObject, configuration: report.configuration)
        {
            report.add(
                .fcmIOSImageWithoutMutableContent,
                field: image.field,
                "\(image.field) sets an image (\(image.url)) for iOS but \(apsPath).mutable-content is not 1, so no notification service extension runs to show it."
            )
        }

        if let expiration = headerValues.expiration, expiration != 0, expiration < now.secondsSince1970 {
            let hint = expiration < 1_000_000_000 ? " — it looks like a duration, but apns-expiration is a UNIX time in seconds" : ""
            report.add(
                .apnsExpirationInPast,
                field: "message.apns.headers.apns-expiration",
                "apns.headers apns-expiration \(expiration) (\(Timestamp(secondsSince1970: expiration))) is already in the past\(hint); APNs will not store the notification for an offline device."
            )
        }

        guard let apsFacts, apsFacts.apsIsObject else { return }
        let pushType: APNsPushType? = isLiveActivity ? .liveactivity : headerValues.pushType
        let bundleID = iosBundleID ?? headerValues.topic.map { topic in pushType?.bundleID(fromTopic: topic) ?? topic }
        let checks = APSChecks(apsPath: apsPath, pushType: pushType, bundleID: bundleID, now: now)
        if isLiveActivity {
            checks.checkLiveActivity(apsFacts, into: &report)
        } else {
            checks.checkMutableContentNeedsAlert(apsFacts, alertTextElsewhere: notificationHasText, into: &report)
        }
        checks.checkContent(apsFacts, alertTextElsewhere: notificationHasText, into: &report)
        checks.checkKeys(apsFacts, into: &report)
    }

    /// Where an iOS image comes from: `apns.fcm_options.image`, `notification.image`, or an
    /// image key inside `apns.payload`.
    private static func imageForIOS(
        _ message: FCMMessage,
        payloadObject: JSONObject?,
        configuration: LintConfiguration
    ) -> (field: String, url: String)? {
        if let image = message.apns?.fcmOptions?.image, !image.isEmpty {
            return ("message.apns.fcm_options.image", image)
        }
        if let image = message.notification?.image, !image.isEmpty {
            return ("message.notification.image", image)
        }
        if let payloadObject, let found = APSChecks.imageURL(in: payloadObject, configuration: configuration) {
            return ("message.apns.payload.\(found.path)", found.url)
        }
        return nil
    }

    // MARK: Android

    private static func lintAndroid(_ message: FCMMessage, into report: inout LintReport) {
        guard let android = message.android else { return }
        let showsNotification = message.notification != nil || android.notification != nil
        if android.priority == .high, !showsNotification {
            report.add(
                .fcmAndroidHighPriorityWithoutNotification,
                field: "message.android.priority",
                "android.priority is HIGH on a message with no notification; if high-priority messages do not lead to user-visible notifications, FCM deprioritises them to normal."
            )
        }
        // FCM rounds the TTL down to whole seconds, so "0.5s" is 0 as well.
        if let ttl = android.ttl, ttl.components.seconds == 0, (android.priority ?? .normal) == .normal {
            let priority = android.priority == nil ? "default (normal)" : "normal"
            report.add(
                .fcmAndroidZeroTTLNormalPriority,
                field: "message.android.ttl",
                "android.ttl is 0 seconds at \(priority) priority; a sleeping (Doze) device does not get normal-priority messages immediately, and TTL 0 discards what cannot be delivered immediately."
            )
        }
    }

    // MARK: All platforms

    private static func lintEmptyNotification(
        _ message: FCMMessage,
        platform: LintTargetPlatform,
        apsFacts: APSFacts?,
        notificationHasText: Bool,
        into report: inout LintReport
    ) {
        let androidNotification = message.android?.notification
        guard message.notification != nil || androidNotification != nil else { return }
        var silentPlatforms: [String] = []
        if platform.mayReach(.android) {
            let androidHasText =
                hasText(message.androidTitle) || hasText(message.androidBody)
                || hasText(androidNotification?.titleLocKey) || hasText(androidNotification?.bodyLocKey)
            if !androidHasText { silentPlatforms.append("Android") }
        }
        if message.notification != nil, !notificationHasText {
            if platform.mayReach(.ios), !(apsFacts?.alertHasText ?? false) {
                silentPlatforms.append("iOS")
            }
            if platform.mayReach(.web) {
                let web = message.webpush?.notification
                if !hasText(web?["title"]?.stringValue), !hasText(web?["body"]?.stringValue) {
                    silentPlatforms.append("web")
                }
            }
        }
        guard !silentPlatforms.isEmpty else { return }
        let field = message.notification != nil ? "message.notification" : "message.android.notification"
        report.add(
            .fcmEmptyNotification,
            field: field,
            "\(field) has neither title nor body and nothing supplies them for \(silentPlatforms.joined(separator: ", ")); there is no text to display."
        )
    }

    private static func hasText(_ text: String?) -> Bool {
        !(text ?? "").isEmpty
    }
}
