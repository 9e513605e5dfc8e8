import Foundation
import PushMockCore
public import PushMockRecording

/// The deep-link part of an ``Expectation``: the notification's link must resolve, under a
/// route table, to this screen with these parameters. With it, "exactly one alert to token X
/// titled T whose link opens `/protocols/p1/log`" is one expectation.
///
/// JSON (the `deepLink` member of an expectation):
///
/// ```json
/// {"routes": "Examples/LoopHealth/pushmock/routes.json",
///  "screen": "/protocols/{id}/log", "parameters": {"id": "p1"}}
/// ```
///
/// `routes` is a route table inline or the path of a route-table file (read relative to the
/// reading process's working directory — for the control API, the gateway's, and only under
/// its `--checks-dir` directories). `screen` may be
/// the resolved screen (`/protocols/p1/log`) or the route's screen with `{name}` placeholders,
/// which are filled with the link's own parameters before comparing. `parameters` must each be
/// present with the given value (other parameters may be there too). `route` names the route
/// that must match. Every member but `routes` is optional; with none of them, any link that
/// reaches a route (not the fallback) passes.
///
/// A notification with several links (say a `deep_link` and action links) passes when any one
/// of them satisfies the requirement.
public struct DeepLinkRequirement: Sendable, Hashable, Codable {
    public var routes: RouteTable
    /// The file `routes` was read from, when given as a path (written back when encoding).
    public var routesFile: String?
    public var screen: String?
    public var parameters: [String: String]
    /// The name of the route that must match.
    public var route: String?

    public init(routes: RouteTable, screen: String? = nil, parameters: [String: String] = [:], route: String? = nil) {
        self.routes = routes
        self.screen = screen
        self.parameters = parameters
        self.route = route
    }

    /// Reads the route table from `routesFile`.
    public init(routesFile: String, screen: String? = nil, parameters: [String: String] = [:], route: String? = nil) throws(DeepLinkError) {
        self.init(routes: try RouteTable(contentsOfFile: routesFile), screen: screen, parameters: parameters, route: route)
        self.routesFile = routesFile
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case routes, screen, parameters, route }

    /// Unknown members are refused: `"opens"` for `"screen"` left the link unchecked and the
    /// expectation passed.
    public init(from decoder: any Decoder) throws {
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "deepLink")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let path = try? container.decode(String.self, forKey: .routes) {
            let reader = decoder.userInfo[.definitionFileReader] as? DefinitionFileReader ?? .fileSystem
            do {
                routes = try RouteTable(contentsOfFile: path, reader: reader)
            } catch {
                switch error {
                case .refused(let refusal):
                    // Not a problem of the document: it ends decoding as it is.
                    throw refusal
                case .invalid(let problem):
                    throw DecodingError.dataCorruptedError(forKey: .routes, in: container, debugDescription: problem.description)
                }
            }
            routesFile = path
        } else {
            routes = try container.decode(RouteTable.self, forKey: .routes)
        }
        screen = try container.decodeIfPresent(String.self, forKey: .screen)
        parameters = try container.decodeIfPresent([String: String].self, forKey: .parameters) ?? [:]
        route = try container.decodeIfPresent(String.self, forKey: .route)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let routesFile {
            try container.encode(routesFile, forKey: .routes)
        } else {
            try container.encode(routes, forKey: .routes)
        }
        try container.encodeIfPresent(screen, forKey: .screen)
        if !parameters.isEmpty { try container.encode(parameters, forKey: .parameters) }
        try container.encodeIfPresent(route, forKey: .route)
    }

    /// `opens /protocols/{id}/log with id=p1`, `via route chat`.
    public var summary: String {
        var parts: [String] = []
        if let route { parts.append("via route \(route)") }
        parts.append("opens \(screen ?? "a routed screen")")
        if !parameters.isEmpty {
            parts.append("with " + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
        }
        return parts.joined(separator: " ")
    }

    /// Whether one of the record's links satisfies the requirement, and every link as it
    /// resolved (`$.deep_link: loop://protocols/p2/log -> /protocols/p2/log (route protocol; id=p2)`),
    /// so a near miss shows where the link actually leads.
    public func evaluate(_ record: ExchangeRecord) -> (passed: Bool, actual: String) {
        let extractor = DeepLinkExtractor(locations: routes.linkLocations ?? DeepLinkLocation.defaults)
        let links = extractor.links(in: record).map { found in
            CheckedDeepLink(
                link: found.link,
                location: found.location,
                match: found.isString ? routes.resolve(found.link) : .malformed(reason: "expected a string, found \(found.link)")
            )
        }
        guard !links.isEmpty else { return (false, "(no deep link)") }
        let passed = links.contains { accepts($0.match) }
        return (passed, links.map(\.description).joined(separator: "; "))
    }

    /// Whether one resolved link satisfies the requirement.
    public func accepts(_ match: DeepLinkMatch) -> Bool {
        // Only the fallback's screen is known for a link no route understood; a requirement on
        // the route or its parameters can never be met by it.
        guard let resolvedScreen = match.screen else { return false }
        if route != nil || !parameters.isEmpty || screen == nil {
            guard let resolution = match.resolution else { return false }
            if let route, resolution.route != route { return false }
            for (name, value) in parameters where resolution.parameters[name] != value { return false }
        }
        guard let screen else { return true }
        if screen == resolvedScreen { return true }
        var filled = screen
        for (name, value) in match.parameters {
            filled = filled.replacingOccurrences(of: "{\(name)}", with: value)
        }
        return filled == resolvedScreen
    }
}
