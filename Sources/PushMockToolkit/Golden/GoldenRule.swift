public import PushMockJSON

/// A user-defined normalisation: remove a field, replace it, replace the parts of it that
/// match a regular expression, or give it a numbered alias — for values the built-in
/// normalisation cannot know are volatile (user IDs, server-side timestamps, amounts).
///
/// Paths are ``JSONPath`` expressions (`$.aps.alert.body`, `$.message.data.*`,
/// `$['apns-collapse-id']`). By default they are evaluated against the entry's `payload`; with
/// `in: .entry` against the whole entry (`$.headers['apns-collapse-id']`, `$.response.reason`).
///
/// ```swift
/// try GoldenRule.ignore("$.aps.badge")
/// try GoldenRule.redact("$.aps.alert.body", matching: #"\d{1,2}:\d{2}"#, with: "<time>")
/// try GoldenRule.alias("$.userId", as: "user")          // "<user-1>", "<user-2>", …
/// try GoldenRule.redact("$.headers['apns-collapse-id']", in: .entry)
/// ```
public struct GoldenRule: Sendable, Hashable {
    /// What a path is evaluated against.
    public enum Scope: Sendable, Hashable {
        /// The notification payload (the request body: APNs payload, FCM `{"message": …}`).
        case payload
        /// The whole golden entry (`platform`, `path`, `headers`, `payload`, `response`, …).
        case entry
    }

    /// What happens to each value the path selects.
    public enum Action: Sendable, Hashable {
        /// The member or element disappears.
        case remove
        /// The value becomes this string.
        case replace(with: String)
        /// In string values, every match of the regular expression becomes `replacement`
        /// (literally; `$1` is not expanded). Other values are left alone.
        case replaceMatches(pattern: String, replacement: String)
        /// The value becomes `<prefix-n>`, numbered in order of first appearance in the file;
        /// equal values get the same alias.
        case alias(prefix: String)
    }

    /// The path, relative to ``scope``.
    public let path: JSONPath
    public let scope: Scope
    public let action: Action

    /// Creates a rule after checking the path and, for ``Action/replaceMatches(pattern:replacement:)``,
    /// the regular expression.
    public init(path: String, scope: Scope = .payload, action: Action) throws(GoldenError) {
        let parsed: JSONPath
        do throws(JSONPathError) {
            parsed = try JSONPath(path)
        } catch {
            throw GoldenError(.invalidRule, "Invalid golden rule path: \(error.description)")
        }
        if scope == .entry, parsed.components.isEmpty {
            throw GoldenError(
                .invalidRule,
                "A golden rule cannot apply to a whole entry (\"$\" in the entry scope); filter the records instead."
            )
        }
        switch action {
        case .replaceMatches(let pattern, _):
            do {
                _ = try Regex(pattern)
            } catch {
                throw GoldenError(.invalidRule, "Invalid regular expression \(pattern) in a golden rule for \(path): \(error)")
            }
        case .alias(let prefix):
            guard !prefix.isEmpty, !prefix.contains(">"), !prefix.contains("<") else {
                throw GoldenError(
                    .invalidRule, "Invalid alias prefix \"\(prefix)\" in a golden rule for \(path): use letters, digits and '-'.")
            }
        case .remove, .replace:
            break
        }
        self.path = parsed
        self.scope = scope
        self.action = action
    }

    /// Removes the selected members or elements.
    public static func ignore(_ path: String, in scope: Scope = .payload) throws(GoldenError) -> GoldenRule {
        try GoldenRule(path: path, scope: scope, action: .remove)
    }

    /// Replaces the selected values with `replacement`.
    public static func redact(_ path: String, in scope: Scope = .payload, with replacement: String = "<redacted>") throws(GoldenError)
        -> GoldenRule
    {
        try GoldenRule(path: path, scope: scope, action: .replace(with: replacement))
    }

    /// Replaces every match of `pattern` in the selected string values with `replacement`.
    public static func redact(
        _ path: String,
        in scope: Scope = .payload,
        matching pattern: String,
        with replacement: String
    ) throws(GoldenError) -> GoldenRule {
        try GoldenRule(path: path, scope: scope, action: .replaceMatches(pattern: pattern, replacement: replacement))
    }

    /// Replaces the selected values with numbered aliases `<prefix-1>`, `<prefix-2>`, ….
    public static func alias(_ path: String, in scope: Scope = .payload, as prefix: String) throws(GoldenError) -> GoldenRule {
        try GoldenRule(path: path, scope: scope, action: .alias(prefix: prefix))
    }

    /// The path from the entry's root.
    var entryPath: [JSONPath.Component] {
        switch scope {
        case .payload: [.key("payload")] + path.components
        case .entry: path.components
        }
    }
}
