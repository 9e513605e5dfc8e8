public import PushMockCore

/// Webhooks on receipt (`docs/webhooks.md`): every recorded exchange, or those a filter
/// selects, POSTed to URLs as Mailpit does for mail.
public struct WebhookOptions: Sendable {
    /// Webhooks the gateway starts with (`serve --webhook`, the config file's `"webhooks"`).
    /// Default: none (more can be added through `POST /_pushmock/webhooks`).
    public var webhooks: [WebhookDefinition]
    /// Events waiting for a sender, all webhooks together; beyond it events are dropped
    /// (counted and logged), never waited for. Default 10 000.
    public var queueCapacity: Int
    /// Webhook requests in flight at once. Default 4.
    public var concurrency: Int

    public init(webhooks: [WebhookDefinition] = [], queueCapacity: Int = 10_000, concurrency: Int = 4) {
        self.webhooks = webhooks
        self.queueCapacity = queueCapacity
        self.concurrency = concurrency
    }
}

/// One webhook as the config file, `POST /_pushmock/webhooks` and `serve --webhook` give it.
///
/// ```json
/// {"id": "backend", "url": "http://127.0.0.1:9000/push-events", "secret": "s3cret",
///  "filter": "platform=apns&status=4xx", "timeout": "5s", "maxAttempts": 5,
///  "initialBackoff": "500ms", "maxBackoff": "30s"}
/// ```
public struct WebhookDefinition: Codable, Sendable, Hashable {
    /// Names the webhook in the API and the metrics. Default: `webhook-N`.
    public var id: String?
    /// `http://` or `https://` URL the recordings are POSTed to.
    public var url: String
    /// HMAC-SHA256 key for the `X-PushMock-Signature-256` header. Default: unsigned.
    public var secret: String?
    /// Which recordings to send, in the query language of `GET /_pushmock/recordings`
    /// (`platform=apns&status=4xx&where=$.aps.alert.title~Dose*`). Default: every recording.
    public var filter: String?
    /// How long one attempt may take. Default 5 s.
    public var timeout: FlexibleDuration?
    /// Attempts in all, the first included. Default 5.
    public var maxAttempts: Int?
    /// Wait before the first retry, doubled after each failure. Default 500 ms.
    public var initialBackoff: FlexibleDuration?
    /// Longest wait between attempts. Default 30 s.
    public var maxBackoff: FlexibleDuration?
    /// For `https`: verify the receiver's certificate. Default true.
    public var verifyCertificate: Bool?
    /// For `https`: a PEM file with the certificate(s) of the authority that signed the
    /// receiver's certificate, trusted besides the system's roots (a relative path is relative to
    /// the working directory). Default: the system's roots only.
    public var caCertificate: String?
    /// Which events to send: `recording` (every recorded exchange the filter selects),
    /// `delivery-receipt` (a notification delivered to a simulated device) and `engagement`
    /// (displayed, opened, dismissed, action). Default `["recording"]` (`docs/engagement.md`).
    public var events: [String]?

    public init(
        id: String? = nil,
        url: String,
        secret: String? = nil,
        filter: String? = nil,
        timeout: FlexibleDuration? = nil,
        maxAttempts: Int? = nil,
        initialBackoff: FlexibleDuration? = nil,
        maxBackoff: FlexibleDuration? = nil,
        verifyCertificate: Bool? = nil,
        caCertificate: String? = nil,
        events: [String]? = nil
    ) {
        self.id = id
        self.url = url
        self.secret = secret
        self.filter = filter
        self.timeout = timeout
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.verifyCertificate = verifyCertificate
        self.caCertificate = caCertificate
        self.events = events
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, url, secret, filter, timeout, maxAttempts, initialBackoff, maxBackoff, verifyCertificate, caCertificate, events
    }

    /// Refuses members it does not know: `"timeoutSeconds": 30` or `"retry": {…}` would
    /// otherwise leave the defaults in force without a word (as a misspelt filter item does).
    public init(from decoder: any Decoder) throws {
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "a webhook")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(String.self, forKey: .id),
            url: try container.decode(String.self, forKey: .url),
            secret: try container.decodeIfPresent(String.self, forKey: .secret),
            filter: try container.decodeIfPresent(String.self, forKey: .filter),
            timeout: try container.decodeIfPresent(FlexibleDuration.self, forKey: .timeout),
            maxAttempts: try container.decodeIfPresent(Int.self, forKey: .maxAttempts),
            initialBackoff: try container.decodeIfPresent(FlexibleDuration.self, forKey: .initialBackoff),
            maxBackoff: try container.decodeIfPresent(FlexibleDuration.self, forKey: .maxBackoff),
            verifyCertificate: try container.decodeIfPresent(Bool.self, forKey: .verifyCertificate),
            caCertificate: try container.decodeIfPresent(String.self, forKey: .caCertificate),
            events: try container.decodeIfPresent([String].self, forKey: .events)
        )
    }
}
