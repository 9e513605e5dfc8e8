import PushMockCore
public import PushMockJSON

extension RouteTable: Encodable {
    /// The table as a route-table document (the format ``init(definition:)`` reads), so a table
    /// built in code can travel inside an expectation or a control-API request.
    ///
    /// Link locations are written out in full with `"includeDefaults": false`, which reads back
    /// as the same list.
    public var definition: JSONValue {
        var members: [JSONObject.Member] = [("version", JSONValue(PushMockToolkit.formatVersion))]
        if let scheme { members.append(("scheme", JSONValue(scheme))) }
        if !universalLinkHosts.isEmpty { members.append(("universalLinkHosts", .array(universalLinkHosts.map { JSONValue.string($0) }))) }
        let routeValues: [JSONValue] = routes.map { route in
            JSONValue.object(
                JSONObject([("name", JSONValue(route.name)), ("pattern", JSONValue(route.pattern)), ("screen", JSONValue(route.screen))]))
        }
        members.append(("routes", .array(routeValues)))
        if let fallback { members.append(("fallback", JSONValue(fallback))) }
        if let linkLocations {
            var section: [JSONObject.Member] = [("includeDefaults", false)]
            for platform in DeepLinkLocation.platforms {
                let entries: [JSONValue] = linkLocations.filter { $0.platform == platform }.map { location in
                    let path = JSONValue(DeepLinkLocation.format(location.path.components))
                    guard location.urlsOnly else { return path }
                    return .object(JSONObject([("path", path), ("urlsOnly", true)]))
                }
                section.append((platform.rawValue, .array(entries)))
            }
            members.append(("linkLocations", .object(JSONObject(section))))
        }
        if let externalURLs { members.append(("externalURLs", .array(externalURLs.map { JSONValue.string($0) }))) }
        return .object(JSONObject(members))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(definition)
    }
}
