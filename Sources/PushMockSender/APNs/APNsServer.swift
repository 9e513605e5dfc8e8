public import PushMockCore

/// Which APNs to talk to.
public struct APNsServer: Sendable, Hashable, CustomStringConvertible {
    /// Where to connect.
    public var endpoint: SenderEndpoint
    /// The environment the server serves, when known (reporting only).
    public var environment: APNsEnvironment?

    public init(endpoint: SenderEndpoint, environment: APNsEnvironment? = nil) {
        self.endpoint = endpoint
        self.environment = environment
    }

    /// `api.push.apple.com:443`.
    public static let production = APNsServer(
        endpoint: SenderEndpoint(host: "api.push.apple.com", port: 443),
        environment: .production
    )

    /// `api.sandbox.push.apple.com:443` (development builds).
    public static let sandbox = APNsServer(
        endpoint: SenderEndpoint(host: "api.sandbox.push.apple.com", port: 443),
        environment: .sandbox
    )

    /// The real host of `environment` on port 2197 (for networks that only allow that port).
    public static func alternatePort(_ environment: APNsEnvironment) -> APNsServer {
        APNsServer(endpoint: SenderEndpoint(host: environment.hostName, port: 2197), environment: environment)
    }

    /// Any base URL, e.g. the mock: `https://127.0.0.1:2197`. `authority` overrides the
    /// `:authority` sent (`api.push.apple.com` makes the mock serve production).
    public static func custom(url: String, authority: String? = nil, environment: APNsEnvironment? = nil) throws(SenderError) -> APNsServer
    {
        var endpoint = try SenderEndpoint(url: url)
        endpoint.authority = authority
        return APNsServer(
            endpoint: endpoint,
            environment: environment ?? authority.flatMap { APNsEnvironment.named(byAuthority: $0) }
        )
    }

    public var description: String {
        "\(endpoint)\(environment.map { " (\($0))" } ?? "")"
    }
}
