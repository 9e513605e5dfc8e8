/// `message.android`: Android delivery options, as sent (`nil` = not set).
public struct FCMAndroidConfig: Sendable, Hashable {
    public var collapseKey: String?
    public var priority: FCMAndroidMessagePriority?
    /// How long FCM stores the message (0…4 weeks; FCM rounds down to whole seconds). `nil`
    /// means the default of 4 weeks.
    public var ttl: Duration?
    public var restrictedPackageName: String?
    /// Overrides `message.data` for Android (see ``FCMMessage/androidData``).
    public var data: FCMStringMap?
    public var notification: FCMAndroidNotification?
    public var fcmOptions: FCMFcmOptions?
    public var directBootOK: Bool?
    public var bandwidthConstrainedOK: Bool?
    public var restrictedSatelliteOK: Bool?

    public init() {}

    /// The TTL in whole seconds (rounded down, as FCM applies it); 2419200 when unset.
    public var ttlSeconds: Int64 {
        guard let ttl else { return FCMMessageValidator.maximumTTLSeconds }
        return ttl.components.seconds
    }

    init(_ parsed: FCMParsedMessage, notification: FCMAndroidNotification?) {
        collapseKey = parsed.string("collapse_key")
        priority = parsed.enumeration("priority").flatMap { FCMAndroidMessagePriority(number: $0.number) }
        ttl = parsed.duration("ttl")
        restrictedPackageName = parsed.string("restricted_package_name")
        data = parsed.map("data")
        self.notification = notification
        fcmOptions = parsed.message("fcm_options").map(FCMFcmOptions.init)
        directBootOK = parsed.bool("direct_boot_ok")
        bandwidthConstrainedOK = parsed.bool("bandwidth_constrained_ok")
        restrictedSatelliteOK = parsed.bool("restricted_satellite_ok")
    }
}
