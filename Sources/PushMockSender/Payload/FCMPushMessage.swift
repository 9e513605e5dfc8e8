public import PushMockJSON

/// A typed builder for an FCM HTTP v1 `Message` (the `message` of `messages:send`), written
/// with the snake_case field names the Admin SDKs send.
///
/// ```swift
/// var message = FCMPushMessage(target: .token(registrationToken))
/// message.notification = .init(title: "Dinner", body: "Time for your vitamins")
/// message.data = ["link": "myapp://dose/42"]
/// message.android = .init(priority: .high, ttl: .seconds(3600))
/// message.apns = .init(headers: ["apns-priority": "10"], payload: APNsPayload(sound: .default))
/// ```
///
/// For fields this builder does not model, set them in ``extra`` (merged into the message
/// last), or build the whole message from JSON with ``init(json:)``.
public struct FCMPushMessage: Sendable, Hashable {
    /// Who receives the message: exactly one of token, topic or condition.
    public struct Target: Sendable, Hashable, CustomStringConvertible {
        enum Kind: String, Sendable, Hashable {
            case token
            case topic
            case condition
        }

        let kind: Kind
        /// The token, topic name or condition expression.
        public let value: String

        /// A device's registration token.
        public static func token(_ token: String) -> Target { Target(kind: .token, value: token) }

        /// Everyone subscribed to a topic (`weather`; a leading `/topics/` is stripped).
        public static func topic(_ name: String) -> Target {
            Target(kind: .topic, value: name.hasPrefix("/topics/") ? String(name.dropFirst(8)) : name)
        }

        /// Devices whose subscriptions satisfy a condition (`'a' in topics && 'b' in topics`).
        public static func condition(_ expression: String) -> Target { Target(kind: .condition, value: expression) }

        /// `token`, `topic` or `condition`: the field name.
        public var fieldName: String { kind.rawValue }

        /// The device token itself, `topic:<name>` or `condition:<expression>`.
        public var description: String {
            kind == .token ? value : "\(kind.rawValue):\(value)"
        }
    }

    /// `notification`: what every platform shows.
    public struct Notification: Sendable, Hashable {
        public var title: String?
        public var body: String?
        /// `image`: an HTTPS URL.
        public var image: String?

        public init(title: String? = nil, body: String? = nil, image: String? = nil) {
            self.title = title
            self.body = body
            self.image = image
        }
    }

