/// Which `data` keys FCM refuses (`message.data` and `android.data`).
///
/// Sources disagree (wire reference D11): the v1 discovery document reserves `from`,
/// `message_type` and keys starting with `google.` or `gcm.notification.`; the ErrorCode page
/// and the legacy docs say "from, or gcm, or any value prefixed by google". The default follows
/// the discovery document (the v1 API's own schema); ``legacyPrefixes`` adds every key that
/// starts with `google` or `gcm` (dot or not). Keys are compared case-sensitively.
public struct FCMReservedDataKeys: Sendable, Hashable, CustomStringConvertible {
    private enum Known: String, CaseIterable, Sendable {
        case documented
        case legacyPrefixes = "legacy-prefixes"
    }

    private let known: Known

    private init(_ known: Known) { self.known = known }

    /// Parses `documented` or `legacy-prefixes` (configuration spelling).
    public init?(rawValue: String) {
        guard let known = Known(rawValue: rawValue) else { return nil }
        self.known = known
    }

    public var rawValue: String { known.rawValue }
    public var description: String { known.rawValue }

    /// `from`, `message_type`, `google.*`, `gcm.notification.*` (default).
    public static let documented = Self(.documented)
    /// The above plus anything starting with `google` or `gcm`.
    public static let legacyPrefixes = Self(.legacyPrefixes)

    /// Both rules.
    public static let all: [FCMReservedDataKeys] = Known.allCases.map(FCMReservedDataKeys.init)

    /// Whether `key` is reserved under this rule.
    public func isReserved(_ key: String) -> Bool {
        if key == "from" || key == "message_type" { return true }
        switch known {
        case .documented:
            return key.hasPrefix("google.") || key.hasPrefix("gcm.notification.")
        case .legacyPrefixes:
            return key.hasPrefix("google") || key.hasPrefix("gcm")
        }
    }

    /// A sentence naming the reserved keys, for error descriptions.
    public var explanation: String {
        switch known {
        case .documented:
            return "\"from\", \"message_type\" and keys starting with \"google.\" or \"gcm.notification.\" are reserved"
        case .legacyPrefixes:
            return "\"from\", \"message_type\" and keys starting with \"google\" or \"gcm\" are reserved"
        }
    }
}
