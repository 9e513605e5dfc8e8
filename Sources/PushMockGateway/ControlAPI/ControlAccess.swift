import Foundation
import PushMockCore

/// Who may drive the control API. The API changes clocks, tokens and faults and reads
/// recordings, so a web page the developer happens to open must not reach it:
///
/// - **Host** (DNS rebinding): without a token, the `Host`/`:authority` must name a loopback
///   address (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`), the bound address, or one of
///   ``allowedHosts``; a request without one (not from a browser) passes. With a token any
///   name is accepted (the token is what a rebinding page lacks).
/// - **Origin** (CSRF): a request whose `Origin` is not its own origin (or is `null`), or
///   whose `Sec-Fetch-Site` says `cross-site`/`same-site`, is refused unless the origin is in
///   ``allowedOrigins``. The inbox page served at `/` is same-origin and keeps working.
/// - **Simple requests**: a mutating request (POST, PUT, PATCH, DELETE) with a `text/plain`
///   or `multipart/form-data` body — what a cross-origin form can send without a CORS
///   preflight — is refused with 415; JSON bodies (and curl's default form type) pass.
/// - **Token**: with ``token`` set, every control request must carry `Authorization: Bearer
///   <token>` or the cookie `pushmock-control-token=<token>` (what the inbox sets once the
///   token is pasted). Required when the gateway listens on a non-loopback address.
///
/// Refusals are 401 (token) or 403 (host, origin) with `{"error": …}`; docs/control-api.md.
public struct ControlAccess: Sendable, Hashable {
    /// The bearer token the control API requires; `nil`: none (loopback only).
    public var token: String?
    /// Extra host names accepted in `Host` (for example a name in /etc/hosts).
    public var allowedHosts: [String]
    /// Extra origins (`scheme://host:port`) whose pages may call the API.
    public var allowedOrigins: [String]

    public init(token: String? = nil, allowedHosts: [String] = [], allowedOrigins: [String] = []) {
        self.token = token
        self.allowedHosts = allowedHosts
        self.allowedOrigins = allowedOrigins
    }

    /// The cookie the inbox page stores the pasted token in.
    public static let cookieName = "pushmock-control-token"

    /// Why `request` may not use the API, as the error to answer; `nil` when it may.
    func refusal(of request: HTTPRequestMessage, boundHost: String) -> ControlAPIError? {
        let authority = request.authority ?? request.headers.first(named: "host")
        // With a token the Host does not matter: a rebinding page cannot know the token (and
        // the browser would not send the gateway's cookie to the attacker's name), while a
        // gateway on a shared network is reached by whatever name the machine has.
        if token == nil, let authority, !isAllowedHost(Self.hostName(ofAuthority: authority), boundHost: boundHost) {
            return ControlAPIError(403, "the control API answers only loopback host names (Host: \(authority)); see docs/control-api.md")
        }
        if let origin = request.headers.first(named: "origin"), !isAllowedOrigin(origin, authority: authority) {
            return ControlAPIError(403, "cross-origin requests to the control API are refused (Origin: \(origin))")
        }
        if let site = request.headers.first(named: "sec-fetch-site")?.lowercased(), site == "cross-site" || site == "same-site",
            !(request.headers.first(named: "origin").map { allowedOrigins.contains($0) } ?? false)
        {
            return ControlAPIError(403, "cross-site requests to the control API are refused (Sec-Fetch-Site: \(site))")
        }
        if ["POST", "PUT", "PATCH", "DELETE"].contains(request.method),
            let type = request.headers.first(named: "content-type")?.lowercased(),
            type.hasPrefix("text/plain") || type.hasPrefix("multipart/form-data")
        {
            return ControlAPIError(415, "control API bodies are JSON (Content-Type: application/json), not \(type)")
        }
        if let token, !carries(token, request) {
            return ControlAPIError(401, "this control API needs its token: Authorization: Bearer <token> (--control-token)")
        }
        return nil
    }

    private func carries(_ token: String, _ request: HTTPRequestMessage) -> Bool {
        if let authorization = request.headers.first(named: "authorization"),
            authorization.lowercased().hasPrefix("bearer "),
            Self.constantTimeEquals(String(authorization.dropFirst(7)).trimmingCharacters(), token)
        {
            return true
        }
        for index in 0..<request.headers.count where request.headers.name(at: index) == "cookie" {
            for pair in request.headers.value(at: index).split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters() == Self.cookieName,
                    Self.constantTimeEquals(parts[1].trimmingCharacters(), token)
                {
                    return true
                }
            }
        }
        return false
    }

    private func isAllowedHost(_ host: String, boundHost: String) -> Bool {
        let host = host.lowercased()
        return Self.isLoopback(host) || host == boundHost.lowercased() || allowedHosts.contains { $0.lowercased() == host }
    }

    private func isAllowedOrigin(_ origin: String, authority: String?) -> Bool {
        if allowedOrigins.contains(origin) { return true }
        // Same origin: the page was served by this listener under the same host and port.
        guard origin != "null", let separator = origin.range(of: "://"), let authority else { return false }
        return origin[separator.upperBound...].lowercased() == authority.lowercased()
    }

    /// Loopback names: `localhost` and its subdomains, 127.0.0.0/8, ::1.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// `host` of `host:port`, `[v6]:port`, `[v6]` or `host`.
    static func hostName(ofAuthority authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        if let colon = authority.lastIndex(of: ":"), authority.filter({ $0 == ":" }).count == 1 {
            return String(authority[..<colon])
        }
        return authority
    }

    private static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
