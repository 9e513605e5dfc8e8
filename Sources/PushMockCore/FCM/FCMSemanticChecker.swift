import PushMockJSON

/// Steps 4–11 of ``FCMMessageValidator``: FCM's rules on a message that fits the schema, while
/// building the typed ``FCMMessage``.
struct FCMSemanticChecker {
    let options: FCMValidationOptions

    private func invalid(_ field: String, _ description: String, message: String? = nil) -> FCMError {
        var error = FCMError.invalidField(field, description, generic: options.genericInvalidArgumentMessages)
        if let message, !options.genericInvalidArgumentMessages {
            error.message = message
        }
        return error
    }

    func check(_ parsed: FCMParsedMessage) throws(FCMError) -> FCMMessage {
        let target = try checkTarget(parsed)
        try checkReservedKeys(parsed.mapEntries("data"), path: "message.data")

        var android: FCMAndroidConfig?
        if let parsedAndroid = parsed.message("android") {
            android = try checkAndroid(parsedAndroid)
        }
        var webpush: FCMWebpushConfig?
        if let parsedWebpush = parsed.message("webpush") {
            webpush = try checkWebpush(parsedWebpush)
        }
        var apns: FCMApnsConfig?
        if let parsedApns = parsed.message("apns") {
            apns = try checkApns(parsedApns)
        }
        var fcmOptions: FCMFcmOptions?
        if let parsedOptions = parsed.message("fcm_options") {
            let options = FCMFcmOptions(parsedOptions)
            try checkAnalyticsLabel(options.analyticsLabel, path: "message.fcm_options.analytics_label")
            fcmOptions = options
        }

        var message = FCMMessage(
            name: parsed.string("name"),
            target: target,
            data: parsed.map("data"),
            notification: parsed.message("notification").map(FCMNotification.init),
            android: android,
            webpush: webpush,
            apns: apns,
            fcmOptions: fcmOptions
        )
        // What FCM measures against the limit: `message.data` and the top-level `notification`
        // only. Platform overrides (`android.data`, `android.notification`, `webpush`, `apns`)
        // travel outside that budget; `apns.payload` has APNs's own limit (step 9).
        message.payloadSize = (message.data?.byteCount ?? 0) + (message.notification?.byteCount ?? 0)
        let limit = target.isFanOut ? options.maximumTopicPayloadSize : options.maximumPayloadSize
        if message.payloadSize > limit {
            throw FCMError.messageTooBig(toTopic: target.isFanOut)
        }
        return message
    }

    // MARK: Target

    private func checkTarget(_ parsed: FCMParsedMessage) throws(FCMError) -> FCMTarget {
        if let token = parsed.string("token") {
            guard FCMRegistrationToken.isWellFormed(token, rule: options.identifierRule) else {
                throw FCMError.invalidRegistrationToken()
            }
            return .token(token)
        }
        if let topic = parsed.string("topic") {
            switch FCMTopicName.validate(topic) {
            case .success:
                return .topic(topic)
            case .failure(let problem):
                throw invalid("message.topic", "Invalid topic name \"\(topic)\": \(problem).")
            }
        }
        if let text = parsed.string("condition") {
            do {
                return .condition(try FCMCondition(parsing: text, maximumTopics: options.maximumConditionTopics))
            } catch {
                throw invalid("message.condition", "Invalid condition \"\(text)\": \(error.reason).")
            }
        }
        if let fid = parsed.string("fid") {
            guard FCMInstallationID.isWellFormed(fid, rule: options.identifierRule) else {
                throw invalid("message.fid", "The installation ID is not a valid Firebase installation ID")
            }
            return .fid(fid)
        }
        throw FCMError.recipientNotSet()
    }

    // MARK: Data

    private func checkReservedKeys(_ entries: [FCMStringMap.Entry]?, path: String) throws(FCMError) {
        guard let entries else { return }
        for (position, entry) in entries.enumerated() where options.reservedDataKeys.isReserved(entry.key) {
            throw invalid(
                "\(path)[\(position)].key",
                "Invalid data key \"\(entry.key)\": \(options.reservedDataKeys.explanation)."
            )
        }
    }

