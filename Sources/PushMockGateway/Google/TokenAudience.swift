import Foundation

/// The `aud` values the token endpoint accepts in a JWT-bearer assertion, as Google checks them:
/// a token URL of the server the assertion is sent to, nothing else.
///
/// - Google's own token URLs are always accepted: Python's google-auth and Java's library put
///   `https://oauth2.googleapis.com/token` in `aud` whatever `token_uri` says, and Google accepts
///   it (and its older spellings) from every client.
/// - The gateway's own token URLs — `/token` or `/oauth2/v4/token` on one of its listeners (as
///   the sample service account's `token_uri` names them), or on the scheme and authority the
///   request itself was sent to — stand in for Google's: Go's library uses `token_uri` as `aud`.
/// - Anything else (another host, another port, another path) fails the audience check, as it
///   would at Google.
struct TokenAudience {
    /// Audiences Google's token endpoint accepts.
    static let googleAudiences: Set<String> = [
        "https://oauth2.googleapis.com/token",
        "https://www.googleapis.com/oauth2/v4/token",
        // The legacy endpoint, still what older clients (oauth2client) put in `aud`.
        "https://accounts.google.com/o/oauth2/token",
    ]

    /// Paths the gateway serves the token endpoint on.
    static let tokenPaths: Set<String> = ["/token", "/oauth2/v4/token"]

    /// What Google answers when the check fails.
    static let failureDescription =
        "Invalid JWT: Failed audience check. The expected audience is https://oauth2.googleapis.com/token."

    /// Scheme, host and port of the gateway's listeners.
    let gatewayOrigins: Set<Origin>

    init(gatewayTokenURIs: [String]) {
        gatewayOrigins = Set(gatewayTokenURIs.compactMap { Origin.parse(url: $0)?.origin })
    }

    /// Whether `audience` is acceptable for a request sent with `scheme` to `authority`.
    func accepts(_ audience: String, requestScheme: String?, requestAuthority: String?) -> Bool {
        if Self.googleAudiences.contains(audience) { return true }
        guard let (origin, path) = Origin.parse(url: audience), Self.tokenPaths.contains(path) else { return false }
        if gatewayOrigins.contains(origin) { return true }
        if let requestScheme, let requestAuthority, let requested = Origin(scheme: requestScheme, authority: requestAuthority) {
            return requested == origin
        }
        return false
    }

    /// `scheme://host:port` with the host lower-cased and the default port filled in.
    struct Origin: Hashable {
        var scheme: String
        var host: String
        var port: Int

        init?(scheme: String, host: String, port: Int?) {
            let scheme = scheme.lowercased()
            guard scheme == "https" || scheme == "http", !host.isEmpty else { return nil }
            self.scheme = scheme
            self.host = host.lowercased()
            self.port = port ?? (scheme == "https" ? 443 : 80)
        }

        /// The origin of an absolute URL and its path; `nil` for anything with user info, a
        /// query or a fragment (never a token URL).
        static func parse(url: String) -> (origin: Origin, path: String)? {
            guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host,
                components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
                let origin = Origin(scheme: scheme, host: unbracketed(host), port: components.port)
            else { return nil }
            return (origin, components.path)
        }

        /// From a request's `:scheme` and `:authority` (or `Host`).
        init?(scheme: String, authority: String) {
            guard let components = URLComponents(string: "\(scheme)://\(authority)"), let host = components.host,
                components.path.isEmpty, components.user == nil
            else { return nil }
            self.init(scheme: scheme, host: Self.unbracketed(host), port: components.port)
        }

        static func unbracketed(_ host: String) -> String {
            host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        }
    }
}
