@_spi(Locking) public import PushMockCore
public import PushMockJSON

/// What a bulk send came to: counts per outcome class, reasons, the tokens to delete, every
/// notification that was not accepted, retries and latency.
public struct DeliverySummary: Sendable, Hashable {
    /// One token to delete.
    public struct InvalidToken: Sendable, Hashable {
        public var token: String
        public var reason: String
        /// APNs's 410 `timestamp`, when given.
        public var timestamp: Timestamp?
        /// Position in the bulk send.
        public var index: Int?
    }

    /// Notifications decided (= results received).
    public var sent: Int
    public var accepted: Int
    public var rejected: Int
    /// Rejections per reason (`BadDeviceToken`: 3).
    public var rejectedByReason: [String: Int]
    /// Tokens reported no longer valid.
    public var invalidTokens: [InvalidToken]
    public var failed: Int
    /// Failures per last reason (`ServiceUnavailable`, `timeout`, …).
    public var failedByReason: [String: Int]
    /// Every result that was not accepted (rejected and failed; invalid tokens are in
    /// ``invalidTokens``), in completion order.
    public var problems: [SendResult]
    /// Requests sent, retries included.
    public var requests: Int
    /// Requests beyond the first of each notification.
    public var retries: Int
    /// Median round trip of the deciding attempts.
    public var latencyP50: Duration?
    /// 99th percentile round trip.
    public var latencyP99: Duration?
    /// From the first result recorder's creation to the summary.
    public var elapsed: Duration

    /// Notifications that were not accepted.
    public var notAccepted: Int { rejected + invalidTokens.count + failed }

    /// Results per second over ``elapsed``.
    public var ratePerSecond: Double {
        let seconds = elapsed.seconds
        return seconds > 0 ? Double(sent) / seconds : 0
    }

    /// The summary as JSON (the CLI's `--json`): counts, reasons, invalid tokens, problems.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["sent"] = JSONValue(sent)
        object["accepted"] = JSONValue(accepted)
        object["rejected"] = JSONValue(rejected)
        object["rejectedByReason"] = Self.counts(rejectedByReason)
        object["invalidTokenCount"] = JSONValue(invalidTokens.count)
        object["invalidTokens"] = .array(
            invalidTokens.map { token in
                var entry: JSONObject = ["token": .string(token.token), "reason": .string(token.reason)]
                if let timestamp = token.timestamp {
                    entry["timestamp"] = JSONValue(timestamp.millisecondsSince1970)
                    entry["timestampISO"] = .string(timestamp.description)
                }
                if let index = token.index { entry["index"] = JSONValue(index) }
                return .object(entry)
            }
        )
        object["failed"] = JSONValue(failed)
        object["failedByReason"] = Self.counts(failedByReason)
        object["problems"] = .array(
            problems.map { result in
                var entry: JSONObject = [
                    "recipient": .string(result.recipient),
                    "outcome": .string(result.outcome.kind.rawValue),
                    "reason": .string(result.outcome.reason ?? ""),
                    "attempts": JSONValue(result.attempts),
                ]
                switch result.outcome {
                case .rejected(let rejection):
                    entry["status"] = JSONValue(rejection.status)
                    if let message = rejection.message { entry["message"] = .string(message) }
                case .failed(let failure):
                    if let status = failure.status { entry["status"] = JSONValue(status) }
                    entry["error"] = .string(failure.error.description)
                default:
                    break
                }
                if let index = result.index { entry["index"] = JSONValue(index) }
                return .object(entry)
            }
        )
        object["requests"] = JSONValue(requests)
        object["retries"] = JSONValue(retries)
        var latency = JSONObject()
        latency["p50"] = latencyP50.map { JSONValue($0.seconds * 1000) } ?? .null
        latency["p99"] = latencyP99.map { JSONValue($0.seconds * 1000) } ?? .null
        object["latencyMs"] = .object(latency)
        object["elapsedSeconds"] = JSONValue(elapsed.seconds)
        object["ratePerSecond"] = JSONValue(ratePerSecond.rounded())
        return .object(object)
    }

    private static func counts(_ counts: [String: Int]) -> JSONValue {
        .object(JSONObject(counts.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue($0.value)) }))
    }
}

