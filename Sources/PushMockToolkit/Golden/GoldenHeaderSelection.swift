/// Which HTTP headers a golden entry shows. Names compare case-insensitively.
///
/// ```swift
/// // Every apns-* header plus content-type, but not apns-collapse-id:
/// GoldenHeaderSelection(names: ["content-type"], prefixes: ["apns-"], excluding: ["apns-collapse-id"])
/// ```
public struct GoldenHeaderSelection: Sendable, Hashable {
    /// Headers shown by exact name.
    public var names: Set<String>
    /// Headers shown because their name starts with one of these (so a misspelt
    /// `apns-priorty` shows up in review instead of silently disappearing).
    public var prefixes: [String]
    /// Headers never shown, even when a name or prefix selects them.
    public var excludedNames: Set<String>

    /// Creates a selection.
    public init(names: Set<String> = [], prefixes: [String] = [], excluding excludedNames: Set<String> = []) {
        self.names = Set(names.map { $0.lowercased() })
        self.prefixes = prefixes.map { $0.lowercased() }
        self.excludedNames = Set(excludedNames.map { $0.lowercased() })
    }

    /// No headers.
    public static let none = GoldenHeaderSelection()

    /// Request headers by default: every `apns-*` header (`apns-push-type`, `apns-priority`,
    /// `apns-topic`, `apns-collapse-id`, `apns-expiration`, a client-chosen `apns-id`, …).
    public static let defaultRequest = GoldenHeaderSelection(prefixes: ["apns-"])

    /// Response headers by default: `apns-id` (as a placeholder) and `retry-after`.
    public static let defaultResponse = GoldenHeaderSelection(names: ["apns-id", "retry-after"])

    /// Whether a header with this (lower-case) name is shown.
    public func includes(_ name: String) -> Bool {
        let name = name.lowercased()
        guard !excludedNames.contains(name) else { return false }
        return names.contains(name) || prefixes.contains { name.hasPrefix($0) }
    }
}
