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

    func resolve(gatewayNow now: Timestamp, timeZone: TimeZone = .current) throws(TimeArgumentError) -> Timestamp {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "now" { return now }
        if let milliseconds = ISO8601Milliseconds.parse(trimmed) {
            return Timestamp(millisecondsSince1970: milliseconds)
        }
        if trimmed.hasPrefix("+") || trimmed.hasPrefix("-"), let offset = DurationText.parse(trimmed) {
            return now + offset
        }
        if let milliseconds = Int64(trimmed), trimmed.count >= 10 {
            return Timestamp(millisecondsSince1970: milliseconds)
        }
        let parts = trimmed.split(separator: ":").map { Int($0) }
        if (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) {
            let hour = parts[0]!
            let minute = parts[1]!
            let second = parts.count == 3 ? parts[2]! : 0
            guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else {
                throw TimeArgumentError("\(text) is not a time of day")
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let day = Date(timeIntervalSince1970: Double(now.millisecondsSince1970) / 1000)
            var components = calendar.dateComponents([.year, .month, .day], from: day)
            components.hour = hour
            components.minute = minute
            components.second = second
            guard let date = calendar.date(from: components) else { throw TimeArgumentError("\(text) is not a time of day") }
            return Timestamp(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        throw TimeArgumentError("\(text) is not a time: use 2026-11-21T10:02:00Z, 10:02, now, +5m or -90s")
    }

    /// Resolves against the gateway's clock (one request).
    func resolve(using client: PushMockControlClient) async throws -> Timestamp {
        let reading = try await client.call("GET", "clock").decode(ClockReading.self)
        return try resolve(gatewayNow: reading.timestamp)
    }
}

struct TimeArgumentError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
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
