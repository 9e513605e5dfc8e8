import PushMockCore
public import PushMockJSON

/// The app's deep-link routes: which links it understands and the screen each one opens.
///
/// Read from a small JSON file (format in `docs/deep-links.md`):
///
/// ```json
/// {"version": 1,
///  "scheme": "loop",
///  "universalLinkHosts": ["loop.example"],
///  "routes": [
///    {"name": "protocol", "pattern": "loop://protocols/{id}[/log]", "screen": "/protocols/{id}[/log]"},
///    {"name": "chat", "pattern": "loop://chat?context={context}", "screen": "/chat"},
///    {"name": "lab-web", "pattern": "https://loop.example/labs/{id}", "screen": "/labs/{id}"}],
///  "fallback": "/"}
/// ```
///
/// Patterns: `{name}` captures one path segment or query value (with literal text around it,
/// `lab_{id}`, at most one per segment); `[…]` marks an optional part; `?name={value}` requires
/// a query parameter (extra parameters in the link are ignored), `?tab=summary` a literal value
/// and `?debug` mere presence. A pattern starting with `/` is an app path, matched under
/// ``scheme`` and as `https` on each of ``universalLinkHosts``.
///
/// When several routes match, the most specific wins (more literal segments, then more literal
/// query values, …), then the earlier route in the table.
public struct RouteTable: Sendable, Hashable, DefinitionDocument {
    /// One route: a pattern and the screen it opens.
    public struct Route: Sendable, Hashable {
        /// Identifies the route in resolutions and reports; the pattern when not given.
        public let name: String
        public let pattern: String
        public let screen: String
        let parsedPattern: RoutePattern
        let screenTemplate: ScreenTemplate

        /// A route; throws ``DeepLinkError`` with ``DeepLinkError/Code/invalidPattern`` or
        /// ``DeepLinkError/Code/invalidScreen`` when the pattern or screen cannot be used.
        public init(name: String? = nil, pattern: String, screen: String) throws(DeepLinkError) {
            let parsed = try RoutePattern(pattern)
            self.parsedPattern = parsed
            self.screenTemplate = try ScreenTemplate(screen, for: parsed)
            self.name = name ?? pattern
            self.pattern = pattern
            self.screen = screen
        }
    }

    /// The app's custom URL scheme (lower-cased), under which app-path patterns (`/…`) match.
    public let scheme: String?
    /// Universal-link hosts (lower-cased, with port if any) under which app-path patterns match
    /// as `https` links.
    public let universalLinkHosts: [String]
    public let routes: [Route]
    /// The screen the app opens for a link it does not understand, if it has one.
    public let fallback: String?
    /// Where to look for links in payloads, if the file says (`linkLocations`); `nil` means
    /// ``DeepLinkLocation/defaults``.
    public let linkLocations: [DeepLinkLocation]?
    /// External web links the app may send (opened in the browser): host names (`help.loop.example`,
    /// `*.stripe.com`) or URL prefixes (`https://loop.example/legal/`). `nil` (no `externalURLs`
    /// in the file) leaves external links to the routes, as before; a list, even empty, makes any
    /// other external link an `external-not-allowed` problem.
    public let externalURLs: [String]?

    /// A table built in code.
    public init(
        scheme: String? = nil,
        universalLinkHosts: [String] = [],
        routes: [Route],
        fallback: String? = nil,
        linkLocations: [DeepLinkLocation]? = nil,
        externalURLs: [String]? = nil
    ) throws(DeepLinkError) {
        if let scheme {
            guard DeepLinkURL.isScheme(Substring(scheme)), !DeepLinkURL.webSchemes.contains(scheme.lowercased()) else {
                throw DeepLinkError(.invalidDefinition, "\"\(scheme)\" is not a custom URL scheme", location: "scheme")
            }
        }
        for (index, host) in universalLinkHosts.enumerated() where host.isEmpty || host.contains("/") {
            throw DeepLinkError(.invalidDefinition, "\"\(host)\" is not a host name", location: "universalLinkHosts[\(index)]")
        }
        var names = Set<String>()
        for (index, route) in routes.enumerated() {
            guard names.insert(route.name).inserted else {
                throw DeepLinkError(
                    .duplicateRouteName, "another route is already named \"\(route.name)\"", location: "routes[\(index)].name")
            }
            if route.parsedPattern.usesAppPath && scheme == nil && universalLinkHosts.isEmpty {
                throw DeepLinkError(
                    .invalidPattern,
                    "\"\(route.pattern)\": an app-path pattern needs \"scheme\" or \"universalLinkHosts\" in the table",
                    location: "routes[\(index)].pattern"
                )
            }
        }
        self.scheme = scheme?.lowercased()
        self.universalLinkHosts = universalLinkHosts.map { $0.lowercased() }
        self.routes = routes
        self.fallback = fallback
        self.linkLocations = linkLocations
        self.externalURLs = externalURLs
    }

    // MARK: Reading

    public static let documentName = "route table"

