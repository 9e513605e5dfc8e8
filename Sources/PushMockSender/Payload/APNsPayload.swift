public import PushMockCore
public import PushMockJSON

/// A typed builder for the APNs JSON payload: the `aps` dictionary (Apple, "Generating a
/// remote notification") plus your own top-level keys.
///
/// ```swift
/// var payload = APNsPayload(alert: .init(title: "Dinner", body: "Time for your {{ compound_name }}"))
/// payload.sound = .default
/// payload.threadID = "reminders"
/// payload.custom["link"] = "myapp://dose/42"
/// let bytes = payload.encoded()
/// ```
///
/// Keys are written in a fixed order, only when set. Custom keys go beside `aps` (Apple: "Don't
/// add your own custom keys to the aps dictionary").
public struct APNsPayload: Sendable, Hashable {
    /// `aps.alert`.
    public var alert: Alert?
    /// `aps.badge`; 0 clears the badge.
    public var badge: Int?
    /// `aps.sound`.
    public var sound: Sound?
    /// `aps.thread-id`: groups notifications.
    public var threadID: String?
    /// `aps.category`: the notification's actions.
    public var category: String?
    /// `aps.content-available: 1`: a background update.
    public var contentAvailable: Bool
    /// `aps.mutable-content: 1`: let the Notification Service Extension modify it.
    public var mutableContent: Bool
    /// `aps.target-content-id`: the window to bring forward.
    public var targetContentID: String?
    /// `aps.interruption-level`.
    public var interruptionLevel: InterruptionLevel?
    /// `aps.relevance-score` (0…1 for notifications; any number for Live Activities).
    public var relevanceScore: Double?
    /// `aps.filter-criteria`: the Focus filter.
    public var filterCriteria: String?
    /// Live Activity fields (`event`, `timestamp`, `content-state`, …).
    public var liveActivity: LiveActivity?
    /// Top-level keys beside `aps`, e.g. a deep link.
    public var custom: JSONObject