    /// `android.priority`.
    public struct AndroidPriority: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public static let normal = AndroidPriority("normal")
        public static let high = AndroidPriority("high")
        public var description: String { rawValue }
    }

    /// `android`.
    public struct AndroidConfig: Sendable, Hashable {
        public var collapseKey: String?
        public var priority: AndroidPriority?
        /// `ttl`, written as `"<seconds>s"`.
        public var ttl: Duration?
        public var restrictedPackageName: String?
        /// Overrides `message.data` on Android.
        public var data: [String: String]?
        public var notification: AndroidNotification?
        public var directBootOK: Bool?

        public init(
            collapseKey: String? = nil,
            priority: AndroidPriority? = nil,
            ttl: Duration? = nil,
            restrictedPackageName: String? = nil,
            data: [String: String]? = nil,
            notification: AndroidNotification? = nil,
            directBootOK: Bool? = nil
        ) {
            self.collapseKey = collapseKey
            self.priority = priority
            self.ttl = ttl
            self.restrictedPackageName = restrictedPackageName
            self.data = data
            self.notification = notification
            self.directBootOK = directBootOK
        }
    }

    /// `android.notification`.
    public struct AndroidNotification: Sendable, Hashable {
        public var title: String?
        public var body: String?
        public var icon: String?
        /// `#rrggbb`.
        public var color: String?
        public var sound: String?
        public var tag: String?
        public var clickAction: String?
        public var channelID: String?
        public var image: String?

        public init(
            title: String? = nil,
            body: String? = nil,
            icon: String? = nil,
            color: String? = nil,
            sound: String? = nil,
            tag: String? = nil,
            clickAction: String? = nil,
            channelID: String? = nil,
            image: String? = nil
        ) {
            self.title = title
            self.body = body
            self.icon = icon
            self.color = color
            self.sound = sound
            self.tag = tag
            self.clickAction = clickAction
            self.channelID = channelID
            self.image = image
        }
    }

    /// `apns`: APNs headers and payload for iOS devices.
    public struct APNsConfig: Sendable, Hashable {
        /// `apns-priority`, `apns-push-type`, `apns-expiration`, `apns-collapse-id`, …
        public var headers: [String: String]
        public var payload: APNsPayload?
        /// `live_activity_token`.
        public var liveActivityToken: String?

        public init(headers: [String: String] = [:], payload: APNsPayload? = nil, liveActivityToken: String? = nil) {
            self.headers = headers
            self.payload = payload
            self.liveActivityToken = liveActivityToken
        }
    }

    /// `webpush`.
    public struct WebpushConfig: Sendable, Hashable {
        /// RFC 8030 headers (`TTL`, `Urgency`).
        public var headers: [String: String]
        public var data: [String: String]?
        /// The Web Notification properties, as JSON.
        public var notification: JSONObject?
        /// `fcm_options.link`: an HTTPS URL opened on click.
        public var link: String?

        public init(headers: [String: String] = [:], data: [String: String]? = nil, notification: JSONObject? = nil, link: String? = nil) {
            self.headers = headers
            self.data = data
            self.notification = notification
            self.link = link
        }
    }

    public var target: Target
    public var notification: Notification?
    /// `data`: string values only (FCM rejects others).
    public var data: [String: String]?
    public var android: AndroidConfig?
    public var apns: APNsConfig?
    public var webpush: WebpushConfig?
    /// `fcm_options.analytics_label`.
    public var analyticsLabel: String?
    /// Members merged into the message last (fields this builder does not model).
    public var extra: JSONObject

    /// The whole message as given to ``init(json:)``.
    private var raw: JSONObject?

    public init(
        target: Target,
        notification: Notification? = nil,
        data: [String: String]? = nil,
        android: AndroidConfig? = nil,
        apns: APNsConfig? = nil,
        webpush: WebpushConfig? = nil,
        analyticsLabel: String? = nil,
        extra: JSONObject = JSONObject()
    ) {
        self.target = target
        self.notification = notification
        self.data = data
        self.android = android
        self.apns = apns
        self.webpush = webpush
        self.analyticsLabel = analyticsLabel
        self.extra = extra
        self.raw = nil
    }

    /// A message given as JSON (a `Message` object: `{"token": …, "notification": {…}}`),
    /// sent as is. Its target is read from `token`, `topic` or `condition`.
    ///
    /// - Throws: ``SenderError/Code/invalidPayload`` when it is not an object with exactly
    ///   one of those three as a string.
    public init(json: JSONValue) throws(SenderError) {
        guard case .object(let object) = json else {
            throw SenderError(.invalidPayload, "an FCM message must be a JSON object")
        }
        let targets: [Target] = [
            object["token"]?.stringValue.map(Target.token),
            object["topic"]?.stringValue.map(Target.topic),
            object["condition"]?.stringValue.map(Target.condition),
        ].compactMap { $0 }
        guard targets.count == 1, let target = targets.first else {
            throw SenderError(.invalidPayload, "an FCM message needs exactly one of token, topic or condition (found \(targets.count))")
        }
        self.init(target: target)
        self.raw = object
    }

    /// The message as JSON.
    public var jsonValue: JSONValue {
        if var raw {
            for member in extra.members { raw[member.key] = member.value }
            return .object(raw)
        }
        var message = JSONObject()
        message[target.fieldName] = .string(target.value)
        if let notification {
            var object = JSONObject()
            object.setIfPresent("title", notification.title)
            object.setIfPresent("body", notification.body)
            object.setIfPresent("image", notification.image)
            message["notification"] = .object(object)
        }
        if let data { message["data"] = Self.stringMap(data) }
        if let android {
            var object = JSONObject()
            object.setIfPresent("collapse_key", android.collapseKey)
            object.setIfPresent("priority", android.priority?.rawValue)
            if let ttl = android.ttl { object["ttl"] = .string("\(max(0, ttl.components.seconds))s") }
            object.setIfPresent("restricted_package_name", android.restrictedPackageName)
            if let data = android.data { object["data"] = Self.stringMap(data) }
            if let notification = android.notification {
                var fields = JSONObject()
                fields.setIfPresent("title", notification.title)
                fields.setIfPresent("body", notification.body)
                fields.setIfPresent("icon", notification.icon)
                fields.setIfPresent("color", notification.color)
                fields.setIfPresent("sound", notification.sound)
                fields.setIfPresent("tag", notification.tag)
                fields.setIfPresent("click_action", notification.clickAction)
                fields.setIfPresent("channel_id", notification.channelID)
                fields.setIfPresent("image", notification.image)
                object["notification"] = .object(fields)
            }
            if let directBootOK = android.directBootOK { object["direct_boot_ok"] = .bool(directBootOK) }
            message["android"] = .object(object)
        }
        if let apns {
            var object = JSONObject()
            if !apns.headers.isEmpty { object["headers"] = Self.stringMap(apns.headers) }
            if let payload = apns.payload { object["payload"] = payload.jsonValue }
            object.setIfPresent("live_activity_token", apns.liveActivityToken)
            message["apns"] = .object(object)
        }
        if let webpush {
            var object = JSONObject()
            if !webpush.headers.isEmpty { object["headers"] = Self.stringMap(webpush.headers) }
            if let data = webpush.data { object["data"] = Self.stringMap(data) }
            if let notification = webpush.notification { object["notification"] = .object(notification) }
            if let link = webpush.link { object["fcm_options"] = .object(["link": .string(link)]) }
            message["webpush"] = .object(object)
        }
        if let analyticsLabel {
            message["fcm_options"] = .object(["analytics_label": .string(analyticsLabel)])
        }
        for member in extra.members { message[member.key] = member.value }
        return .object(message)
    }

    /// The `SendMessageRequest` body: `{"validate_only": true?, "message": {…}}`.
    public func requestBody(validateOnly: Bool) -> [UInt8] {
        var request = JSONObject()
        if validateOnly { request["validate_only"] = true }
        request["message"] = jsonValue
        return JSONValue.object(request).compactBytes
    }

    private static func stringMap(_ map: [String: String]) -> JSONValue {
        .object(JSONObject(map.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.string($0.value)) }))
    }
}
