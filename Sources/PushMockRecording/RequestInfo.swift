public import PushMockCore

/// The request half of an exchange, as received.
public struct RequestInfo: Sendable, Hashable {
    /// HTTP method (`:method`).
    public var method: String
    /// Request target including any query (`:path`).
    public var path: String
    /// `:authority` or `Host`.
    public var authority: String?
    /// `:scheme`.
    public var scheme: String?
    /// All headers in wire order, duplicates kept. Secrets must already be redacted by the
    /// caller (the gateway replaces `authorization` by a placeholder).
    public var headers: HTTPHeaderList
    /// The body as classified for storage.
    public var body: RecordedBody
    /// Size in bytes of the body as received (before any compaction), so size-limit checks
    /// (APNs: 4096/5120 bytes) can be verified from the journal.
    public var bodySize: Int

    /// Creates request information; defaults describe an empty `POST /`.
    public init(
        method: String = "POST",
        path: String = "/",
        authority: String? = nil,
        scheme: String? = nil,
        headers: HTTPHeaderList = HTTPHeaderList(),
        body: RecordedBody = .none,
        bodySize: Int = 0
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.scheme = scheme
        self.headers = headers
        self.body = body
        self.bodySize = bodySize
    }
}
