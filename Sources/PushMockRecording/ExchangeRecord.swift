public import PushMockCore

/// Everything the gateway knows about one HTTP exchange it answered: the request, how it was
/// authenticated, what it asked to push, and the response.
///
/// Records are the single source of truth for test assertions (via ``RecordingStore``) and for
/// the on-disk journal (via ``encodeJSONLine(into:)`` and ``JournalWriter``). All fields are
/// `var` with defaults so the gateway can fill a record incrementally while handling a stream.
///
/// ## Journal line format (version 1)
///
/// One JSON object per line, UTF-8, terminated by `\n`. Fields appear in this order; optional
/// fields whose value is `nil` are omitted, as are `resolvedTokens` and `annotations` when empty:
///
/// ```text
/// {"v":1,"seq":42,"time":"2026-11-21T23:40:00.123Z","timeMs":1795304400123,
///  "namespace":"ci-7","platform":"apns",
///  "connection":{"id":3,"transport":"h2","tls":true,"alpn":"h2","remoteAddress":"127.0.0.1:50111",
///                "clientCertificateSubject":"CN=…"},
///  "streamID":1,"environment":"sandbox",
///  "request":{"method":"POST","path":"/3/device/abc","authority":"localhost:2197","scheme":"https",
///             "headers":[["apns-topic","com.example"],["authorization","<redacted>"]],
///             "body":{"aps":{"alert":"hi"}},"bodySize":27},
///  "auth":{"scheme":"bearer-jwt","jwtHeader":{"alg":"ES256","kid":"K"},"jwtClaims":{"iss":"T","iat":1},
///          "keyID":"K","teamID":"T","subject":…,"detail":…},
///  "notification":{"token":"abc","topic":"com.example","pushType":"alert","priority":10,
///                  "expiration":0,"collapseID":…,"messageID":"…","project":…,"condition":…,
///                  "resolvedTokens":["…"]},
///  "response":{"status":200,"reason":…,"headers":[["apns-id","…"]],"body":…,
///              "timestampMilliseconds":…},
///  "latencyMicroseconds":85,"annotations":{"fault":"none"}}
/// ```
/// (Shown wrapped; a real line has no whitespace outside strings.)
///
/// * `v` is always first; readers reject other versions line by line.
/// * `time` is ISO-8601 UTC with milliseconds, derived from `timeMs` (which is authoritative).
/// * Bodies: `"body": <raw JSON>` for ``RecordedBody/json(_:)`` (embedded verbatim),
///   `"bodyText": "…"` for text, `"bodyBase64": "…"` for binary, nothing for none.
/// * `headers` are arrays of `[name, value]` pairs in wire order; `annotations` keys are sorted.
/// * Readers ignore unknown fields, so later versions of the writer may add fields freely.
///
/// The same description, with examples, is in `docs/journal-format.md`.
public struct ExchangeRecord: Sendable, Hashable {
    /// Position in the recording, assigned by ``RecordingStore`` on append (0 before that).
    /// Strictly increasing, never reused; the journal carries the same number.
    public var sequence: UInt64
    /// When the request was received, in milliseconds since the Unix epoch, from the gateway's
    /// (possibly virtual) clock.
    public var timeMilliseconds: Int64
    /// Test namespace the exchange belongs to, isolating concurrent test runs.
    public var namespace: String?
    /// The service the exchange belongs to.
    public var platform: Platform
    /// The connection the exchange arrived on.
    public var connection: ConnectionInfo
    /// HTTP/2 stream identifier; `nil` for HTTP/1.1.
    public var streamID: Int32?
    /// `"sandbox"` or `"production"` for APNs.
    public var environment: String?
    /// The request as received.
    public var request: RequestInfo
    /// Authentication details, if the endpoint requires authentication.
    public var auth: AuthInfo?
    /// Push details, for send requests.
    public var notification: NotificationInfo?
    /// The response as sent.
    public var response: ResponseInfo
    /// Time from receiving the request head to sending the response, in microseconds.
    public var latencyMicroseconds: Int64
    /// Free-form notes (injected faults, lint findings…); written sorted by key.
    public var annotations: [String: String]

    /// Creates a record; every field has a default so callers set only what they know.
    public init(
        sequence: UInt64 = 0,
        timeMilliseconds: Int64 = 0,
        namespace: String? = nil,
        platform: Platform = .unknown,
        connection: ConnectionInfo = ConnectionInfo(),
        streamID: Int32? = nil,
        environment: String? = nil,
        request: RequestInfo = RequestInfo(),
        auth: AuthInfo? = nil,
        notification: NotificationInfo? = nil,
        response: ResponseInfo = ResponseInfo(),
        latencyMicroseconds: Int64 = 0,
        annotations: [String: String] = [:]
    ) {
        self.sequence = sequence
        self.timeMilliseconds = timeMilliseconds
        self.namespace = namespace
        self.platform = platform
        self.connection = connection
        self.streamID = streamID
        self.environment = environment
        self.request = request
        self.auth = auth
        self.notification = notification
        self.response = response
        self.latencyMicroseconds = latencyMicroseconds
        self.annotations = annotations
    }
}
