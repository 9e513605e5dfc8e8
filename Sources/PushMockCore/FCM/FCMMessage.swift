/// A validated `message`: the target and every field that was set.
public struct FCMMessage: Sendable, Hashable {
    /// `name` (output only; accepted and ignored by FCM).
    public var name: String?
    /// The one target.
    public var target: FCMTarget
    /// `data`, with "last occurrence wins" applied.
    public var data: FCMStringMap?
    public var notification: FCMNotification?
    public var android: FCMAndroidConfig?
    public var webpush: FCMWebpushConfig?
    public var apns: FCMApnsConfig?
    public var fcmOptions: FCMFcmOptions?
    /// The size counted against the 4096 / 2048-byte limit — see ``FCMMessageValidator``.
    public var payloadSize: Int

    public init(
        name: String? = nil,
        target: FCMTarget,
        data: FCMStringMap? = nil,
        notification: FCMNotification? = nil,
        android: FCMAndroidConfig? = nil,
        webpush: FCMWebpushConfig? = nil,
        apns: FCMApnsConfig? = nil,
        fcmOptions: FCMFcmOptions? = nil,
        payloadSize: Int = 0
    ) {
        self.name = name
        self.target = target
        self.data = data
        self.notification = notification
        self.android = android
        self.webpush = webpush
        self.apns = apns
        self.fcmOptions = fcmOptions
        self.payloadSize = payloadSize
    }

    /// The data an Android device receives: `message.data` overridden by `android.data`.
    public var androidData: FCMStringMap {
        (data ?? FCMStringMap()).merging(android?.data ?? FCMStringMap())
    }

    /// The data a web client receives: `message.data` overridden by `webpush.data`.
    public var webpushData: FCMStringMap {
        (data ?? FCMStringMap()).merging(webpush?.data ?? FCMStringMap())
    }

    /// The title an Android device shows: `android.notification.title`, else `notification.title`.
    public var androidTitle: String? { android?.notification?.title ?? notification?.title }

    /// The body an Android device shows: `android.notification.body`, else `notification.body`.
    public var androidBody: String? { android?.notification?.body ?? notification?.body }
}
