/// The control API's routes as `docs/openapi.yaml` documents them (a test keeps the two the
/// same): path templates under `/_pushmock/`, `*` for a parameter, and their methods. A request
/// no route answers is told apart by them: a path that matches a template with other methods
/// gets 405 with the `Allow` header RFC 9110 asks for, any other path 404.
package enum ControlRouteTable {
    package static let routes: [(template: [String], methods: [String])] = [
        (["health"], ["GET"]),
        (["info"], ["GET"]),
        (["recordings"], ["GET", "DELETE"]),
        (["recordings", "*"], ["GET"]),
        (["expectations"], ["POST"]),
        (["checks", "links"], ["POST"]),
        (["checks", "policy"], ["POST"]),
        (["contracts"], ["GET", "POST", "PUT", "DELETE"]),
        (["checks", "contracts"], ["POST"]),
        (["checks", "schedule"], ["POST"]),
        (["users"], ["GET", "POST", "DELETE"]),
        (["users", "*"], ["GET", "PUT", "DELETE"]),
        (["users", "*", "events"], ["GET", "POST"]),
        (["clock"], ["GET"]),
        (["clock", "freeze"], ["POST"]),
        (["clock", "resume"], ["POST"]),
        (["clock", "set"], ["POST"]),
        (["clock", "advance"], ["POST"]),
        (["clock", "reset"], ["POST"]),
        (["devices"], ["GET", "DELETE"]),
        (["devices", "*", "*"], ["GET", "POST", "PATCH", "DELETE"]),
        (["devices", "*", "*", "notifications", "*", "*"], ["POST"]),
        (["engagement", "model"], ["GET", "PUT", "DELETE"]),
        (["engagement", "events"], ["GET"]),
        (["users", "*", "permission"], ["POST"]),
        (["report"], ["GET"]),
        (["apns", "keys"], ["GET", "POST"]),
        (["apns", "keys", "*"], ["DELETE"]),
        (["apns", "teams"], ["GET", "POST"]),
        (["apns", "tokens"], ["GET", "POST"]),
        (["apns", "tokens", "*"], ["GET", "POST", "PATCH", "DELETE"]),
        (["apns", "tokens", "*", "rotate"], ["POST"]),
        (["apns", "certificate-authorities"], ["POST"]),
        (["fcm", "service-accounts"], ["GET", "POST"]),
        (["fcm", "tokens"], ["GET", "POST"]),
        (["fcm", "tokens", "*"], ["GET", "POST", "PATCH", "DELETE"]),
        (["fcm", "tokens", "*", "rotate"], ["POST"]),
        (["fcm", "topics"], ["GET"]),
        (["fcm", "access-tokens", "revoke"], ["POST"]),
        (["expo", "tokens"], ["GET", "POST"]),
        (["expo", "tokens", "*"], ["GET", "POST", "PATCH", "DELETE"]),
        (["expo", "tokens", "*", "rotate"], ["POST"]),
        (["expo", "projects"], ["GET", "POST"]),
        (["expo", "projects", "*"], ["GET", "DELETE"]),
        (["faults"], ["GET", "POST", "DELETE"]),
        (["faults", "*"], ["DELETE"]),
        (["faults", "presets"], ["GET"]),
        (["faults", "presets", "*"], ["POST"]),
        (["recordings", "stream"], ["GET"]),
        (["categories"], ["GET", "POST", "DELETE"]),
        (["categories", "*"], ["DELETE"]),
        (["webhooks"], ["GET", "POST"]),
        (["webhooks", "*"], ["GET", "DELETE"]),
    ]

    /// The methods the templates matching `segments` take, in the order GET, POST, PUT, PATCH,
    /// DELETE; `nil` when no template matches the path. A concrete segment wins over a
    /// parameter, as OpenAPI matches paths: `/faults/presets` is not `/faults/{id}`.
    package static func allowedMethods(for segments: [String]) -> [String]? {
        var methods: Set<String> = []
        var fewestParameters = Int.max
        for route in routes where route.template.count == segments.count {
            guard zip(route.template, segments).allSatisfy({ $0 == "*" || $0 == $1 }) else { continue }
            let parameters = route.template.count { $0 == "*" }
            if parameters < fewestParameters {
                fewestParameters = parameters
                methods = []
            }
            if parameters == fewestParameters { methods.formUnion(route.methods) }
        }
        guard fewestParameters != .max else { return nil }
        return ["GET", "POST", "PUT", "PATCH", "DELETE"].filter(methods.contains)
    }
}
