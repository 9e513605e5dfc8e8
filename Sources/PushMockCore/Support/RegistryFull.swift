/// A registry the control API (or a zero-configuration send) would grow past its cap
/// (`RegistryLimits`, docs/SECURITY.md). The control API answers it with
/// `507 Insufficient Storage` and `{"error": …, "registry": …, "limit": …}`; nothing of the
/// refused request is kept.
package struct RegistryFull: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is full, in the words of the error ("APNs device tokens").
    package var registry: String
    /// The cap in force.
    package var limit: Int

    package init(_ registry: String, limit: Int) {
        self.registry = registry
        self.limit = limit
    }

    package var description: String {
        "the gateway holds at most \(limit) \(registry); remove some first (or raise the limit, docs/SECURITY.md)"
    }

    /// Throws unless adding the `keys` that `table` lacks keeps it within `limit`. Replacing
    /// entries is always allowed, even in a table a configuration file filled past the cap.
    package static func check<Key: Hashable, Value>(
        _ table: [Key: Value], adding keys: some Sequence<Key>, limit: Int, registry: String
    ) throws(RegistryFull) {
        var new = Set<Key>()
        for key in keys where table[key] == nil { new.insert(key) }
        guard new.isEmpty || table.count + new.count <= limit else { throw RegistryFull(registry, limit: limit) }
    }

    /// Adds or replaces `values` in `table` by `key`, all or none: refused when the new keys
    /// would take it past `limit` (``check(_:adding:limit:registry:)``).
    package static func insert<Key: Hashable, Value>(
        _ values: [Value], into table: inout [Key: Value], key: (Value) -> Key, limit: Int, registry: String
    ) throws(RegistryFull) {
        try check(table, adding: values.map(key), limit: limit, registry: registry)
        for value in values { table[key(value)] = value }
    }

    /// Throws unless `count` entries plus `adding` new ones stay within `limit`.
    package static func check(count: Int, adding: Int, limit: Int, registry: String) throws(RegistryFull) {
        guard adding <= 0 || count + adding <= limit else { throw RegistryFull(registry, limit: limit) }
    }
}
