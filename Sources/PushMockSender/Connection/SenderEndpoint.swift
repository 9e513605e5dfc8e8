import Foundation

/// Where a sender connects: host, port, TLS or cleartext, and the `:authority` it sends.
public struct SenderEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or IP address to connect to.
    public var host: String
    /// TCP port.
    public var port: Int
    /// TLS with ALPN `h2` (true) or cleartext HTTP/2 with prior knowledge (false).
    public var usesTLS: Bool
    /// The `:authority` pseudo-header; default `host` (plus `:port` unless it is 443 over TLS).
    /// The mock picks sandbox or production from it when it names an Apple host.
    public var authority: String?
    /// SNI and the name the server certificate must carry; default `host` unless it is an IP
    /// address.
    public var serverHostname: String?
    /// A path prefix from the URL (FCM: where `/projects/…` goes below), without a trailing
    /// slash; empty for none.
    public var pathPrefix: String

    public init(
        host: String,
        port: Int,
        usesTLS: Bool = true,
        authority: String? = nil,
        serverHostname: String? = nil,
        pathPrefix: String = ""
    ) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.authority = authority
        self.serverHostname = serverHostname
        self.pathPrefix = pathPrefix
    }

    /// Parses `https://host[:port][/prefix]` (TLS, default port 443) or `http://host[:port]`
    /// (h2c prior knowledge, default port 80).
    public init(url text: String) throws(SenderError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw SenderError(.invalidConfiguration, "\"\(text)\" is not an http(s) URL with a host")
        }
        switch scheme {
        case "https": self.usesTLS = true
        case "http": self.usesTLS = false
        default: throw SenderError(.invalidConfiguration, "URL scheme must be https or http (was \(scheme) in \"\(text)\")")
        }
        var bareHost = host
        if bareHost.hasPrefix("["), bareHost.hasSuffix("]") {
            bareHost = String(bareHost.dropFirst().dropLast())
        }
        self.host = bareHost
        self.port = url.port ?? (usesTLS ? 443 : 80)
        self.authority = nil
        self.serverHostname = nil
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        self.pathPrefix = path
    }

    /// The `:authority` actually sent.
    public var effectiveAuthority: String {
        if let authority { return authority }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        if (usesTLS && port == 443) || (!usesTLS && port == 80) { return hostPart }
        return "\(hostPart):\(port)"
    }

    /// `https://host:port/prefix`.
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "https" : "http")://\(hostPart):\(port)\(pathPrefix)"
    }
}
