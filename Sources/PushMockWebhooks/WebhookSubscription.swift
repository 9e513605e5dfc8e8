package import NIOSSL

/// One configured receiver: where events go, how they are signed, how long an attempt may take
/// and how failures are retried.
package struct WebhookSubscription: Sendable {
    /// Unique among the dispatcher's subscriptions; names the webhook in the API and in metrics.
    package var id: String
    package var target: WebhookTarget
    /// HMAC-SHA256 key; when set every request carries ``WebhookSignature/headerName``.
    package var secret: String?
    /// How long one attempt may take, connecting included. Default 5 s.
    package var timeout: Duration
    package var retry: WebhookRetryPolicy
    /// For `https` targets: verify the receiver's certificate against the system's trust roots.
    /// Default `true`; `false` accepts any certificate (a local receiver with a self-signed one).
    package var verifyCertificate: Bool
    /// For `https` targets: certificate authorities trusted besides the system's roots (a test
    /// or company CA that signed the receiver's certificate). Default none.
    package var trustedCertificates: [NIOSSLCertificate]

    package init(
        id: String,
        target: WebhookTarget,
        secret: String? = nil,
        timeout: Duration = .seconds(5),
        retry: WebhookRetryPolicy = WebhookRetryPolicy(),
        verifyCertificate: Bool = true,
        trustedCertificates: [NIOSSLCertificate] = []
    ) {
        self.id = id
        self.target = target
        self.secret = secret
        self.timeout = timeout
        self.retry = retry
        self.verifyCertificate = verifyCertificate
        self.trustedCertificates = trustedCertificates
    }

    /// The certificates of a PEM file (one or more `CERTIFICATE` blocks), for
    /// ``trustedCertificates``.
    package static func certificates(pemFile path: String) throws(WebhookConfigurationError) -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw WebhookConfigurationError("webhook caCertificate \"\(path)\": cannot read PEM certificates (\(error))")
        }
        guard !certificates.isEmpty else {
            throw WebhookConfigurationError("webhook caCertificate \"\(path)\": no certificate in the file")
        }
        return certificates
    }
}

/// How a failed delivery is retried: exponential backoff from `initialBackoff`, multiplied by
/// `multiplier` after each failure and capped at `maximumBackoff`, for at most `maximumAttempts`
/// attempts in all. A 2xx answer is delivered; anything else (another status, a refused
/// connection, a timeout) is a failed attempt.
package struct WebhookRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included. Default 5.
    package var maximumAttempts: Int
    /// Wait before the second attempt. Default 500 ms.
    package var initialBackoff: Duration
    /// Factor between consecutive waits. Default 2.
    package var multiplier: Double
    /// Longest wait. Default 30 s.
    package var maximumBackoff: Duration

    package init(
        maximumAttempts: Int = 5,
        initialBackoff: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maximumBackoff: Duration = .seconds(30)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.multiplier = max(1, multiplier)
        self.maximumBackoff = maximumBackoff
    }

    /// The wait after failed attempt `attempt` (1-based).
    package func backoff(after attempt: Int) -> Duration {
        var wait = initialBackoff
        for _ in 1..<max(1, attempt) {
            wait = wait * multiplier
            if wait >= maximumBackoff { return maximumBackoff }
        }
        return min(wait, maximumBackoff)
    }
}
