import Foundation
import PushMockCore
import PushMockJSON
import PushMockSimulation

/// `/_pushmock/faults…`: rules and presets.
extension ControlAPI {
    func faultRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let segments = request.segments
        let body = request.body
        if request.matches("GET", "faults") {
            return try Self.encoded(state.faults.rules.map { FaultRuleStatus(rule: $0.rule, matches: $0.matches, fired: $0.fired) })
        }
        if request.matches("POST", "faults") {
            let rules: [FaultRule] = try Self.decodeOneOrMany(body)
            let now = state.clock.now()
            var added: [FaultRule] = []
            for rule in rules {
                do {
                    added.append(try state.faults.add(rule, now: now))
                } catch {
                    if let full = error.full { throw full }
                    throw ControlAPIError(400, "fault rule: \(error)")
                }
            }
            return try Self.encoded(added, status: 201)
        }
        if request.matches("DELETE", "faults") {
            let count = state.faults.rules.count
            state.faults.removeAll()
            return Self.json(status: 200, ["removed": JSONValue(count)])
        }
        if request.matches("GET", "faults", "presets") {
            return try Self.encoded(Dictionary(uniqueKeysWithValues: FaultPreset.allCases.map { ($0.rawValue, $0.summary) }))
        }
        if request.matches("POST", "faults", "presets", "*") {
            guard let preset = FaultPreset(rawValue: segments[2]) else {
                throw ControlAPIError(404, "no preset \(segments[2]); try \(FaultPreset.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let parameters =
                body.isEmpty ? FaultPreset.Parameters() : try JSONDecoder().decode(FaultPreset.Parameters.self, from: Data(body))
            let now = state.clock.now()
            var added: [FaultRule] = []
            do {
                for rule in try preset.rules(parameters) {
                    added.append(try state.faults.add(rule, now: now))
                }
            } catch {
                if let full = error.full { throw full }
                throw ControlAPIError(400, "preset \(preset.rawValue): \(error)")
            }
            return try Self.encoded(added, status: 201)
        }
        if request.matches("DELETE", "faults", "*") {
            guard state.faults.remove(id: segments[1]) else { throw ControlAPIError(404, "no fault rule \(segments[1])") }
            return Self.json(status: 200, ["removed": JSONValue(segments[1])])
        }
        return nil
    }
}

/// A rule with its counters, as `GET /_pushmock/faults` lists it.
struct FaultRuleStatus: Encodable {
    var rule: FaultRule
    var matches: Int
    var fired: Int
}
