import Foundation
import PushMockCore
import PushMockJSON
import PushMockSimulation

/// `/_pushmock/engagement…`: the behaviour model and every engagement on every device, linked to
/// the recordings by sequence number (`docs/engagement.md`).
///
/// | Method | Path | |
/// |---|---|---|
/// | GET | /engagement/model | the model, or 404 when none is set |
/// | PUT | /engagement/model | set it: `{"seed": 42, "rules": [{"category": "DOSE", "open": 0.6, "actions": [{"id": "TAKEN", "probability": 0.3}], "delay": {"min": 5, "max": 120}}]}` |
/// | DELETE | /engagement/model | remove it (only commands engage) |
/// | GET | /engagement/events | every displayed/opened/dismissed/action event; `sequence`, `event`, `service`, `action` filters |
extension ControlAPI {
    func engagementRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let simulator = state.simulatedDevices
        if request.matches("GET", "engagement", "model") {
            guard let model = simulator.engagementModel else {
                throw ControlAPIError(404, "no behaviour model: PUT /_pushmock/engagement/model sets one")
            }
            return try Self.encoded(model)
        }
        if request.matches("PUT", "engagement", "model") {
            guard !request.body.isEmpty else { throw ControlAPIError(400, "a JSON body is required: the behaviour model") }
            let model = try JSONDecoder().decode(EngagementModel.self, from: Data(request.body))
            let problems = model.problems
            guard problems.isEmpty else { throw ControlAPIError(400, problems.joined(separator: "; ")) }
            try RegistryFull.check(
                count: 0, adding: model.rules.count, limit: state.registryLimits.engagementRules, registry: .engagementRules)
            simulator.engagementModel = model
            return try Self.encoded(model)
        }
        if request.matches("DELETE", "engagement", "model") {
            let had = simulator.engagementModel != nil
            simulator.engagementModel = nil
            return Self.json(status: 200, ["removed": JSONValue(had)])
        }
        if request.matches("GET", "engagement", "events") {
            let sequence = try request.query["sequence"].map { text -> UInt64 in
                guard let value = UInt64(text) else { throw ControlAPIError(400, "sequence must be a whole number") }
                return value
            }
            let service = try request.query["service"].map(Self.service)
            let kinds = Set(["displayed", "opened", "dismissed", "action"])
            let kind = request.query["event"]
            if let kind, !kinds.contains(kind) {
                throw ControlAPIError(400, "event must be displayed, opened, dismissed or action")
            }
            let action = request.query["action"]
            var events: [EngagementEventReport] = []
            for device in simulator.devices(now: state.clock.now()) where service == nil || device.address.service == service {
                for event in device.timeline where kinds.contains(event.kind.rawValue) {
                    guard kind == nil || event.kind.rawValue == kind, sequence == nil || event.sequence == sequence,
                        action == nil || event.actionID == action
                    else { continue }
                    events.append(EngagementEventReport(device.address, event))
                }
            }
            events.sort { ($0.at, $0.service.rawValue, $0.token) < ($1.at, $1.service.rawValue, $1.token) }
            return try Self.encoded(events, key: "events")
        }
        return nil
    }
}

/// One engagement, with the device it happened on and the recording it answers.
struct EngagementEventReport: Encodable {
    var at: String
    var service: PushService
    var token: String
    /// `displayed`, `opened`, `dismissed` or `action`.
    var event: String
    var id: String?
    /// The recording's sequence number of the push.
    var sequence: UInt64?
    var action: String?
    /// `by command`, or `behaviour model (seed N)`.
    var reason: String?

    init(_ address: DeviceAddress, _ event: DeviceTimelineEvent) {
        self.at = event.at.description
        self.service = address.service
        self.token = address.token
        self.event = event.kind.rawValue
        self.id = event.notificationID
        self.sequence = event.sequence
        self.action = event.actionID
        self.reason = event.reason
    }
}
