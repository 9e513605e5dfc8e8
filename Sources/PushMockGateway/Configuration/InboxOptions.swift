/// The web inbox (`docs/inbox.md`): a page at `/` of the cleartext listener that lists the
/// recordings live and previews them on a lock screen and a notification shade.
public struct InboxOptions: Sendable {
    /// Whether `/` on the cleartext listener (and ``port``) serves the inbox. Default: true.
    /// When off, `/` is APNs's 404 `BadPath` there as on every other listener.
    public var enabled: Bool
    /// An extra cleartext listener for the inbox (and everything the cleartext listener serves),
    /// e.g. to keep the page on a port of its own. `0` picks a free port. Default: none.
    public var port: Int?
    /// Categories with action buttons the previews draw (the app registers them on the device,
    /// so no push service knows them). Default: none.
    public var categories: [NotificationCategoryDefinition]

    public init(enabled: Bool = true, port: Int? = nil, categories: [NotificationCategoryDefinition] = []) {
        self.enabled = enabled
        self.port = port
        self.categories = categories
    }
}
