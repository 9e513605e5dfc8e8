/// The client connection an exchange arrived on.
///
/// Recorded per exchange (not once per connection) so that every journal line is
/// self-contained: filtering by TLS, ALPN or client certificate works on a single line.
public struct ConnectionInfo: Sendable, Hashable {
    /// Gateway-assigned connection number, unique for the life of the process.
    public var id: UInt64
    /// `"h2"` (HTTP/2 over TLS), `"h2c"` (cleartext HTTP/2) or `"http/1.1"`.
    public var transport: String
    /// Whether the connection was TLS.
    public var tls: Bool
    /// The ALPN protocol negotiated, if any.
    public var alpn: String?
    /// The peer address, e.g. `"127.0.0.1:52144"`.
    public var remoteAddress: String?
    /// Subject of the client certificate presented (APNs certificate authentication).
    public var clientCertificateSubject: String?

    /// Creates connection information; the defaults describe an anonymous cleartext HTTP/2 peer.
    public init(
        id: UInt64 = 0,
        transport: String = "h2c",
        tls: Bool = false,
        alpn: String? = nil,
        remoteAddress: String? = nil,
        clientCertificateSubject: String? = nil
    ) {
        self.id = id
        self.transport = transport
        self.tls = tls
        self.alpn = alpn
        self.remoteAddress = remoteAddress
        self.clientCertificateSubject = clientCertificateSubject
    }
}
