public import PushMockJSON

/// One Expo push message to one recipient. The common fields are typed; anything else Expo
/// defines (`subtitle`, `categoryId`, `mutableContent`, `richContent`, …) goes in ``extra``.
public struct ExpoPushMessage: Sendable, Hashable {
    /// `ExponentPushToken[…]`.
    public var to: String
    public var title: String?
    public var body: String?
    /// Custom data (an object).
    public var data: JSONObject?
    /// `"default"` or a bundled sound name.
    public var sound: String?
    public var badge: Int?
    /// Seconds.
    public var ttl: Int?
    /// `default`, `normal` or `high`.
    public var priority: String?
    public var channelID: String?
    /// Other members, written after the typed ones.
    public var extra: JSONObject

    public init(
        to: String,
        title: String? = nil,
        body: String? = nil,
        data: JSONObject? = nil,
        sound: String? = nil,
        badge: Int? = nil,
        ttl: Int? = nil,
        priority: String? = nil,
        channelID: String? = nil,
        extra: JSONObject = JSONObject()
    ) {
        self.to = to
        self.title = title
        self.body = body
        self.data = data
        self.sound = sound
        self.badge = badge
        self.ttl = ttl
        self.priority = priority
        self.channelID = channelID
        self.extra = extra
    }

    /// The message object as sent.
    public var json: JSONValue {
        var object = JSONObject()
        object.append(key: "to", value: .string(to))
        if let title { object.append(key: "title", value: .string(title)) }
        if let body { object.append(key: "body", value: .string(body)) }
        if let data { object.append(key: "data", value: .object(data)) }
        if let sound { object.append(key: "sound", value: .string(sound)) }
        if let badge { object.append(key: "badge", value: JSONValue(badge)) }
        if let ttl { object.append(key: "ttl", value: JSONValue(ttl)) }
        if let priority { object.append(key: "priority", value: .string(priority)) }
        if let channelID { object.append(key: "channelId", value: .string(channelID)) }
        for (key, value) in extra where object[key] == nil {
            object.append(key: key, value: value)
        }
        return .object(object)
    }
}
