@_spi(Locking) package import PushMockCore

/// A notification category as an app registers it on the device — iOS
/// `UNNotificationCategory`, Android notification actions, Expo
/// `setNotificationCategoryAsync` — so the inbox can draw the action buttons under a
/// notification that names it (`aps.category`, FCM `android.notification.click_action` or
/// `data.category`, Expo `categoryId`). Push services never see categories: they live in the app,
/// so the gateway learns them from the configuration file (`categories`) or
/// `POST /_pushmock/categories` (`docs/inbox.md`).
public struct NotificationCategoryDefinition: Codable, Sendable, Hashable {
    /// One button.
    public struct Action: Codable, Sendable, Hashable {
        /// The identifier the app receives (`actionIdentifier`).
        public var id: String
        /// The button's text.
        public var title: String
        /// Drawn in red on iOS (`.destructive`).
        public var destructive: Bool?
        /// Opens the app (`.foreground`); otherwise handled in the background.
        public var foreground: Bool?
        /// Needs the device unlocked (`.authenticationRequired`).
        public var authenticationRequired: Bool?
        /// A text-input action (reply field).
        public var textInput: Bool?

        public init(id: String, title: String, destructive: Bool? = nil, foreground: Bool? = nil) {
            self.id = id
            self.title = title
            self.destructive = destructive
            self.foreground = foreground
        }
    }

    /// The category identifier payloads name.
    public var id: String
    /// The app (bundle id, Android package or Expo project) that registered it; `nil`: any app.
    public var app: String?
    /// The buttons, in order (iOS shows up to 10 expanded, Android up to 3).
    public var actions: [Action]

    public init(id: String, app: String? = nil, actions: [Action]) {
        self.id = id
        self.app = app
        self.actions = actions
    }
}

/// The categories the gateway knows, by identifier (and app, when one is named).
package final class NotificationCategoryRegistry: Sendable {
    private let categories = SanitizerVisibleMutex<[String: NotificationCategoryDefinition]>([:])

    package init() {}

    private static func key(_ category: NotificationCategoryDefinition) -> String {
        "\(category.app ?? "")\u{0}\(category.id)"
    }

    /// Adds or replaces a category.
    package func declare(_ category: NotificationCategoryDefinition) {
        categories.withLock { $0[Self.key(category)] = category }
    }

    /// Adds or replaces `categories`, all or none, within `limit` categories (control API).
    package func declare(_ declared: [NotificationCategoryDefinition], limit: Int) throws(RegistryFull) {
        try categories.withLock { table throws(RegistryFull) in
            try RegistryFull.insert(declared, into: &table, key: Self.key, limit: limit, registry: .notificationCategories)
        }
    }

    /// Every declared category, sorted by identifier then app.
    package var all: [NotificationCategoryDefinition] {
        categories.withLock { Array($0.values) }.sorted { ($0.id, $0.app ?? "") < ($1.id, $1.app ?? "") }
    }

    /// Removes the categories with this identifier (of every app); returns how many.
    @discardableResult
    package func remove(id: String) -> Int {
        categories.withLock { table in
            let keys = table.filter { $0.value.id == id }.map(\.key)
            keys.forEach { table[$0] = nil }
            return keys.count
        }
    }

    /// Removes every category; returns how many there were.
    @discardableResult
    package func removeAll() -> Int {
        categories.withLock { table in
            defer { table.removeAll() }
            return table.count
        }
    }
}
