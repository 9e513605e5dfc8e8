/// A point in wall-clock time with millisecond resolution, as APNs and FCM count it
/// (JWT `iat` in seconds, the 410 `timestamp` in milliseconds, `apns-expiration` in seconds).
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public init(secondsSince1970: Int64) {
        self.millisecondsSince1970 = secondsSince1970 * 1000
    }

    /// Whole seconds since the epoch (rounded down).
    public var secondsSince1970: Int64 {
        millisecondsSince1970 >= 0 ? millisecondsSince1970 / 1000 : (millisecondsSince1970 - 999) / 1000
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    public static func + (lhs: Self, rhs: Duration) -> Self {
        Timestamp(millisecondsSince1970: lhs.millisecondsSince1970 + rhs.wholeMilliseconds)
    }

    public static func - (lhs: Self, rhs: Duration) -> Self {
        Timestamp(millisecondsSince1970: lhs.millisecondsSince1970 - rhs.wholeMilliseconds)
    }

    public static func - (lhs: Self, rhs: Self) -> Duration {
        .milliseconds(lhs.millisecondsSince1970 - rhs.millisecondsSince1970)
    }

    public var description: String { ISO8601Milliseconds.format(millisecondsSince1970) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.millisecondsSince1970 = try container.decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(millisecondsSince1970)
    }
}

extension Duration {
    /// The duration in whole milliseconds (rounded towards zero); `Int64.max` or `.min` for a
    /// duration beyond what milliseconds in `Int64` can hold (about 292 million years).
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds > 0 ? .max : .min }
        let (total, sumOverflow) = milliseconds.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return sumOverflow ? (milliseconds > 0 ? .max : .min) : total
    }
}

/// The source of "now" for everything time-based in the gateway: JWT age, token lifecycle,
/// expirations, rate windows. Inject a ``VirtualClock`` to freeze, set or advance time in tests
/// and through the control API.
public protocol PushMockClock: Sendable {
    /// The current wall-clock time.
    func now() -> Timestamp
}

/// Real time from the operating system.
public struct SystemClock: PushMockClock {
    public init() {}

    public func now() -> Timestamp {
        Timestamp(millisecondsSince1970: SystemClock.currentMilliseconds())
    }

    /// Milliseconds since the epoch from `clock_gettime(CLOCK_REALTIME)`.
    public static func currentMilliseconds() -> Int64 {
        RealtimeClock.milliseconds()
    }
}

/// A clock that can be frozen, set and advanced. While running it moves with real time from
/// wherever it was set.
///
/// Every reading lies in ``InputLimits/timestampMilliseconds`` (years 1–9999, what ISO 8601 can
/// spell and the journal can read back): a running clock set just before the end stands at
/// 9999-12-31T23:59:59.999Z once it gets there, instead of running into year 10000, and moving
/// it back from there moves it back from the end. Times and moves beyond the range given in
/// Swift are taken as the nearest end (the control API refuses them with a 400).
public final class VirtualClock: PushMockClock {
    private struct State {
        /// Offset added to real time while running.
        var offsetMilliseconds: Int64
        /// The frozen time, if frozen.
        var frozenAt: Int64?

        /// The reading at real time `real`; a running clock past the end of the range is
        /// pinned there (its offset taken back), so that it stands at the end.
        mutating func reading(real: Int64) -> Int64 {
            if let frozenAt { return frozenAt }
            let (running, overflow) = real.addingReportingOverflow(offsetMilliseconds)
            let reading = VirtualClock.clamped(overflow ? (offsetMilliseconds > 0 ? .max : .min) : running)
            if reading != running || overflow { offsetMilliseconds = reading - real }
            return reading
        }
    }

    private let state: SanitizerVisibleMutex<State>

    /// A clock that starts at real time and runs.
    public init() {
        self.state = SanitizerVisibleMutex(State(offsetMilliseconds: 0, frozenAt: nil))
    }

    /// A clock frozen at `time`.
    public init(frozenAt time: Timestamp) {
        self.state = SanitizerVisibleMutex(State(offsetMilliseconds: 0, frozenAt: Self.clamped(time.millisecondsSince1970)))
    }

    /// `milliseconds` moved into ``InputLimits/timestampMilliseconds``.
    static func clamped(_ milliseconds: Int64) -> Int64 {
        min(max(milliseconds, InputLimits.timestampMilliseconds.lowerBound), InputLimits.timestampMilliseconds.upperBound)
    }

