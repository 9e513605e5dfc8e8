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

/// A notification rendered for the wire: the engine only adds `authorization`.
struct PreparedRequest: Sendable {
    /// Device token, `topic:<name>` or `condition:<expression>`.
    let recipient: String
    /// `:path` is `path` followed by `pathSuffix`. APNs requests keep `/3/device/` and the
    /// token apart: joining them was a string allocated per notification on the producer's
    /// thread and freed on the event loop's, which glibc's per-thread caches do not serve.
    let path: String
    var pathSuffix = ""
    let headers: HTTPHeaderList
    /// Identifies `headers`: requests with the same key have the same headers (lets a
    /// connection reuse the header list it built with `authorization` added).
    let headersKey: Int
    let body: [UInt8]

    /// A key for a header list no other request has.
    static func newHeadersKey() -> Int {
        nextHeadersKey.add(1, ordering: .relaxed).newValue
    }

    private static let nextHeadersKey = Atomic<Int>(0)
}

/// Authentication state bound to one connection (confined to its event loop).
struct ConnectionAuthState {
    /// APNs token authentication: the provider token this connection sends.
    var providerToken: ProviderTokenSource.ConnectionToken?
}

/// What the delivery engine needs to know about APNs or FCM: how to authorise and classify
/// requests. Implementations are immutable and `Sendable`; per-connection state lives in the
/// connection's ``ConnectionAuthState`` on its event loop.
protocol DeliveryPlatform: Sendable {
    /// The `authorization` value for requests about to be sent on a connection.
    func authorization(_ auth: inout ConnectionAuthState, now: Timestamp) -> AuthorizationHeader

    /// Classifies a response.
    func classify(
        _ response: HTTPResponseMessage,
        auth: inout ConnectionAuthState,
        authorization: String?,
        now: Timestamp
    ) -> AttemptVerdict

    /// A verdict for a GOAWAY carrying a JSON `reason`, when it is not an ordinary
    /// reconnect-and-retry (APNs `BadCertificateEnvironment`).
    func verdict(forGoAwayReason reason: String) -> AttemptVerdict?

    /// Obtains fresh credentials before a `refreshCredentials` retry; an error fails the
    /// deliveries waiting for it.
    func refreshCredentials() async -> SenderError?
}

/// Set when the caller of a single send is cancelled; checked before each attempt.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    init() {}

    func cancel() { flag.store(true, ordering: .relaxed) }

    var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

/// What does not change while a notification is on its way: shared by reference, so moving
/// a ``Delivery`` between the queue, a connection and a retry timer costs one retain.
final class DeliveryContent: Sendable {
    let request: PreparedRequest
    /// Position in a bulk send.
    let index: Int?
    /// Called exactly once with the final result, on whatever thread decided it.
    let completion: @Sendable (SendResult) -> Void
    let cancellation: CancellationFlag?

    init(request: PreparedRequest, index: Int?, cancellation: CancellationFlag?, completion: @escaping @Sendable (SendResult) -> Void) {
        self.request = request
        self.index = index
        self.cancellation = cancellation
        self.completion = completion
    }
}

/// One notification on its way, with what its attempts so far have shown.
struct Delivery: Sendable {
    let content: DeliveryContent
    /// Requests sent so far.
    var attempts = 0
    /// Credential refreshes so far (at most one per delivery).
    var credentialRefreshes = 0
    /// The last attempt's round trip.
    var lastLatency: Duration = .zero

    init(
        request: PreparedRequest, index: Int? = nil, cancellation: CancellationFlag? = nil,
        completion: @escaping @Sendable (SendResult) -> Void
    ) {
        self.content = DeliveryContent(request: request, index: index, cancellation: cancellation, completion: completion)
    }

    var request: PreparedRequest { content.request }

    var isCancelled: Bool { content.cancellation?.isCancelled ?? false }
}
