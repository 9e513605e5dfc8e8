import Foundation
import PushMockCore

/// `/_pushmock/clock…`: the gateway's clock. Everything time-based reads it: JWT and access
/// token age, token lifecycles, expirations and TTLs, fault windows and rates.
///
/// | Method | Path | Body |
/// |---|---|---|
/// | GET | /clock | |
/// | POST | /clock/freeze | optional `{"at": time}` |
/// | POST | /clock/resume | |
/// | POST | /clock/set | `{"to": time}` (ISO 8601 or ms) |
/// | POST | /clock/advance | `{"by": "90s"}` (duration text, or a number of seconds) |
/// | POST | /clock/reset | back to real time, running |
extension ControlAPI {
    func clockRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        if request.matches("GET", "clock") {
            return try Self.encoded(ClockReading(clock: state.clock))
        }
        guard request.method == "POST", request.segments.count == 2 else { return nil }
        guard let clock = state.virtualClock else {
            throw ControlAPIError(409, "this gateway runs on an injected clock that cannot be changed")
        }
        let change = request.body.isEmpty ? ClockChange() : try JSONDecoder().decode(ClockChange.self, from: Data(request.body))
        switch request.segments[1] {
        case "freeze":
            clock.freeze()
            if let at = change.at ?? change.to { clock.set(to: at.timestamp) }
        case "resume":
            clock.resume()
        case "set":
            guard let to = change.to ?? change.at else { throw ControlAPIError(400, "give the time: {\"to\": \"2026-11-21T10:00:00Z\"}") }
            clock.set(to: to.timestamp)
        case "advance":
            guard let by = change.by else { throw ControlAPIError(400, "give the duration: {\"by\": \"90s\"}") }
            clock.advance(by: by.duration)
        case "reset":
            clock.reset()
        default:
            return nil
        }
        return try Self.encoded(ClockReading(clock: state.clock))
    }
}

/// The body of a clock change.
struct ClockChange: Decodable {
    var to: FlexibleTimestamp?
    var at: FlexibleTimestamp?
    var by: FlexibleDuration?
}

/// A duration given as text (`90s`, `1h30m`, `-5m`) or as a number of seconds.
package struct FlexibleDuration: Codable, Sendable, Hashable {
    package var duration: Duration

    package init(_ duration: Duration) { self.duration = duration }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self) {
            duration = .milliseconds(Int64((seconds * 1000).rounded()))
            return
        }
        let text = try container.decode(String.self)
        guard let parsed = DurationText.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a duration such as 90s, 2m, 1h30m or a number of seconds")
        }
        duration = parsed
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(DurationText.format(duration))
    }
}
