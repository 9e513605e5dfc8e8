import PushMockCore
import Synchronization

/// What the engine decided about one attempt.
enum AttemptVerdict: Sendable {
    /// The delivery is decided.
    case final(SendOutcome)
    /// A retryable failure: retry per the policy (after `retryAfter`, if the answer said), or
    /// report `failure` when the policy gives up.
    case retry(DeliveryFailure, retryAfter: Duration?)
    /// The credentials went stale (FCM 401, APNs `ExpiredProviderToken`): refresh them and
    /// send again at once, once per delivery; `fallback` if it happens again.
    case refreshCredentials(fallback: SendOutcome)
}

/// The `authorization` a batch of requests goes out with.
enum AuthorizationHeader {
    /// No header (APNs certificate authentication).
    case none
    /// This header value.
    case value(String)
    /// Not available right now (no access token yet): refresh, then send.
    case unavailable
    /// Cannot be made (the key cannot sign): the deliveries fail.
    case failed(SenderError)
}

/// What the delivery engine needs to know about APNs or FCM: how to authorise, build and
/// classify requests. Implementations are immutable and `Sendable`; per-connection state
/// (``ConnectionAuth``) lives on the connection's event loop.
protocol DeliveryPlatform: Sendable {
    /// A notification ready to go: path, headers and body already rendered.
    associatedtype Message: Sendable
    /// Authentication state bound to one connection (APNs: the provider token it uses).
    associatedtype ConnectionAuth

    func makeConnectionAuth() -> ConnectionAuth

    /// The `authorization` value for requests about to be sent on a connection.
    func authorization(_ auth: inout ConnectionAuth, now: Timestamp) -> AuthorizationHeader

    /// The request for `message`.
    func request(for message: Message, authorization: String?) -> HTTPRequestMessage

    /// Classifies a response.
    func classify(
        _ response: HTTPResponseMessage,
        message: Message,
        auth: inout ConnectionAuth,
        authorization: String?,
        now: Timestamp
    ) -> AttemptVerdict

    /// A verdict for a GOAWAY carrying a JSON `reason`, when it is not an ordinary
    /// reconnect-and-retry (APNs `BadCertificateEnvironment`).
    func verdict(forGoAwayReason reason: String) -> AttemptVerdict?

    /// Obtains fresh credentials before a `refreshCredentials` retry; an error fails the
    /// deliveries waiting for it.
    func refreshCredentials() async -> SenderError?

    /// Who `message` is for (device token, topic or condition).
    func recipient(of message: Message) -> String
}

/// Set when the caller of a single send is cancelled; checked before each attempt.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    init() {}

    func cancel() { flag.store(true, ordering: .relaxed) }

    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// One notification on its way, with what its attempts so far have shown.
struct Delivery<Message: Sendable>: Sendable {
    var message: Message
    /// Position in a bulk send.
    var index: Int?
    /// Requests sent so far.
    var attempts = 0
    /// Credential refreshes so far (at most one per delivery).
    var credentialRefreshes = 0
    /// The last attempt's round trip.
    var lastLatency: Duration = .zero
    /// Called exactly once with the final result, on whatever thread decided it.
    let completion: @Sendable (SendResult) -> Void
    let cancellation: CancellationFlag?

    init(message: Message, index: Int? = nil, cancellation: CancellationFlag? = nil, completion: @escaping @Sendable (SendResult) -> Void) {
        self.message = message
        self.index = index
        self.cancellation = cancellation
        self.completion = completion
    }

    var isCancelled: Bool { cancellation?.isCancelled ?? false }
}