    public init(
        alert: Alert? = nil,
        badge: Int? = nil,
        sound: Sound? = nil,
        threadID: String? = nil,
        category: String? = nil,
        contentAvailable: Bool = false,
        mutableContent: Bool = false,
        targetContentID: String? = nil,
        interruptionLevel: InterruptionLevel? = nil,
        relevanceScore: Double? = nil,
        filterCriteria: String? = nil,
        liveActivity: LiveActivity? = nil,
        custom: JSONObject = JSONObject()
    ) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.targetContentID = targetContentID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.filterCriteria = filterCriteria
        self.liveActivity = liveActivity
        self.custom = custom
    }

    /// A background update (`content-available: 1`, nothing shown).
    public static func background(custom: JSONObject = JSONObject()) -> APNsPayload {
        APNsPayload(contentAvailable: true, custom: custom)
    }

    /// The push type the payload calls for: `liveactivity` with Live Activity fields,
    /// `background` when it only sets `content-available`, else `alert`.
    public var suggestedPushType: APNsPushType {
        if liveActivity != nil { return .liveactivity }
        if contentAvailable, alert == nil, badge == nil, sound == nil { return .background }
        return .alert
    }

    // MARK: Alert

    /// `aps.alert`: a dictionary of texts (or a plain string, see ``text(_:)``).
    public struct Alert: Sendable, Hashable {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        /// `launch-image`.
        public var launchImage: String?
        /// `title-loc-key` / `title-loc-args`.
        public var titleLocKey: String?
        public var titleLocArgs: [String]?
        /// `subtitle-loc-key` / `subtitle-loc-args`.
        public var subtitleLocKey: String?
        public var subtitleLocArgs: [String]?
        /// `loc-key` / `loc-args` (the body).
        public var locKey: String?
        public var locArgs: [String]?
        /// Written as `"alert": "<body>"` instead of a dictionary.
        var isPlainText = false

        public init(
            title: String? = nil,
            subtitle: String? = nil,
            body: String? = nil,
            launchImage: String? = nil,
            titleLocKey: String? = nil,
            titleLocArgs: [String]? = nil,
            subtitleLocKey: String? = nil,
            subtitleLocArgs: [String]? = nil,
            locKey: String? = nil,
            locArgs: [String]? = nil
        ) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.launchImage = launchImage
            self.titleLocKey = titleLocKey
            self.titleLocArgs = titleLocArgs
            self.subtitleLocKey = subtitleLocKey
            self.subtitleLocArgs = subtitleLocArgs
            self.locKey = locKey
            self.locArgs = locArgs
        }

        /// `"alert": "<text>"`, the short form (the text is the body).
        public static func text(_ text: String) -> Alert {
            var alert = Alert(body: text)
            alert.isPlainText = true
            return alert
        }

        var jsonValue: JSONValue {
            if isPlainText, let body { return .string(body) }
            var object = JSONObject()
            object.setIfPresent("title", title)
            object.setIfPresent("subtitle", subtitle)
            object.setIfPresent("body", body)
            object.setIfPresent("launch-image", launchImage)
            object.setIfPresent("title-loc-key", titleLocKey)
            object.setIfPresent("title-loc-args", titleLocArgs)
            object.setIfPresent("subtitle-loc-key", subtitleLocKey)
            object.setIfPresent("subtitle-loc-args", subtitleLocArgs)
            object.setIfPresent("loc-key", locKey)
            object.setIfPresent("loc-args", locArgs)
            return .object(object)
        }
    }

    // MARK: Sound

    /// `aps.sound`: a sound file name (or `default`), or a critical-alert dictionary.
    public struct Sound: Sendable, Hashable {
        private enum Kind: Sendable, Hashable {
            case named(String)
            case critical(name: String, volume: Double?)
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// The system sound.
        public static let `default` = Sound(.named("default"))

        /// A sound file in the app bundle.
        public static func named(_ name: String) -> Sound { Sound(.named(name)) }

        /// A critical alert (needs Apple's entitlement): `{"critical": 1, "name": …, "volume": 0…1}`.
        public static func critical(name: String = "default", volume: Double? = nil) -> Sound {
            Sound(.critical(name: name, volume: volume))
        }

        var jsonValue: JSONValue {
            switch kind {
            case .named(let name):
                return .string(name)
            case .critical(let name, let volume):
                var object: JSONObject = ["critical": 1, "name": .string(name)]
                if let volume { object["volume"] = JSONValue(volume) }
                return .object(object)
            }
        }
    }

    // MARK: Interruption level

    /// `aps.interruption-level`.
    public struct InterruptionLevel: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: String, Sendable, Hashable, CaseIterable {
            case passive
            case active
            case timeSensitive = "time-sensitive"
            case critical
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Parses the wire value (`passive`, `active`, `time-sensitive`, `critical`).
        public init?(rawValue: String) {
            guard let wrapped = Wrapped(rawValue: rawValue) else { return nil }
            self.wrapped = wrapped
        }

        /// Added silently to the notification list.
        public static let passive = Self(.passive)
        /// Presented immediately (the default).
        public static let active = Self(.active)
        /// Breaks through Focus.
        public static let timeSensitive = Self(.timeSensitive)
        /// Bypasses the mute switch (needs Apple's entitlement).
        public static let critical = Self(.critical)

        public static let all: [InterruptionLevel] = Wrapped.allCases.map(InterruptionLevel.init)

        public var rawValue: String { wrapped.rawValue }
        public var description: String { wrapped.rawValue }
    }

    // MARK: Live Activities

    /// The `aps` fields of a Live Activity push (`apns-push-type: liveactivity`, topic
    /// `<bundle>.push-type.liveactivity`).
    public struct LiveActivity: Sendable, Hashable {
        /// `start`, `update` or `end`.
        public struct Event: Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String
            private init(_ rawValue: String) { self.rawValue = rawValue }
            public static let start = Event("start")
            public static let update = Event("update")
            public static let end = Event("end")
            public var description: String { rawValue }
        }

        public var event: Event
        /// `timestamp`: seconds since 1970 (newer updates win).
        public var timestamp: Int64
        /// `content-state`: the activity's ContentState as JSON.
        public var contentState: JSONObject?
        /// `stale-date`: seconds since 1970.
        public var staleDate: Int64?
        /// `dismissal-date`: seconds since 1970 (past = dismiss now).
        public var dismissalDate: Int64?
        /// `attributes-type`: the ActivityAttributes struct name (`start` only).
        public var attributesType: String?
        /// `attributes` (`start` only).
        public var attributes: JSONObject?
        /// `input-push-token: 1` (iOS 18: push-to-start asks for an update token).
        public var inputPushToken: Bool
        /// `input-push-channel`: a broadcast channel ID to subscribe the started activity to.
        public var inputPushChannel: String?

        public init(
            event: Event,
            timestamp: Int64,
            contentState: JSONObject? = nil,
            staleDate: Int64? = nil,
            dismissalDate: Int64? = nil,
            attributesType: String? = nil,
            attributes: JSONObject? = nil,
            inputPushToken: Bool = false,
            inputPushChannel: String? = nil
        ) {
            self.event = event
            self.timestamp = timestamp
            self.contentState = contentState
            self.staleDate = staleDate
            self.dismissalDate = dismissalDate
            self.attributesType = attributesType
            self.attributes = attributes
            self.inputPushToken = inputPushToken
            self.inputPushChannel = inputPushChannel
        }
    }

    // MARK: Encoding

    /// The payload as a JSON value: `{"aps": {…}, <custom keys>}`.
    public var jsonValue: JSONValue {
        var aps = JSONObject()
        if let alert { aps["alert"] = alert.jsonValue }
        aps.setIfPresent("badge", badge.map { JSONValue($0) })
        if let sound { aps["sound"] = sound.jsonValue }
        aps.setIfPresent("thread-id", threadID)
        aps.setIfPresent("category", category)
        if contentAvailable { aps["content-available"] = 1 }
        if mutableContent { aps["mutable-content"] = 1 }
        aps.setIfPresent("target-content-id", targetContentID)
        aps.setIfPresent("interruption-level", interruptionLevel?.rawValue)
        aps.setIfPresent("relevance-score", relevanceScore.map { JSONValue($0) })
        aps.setIfPresent("filter-criteria", filterCriteria)
        if let liveActivity {
            aps["event"] = .string(liveActivity.event.rawValue)
            aps["timestamp"] = JSONValue(liveActivity.timestamp)
            if let contentState = liveActivity.contentState { aps["content-state"] = .object(contentState) }
            aps.setIfPresent("stale-date", liveActivity.staleDate.map { JSONValue($0) })
            aps.setIfPresent("dismissal-date", liveActivity.dismissalDate.map { JSONValue($0) })
            aps.setIfPresent("attributes-type", liveActivity.attributesType)
            if let attributes = liveActivity.attributes { aps["attributes"] = .object(attributes) }
            if liveActivity.inputPushToken { aps["input-push-token"] = 1 }
            aps.setIfPresent("input-push-channel", liveActivity.inputPushChannel)
        }
        var root = JSONObject()
        root["aps"] = .object(aps)
        for member in custom.members where member.key != "aps" {
            root.append(key: member.key, value: member.value)
        }
        return .object(root)
    }

    /// The payload as compact JSON bytes.
    public func encoded() -> [UInt8] { jsonValue.compactBytes }
}

extension JSONObject {
    mutating func setIfPresent(_ key: String, _ value: String?) {
        if let value { self[key] = .string(value) }
    }

    mutating func setIfPresent(_ key: String, _ value: [String]?) {
        if let value { self[key] = .array(value.map(JSONValue.string)) }
    }

    mutating func setIfPresent(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }
}
