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
///
/// Times must lie in ``InputLimits/timestampMilliseconds`` (years 1–9999), before and after an
/// advance; anything else is a 400.
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
            clock.freeze(at: (change.at ?? change.to)?.timestamp)
        case "resume":
            clock.resume()
        case "set":
            guard let to = change.to ?? change.at else { throw ControlAPIError(400, "give the time: {\"to\": \"2026-11-21T10:00:00Z\"}") }
            clock.set(to: to.timestamp)
        case "advance":
            guard let by = change.by else { throw ControlAPIError(400, "give the duration: {\"by\": \"90s\"}") }
            // The result must stay a time the gateway can spell, or every later JWT check would
            // compute with it; checked and moved at once, as two advances may race.
            guard clock.advance(by: by.duration, onlyIf: InputLimits.contains) else {
                throw ControlAPIError(
                    400,
                    "advancing by \(DurationText.format(by.duration)) would leave the supported range: times are \(InputLimits.timestampRangeText)"
                )
            }
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
