/// Where a link leads: the route it matched, the screen the app opens and the parameters.
///
/// ```swift
/// let resolution = try #require(routes.resolve("loop://protocols/p1/log").resolution)
/// #expect(resolution.screen == "/protocols/p1/log")
/// #expect(resolution.parameters == ["id": "p1"])
/// ```
public struct DeepLinkResolution: Sendable, Hashable, Codable {
    /// The route's name (its pattern when the table gives none).
    public var route: String
    /// The pattern alternative that matched, optional groups resolved: `loop://protocols/{id}/log`.
    public var pattern: String
    /// The screen with the parameters filled in: `/protocols/p1/log`.
    public var screen: String
    /// Captured values, percent-decoded: `["id": "p1"]`.
    public var parameters: [String: String]

    public init(route: String, pattern: String, screen: String, parameters: [String: String]) {
        self.route = route
        self.pattern = pattern
        self.screen = screen
        self.parameters = parameters
    }
}

/// The outcome of resolving one link against a ``RouteTable``.
///
/// A link that matches no route is either ``noRoute`` (the table has no fallback) or
/// ``fallback(screen:)`` (the app would open the fallback screen) — both are problems in a
/// ``DeepLinkReport``; the fallback case tells you what the user would see.
///
/// JSON form: `{"outcome":"route","route":"dose-log","pattern":"…","screen":"/protocols/p1/log",
/// "parameters":{"id":"p1"}}`, `{"outcome":"fallback","screen":"/"}`, `{"outcome":"no-route"}`,
/// `{"outcome":"malformed","reason":"contains whitespace or a control character at offset 12"}`.
public enum DeepLinkMatch: Sendable, Hashable {
    /// A route matched.
    case routed(DeepLinkResolution)
    /// No route matched; the app would open the table's fallback screen.
    case fallback(screen: String)
    /// No route matched and the table has no fallback.
    case noRoute
    /// The link is not a usable URL.
    case malformed(reason: String)
    /// An external web link (not a universal link) that the table's allow-list permits; the
    /// system opens it in the browser.
    case external(allowedBy: String)

    /// The resolution when a route matched.
    public var resolution: DeepLinkResolution? {
        if case .routed(let resolution) = self { return resolution }
        return nil
    }

    /// The screen the app would open: the route's, or the fallback; `nil` otherwise.
    public var screen: String? {
        switch self {
        case .routed(let resolution): resolution.screen
        case .fallback(let screen): screen
        case .noRoute, .malformed, .external: nil
        }
    }

    /// The captured parameters; empty unless a route matched.
    public var parameters: [String: String] { resolution?.parameters ?? [:] }

    /// The matched route's name.
    public var route: String? { resolution?.route }

    /// Whether a route (not the fallback) matched.
    public var isRouted: Bool { resolution != nil }

    /// `route`, `fallback`, `no-route` or `malformed`.
    public var outcome: String {
        switch self {
        case .routed: "route"
        case .fallback: "fallback"
        case .noRoute: "no-route"
        case .malformed: "malformed"
        case .external: "external"
        }
    }
}

extension DeepLinkMatch: Codable {
    enum CodingKeys: String, CodingKey {
        case outcome, route, pattern, screen, parameters, reason, allowedBy
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let outcome = try container.decode(String.self, forKey: .outcome)
        switch outcome {
        case "route":
            self = .routed(
                DeepLinkResolution(
                    route: try container.decode(String.self, forKey: .route),
                    pattern: try container.decode(String.self, forKey: .pattern),
                    screen: try container.decode(String.self, forKey: .screen),
                    parameters: try container.decodeIfPresent([String: String].self, forKey: .parameters) ?? [:]
                )
            )
        case "fallback":
            self = .fallback(screen: try container.decode(String.self, forKey: .screen))
        case "no-route":
            self = .noRoute
        case "malformed":
            self = .malformed(reason: try container.decode(String.self, forKey: .reason))
        case "external":
            self = .external(allowedBy: try container.decode(String.self, forKey: .allowedBy))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .outcome,
                in: container,
                debugDescription: "\(outcome): expected route, fallback, no-route, malformed or external"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome, forKey: .outcome)
        switch self {
        case .routed(let resolution):
            try container.encode(resolution.route, forKey: .route)
            try container.encode(resolution.pattern, forKey: .pattern)
            try container.encode(resolution.screen, forKey: .screen)
            try container.encode(resolution.parameters, forKey: .parameters)
        case .fallback(let screen):
            try container.encode(screen, forKey: .screen)
        case .noRoute:
            break
        case .malformed(let reason):
            try container.encode(reason, forKey: .reason)
        case .external(let entry):
            try container.encode(entry, forKey: .allowedBy)
        }
    }
}
