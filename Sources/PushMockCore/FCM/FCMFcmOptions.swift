/// The `fcm_options` of a message or of one platform config. One type for all four places; each
/// place allows a subset (`FcmOptions`, `AndroidFcmOptions`: `analytics_label`;
/// `WebpushFcmOptions`: plus `link`; `ApnsFcmOptions`: plus `image`) and the schema rejects the
/// others before this is built.
public struct FCMFcmOptions: Sendable, Hashable {
    /// `analytics_label` (`^[a-zA-Z0-9-_.~%]{1,50}$`).
    public var analyticsLabel: String?
    /// `webpush.fcm_options.link`: an `https://` URL opened on click.
    public var link: String?
    /// `apns.fcm_options.image`: an image URL for the iOS notification.
    public var image: String?

    public init(analyticsLabel: String? = nil, link: String? = nil, image: String? = nil) {
        self.analyticsLabel = analyticsLabel
        self.link = link
        self.image = image
    }

    init(_ parsed: FCMParsedMessage) {
        analyticsLabel = parsed.string("analytics_label")
        link = parsed.schema.index(of: "link") != nil ? parsed.string("link") : nil
        image = parsed.schema.index(of: "image") != nil ? parsed.string("image") : nil
    }
}
