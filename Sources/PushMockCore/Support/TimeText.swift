public import Foundation

/// Points in time as people type them, resolved against a clock's now (the gateway's, which may
/// be virtual), shared by the CLI's time flags and the query language's `since`/`until`:
///
/// - `2026-11-21T10:02:00Z` (ISO 8601) or milliseconds since 1970;
/// - `now`, `+5m`, `-90s`, `-1h30m`: now, moved by a duration (``DurationText``);
/// - `10:02`, `10:02:30`: that time of now's day in `timeZone` (CI machines usually run in UTC).
public enum TimeText {
    /// How many digits a bare number needs to be read as milliseconds since 1970.
    ///
    /// The CLI asks for ten (`--at 600` is more likely a mistake than 600 ms after 1970); the
    /// query language always took any number, and still does.
    public static let millisecondDigitsForCommandLines = 10

    /// The time `text` names, or an error saying which forms are understood. Times outside
    /// years 1–9999 (``InputLimits/timestampMilliseconds``, what the JSON forms take) are
    /// refused: `since=-9223372036854775808` must not reach code that formats or adds to it.
    public static func resolve(
        _ text: String,
        now: Timestamp,
        timeZone: TimeZone = .current,
        minimumMillisecondDigits: Int = 1
    ) throws(TimeTextError) -> Timestamp {
        let time = try resolveAnyTime(text, now: now, timeZone: timeZone, minimumMillisecondDigits: minimumMillisecondDigits)
        guard InputLimits.contains(time) else {
            throw TimeTextError("\(text) is out of range: a time must be \(InputLimits.timestampRangeText)", kind: .outOfRange)
        }
        return time
    }

    private static func resolveAnyTime(
        _ text: String,
        now: Timestamp,
        timeZone: TimeZone,
        minimumMillisecondDigits: Int
    ) throws(TimeTextError) -> Timestamp {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "now" { return now }
        if let milliseconds = ISO8601Milliseconds.parse(trimmed) {
            return Timestamp(millisecondsSince1970: milliseconds)
        }
        // A bare number long enough is milliseconds even with a sign (the query language always
        // read `since=-5` so); shorter signed numbers are seconds from now (`-90`).
        if let milliseconds = Int64(trimmed), trimmed.count >= minimumMillisecondDigits {
            return Timestamp(millisecondsSince1970: milliseconds)
        }
        if let sign = trimmed.first, sign == "+" || sign == "-", let offset = DurationText.parse(trimmed) {
            return now + offset
        }
        if let time = try timeOfDay(trimmed, original: text) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let day = Date(timeIntervalSince1970: Double(now.millisecondsSince1970) / 1000)
            var components = calendar.dateComponents([.year, .month, .day], from: day)
            components.hour = time.hour
            components.minute = time.minute
            components.second = time.second
            guard let date = calendar.date(from: components) else { throw TimeTextError("\(text) is not a time of day") }
            return Timestamp(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        throw TimeTextError("\(text) is not a time: use 2026-11-21T10:02:00Z, milliseconds, 10:02, now, +5m or -90s")
    }

    /// Whether resolving `text` reads the clock (so a caller can skip asking a remote one).
    public static func needsClock(_ text: String, minimumMillisecondDigits: Int = 1) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if ISO8601Milliseconds.parse(trimmed) != nil { return false }
        if Int64(trimmed) != nil, trimmed.count >= minimumMillisecondDigits { return false }
        return true
    }

    /// `HH:MM` or `HH:MM:SS`; `nil` when `text` has another shape, an error when its parts are
    /// out of range.
    private static func timeOfDay(_ text: String, original: String) throws(TimeTextError) -> (hour: Int, minute: Int, second: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count),
            parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        let numbers = parts.map { Int($0)! }
        let (hour, minute, second) = (numbers[0], numbers[1], numbers.count == 3 ? numbers[2] : 0)
        guard (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else {
            throw TimeTextError("\(original) is not a time of day")
        }
        return (hour, minute, second)
    }
}

/// A time that ``TimeText`` does not understand, or one out of range; the description says
/// what would be understood.
public struct TimeTextError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Why the text was refused.
    public enum Kind: Sendable, Equatable {
        /// Not in any of the forms ``TimeText`` reads (or not a time of day).
        case unreadable
        /// A time, but outside ``InputLimits/timestampMilliseconds``.
        case outOfRange
    }

    public var description: String
    public var kind: Kind

    public init(_ description: String, kind: Kind = .unreadable) {
        self.description = description
        self.kind = kind
    }
}
