@_spi(Locking) import PushMockCore

/// Where the sender gets randomness for backoff jitter. Inject a constant or a seeded source
/// to make retry timing deterministic in tests.
public struct JitterSource: Sendable {
    private let draw: @Sendable () -> Double

    /// A source that calls `draw` for each value; it must return a number in 0…1.
    public init(_ draw: @escaping @Sendable () -> Double) {
        self.draw = draw
    }

    /// The next value in 0…1.
    public func next() -> Double { draw() }

    /// The system's random number generator.
    public static let system = JitterSource { Double.random(in: 0...1) }

    /// Always `value` (0 = the shortest wait the jitter allows, 1 = the full backoff).
    public static func constant(_ value: Double) -> JitterSource {
        JitterSource { value }
    }

    /// A repeatable sequence from `seed`.
    public static func seeded(_ seed: UInt64) -> JitterSource {
        let generator = SanitizerVisibleMutex(FastRandom(seed: seed))
        return JitterSource {
            generator.withLock { Double($0.next() >> 11) / Double(1 << 53) }
        }
    }
}

/// How the sender waits between attempts. The default uses event-loop timers; tests inject
/// one that records the requested durations (and, for example, advances a `VirtualClock`) so
/// that retry timing is checked without waiting.
public struct RetrySleep: Sendable {
    private let body: (@Sendable (Duration) async throws -> Void)?

    /// A sleep that runs `body` (in a task); throwing (e.g. on cancellation) ends the wait
    /// early.
    public init(_ body: @escaping @Sendable (Duration) async throws -> Void) {
        self.body = body
    }

    private init() {
        self.body = nil
    }

    /// Waits `duration`.
    public func callAsFunction(_ duration: Duration) async throws {
        if let body {
            try await body(duration)
        } else {
            try await Task.sleep(for: duration)
        }
    }

    /// Real time: a timer on the sender's event loops (no task per retry).
    public static let system = RetrySleep()

    /// Whether this is ``system``.
    var isSystem: Bool { body == nil }
}