/// Collects ``SendResult``s from many threads into a ``DeliverySummary``; cheap enough to call
/// for every result of a bulk send.
public final class DeliveryTally: Sendable {
    /// Counts so far, for a progress display.
    public struct Progress: Sendable, Hashable {
        public var done: Int
        public var accepted: Int
        public var notAccepted: Int
        public var retries: Int

        public init(done: Int, accepted: Int, notAccepted: Int, retries: Int) {
            self.done = done
            self.accepted = accepted
            self.notAccepted = notAccepted
            self.retries = retries
        }
    }

    private struct State {
        var summary: DeliverySummary
        var latencies: [Int64] = []
    }

    private let state: SanitizerVisibleMutex<State>
    private let started: ContinuousClock.Instant
    /// Keep at most this many problem results in memory (the counts stay exact).
    private let problemLimit: Int

    /// - Parameter problemLimit: how many non-accepted results to keep in full. Default: all.
    public init(problemLimit: Int = .max) {
        self.problemLimit = problemLimit
        self.started = .now
        self.state = SanitizerVisibleMutex(
            State(
                summary: DeliverySummary(
                    sent: 0,
                    accepted: 0,
                    rejected: 0,
                    rejectedByReason: [:],
                    invalidTokens: [],
                    failed: 0,
                    failedByReason: [:],
                    problems: [],
                    requests: 0,
                    retries: 0,
                    latencyP50: nil,
                    latencyP99: nil,
                    elapsed: .zero
                )
            )
        )
    }

    /// Adds one result.
    public func record(_ result: SendResult) {
        let latency = Int64(result.latency.wholeNanoseconds)
        state.withLock { state in
            state.summary.sent += 1
            state.summary.requests += result.attempts
            state.summary.retries += result.retries
            if result.attempts > 0 { state.latencies.append(latency) }
            switch result.outcome {
            case .accepted:
                state.summary.accepted += 1
            case .rejected(let rejection):
                state.summary.rejected += 1
                state.summary.rejectedByReason[rejection.reason, default: 0] += 1
                if state.summary.problems.count < problemLimit { state.summary.problems.append(result) }
            case .tokenInvalid(let invalidation):
                state.summary.invalidTokens.append(
                    DeliverySummary.InvalidToken(
                        token: result.recipient,
                        reason: invalidation.reason,
                        timestamp: invalidation.timestamp,
                        index: result.index
                    )
                )
            case .failed(let failure):
                state.summary.failed += 1
                state.summary.failedByReason[failure.reason, default: 0] += 1
                if state.summary.problems.count < problemLimit { state.summary.problems.append(result) }
            }
        }
    }

    /// Counts so far.
    public var progress: Progress {
        state.withLock { state in
            Progress(
                done: state.summary.sent,
                accepted: state.summary.accepted,
                notAccepted: state.summary.notAccepted,
                retries: state.summary.retries
            )
        }
    }

    /// The summary of everything recorded so far, with percentiles and the elapsed time.
    public func summary() -> DeliverySummary {
        let elapsed = ContinuousClock.now - started
        var (summary, latencies) = state.withLock { ($0.summary, $0.latencies) }
        summary.elapsed = elapsed
        if !latencies.isEmpty {
            latencies.sort()
            summary.latencyP50 = .nanoseconds(Self.percentile(latencies, 0.50))
            summary.latencyP99 = .nanoseconds(Self.percentile(latencies, 0.99))
        }
        return summary
    }

    /// Nearest-rank percentile of sorted values.
    static func percentile(_ sorted: [Int64], _ fraction: Double) -> Int64 {
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
