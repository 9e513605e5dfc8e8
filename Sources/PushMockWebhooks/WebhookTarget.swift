import Foundation

/// Where a webhook is POSTed: an `http` or `https` URL split into what a connection needs.
package struct WebhookTarget: Sendable, Hashable, CustomStringConvertible {
    package var isTLS: Bool
    package var host: String
    package var port: Int
    /// Path and query as sent in the request line (`/` when the URL has none).
    package var pathAndQuery: String

    /// Parses `http://host[:port][/path][?query]` or `https://…`; IPv6 hosts in brackets.
    package init(url: String) throws(WebhookConfigurationError) {
        let text = url.trimmingCharacters(in: .whitespaces)
        let rest: Substring
        if text.lowercased().hasPrefix("http://") {
            isTLS = false
            rest = text.dropFirst(7)
        } else if text.lowercased().hasPrefix("https://") {
            isTLS = true
            rest = text.dropFirst(8)
        } else {
            throw WebhookConfigurationError("webhook URL \"\(url)\" must start with http:// or https://")
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty {
            path = "/"
        } else if path.hasPrefix("?") {
            path = "/" + path
        }
        if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
        guard !authority.isEmpty, !authority.contains("@") else {
            throw WebhookConfigurationError("webhook URL \"\(url)\" names no host (user info is not supported)")
        }
        var hostPart = Substring(authority)
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw WebhookConfigurationError("webhook URL \"\(url)\": unterminated IPv6 address")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw WebhookConfigurationError("webhook URL \"\(url)\" names no host") }
        host = String(hostPart)
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else {
                throw WebhookConfigurationError("webhook URL \"\(url)\": bad port \"\(portPart)\"")
            }
            port = value
        } else {
            port = isTLS ? 443 : 80
        }
        pathAndQuery = path
    }

    /// The `Host` header value.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isTLS ? 443 : 80) ? name : "\(name):\(port)"
    }

    package var description: String {
        "\(isTLS ? "https" : "http")://\(hostHeader)\(pathAndQuery)"
    }
}

/// A webhook definition that cannot be used (bad URL, duplicate id, bad limits).
package struct WebhookConfigurationError: Error, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }
}
