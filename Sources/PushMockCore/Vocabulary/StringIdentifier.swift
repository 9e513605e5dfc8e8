/// A string that names one thing of one kind: a device token, a project, a topic. Each kind
/// is its own type, so a registry keyed by tokens cannot be handed a project id, and a
/// function taking a token, a topic and a project cannot have two of them swapped. JSON keeps
/// the plain string.
///
/// String literals convert (tests and fixtures read naturally); `String` values must be
/// wrapped on purpose, at the codec that read them.
public protocol StringIdentifier: Hashable, Sendable, Comparable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// Wraps `text`, normalising it where the kind has a canonical spelling.
    init(_ text: String)
    /// The identifier as the services spell it.
    var rawValue: String { get }
}

extension StringIdentifier {
    public init(stringLiteral value: String) { self.init(value) }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
