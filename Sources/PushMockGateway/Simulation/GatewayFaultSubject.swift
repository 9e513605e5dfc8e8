import PushMockCore
import PushMockJSON
import PushMockSimulation

/// A request as fault rules see it: the facts its endpoint parsed, plus the body as JSON,
/// parsed only if a rule looks inside it (and only when the endpoint had not parsed it).
final class GatewayFaultSubject: FaultSubject {
    let request: HTTPRequestMessage
    let platform: Platform
    let facts: FaultFacts
    let connectionID: UInt64

    init(request: HTTPRequestMessage, platform: Platform, facts: FaultFacts, connectionID: UInt64) {
        self.request = request
        self.platform = platform
        self.facts = facts
        self.connectionID = connectionID
    }

    var path: String { String(request.pathWithoutQuery) }
    var environment: String? { facts.environment }
    var token: String? { facts.token }
    var tokens: [String] { facts.tokens ?? facts.token.map { [$0] } ?? [] }
    var topic: String? { facts.topic }
    var project: String? { facts.project }

    func headerValues(named name: String) -> [String] {
        request.headers.values(named: name)
    }

    private(set) lazy var payload: JSONValue? = (facts.payload ?? PayloadView(bytes: request.body)).json
}

/// One recipient of a request as the rules decided per recipient see it
/// (``FaultAction/Scope/recipient``: Expo's error tickets and receipts): the request's path,
/// headers and project; the recipient's own token; and, when the body is an array of
/// messages, the recipient's message as the payload rule predicates read.
struct RecipientFaultSubject: FaultSubject {
    let request: GatewayFaultSubject
    let token: String?
    /// Where the recipient's message is in an array body (a body that is not an array is the
    /// message itself); `nil`: the payload is the whole body.
    let messageIndex: Int?

    var platform: Platform { request.platform }
    var path: String { request.path }
    var environment: String? { request.environment }
    var topic: String? { request.topic }
    var project: String? { request.project }
    var connectionID: UInt64 { request.connectionID }
    var tokens: [String] { token.map { [$0] } ?? [] }

    var payload: JSONValue? {
        guard let body = request.payload else { return nil }
        guard let messageIndex, case .array(let messages) = body else { return body }
        return messages.indices.contains(messageIndex) ? messages[messageIndex] : nil
    }

    func headerValues(named name: String) -> [String] {
        request.headerValues(named: name)
    }
}

/// Decides the rules per recipient for one request: the request's subject is built once
/// (its body parsed at most once, for every recipient), and nothing is done when no rule is
/// loaded.
struct RecipientFaults {
    private let engine: FaultEngine
    private let request: GatewayFaultSubject?
    private let now: Timestamp
    /// The rules that fired, in order.
    private(set) var fired: [FaultDecision] = []

    init(_ request: HTTPRequestMessage, platform: Platform, facts: @autoclosure () -> FaultFacts, in context: PipelineContext) {
        engine = context.state.faults
        now = context.now
        self.request =
            engine.isActive
            ? GatewayFaultSubject(request: request, platform: platform, facts: facts(), connectionID: context.connection.id) : nil
    }

    /// The rule that fires for the recipient `token` (whose message is element `messageIndex`
    /// of an array body; `nil`: rules read the whole body), if any.
    mutating func decide(token: String, messageIndex: Int?) -> FaultDecision? {
        guard let request else { return nil }
        let subject = RecipientFaultSubject(request: request, token: token, messageIndex: messageIndex)
        guard let decision = engine.evaluate(subject, now: now, scope: .recipient) else { return nil }
        fired.append(decision)
        return decision
    }

    /// Whether any rule is loaded: without one, the caller skips looking up what rules match on.
    var isActive: Bool { request != nil }

    /// The longest delay a fired rule drew (its `latency`): the answer waits for the slowest.
    var delay: Duration? { fired.compactMap(\.delay).max() }
}
