import ArgumentParser
import Foundation
import PushMockControl
import PushMockCore

/// A time as people type it on the command line, resolved against the gateway's clock:
///
/// - `2026-11-21T10:02:00Z` (ISO 8601) or milliseconds since 1970;
/// - `now`, `+5m`, `-90s` (relative to the gateway's now);
/// - `10:02` or `10:02:30`: that time of the gateway's current day, in the local time zone
///   (`TZ`; CI machines usually run in UTC).
struct TimeArgument: Sendable, CustomStringConvertible {
    var text: String

    var description: String { text }

    func resolve(gatewayNow now: Timestamp, timeZone: TimeZone = .current) throws(TimeTextError) -> Timestamp {
        try TimeText.resolve(text, now: now, timeZone: timeZone, minimumMillisecondDigits: TimeText.millisecondDigitsForCommandLines)
    }

    /// Resolves against the gateway's clock (one request).
    func resolve(using client: PushMockControlClient) async throws -> Timestamp {
        let reading = try await client.call("GET", "clock").decode(ClockReading.self)
        return try resolve(gatewayNow: reading.timestamp)
    }
}

/// A duration argument (`90s`, `2m`, `1h30m`, a number of seconds).
struct DurationArgument: Sendable, CustomStringConvertible {
    var duration: Duration

    init?(argument: String) {
        guard let duration = DurationText.parse(argument) else { return nil }
        self.duration = duration
    }

    var seconds: Double { Double(duration.wholeMilliseconds) / 1000 }
    var description: String { DurationText.format(duration) }
}

/// A number of seconds from a flag (`--timeout 30`), checked before it becomes a `Duration`:
/// `--timeout 1e300` must be a usage error, not a crash converting it to milliseconds.
enum SecondsOption {
    /// Refuses `value` unless it is at most ``InputLimits/longestDurationSeconds`` (and a
    /// number: NaN is refused too). Each flag checks its own lower bound.
    static func checkUpperBound(_ value: Double, flag: String) throws(ValidationError) {
        guard value <= InputLimits.longestDurationSeconds else {
            throw ValidationError("\(flag) must be a number of seconds, \(InputLimits.durationRangeText).")
        }
    }
}
