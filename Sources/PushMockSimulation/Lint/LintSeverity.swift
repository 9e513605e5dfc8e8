/// How sure a lint finding is that the notification will not do what its sender intended.
///
/// JSON form: the string `"warning"` or `"info"`. Ordered: `info < warning`.
public struct LintSeverity: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    private enum Known: String, Sendable {
        case info
        case warning

        var rank: Int { self == .info ? 0 : 1 }
    }

    private let known: Known

    private init(_ known: Known) { self.known = known }

    /// Parses `"warning"` or `"info"`.
    public init?(rawValue: String) {
        guard let known = Known(rawValue: rawValue) else { return nil }
        self.known = known
    }

    /// The JSON / text form.
    public var rawValue: String { known.rawValue }
    public var description: String { known.rawValue }

    /// The device or the real service documentedly throttles, drops, ignores or mis-renders
    /// (part of) the notification.
    public static let warning = Self(.warning)
    /// Suspicious: probably not what the sender meant, or the documented rule is broken but
    /// what the device then does is not documented.
    public static let info = Self(.info)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.known.rank < rhs.known.rank }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Unknown lint severity \"\(text)\"; expected \"warning\" or \"info\""
            )
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
