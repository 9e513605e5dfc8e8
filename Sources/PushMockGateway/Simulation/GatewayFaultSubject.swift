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
    var topic: String? { facts.topic }
    var project: String? { facts.project }

    func headerValues(named name: String) -> [String] {
        request.headers.values(named: name)
    }

    private(set) lazy var payload: JSONValue? = (facts.payload ?? PayloadView(bytes: request.body)).json
}
