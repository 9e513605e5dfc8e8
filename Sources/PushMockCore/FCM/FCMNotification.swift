/// `message.notification`: the cross-platform notification shown by every platform unless a
/// platform config overrides it.
public struct FCMNotification: Sendable, Hashable {
    public var title: String?
    public var body: String?
    /// An image URL (JPEG, PNG, BMP; Android limits downloads to 1 MB).
    public var image: String?

    public init(title: String? = nil, body: String? = nil, image: String? = nil) {
        self.title = title
        self.body = body
        self.image = image
    }

    init(_ parsed: FCMParsedMessage) {
        title = parsed.string("title")
        body = parsed.string("body")
        image = parsed.string("image")
    }

    /// UTF-8 bytes of title, body and image, as counted towards the payload limit.
    public var byteCount: Int {
        (title?.utf8.count ?? 0) + (body?.utf8.count ?? 0) + (image?.utf8.count ?? 0)
    }
}
