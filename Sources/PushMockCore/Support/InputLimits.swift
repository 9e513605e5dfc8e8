/// The ranges every number a tester types (control API bodies and queries, the configuration
/// file, the CLI) must fall in. They are far beyond any useful test yet small enough that no
/// arithmetic on them can overflow: a time plus a duration stays well inside `Int64`
/// milliseconds, and a delay stays inside NIO's `Int64` nanoseconds. Outside them the gateway
/// answers 400 (or refuses the file) instead of trapping. Documented in docs/control-api.md.
public enum InputLimits {
    /// The longest duration anywhere (clock advance, fault windows, rate windows, lifetimes):
    /// 10,000 years of 365.25 days, in seconds.
    public static let longestDurationSeconds: Double = 315_576_000_000

    /// The longest injected delay (fault latency, slow-network): one hour, in milliseconds. A
    /// delay holds a stream open, so it is bounded much tighter than other durations (and no
    /// longer than the default idle timeout of a connection).
    public static let longestDelayMilliseconds: Double = 3_600_000

    /// Times the gateway can be set to or compared with: 0001-01-01T00:00:00Z through
    /// 9999-12-31T23:59:59.999Z (what ISO 8601 with four-digit years can spell), in milliseconds.
    public static let timestampMilliseconds: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// `seconds` as a duration with millisecond precision, or `nil` when it is not finite or
    /// longer than ``longestDurationSeconds`` either way.
    public static func duration(seconds: Double) -> Duration? {
        guard seconds.isFinite, abs(seconds) <= longestDurationSeconds else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Whether a whole number of seconds is a usable duration (0 … ``longestDurationSeconds``).
    public static func isDurationSeconds(_ seconds: Int) -> Bool {
        seconds >= 0 && Double(seconds) <= longestDurationSeconds
    }

    /// Whether `seconds` (a window, a rate period, a start offset) lies in 0 … the longest duration.
    public static func isWindowSeconds(_ seconds: Double) -> Bool {
        seconds.isFinite && seconds >= 0 && seconds <= longestDurationSeconds
    }

    /// Whether `milliseconds` is a usable delay (0 … ``longestDelayMilliseconds``).
    public static func isDelayMilliseconds(_ milliseconds: Double) -> Bool {
        milliseconds.isFinite && milliseconds >= 0 && milliseconds <= longestDelayMilliseconds
    }

    /// Whether `timestamp` lies in ``timestampMilliseconds``.
    public static func contains(_ timestamp: Timestamp) -> Bool {
        timestampMilliseconds.contains(timestamp.millisecondsSince1970)
    }

    /// The words used in errors.
    public static let durationRangeText = "at most 10000 years"
    public static let delayRangeText = "0 to 3600000 ms (one hour)"
    public static let timestampRangeText = "between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z"
}
