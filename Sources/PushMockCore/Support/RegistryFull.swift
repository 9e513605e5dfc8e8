/// A registry the control API (or a zero-configuration send) would grow past its cap
/// (`RegistryLimits`, docs/SECURITY.md). The control API answers it with
/// `507 Insufficient Storage` and `{"error": …, "registry": …, "limit": …}`; nothing of the
/// refused request is kept.
package struct RegistryFull: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is full.
    package var registry: RegistryName
    /// The cap in force.
    package var limit: Int

    package init(_ registry: RegistryName, limit: Int) {
        self.registry = registry
        self.limit = limit
    }

    package var description: String {
        "the gateway holds at most \(limit) \(registry.words); remove some first, or raise the limit "
            + "(pushmock serve --limit \(registry.limitName)=COUNT, or \"limits\" in its configuration file)"
    }

    /// Throws unless adding the `keys` that `table` lacks keeps it within `limit`. Replacing
    /// entries is always allowed, even in a table a configuration file filled past the cap.
    package static func check<Key: Hashable, Value>(
        _ table: [Key: Value], adding keys: some Sequence<Key>, limit: Int, registry: RegistryName
    ) throws(RegistryFull) {
        var new = Set<Key>()
        for key in keys where table[key] == nil { new.insert(key) }
        guard new.isEmpty || table.count + new.count <= limit else { throw RegistryFull(registry, limit: limit) }
    }

    /// Adds or replaces `values` in `table` by `key`, all or none: refused when the new keys
    /// would take it past `limit` (``check(_:adding:limit:registry:)``).
    package static func insert<Key: Hashable, Value>(
        _ values: [Value], into table: inout [Key: Value], key: (Value) -> Key, limit: Int, registry: RegistryName
    ) throws(RegistryFull) {
        try check(table, adding: values.map(key), limit: limit, registry: registry)
        for value in values { table[key(value)] = value }
    }

    /// Throws unless `count` entries plus `adding` new ones stay within `limit`.
    package static func check(count: Int, adding: Int, limit: Int, registry: RegistryName) throws(RegistryFull) {
        guard adding <= 0 || count + adding <= limit else { throw RegistryFull(registry, limit: limit) }
    }
}

/// A registry with a cap: the words its 507 answer uses, and the name of the limit that raises
/// it (`pushmock serve --limit NAME=COUNT`, the configuration file's `"limits"`; each is a
/// `CapacityLimit` of the gateway, which a test holds to).
package struct RegistryName: Sendable, Hashable {
    /// What the registry holds, as the error says it ("APNs device tokens").
    package let words: String
    /// The limit's name (`RegistryLimits`' property).
    package let limitName: String

    package init(words: String, limitName: String) {
        self.words = words
        self.limitName = limitName
    }

    package static let apnsDeviceTokens = RegistryName(words: "APNs device tokens", limitName: "apnsDeviceTokens")
    package static let apnsKeys = RegistryName(words: "APNs signing keys", limitName: "apnsKeys")
    package static let apnsTeams = RegistryName(words: "APNs teams", limitName: "apnsTeams")
    package static let clientCertificateAuthorities = RegistryName(
        words: "added client-certificate CAs", limitName: "clientCertificateAuthorities")
    package static let fcmTokens = RegistryName(words: "FCM registration tokens", limitName: "fcmTokens")
    package static let serviceAccounts = RegistryName(words: "service accounts", limitName: "serviceAccounts")
    package static let expoTokens = RegistryName(words: "Expo push tokens", limitName: "expoTokens")
    package static let expoProjects = RegistryName(words: "Expo projects", limitName: "expoProjects")
    package static let users = RegistryName(words: "users", limitName: "users")
    package static let appEvents = RegistryName(words: "app events", limitName: "appEvents")
    package static let notificationCategories = RegistryName(words: "notification categories", limitName: "notificationCategories")
    package static let webhooks = RegistryName(words: "webhooks", limitName: "webhooks")
    package static let faultRules = RegistryName(words: "fault rules", limitName: "faultRules")
    package static let engagementRules = RegistryName(words: "engagement rules", limitName: "engagementRules")

    /// Every registry that answers 507.
    package static let all: [RegistryName] = [
        .apnsDeviceTokens, .apnsKeys, .apnsTeams, .clientCertificateAuthorities, .fcmTokens, .serviceAccounts, .expoTokens,
        .expoProjects, .users, .appEvents, .notificationCategories, .webhooks, .faultRules, .engagementRules,
    ]
}
