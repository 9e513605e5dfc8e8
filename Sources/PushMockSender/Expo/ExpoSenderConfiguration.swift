/// Everything an ``ExpoSender`` needs. The defaults follow the official Node SDK
/// (expo-server-sdk-node 3.x): 100 messages per request, 6 concurrent requests, gzip for bodies
/// over 1 KiB; receipts are asked for 1000 at a time (the service's limit).
///
/// ```swift
/// var configuration = ExpoSenderConfiguration()                       // https://exp.host
/// configuration.server = try SenderEndpoint(url: "http://127.0.0.1:2198")   // the mock
/// ```
public struct ExpoSenderConfiguration: Sendable {
    /// The Expo base URL. Default `https://exp.host`.
    public var server: SenderEndpoint
    /// "Enhanced push security": sent as `Authorization: Bearer …` when set.
    public var accessToken: String?
    /// Whom to trust for TLS. Default: the system roots.
    public var trustRoots: TrustRoots
    /// Messages per send request (the service refuses more than 100). Default 100.
    public var messagesPerRequest: Int
    /// Receipt ids per getReceipts request (the service refuses more than 1000). Default 1000.
    public var receiptIDsPerRequest: Int
    /// Requests in flight at once. Default 6, as the Node SDK.
    public var concurrentRequests: Int
    /// Bodies larger than this are sent gzip-compressed. Default 1024 bytes, as the Node SDK.
    public var gzipThreshold: Int
    /// How long one request may take. Default 30 s.
    public var requestTimeout: Duration
    /// TCP connect and TLS handshake. Default 10 s.
    public var connectTimeout: Duration
    /// Retries of whole requests: 429 and 5xx (statuses in the policy) and connection faults.
    /// Default: 3 attempts, 1 s then 2 s (the Node SDK retries 429 twice from 1 s, factor 2).
    public var retry: RetryPolicy
    public var jitter: JitterSource
    public var sleep: RetrySleep

    public init(
        server: SenderEndpoint = ExpoSenderConfiguration.production,
        accessToken: String? = nil,
        trustRoots: TrustRoots = .system,
        messagesPerRequest: Int = 100,
        receiptIDsPerRequest: Int = 1000,
        concurrentRequests: Int = 6,
        gzipThreshold: Int = 1024,
        requestTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10),
        retry: RetryPolicy = RetryPolicy(maximumAttempts: 3, initialBackoff: .seconds(1), retryableStatuses: [429, 500, 502, 503, 504]),
        jitter: JitterSource = .system,
        sleep: RetrySleep = .system
    ) {
        self.server = server
        self.accessToken = accessToken
        self.trustRoots = trustRoots
        self.messagesPerRequest = messagesPerRequest
        self.receiptIDsPerRequest = receiptIDsPerRequest
        self.concurrentRequests = concurrentRequests
        self.gzipThreshold = gzipThreshold
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.retry = retry
        self.jitter = jitter
        self.sleep = sleep
    }

    /// `https://exp.host`.
    public static let production = SenderEndpoint(host: "exp.host", port: 443)

    func validate() throws(SenderError) {
        guard (1...100).contains(messagesPerRequest) else {
            throw SenderError(.invalidConfiguration, "messagesPerRequest must be 1…100 (was \(messagesPerRequest))")
        }
        guard (1...1000).contains(receiptIDsPerRequest) else {
            throw SenderError(.invalidConfiguration, "receiptIDsPerRequest must be 1…1000 (was \(receiptIDsPerRequest))")
        }
        guard concurrentRequests >= 1 else {
            throw SenderError(.invalidConfiguration, "concurrentRequests must be at least 1 (was \(concurrentRequests))")
        }
        guard requestTimeout > .zero, connectTimeout > .zero else {
            throw SenderError(.invalidConfiguration, "timeouts must be positive")
        }
        try retry.validate()
    }
}