    public func now() -> Timestamp {
        let real = RealtimeClock.milliseconds()
        return state.withLock { state in Timestamp(millisecondsSince1970: state.reading(real: real)) }
    }

    /// Whether the clock is frozen.
    public var isFrozen: Bool { state.withLock { $0.frozenAt != nil } }

    /// How far the clock is from real time (positive: ahead), in milliseconds.
    public var offsetMilliseconds: Int64 {
        let real = RealtimeClock.milliseconds()
        return state.withLock { state in state.reading(real: real) - real }
    }

    /// Stops time at the current instant (a frozen clock stays where it is).
    public func freeze() {
        freeze(at: nil)
    }

    /// Stops time at `time` in one step, or at the current instant when `time` is `nil`.
    /// "Start at X, frozen" is this call: setting a running clock and then freezing it stands
    /// at X plus the time between the two calls.
    public func freeze(at time: Timestamp?) {
        let real = RealtimeClock.milliseconds()
        state.withLock { state in
            if let time {
                state.frozenAt = Self.clamped(time.millisecondsSince1970)
            } else if state.frozenAt == nil {
                state.frozenAt = state.reading(real: real)
            }
        }
    }

    /// Lets time run again from the frozen instant.
    public func resume() {
        let real = RealtimeClock.milliseconds()
        state.withLock { state in
            if let frozen = state.frozenAt {
                state.offsetMilliseconds = frozen - real
                state.frozenAt = nil
            }
        }
    }

    /// Sets the current time; a frozen clock stays frozen, a running one runs on from there.
    public func set(to time: Timestamp) {
        let real = RealtimeClock.milliseconds()
        let target = Self.clamped(time.millisecondsSince1970)
        state.withLock { state in
            if state.frozenAt != nil {
                state.frozenAt = target
            } else {
                state.offsetMilliseconds = target - real
            }
        }
    }

    /// Moves time forward (or back, with a negative duration), from the current reading.
    public func advance(by duration: Duration) {
        let real = RealtimeClock.milliseconds()
        let delta = duration.wholeMilliseconds
        state.withLock { state in
            let from = state.reading(real: real)
            let (moved, overflow) = from.addingReportingOverflow(delta)
            let target = Self.clamped(overflow ? (delta > 0 ? .max : .min) : moved)
            if state.frozenAt != nil {
                state.frozenAt = target
            } else {
                state.offsetMilliseconds = target - real
            }
        }
    }

    /// Moves time forward by `duration` only if `accepts` takes the time it would reach, read
    /// and moved under one lock: two requests that check the target and then advance could
    /// both pass a range check the second one's target fails. Returns whether it moved.
    package func advance(by duration: Duration, onlyIf accepts: (Timestamp) -> Bool) -> Bool {
        let real = RealtimeClock.milliseconds()
        let delta = duration.wholeMilliseconds
        return state.withLock { state in
            let from = state.reading(real: real)
            let (moved, overflow) = from.addingReportingOverflow(delta)
            guard !overflow, accepts(Timestamp(millisecondsSince1970: moved)) else { return false }
            let target = Self.clamped(moved)
            if state.frozenAt != nil {
                state.frozenAt = target
            } else {
                state.offsetMilliseconds = target - real
            }
            return true
        }
    }

    /// Returns to real time, running.
    public func reset() {
        state.withLock { state in
            state.offsetMilliseconds = 0
            state.frozenAt = nil
        }
    }
}

/// What a gateway's clock says: `GET /_pushmock/clock` and the answer of every clock change.
public struct ClockReading: Codable, Sendable, Hashable {
    /// The gateway's time, ISO 8601 with milliseconds.
    public var now: String
    public var nowMilliseconds: Int64
    public var frozen: Bool
    /// How far the clock is from real time (positive: ahead).
    public var offsetMilliseconds: Int64
    /// Whether the clock can be changed (false when an embedding app injected its own clock).
    public var controllable: Bool

    public init(clock: any PushMockClock) {
        let now = clock.now()
        let virtual = clock as? VirtualClock
        self.now = now.description
        self.nowMilliseconds = now.millisecondsSince1970
        self.frozen = virtual?.isFrozen ?? false
        self.offsetMilliseconds = virtual?.offsetMilliseconds ?? 0
        self.controllable = virtual != nil
    }

    /// The reading's instant.
    public var timestamp: Timestamp { Timestamp(millisecondsSince1970: nowMilliseconds) }
}
