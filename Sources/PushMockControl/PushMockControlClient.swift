import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PushMockCore
import PushMockTransport

/// A client for a running gateway's control API (`/_pushmock/…`), over h2c (`http://`) or TLS
/// (`https://`, trusting the gateway's CA). The CLI's `clock`, `device`, `token` and `fault`
/// commands are built on it; tests in other processes can use it too.
///
/// One HTTP/2 connection, opened on first use and reopened if it closed.
public actor PushMockControlClient {
    /// Where the gateway listens.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var usesTLS: Bool
        /// The CA to trust for `https` (default: the gateway's `certs/ca.pem`).
        public var certificateAuthorityPath: String?

        /// Parses `http://127.0.0.1:2198` or `https://localhost:2197` (a bare `host:port` is
        /// `http`).
        public init(url: String, certificateAuthorityPath: String? = nil) throws(ControlClientError) {
            var rest = Substring(url)
            var usesTLS = false
            if rest.hasPrefix("https://") {
                usesTLS = true
                rest = rest.dropFirst("https://".count)
            } else if rest.hasPrefix("http://") {
                rest = rest.dropFirst("http://".count)
            }
            while rest.hasSuffix("/") { rest = rest.dropLast() }
            let host: Substring
            let portText: Substring?
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                portText = after.hasPrefix(":") ? after.dropFirst() : nil
            } else if let colon = rest.lastIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                host = rest
                portText = nil
            }
            guard !host.isEmpty else { throw ControlClientError("no host in \(url)") }
            let port = portText.map { Int($0) } ?? (usesTLS ? 2197 : 2198)
            guard let port, (1...65535).contains(port) else { throw ControlClientError("bad port in \(url)") }
            self.host = String(host)
            self.port = port
            self.usesTLS = usesTLS
            self.certificateAuthorityPath = certificateAuthorityPath
        }

        public var description: String { "\(usesTLS ? "https" : "http")://\(host):\(port)" }
    }

    public nonisolated let endpoint: Endpoint
    private let timeout: Duration
    private var connection: HTTP2ClientConnection?

    public init(endpoint: Endpoint, timeout: Duration = .seconds(10)) {
        self.endpoint = endpoint
        self.timeout = timeout
    }

    /// Sends one control request. `path` is below `/_pushmock/` (e.g. `clock/advance`).
    public func request(
        _ method: String,
        _ path: String,
        query: [(String, String)] = [],
        json body: [UInt8] = []
    ) async throws -> ControlResponse {
        var target = "/_pushmock/" + path
        if !query.isEmpty {
            target += "?" + query.map { "\(Self.percentEncoded($0.0))=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
        }
        var headers = HTTPHeaderList()
        headers.append(name: "accept", value: "application/json")
        // A gateway started with --control-token wants it on every control request.
        if let token = ProcessInfo.processInfo.environment["PUSHMOCK_CONTROL_TOKEN"], !token.isEmpty {
            headers.append(name: "authorization", value: "Bearer \(token)")
        }
        if !body.isEmpty {
            headers.append(.contentType, value: "application/json")
        }
        let message = HTTPRequestMessage(method: method, path: target, headers: headers, body: body)
        let connection = try await openConnection()
        let timeout = self.timeout
        let response = try await withThrowingTaskGroup(of: HTTPResponseMessage.self) { group in
            group.addTask { try await connection.send(message) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw ControlClientError("no answer from \(self.endpoint) within \(DurationText.format(timeout))")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        return ControlResponse(status: response.status, body: response.body)
    }

    /// Like ``request(_:_:query:json:)``, but throws the gateway's `{"error": …}` message for
    /// any status outside 2xx.
    public func call(_ method: String, _ path: String, query: [(String, String)] = [], json body: [UInt8] = []) async throws
        -> ControlResponse
    {
        let response = try await request(method, path, query: query, json: body)
        guard (200..<300).contains(response.status) else {
            throw ControlClientError(
                "\(method) /_pushmock/\(path): \(response.status) \(response.errorMessage ?? String(decoding: response.body, as: UTF8.self))"
            )
        }
        return response
    }

    /// Closes the connection.
    public func close() async {
        await connection?.close()
        connection = nil
    }

    private func openConnection() async throws -> HTTP2ClientConnection {
        if let connection, connection.isActive, (try? await connection.receivedGoAway) == nil {
            return connection
        }
        var tls: TLSConfiguration?
        if endpoint.usesTLS {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = ["h2"]
            let caPath = endpoint.certificateAuthorityPath ?? "certs/ca.pem"
            guard FileManager.default.fileExists(atPath: caPath) else {
                throw ControlClientError("cannot read the gateway's CA at \(caPath); pass --ca")
            }
            configuration.trustRoots = .file(caPath)
            tls = configuration
        }
        do {
            let opened = try await HTTP2ClientConnection.connect(
                to: .init(
                    host: endpoint.host, port: endpoint.port, tls: tls, serverHostname: endpoint.usesTLS ? "localhost" : nil,
                    connectTimeout: timeout)
            )
            connection = opened
            return opened
        } catch {
            throw ControlClientError(
                "cannot reach the gateway at \(endpoint): \(ConnectFailureText.describe(error)). Is `pushmock serve` running?")
        }
    }

    private static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? text
    }
}

/// An answer of the control API.
public struct ControlResponse: Sendable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// The body decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(body))
    }

    /// The `error` member of an error answer.
    public var errorMessage: String? {
        (try? JSONDecoder().decode(ErrorBody.self, from: Data(body)))?.error
    }

    /// The control API's error shape, `{"error": "…"}`.
    private struct ErrorBody: Decodable {
        var error: String
    }

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A control-client failure, in words.
public struct ControlClientError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension CharacterSet {
    /// Query values: unreserved characters only (`&`, `=`, `+` and `#` are encoded).
    static let urlQueryValueAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~*:")
}