    private func checkAnalyticsLabel(_ label: String?, path: String) throws(FCMError) {
        guard let label, !FCMAnalyticsLabel.isValid(label) else { return }
        throw invalid(path, "Invalid analytics label \"\(label)\": it must match ^[a-zA-Z0-9-_.~%]{1,50}$.")
    }

    // MARK: Android

    private func checkAndroid(_ parsed: FCMParsedMessage) throws(FCMError) -> FCMAndroidConfig {
        if let ttl = parsed.duration("ttl"),
            ttl < .zero || ttl > .seconds(FCMMessageValidator.maximumTTLSeconds)
        {
            throw invalid(
                "message.android.ttl",
                "Invalid TTL \"\(FCMProtoDuration.format(ttl))\": it must be between 0s and 2419200s (4 weeks)."
            )
        }
        try checkReservedKeys(parsed.mapEntries("data"), path: "message.android.data")
        var notification: FCMAndroidNotification?
        if let parsedNotification = parsed.message("notification") {
            notification = try checkAndroidNotification(parsedNotification)
        }
        let config = FCMAndroidConfig(parsed, notification: notification)
        try checkAnalyticsLabel(config.fcmOptions?.analyticsLabel, path: "message.android.fcm_options.analytics_label")
        return config
    }

    private func checkAndroidNotification(_ parsed: FCMParsedMessage) throws(FCMError) -> FCMAndroidNotification {
        let path = "message.android.notification"
        if let color = parsed.string("color"), !Self.isHexColor(color) {
            throw invalid("\(path).color", "Invalid color \"\(color)\": it must be in the form #rrggbb.")
        }
        for prefix in ["title", "body"] {
            if let arguments = parsed.strings("\(prefix)_loc_args"), !arguments.isEmpty,
                (parsed.string("\(prefix)_loc_key") ?? "").isEmpty
            {
                throw invalid("\(path).\(prefix)_loc_key", "\(prefix)_loc_key is required when \(prefix)_loc_args is set.")
            }
        }
        if let count = parsed.int32("notification_count"), count < 0 {
            throw invalid("\(path).notification_count", "notification_count must not be negative (got \(count)).")
        }
        if let timings = parsed.durations("vibrate_timings") {
            for (position, timing) in timings.enumerated() where timing < .zero {
                throw invalid("\(path).vibrate_timings[\(position)]", "vibrate_timings must not be negative.")
            }
        }
        var lightSettings: FCMLightSettings?
        if let parsedLight = parsed.message("light_settings") {
            lightSettings = try checkLightSettings(parsedLight, path: "\(path).light_settings")
        }
        return FCMAndroidNotification(parsed, lightSettings: lightSettings)
    }

    private func checkLightSettings(_ parsed: FCMParsedMessage, path: String) throws(FCMError) -> FCMLightSettings {
        guard let parsedColor = parsed.message("color") else {
            throw invalid("\(path).color", "light_settings.color is required.")
        }
        guard let on = parsed.duration("light_on_duration") else {
            throw invalid("\(path).light_on_duration", "light_settings.light_on_duration is required.")
        }
        guard let off = parsed.duration("light_off_duration") else {
            throw invalid("\(path).light_off_duration", "light_settings.light_off_duration is required.")
        }
        let color = FCMColor(parsedColor)
        for component in [color.red, color.green, color.blue, color.alpha ?? 1] where !(0...1).contains(component) {
            throw invalid("\(path).color", "light_settings.color components must be between 0 and 1.")
        }
        if on < .zero {
            throw invalid("\(path).light_on_duration", "light_settings.light_on_duration must not be negative.")
        }
        if off < .zero {
            throw invalid("\(path).light_off_duration", "light_settings.light_off_duration must not be negative.")
        }
        return FCMLightSettings(color: color, lightOnDuration: on, lightOffDuration: off)
    }

