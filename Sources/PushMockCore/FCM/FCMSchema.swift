/// The FCM HTTP v1 request schema (`google.firebase.fcm.v1`, discovery revision 20250228 plus
/// the newer `fid`, `restricted_satellite_ok` fields), declared once and used both to read
/// request bodies (``FCMMessageValidator``) and to generate tests, so a field cannot be
/// supported in one place and forgotten in the other.
///
/// Field order follows the discovery document / proto declaration order.
public enum FCMSchema {
    private static let package = "google.firebase.fcm.v1."

    /// `Notification`: the cross-platform notification.
    public static let notification = FCMMessageSchema(
        name: package + "Notification",
        fields: [
            FCMField("title", .string),
            FCMField("body", .string),
            FCMField("image", .string),
        ]
    )

    /// `google.type.Color`: RGBA components in [0, 1]; `alpha` is a `FloatValue` wrapper.
    public static let color = FCMMessageSchema(
        name: "google.type.Color",
        fields: [
            FCMField("red", .float),
            FCMField("green", .float),
            FCMField("blue", .float),
            FCMField("alpha", .float),
        ]
    )

    /// `LightSettings`: LED colour and blink pattern (all three fields required).
    public static let lightSettings = FCMMessageSchema(
        name: package + "LightSettings",
        fields: [
            FCMField("color", .message(color)),
            FCMField("light_on_duration", .duration),
            FCMField("light_off_duration", .duration),
        ]
    )

    /// `AndroidNotification`: the Android-specific notification.
    public static let androidNotification = FCMMessageSchema(
        name: package + "AndroidNotification",
        fields: [
            FCMField("title", .string),
            FCMField("body", .string),
            FCMField("icon", .string),
            FCMField("color", .string),
            FCMField("sound", .string),
            FCMField("tag", .string),
            FCMField("click_action", .string),
            FCMField("body_loc_key", .string),
            FCMField("body_loc_args", .string, repeated: true),
            FCMField("title_loc_key", .string),
            FCMField("title_loc_args", .string, repeated: true),
            FCMField("channel_id", .string),
            FCMField("ticker", .string),
            FCMField("sticky", .bool),
            FCMField("event_time", .timestamp),
            FCMField("local_only", .bool),
            FCMField("notification_priority", .enumeration(FCMNotificationPriority.schema)),
            FCMField("default_sound", .bool),
            FCMField("default_vibrate_timings", .bool),
            FCMField("default_light_settings", .bool),
            FCMField("vibrate_timings", .duration, repeated: true),
            FCMField("visibility", .enumeration(FCMNotificationVisibility.schema)),
            FCMField("notification_count", .int32),
            FCMField("light_settings", .message(lightSettings)),
            FCMField("image", .string),
            FCMField("bypass_proxy_notification", .bool),
            FCMField("proxy", .enumeration(FCMNotificationProxy.schema)),
        ]
    )

    /// `AndroidFcmOptions`.
    public static let androidFcmOptions = FCMMessageSchema(
        name: package + "AndroidFcmOptions",
        fields: [FCMField("analytics_label", .string)]
    )

    /// `AndroidConfig`: Android delivery options.
    public static let androidConfig = FCMMessageSchema(
        name: package + "AndroidConfig",
        fields: [
            FCMField("collapse_key", .string),
            FCMField("priority", .enumeration(FCMAndroidMessagePriority.schema)),
            FCMField("ttl", .duration),
            FCMField("restricted_package_name", .string),
            FCMField("data", .stringMap(entryType: package + "AndroidConfig.DataEntry")),
            FCMField("notification", .message(androidNotification)),
            FCMField("fcm_options", .message(androidFcmOptions)),
            FCMField("direct_boot_ok", .bool),
            FCMField("bandwidth_constrained_ok", .bool),
            FCMField("restricted_satellite_ok", .bool),
        ]
    )

    /// `WebpushFcmOptions`.
    public static let webpushFcmOptions = FCMMessageSchema(
        name: package + "WebpushFcmOptions",
        fields: [
            FCMField("link", .string),
            FCMField("analytics_label", .string),
        ]
    )

    /// `WebpushConfig`: Web Push (RFC 8030) options.
    public static let webpushConfig = FCMMessageSchema(
        name: package + "WebpushConfig",
        fields: [
            FCMField("headers", .stringMap(entryType: package + "WebpushConfig.HeadersEntry")),
            FCMField("data", .stringMap(entryType: package + "WebpushConfig.DataEntry")),
            FCMField("notification", .structObject),
            FCMField("fcm_options", .message(webpushFcmOptions)),
        ]
    )

    /// `ApnsFcmOptions`.
    public static let apnsFcmOptions = FCMMessageSchema(
        name: package + "ApnsFcmOptions",
        fields: [
            FCMField("analytics_label", .string),
            FCMField("image", .string),
        ]
    )

    /// `ApnsConfig`: the APNs request FCM makes for iOS devices.
    public static let apnsConfig = FCMMessageSchema(
        name: package + "ApnsConfig",
        fields: [
            FCMField("headers", .stringMap(entryType: package + "ApnsConfig.HeadersEntry")),
            FCMField("payload", .structObject),
            FCMField("fcm_options", .message(apnsFcmOptions)),
            FCMField("live_activity_token", .string),
        ]
    )

    /// `FcmOptions`: platform-independent options.
    public static let fcmOptions = FCMMessageSchema(
        name: package + "FcmOptions",
        fields: [FCMField("analytics_label", .string)]
    )

    /// `Message`. The four targets form the `target` oneof.
    public static let message = FCMMessageSchema(
        name: package + "Message",
        fields: [
            FCMField("name", .string),
            FCMField("data", .stringMap(entryType: package + "Message.DataEntry")),
            FCMField("notification", .message(notification)),
            FCMField("android", .message(androidConfig)),
            FCMField("webpush", .message(webpushConfig)),
            FCMField("apns", .message(apnsConfig)),
            FCMField("fcm_options", .message(fcmOptions)),
            FCMField("token", .string, oneof: "target"),
            FCMField("topic", .string, oneof: "target"),
            FCMField("condition", .string, oneof: "target"),
            FCMField("fid", .string, oneof: "target"),
        ]
    )

    /// `SendMessageRequest`: the HTTP body of `messages:send`.
    public static let sendMessageRequest = FCMMessageSchema(
        name: package + "SendMessageRequest",
        fields: [
            FCMField("validate_only", .bool),
            FCMField("message", .message(message)),
        ]
    )

    /// Every message type reachable from ``sendMessageRequest``, each with the request path at
    /// which it appears (`""` for the request itself, then `message`, `message.android`, …).
    public static let allMessageTypes: [(path: String, schema: FCMMessageSchema)] = {
        var result: [(path: String, schema: FCMMessageSchema)] = []
        func visit(_ schema: FCMMessageSchema, _ path: String) {
            result.append((path, schema))
            for field in schema.fields {
                if case .message(let child) = field.kind {
                    visit(child, path.isEmpty ? field.name : path + "." + field.name)
                }
            }
        }
        visit(sendMessageRequest, "")
        return result
    }()
}
