import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// One endpoint of the gateway (APNs device, FCM send, OAuth token, IID, the control API, …):
/// a small type that supplies the steps it owns. The order of the steps is not the endpoint's
/// to choose: ``RequestPipeline`` runs them, the same for every endpoint —
///
///     route → parse → faults → authenticate → validate → state changes → lint → record → reply
///
/// A step answers by setting ``EndpointExchange/reply``; the steps after it are skipped, so a
/// rejected request never changes state and an injected fault (decided before
/// ``authenticate(_:in:)``) never consumes a token's send or reaches a device.
protocol GatewayEndpoint {
    associatedtype Exchange: EndpointExchange

    /// The service fault rules see the endpoint as; `nil` when no rule applies to it (the
    /// control API is the tester's own, and unrouted paths belong to no service).
    static var faultPlatform: Platform? { get }
    /// Whether recorded answers may be played back for it (`serve --playback`).
    static var supportsPlayback: Bool { get }

    /// Parse once: the request becomes the typed exchange every later step reads. Checks that
    /// the real service makes before authentication (malformed path or headers) may answer here.
    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> Exchange

    /// Answers with an injected error of this endpoint's dialect (the fault engine only hands an
    /// endpoint the error actions of its own platform).
    func answerInjected(_ action: FaultAction, _ exchange: inout Exchange, in context: PipelineContext)

    /// Establishes who is calling (provider token, certificate, access token, assertion).
    func authenticate(_ exchange: inout Exchange, in context: PipelineContext)

    /// The reply a recorded answer gives this request under `serve --playback` (the default:
    /// the recorded response as it was). An endpoint whose answers depend on the request's
    /// encoding, or that promise something for later (Expo's receipts), adapts it here.
    func playBack(_ answer: PlaybackBook.Answer, _ exchange: inout Exchange, in context: PipelineContext) -> HTTPReply

    /// The refusal of a request no recording matches (`--playback-unmatched reject`), in the
    /// service's error dialect.
    func refuseUnmatchedPlayback(_ exchange: inout Exchange) -> HTTPReply

    /// Checks the request against the service's rules and the registries, reading only.
    func validate(_ exchange: inout Exchange, in context: PipelineContext)

    /// The request's effect on gateway state (token lifecycle, issued tokens, subscriptions),
    /// and the success answer — or the failure a state transition turns up.
    func applyState(_ exchange: inout Exchange, in context: PipelineContext)

    /// Appends what reaches the simulated devices of an accepted exchange (into the batch's
    /// array: no array per request).
    func appendDeliveries(of exchange: Exchange, in context: PipelineContext, to deliveries: inout [DeliveryIntake.Delivery])

    /// Lint findings of an accepted exchange.
    func lint(_ exchange: Exchange, in context: PipelineContext) -> [LintNote]

    /// Fills in the record (with the namespace) and returns `true`; `false` for endpoints that
    /// are not recorded.
    ///
    /// `record` is a fresh record already in the batch, filled in place rather than returned:
    /// an `ExchangeRecord` is ≈ 600 bytes holding two dozen references, and the compiler
    /// copied a returned one (retaining every reference, then releasing the original) at each
    /// hand-off between the builder and the batch, ≈ 2 % of the gateway's samples.
    func record(_ exchange: Exchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord) -> Bool
}

extension GatewayEndpoint {
    static var supportsPlayback: Bool { false }

    func authenticate(_ exchange: inout Exchange, in context: PipelineContext) {}
    func playBack(_ answer: PlaybackBook.Answer, _ exchange: inout Exchange, in context: PipelineContext) -> HTTPReply {
        GatewayConnection.recordedReply(answer)
    }
    func refuseUnmatchedPlayback(_ exchange: inout Exchange) -> HTTPReply {
        .respond(GatewayConnection.unmatchedResponse(platform: Self.faultPlatform))
    }
    func validate(_ exchange: inout Exchange, in context: PipelineContext) {}
    func appendDeliveries(of exchange: Exchange, in context: PipelineContext, to deliveries: inout [DeliveryIntake.Delivery]) {}
    func lint(_ exchange: Exchange, in context: PipelineContext) -> [LintNote] { [] }
}

/// The typed request of one endpoint as it moves through the pipeline.
protocol EndpointExchange {
    /// The request as received.
    var request: HTTPRequestMessage { get }
    /// The answer, once a step has given one; `nil` while the request is still being handled.
    var reply: HTTPReply? { get set }
    /// Whether the service accepted the request (a 2xx it would deliver or act on).
    var isAccepted: Bool { get }
    /// What fault rules match on, read from the parsed request (nothing re-parsed).
    var faultFacts: FaultFacts { get }
    /// A reply that waits (long poll); the pipeline runs it off the event loop.
    var deferredReply: (@Sendable () async -> HTTPReply)? { get }
    /// The fault rules decided per recipient (``FaultAction/Scope/recipient``) that fired for
    /// some of the request's recipients, in the order they fired, once the state step has run.
    var recipientFaults: [FaultDecision] { get }
}

extension EndpointExchange {
    var deferredReply: (@Sendable () async -> HTTPReply)? { nil }
    var recipientFaults: [FaultDecision] { [] }

    /// Moves the reply out, leaving `nil` (a swap: nothing retained or released).
    mutating func takeReply() -> HTTPReply? {
        var taken: HTTPReply?
        swap(&taken, &reply)
        return taken
    }

    /// Whether a step has answered. Tested in place: `reply == nil` copied the reply (a
    /// multi-payload enum inside) through its value witnesses to compare it, four times per
    /// request (≈ 0.3 % of the gateway's samples).
    var isAnswered: Bool {
        switch reply {
        case .none: return false
        case .some: return true
        }
    }
}

/// What one batch of requests shares: the connection, the gateway's state and the batch's
/// time (read once per read cycle).
struct PipelineContext {
    let connection: GatewayConnectionContext
    let state: GatewayState
    /// The clock's reading for the requests of a batch: one read per batch, read again after
    /// a control request (which may have moved it).
    var now: Timestamp
    /// The record annotators in force for this batch (payload contracts), read once.
    var annotators: [any RecordAnnotator] = []
}

/// The facts of a parsed request that fault rules can match on.
struct FaultFacts {
    var token: String?
    /// Every recipient's token when a request has several (Expo); `nil`: just ``token``.
    var tokens: [String]?
    var topic: String?
    var project: String?
    var environment: String?
    /// The exchange's body, parsed at most once whoever asks first (only rules with a payload
    /// predicate ask); `nil` when the endpoint's body is not the one rules look into.
    var payload: PayloadView?

    init(
        token: String? = nil, tokens: [String]? = nil, topic: String? = nil, project: String? = nil, environment: String? = nil,
        payload: PayloadView? = nil
    ) {
        self.token = token
        self.tokens = tokens
        self.topic = topic
        self.project = project
        self.environment = environment
        self.payload = payload
    }
}