    static func isHexColor(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 7 && bytes[0] == UInt8(ascii: "#")
            && bytes.dropFirst().allSatisfy { FCMASCII.isDigit($0) || "abcdefABCDEF".utf8.contains($0) }
    }

    // MARK: Web push

    private func checkWebpush(_ parsed: FCMParsedMessage) throws(FCMError) -> FCMWebpushConfig {
        let config = FCMWebpushConfig(parsed)
        if let link = config.fcmOptions?.link, !Self.isHTTPSURL(link) {
            throw invalid("message.webpush.fcm_options.link", "Invalid link \"\(link)\": HTTPS is required.")
        }
        try checkAnalyticsLabel(config.fcmOptions?.analyticsLabel, path: "message.webpush.fcm_options.analytics_label")
        return config
    }

    /// `https://` (scheme in any case) followed by a non-empty host.
    static func isHTTPSURL(_ text: String) -> Bool {
        guard FCMASCII.hasPrefixIgnoringCase(text, "https://") else { return false }
        let rest = text.utf8.dropFirst("https://".utf8.count)
        guard let first = rest.first else { return false }
        return first != UInt8(ascii: "/") && first != UInt8(ascii: "?") && first != UInt8(ascii: "#")
            && !rest.contains(0x20)
    }

    // MARK: APNs

    private func checkApns(_ parsed: FCMParsedMessage) throws(FCMError) -> FCMApnsConfig {
        var headers = HTTPHeaderList()
        for entry in parsed.map("headers") ?? FCMStringMap() {
            headers.append(name: entry.key.lowercased(), value: entry.value)
        }
        let values: APNsHeaderValues
        switch APNsRequestRules.parseHeaders(headers) {
        case .success(let parsedValues):
            values = parsedValues
        case .failure(let failure):
            throw apnsHeaderError(failure.error.reason, headers: headers)
        }
        let config = FCMApnsConfig(
            headers: headers,
            headerValues: values,
            payload: parsed.structObject("payload").map { .object($0) },
            fcmOptions: parsed.message("fcm_options").map(FCMFcmOptions.init),
            liveActivityToken: parsed.string("live_activity_token")
        )
        if config.payload != nil {
            let size = config.payloadByteCount
            let pushType = config.effectivePushType
            if APNsRequestRules.checkPayload(byteCount: size, pushType: pushType) != nil {
                throw invalid(
                    "message.apns.payload",
                    "The APNs payload is \(size) bytes; APNs accepts at most \(pushType.maximumPayloadSize) bytes for apns-push-type \(pushType).",
                    message: "APNs message is too big"
                )
            }
        }
        try checkAnalyticsLabel(config.fcmOptions?.analyticsLabel, path: "message.apns.fcm_options.analytics_label")
        return config
    }

    /// Maps the APNs reason for a bad `apns.headers` entry to an FCM error naming the header.
    private func apnsHeaderError(_ reason: APNsReason, headers: HTTPHeaderList) -> FCMError {
        let path = "message.apns.headers"
        if reason == .duplicateHeaders {
            let name = APNsRequestRules.firstDuplicate(in: headers) ?? "apns-*"
            return invalid(
                path,
                "Duplicate APNs header \(name) (APNs answers DuplicateHeaders).",
                message: "Duplicate APNs header \(name)"
            )
        }
        let name: String
        switch reason {
        case .badPriority: name = "apns-priority"
        case .badExpirationDate: name = "apns-expiration"
        case .badCollapseId: name = "apns-collapse-id"
        case .invalidPushType: name = "apns-push-type"
        case .badMessageId: name = "apns-id"
        default: name = "apns-*"
        }
        let value = headers.first(named: name) ?? ""
        return invalid(
            path,
            "Invalid APNs header \(name): \(value) (APNs answers \(reason.rawValue)).",
            message: "Invalid APNs header \(name): \(value)"
        )
    }
}