    /// Reads a route table from an already parsed document.
    public init(definition: JSONValue) throws(DeepLinkError) {
        do {
            let root = try DefinitionObject(
                definition,
                at: "",
                allowed: ["version", "description", "scheme", "universalLinkHosts", "routes", "fallback", "linkLocations", "externalURLs"]
            )
            try root.checkVersion(PushMockToolkit.formatVersion)
            guard let routeEntries = try root.array("routes") else { throw DefinitionProblem("routes", "missing") }
            var routes: [Route] = []
            for entry in routeEntries {
                let object = try DefinitionObject(entry.value, at: entry.location, allowed: ["name", "description", "pattern", "screen"])
                let pattern = try object.requiredString("pattern")
                let screen = try object.requiredString("screen")
                let name = try object.string("name")
                do {
                    routes.append(try Route(name: name, pattern: pattern, screen: screen))
                } catch {
                    var located = error
                    located.location = error.code == .invalidScreen ? object.place("screen") : object.place("pattern")
                    throw located
                }
            }
            try self.init(
                scheme: try root.string("scheme"),
                universalLinkHosts: try root.strings("universalLinkHosts") ?? [],
                routes: routes,
                fallback: try root.string("fallback"),
                linkLocations: try Self.readLinkLocations(root),
                externalURLs: try root.strings("externalURLs")
            )
        } catch let problem as DefinitionProblem {
            throw DeepLinkError(problem)
        } catch let error as DeepLinkError {
            throw error
        } catch {
            throw DeepLinkError(.invalidDefinition, "\(readable: error)")
        }
    }

    /// `"linkLocations": {"apns": [...], "fcm": [...], "expo": [...], "includeDefaults": true}`; entries are JSON
    /// paths or `{"path": "…", "urlsOnly": true}`.
    private static func readLinkLocations(_ root: DefinitionObject) throws -> [DeepLinkLocation]? {
        guard let section = try root.object("linkLocations", allowed: ["description", "apns", "fcm", "expo", "includeDefaults"]) else {
            return nil
        }
        var locations = try section.bool("includeDefaults") ?? true ? DeepLinkLocation.defaults : []
        for platform in DeepLinkLocation.platforms {
            for entry in try section.array(platform.rawValue) ?? [] {
                let path: String
                var urlsOnly = false
                if let text = entry.value.stringValue {
                    path = text
                } else {
                    let object = try DefinitionObject(entry.value, at: entry.location, allowed: ["path", "urlsOnly"])
                    path = try object.requiredString("path")
                    urlsOnly = try object.bool("urlsOnly") ?? false
                }
                do {
                    let location = try DeepLinkLocation(path, platform: platform, urlsOnly: urlsOnly)
                    if !locations.contains(location) { locations.append(location) }
                } catch {
                    var located = error
                    located.location = entry.location
                    throw located
                }
            }
        }
        return locations
    }

    // MARK: Resolving

    /// Resolves `link`: the most specific matching route, else the fallback, else
    /// ``DeepLinkMatch/noRoute``; ``DeepLinkMatch/malformed(reason:)`` when the link is not a
    /// usable URL.
    ///
    /// A bare app path (`/orders/123`, the template seed's `deepLinkPath`) resolves as the
    /// app's own link: under ``scheme`` when the table has one, else on the first universal-link
    /// host. An external web link on ``externalURLs`` resolves as ``DeepLinkMatch/external(allowedBy:)``
    /// when no route takes it.
    public func resolve(_ link: String) -> DeepLinkMatch {
        var link = link
        if link.hasPrefix("/") && !link.hasPrefix("//") {
            if let scheme {
                link = "\(scheme):/" + link
            } else if let host = universalLinkHosts.first {
                link = "https://\(host)" + link
            }
        }
        let url: DeepLinkURL
        switch DeepLinkURL.parse(link) {
        case .success(let parsed): url = parsed
        case .failure(let reason): return .malformed(reason: reason.description)
        }
        var best: (route: Route, alternative: RoutePattern.Alternative, parameters: [String: String], specificity: [Int])?
        for route in routes {
            for alternative in route.parsedPattern.alternatives {
                guard let parameters = alternative.match(url, scheme: scheme, hosts: universalLinkHosts) else { continue }
                let specificity = alternative.specificity
                // Only a strictly more specific match replaces the current one: ties go to the
                // earlier route (and, within a route, to the alternative with more groups).
                if best.map({ $0.specificity.lexicographicallyPrecedes(specificity) }) ?? true {
                    best = (route, alternative, parameters, specificity)
                }
            }
        }
        if let best {
            return .routed(
                DeepLinkResolution(
                    route: best.route.name,
                    pattern: best.alternative.text,
                    screen: best.route.screenTemplate.render(best.parameters, presentGroups: best.alternative.presentGroups),
                    parameters: best.parameters
                )
            )
        }
        if let entry = allowedExternalEntry(url, link: link) { return .external(allowedBy: entry) }
        if let fallback { return .fallback(screen: fallback) }
        return .noRoute
    }

    /// Whether `link` is a web link to a host that is not one of ``universalLinkHosts``.
    func isExternal(_ link: String) -> Bool {
        guard externalURLs != nil, case .success(let url) = DeepLinkURL.parse(link), let host = url.host else { return false }
        return DeepLinkURL.webSchemes.contains(url.scheme) && !universalLinkHosts.contains(host)
    }

    /// The ``externalURLs`` entry permitting an external web link.
    private func allowedExternalEntry(_ url: DeepLinkURL, link: String) -> String? {
        guard let allowList = externalURLs, let host = url.host, DeepLinkURL.webSchemes.contains(url.scheme),
            !universalLinkHosts.contains(host)
        else { return nil }
        let bareHost = host.split(separator: ":").first.map(String.init) ?? host
        return allowList.first { entry in
            let lowered = entry.lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return link.lowercased().hasPrefix(lowered) }
            if lowered.hasPrefix("*.") { return bareHost.hasSuffix(String(lowered.dropFirst(1))) }
            return bareHost == lowered || host == lowered
        }
    }

    /// The route named `name`.
    public func route(named name: String) -> Route? {
        routes.first { $0.name == name }
    }
}

extension RouteTable: Decodable {
    /// Decodes the same JSON as ``init(definition:)`` (for control-API bodies); problems become
    /// `DecodingError.dataCorrupted` with the ``DeepLinkError`` text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let document = try container.decode(JSONValue.self)
        do {
            try self.init(definition: document)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }
}
