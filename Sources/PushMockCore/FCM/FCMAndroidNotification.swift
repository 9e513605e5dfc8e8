/// `android.notification`: every field of `AndroidNotification`, as sent (`nil` = not set).
public struct FCMAndroidNotification: Sendable, Hashable {
    public var title: String?
    public var body: String?
    public var icon: String?
    /// `#rrggbb`.
    public var color: String?
    public var sound: String?
    public var tag: String?
    public var clickAction: String?
    public var bodyLocKey: String?
    public var bodyLocArgs: [String]?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var channelID: String?
    public var ticker: String?
    public var sticky: Bool?
    public var eventTime: Timestamp?
    public var localOnly: Bool?
    public var notificationPriority: FCMNotificationPriority?
    public var defaultSound: Bool?
    public var defaultVibrateTimings: Bool?
    public var defaultLightSettings: Bool?
    public var vibrateTimings: [Duration]?
    public var visibility: FCMNotificationVisibility?
    public var notificationCount: Int32?
    public var lightSettings: FCMLightSettings?
    public var image: String?
    /// Deprecated by Firebase; still accepted.
    public var bypassProxyNotification: Bool?
    public var proxy: FCMNotificationProxy?

    public init() {}

    init(_ parsed: FCMParsedMessage, lightSettings: FCMLightSettings?) {
        title = parsed.string("title")
        body = parsed.string("body")
        icon = parsed.string("icon")
        color = parsed.string("color")
        sound = parsed.string("sound")
        tag = parsed.string("tag")
        clickAction = parsed.string("click_action")
        bodyLocKey = parsed.string("body_loc_key")
        bodyLocArgs = parsed.strings("body_loc_args")
        titleLocKey = parsed.string("title_loc_key")
        titleLocArgs = parsed.strings("title_loc_args")
        channelID = parsed.string("channel_id")
        ticker = parsed.string("ticker")
        sticky = parsed.bool("sticky")
        eventTime = parsed.timestamp("event_time")
        localOnly = parsed.bool("local_only")
        notificationPriority = parsed.enumeration("notification_priority").flatMap {
            FCMNotificationPriority(number: $0.number)
        }
        defaultSound = parsed.bool("default_sound")
        defaultVibrateTimings = parsed.bool("default_vibrate_timings")
        defaultLightSettings = parsed.bool("default_light_settings")
        vibrateTimings = parsed.durations("vibrate_timings")
        visibility = parsed.enumeration("visibility").flatMap { FCMNotificationVisibility(number: $0.number) }
        notificationCount = parsed.int32("notification_count")
        self.lightSettings = lightSettings
        image = parsed.string("image")
        bypassProxyNotification = parsed.bool("bypass_proxy_notification")
        proxy = parsed.enumeration("proxy").flatMap { FCMNotificationProxy(number: $0.number) }
    }
}
