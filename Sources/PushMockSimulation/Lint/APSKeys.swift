/// The keys Apple defines inside `aps` and `aps.alert`, and how to recognise them when a
/// sender spelled them the way SDKs name properties.
enum APSKeys {
    /// Keys of the `aps` dictionary ("Generating a remote notification", ActivityKit pushes,
    /// WidgetKit's `content-changed`, Safari's `url-args`).
    static let aps: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content",
        "target-content-id", "interruption-level", "relevance-score", "filter-criteria",
        "stale-date", "content-state", "timestamp", "event", "dismissal-date", "attributes-type",
        "attributes", "input-push-channel", "input-push-token", "content-changed", "url-args",
    ]

    /// Keys of the `aps.alert` dictionary, including the legacy ones libraries still send.
    static let alert: Set<String> = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args",
        "subtitle-loc-key", "subtitle-loc-args", "loc-key", "loc-args", "action", "action-loc-key",
        "summary-arg", "summary-arg-count", "sound",
    ]

    /// The four documented `interruption-level` values.
    static let interruptionLevels: Set<String> = ["passive", "active", "time-sensitive", "critical"]

    /// Alert keys whose presence means there is text to display.
    static let alertTextKeys = ["title", "subtitle", "body", "loc-key", "title-loc-key", "subtitle-loc-key"]

    /// The Apple spelling of `key` when `key` is one of `known` spelled with underscores or in
    /// camel case (`content_available`, `contentAvailable`, `threadID` → `thread-id`); `nil`
    /// when it is already correct or not a known key at all.
    static func appleSpelling(of key: String, in known: Set<String>) -> String? {
        var hyphenated = ""
        hyphenated.reserveCapacity(key.utf8.count + 4)
        var previousWasLowercaseOrDigit = false
        var changed = false
        for character in key {
            if character == "_" {
                hyphenated.append("-")
                changed = true
                previousWasLowercaseOrDigit = false
            } else if character.isUppercase {
                if previousWasLowercaseOrDigit { hyphenated.append("-") }
                hyphenated.append(contentsOf: character.lowercased())
                changed = true
                previousWasLowercaseOrDigit = false
            } else {
                hyphenated.append(character)
                previousWasLowercaseOrDigit = character.isLowercase || character.isNumber
            }
        }
        guard changed, known.contains(hyphenated) else { return nil }
        return hyphenated
    }
}
