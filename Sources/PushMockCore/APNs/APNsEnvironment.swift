/// The APNs environment a request is served in.
///
/// Sandbox and production have different device tokens, and keys or certificates may be
/// restricted to one of them.
public struct APNsEnvironment: Hashable, Sendable, CustomStringConvertible, Codable {
    private enum Known: String, Sendable, Codable {
        case sandbox
        case production
    }

    private let known: Known

    private init(_ known: Known) { self.known = known }

    /// Parses `sandbox` (also `development`) or `production`.
    public init?(name: String) {
        switch name.lowercased() {
        case "sandbox", "development", "dev": self.known = .sandbox
        case "production", "prod": self.known = .production
        default: return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let environment = APNsEnvironment(name: name) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "unknown APNs environment \"\(name)\" (use sandbox or production)"
            )
        }
        self = environment
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(known.rawValue)
    }

    /// `sandbox` or `production`.
    public var name: String { known.rawValue }
    public var description: String { known.rawValue }

    /// `api.sandbox.push.apple.com` (also reachable as `api.development.push.apple.com`).
    public static let sandbox = Self(.sandbox)
    /// `api.push.apple.com`.
    public static let production = Self(.production)

    public static let all: [APNsEnvironment] = [.sandbox, .production]

    /// The other environment.
    public var other: APNsEnvironment { self == .sandbox ? .production : .sandbox }

    /// The real host name of this environment.
    public var hostName: String {
        self == .sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com"
    }

    /// The environment a request's `:authority` (or `Host`) names, if it is one of Apple's host
    /// names. The port is ignored. Any other authority (for example `127.0.0.1:8443`) gives `nil`,
    /// and the listener's configured environment applies.
    public static func named(byAuthority authority: some StringProtocol) -> APNsEnvironment? {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            return nil  // an IPv6 literal
        }
        if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        switch host.lowercased() {
        case "api.push.apple.com": return .production
        case "api.sandbox.push.apple.com", "api.development.push.apple.com": return .sandbox
        default: return nil
        }
    }
}
