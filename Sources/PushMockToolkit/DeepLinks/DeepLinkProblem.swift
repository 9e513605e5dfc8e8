public import PushMockCore

/// What is wrong with a notification's deep links. JSON form: the kebab-case name.
public struct DeepLinkProblemKind: Hashable, Sendable, Comparable, CustomStringConvertible, StringCodedValue {
    enum Value: String, Hashable, Sendable, CaseIterable {
        case noLink = "no-link"
        case noRoute = "no-route"
        case fallback = "fallback"
        case malformedURL = "malformed-url"
        case emptyParameter = "empty-parameter"
        case externalNotAllowed = "external-not-allowed"
    }

    let value: Value

    /// A visible notification carries no link at any configured location.
    public static let noLink = Self(value: .noLink)
    /// An external web link whose host and path are not on the table's `externalURLs` allow-list.
    public static let externalNotAllowed = Self(value: .externalNotAllowed)
    /// A link matches no route and the table has no fallback.
    public static let noRoute = Self(value: .noRoute)
    /// A link matches no route; the app would open the fallback screen instead.
    public static let fallback = Self(value: .fallback)
    /// A link is not a usable URL (or not a string).
    public static let malformedURL = Self(value: .malformedURL)
    /// A link matched a route but captured an empty parameter (`loop://protocols//log`).
    public static let emptyParameter = Self(value: .emptyParameter)

    public static let all: [Self] = Value.allCases.map(Self.init(value:))

    private init(value: Value) { self.value = value }

    public init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue) else { return nil }
        self.value = value
    }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        Value.allCases.firstIndex(of: lhs.value)! < Value.allCases.firstIndex(of: rhs.value)!
    }

    public static var expectedValues: String { "one of " + all.map(\.rawValue).joined(separator: ", ") }
}

/// One problem with a notification's deep links.
public struct DeepLinkProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    public var kind: DeepLinkProblemKind
    /// The link concerned; `nil` for ``DeepLinkProblemKind/noLink``.
    public var link: String?
    /// Where the link was found.
    public var location: String?
    /// The problem in words.
    public var message: String

    public init(kind: DeepLinkProblemKind, link: String? = nil, location: String? = nil, message: String) {
        self.kind = kind
        self.link = link
        self.location = location
        self.message = message
    }

    /// `no-route: $.deep_link loop://settings matches no route`.
    public var description: String {
        var text = "\(kind):"
        if let location { text += " \(location)" }
        if let link { text += " \(link)" }
        return "\(text) \(message)"
    }
}

/// One link of a notification and how it resolved.
public struct CheckedDeepLink: Sendable, Hashable, Codable, CustomStringConvertible {
    public var link: String
    public var location: String
    public var match: DeepLinkMatch

    public init(link: String, location: String, match: DeepLinkMatch) {
        self.link = link
        self.location = location
        self.match = match
    }

    /// `$.deep_link: loop://protocols/p1/log -> /protocols/p1/log (route protocol; id=p1)`.
    public var description: String {
        let outcome: String
        switch match {
        case .routed(let resolution):
            let parameters = resolution.parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            outcome =
                "\(resolution.screen) (route \(resolution.route)\(parameters.isEmpty ? "" : "; " + parameters.joined(separator: ", ")))"
        case .fallback(let screen):
            outcome = "fallback \(screen)"
        case .noRoute:
            outcome = "no route"
        case .malformed(let reason):
            outcome = "malformed: \(reason)"
        case .external(let entry):
            outcome = "external (allowed by \(entry))"
        }
        return "\(location): \(link) -> \(outcome)"
    }
}
