import Foundation

/// When and how long to wait before sending a notification again.
///
/// Retried: the HTTP statuses in ``retryableStatuses`` (429, 500 and 503 by default — APNs's
/// `TooManyRequests`, `InternalServerError`, `ServiceUnavailable`/`Shutdown`, FCM's
/// `QUOTA_EXCEEDED`, `INTERNAL`, `UNAVAILABLE`), connection faults (GOAWAY, RST_STREAM, a
/// connection that closed or could not be opened) and timeouts. Never retried: every other
/// answer (`BadDeviceToken`, `PayloadTooLarge`, `INVALID_ARGUMENT`, 410 …), which is final.
///
/// The wait before attempt *n + 1* is `initialBackoff × multiplier^(n − 1)`, capped at
/// ``maximumBackoff``, then scaled by a random factor in `[1 − jitter, 1]` ("equal jitter";
/// ``jitter`` 0 means none, 1 means anywhere between zero and the full backoff). A
/// `Retry-After` header on the answer replaces the computed wait when ``honorsRetryAfter``;
/// one longer than ``maximumRetryAfter`` ends the retries (the delivery fails at once rather
/// than holding a bulk send for hours).
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, the first included (1 = never retry). Default 5.
    public var maximumAttempts: Int
    /// Wait before the second attempt. Default 500 ms.
    public var initialBackoff: Duration
    /// Growth factor per attempt. Default 2.
    public var multiplier: Double
    /// Upper bound of a computed wait. Default 30 s.
    public var maximumBackoff: Duration
    /// Fraction of the wait that is random, 0…1. Default 0.5.
    public var jitter: Double
    /// Statuses that are retried. Default 429, 500, 503.
    public var retryableStatuses: Set<Int>
    /// Retry after GOAWAY, RST_STREAM, a closed connection or a failed connect. Default true.
    public var retriesConnectionFaults: Bool
    /// Retry after the request timeout (the request may have been delivered). Default true.
    public var retriesTimeouts: Bool
    /// Wait what `Retry-After` says when the answer has one. Default true.
    public var honorsRetryAfter: Bool
    /// The longest `Retry-After` that is waited for; longer ones fail the delivery. Default 120 s.
    public var maximumRetryAfter: Duration

    public init(
        maximumAttempts: Int = 5,
        initialBackoff: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maximumBackoff: Duration = .seconds(30),
        jitter: Double = 0.5,
        retryableStatuses: Set<Int> = [429, 500, 503],
        retriesConnectionFaults: Bool = true,
        retriesTimeouts: Bool = true,
        honorsRetryAfter: Bool = true,
        maximumRetryAfter: Duration = .seconds(120)
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.multiplier = multiplier
        self.maximumBackoff = maximumBackoff
        self.jitter = jitter
        self.retryableStatuses = retryableStatuses
        self.retriesConnectionFaults = retriesConnectionFaults
        self.retriesTimeouts = retriesTimeouts
        self.honorsRetryAfter = honorsRetryAfter
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// The defaults above.
    public static let `default` = RetryPolicy()

    /// One attempt, no retries.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// Checks the values.
    public func validate() throws(SenderError) {
        guard maximumAttempts >= 1 else {
            throw SenderError(.invalidConfiguration, "retry maximumAttempts must be at least 1 (was \(maximumAttempts))")
        }
        guard initialBackoff >= .zero, maximumBackoff >= .zero, maximumRetryAfter >= .zero else {
            throw SenderError(.invalidConfiguration, "retry durations must not be negative")
        }
        guard multiplier >= 1 else {
            throw SenderError(.invalidConfiguration, "retry multiplier must be at least 1 (was \(multiplier))")
        }
        guard (0...1).contains(jitter) else {
            throw SenderError(.invalidConfiguration, "retry jitter must be between 0 and 1 (was \(jitter))")
        }
    }

    /// The computed wait after `attempt` failed attempts (1 = after the first), before
    /// jitter.
    public func baseBackoff(afterAttempt attempt: Int) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let seconds = initialBackoff.seconds * pow(multiplier, exponent)
        return Self.milliseconds(min(seconds, maximumBackoff.seconds))
    }

    /// The wait after `attempt` failed attempts, with jitter drawn from `unit` (0…1).
    public func backoff(afterAttempt attempt: Int, unit: Double) -> Duration {
        let base = baseBackoff(afterAttempt: attempt).seconds
        let factor = 1 - jitter * (1 - min(max(unit, 0), 1))
        return Self.milliseconds(base * factor)
    }

    /// Waits are whole milliseconds.
    private static func milliseconds(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// What to do after a retryable failure of attempt number `attempt`: wait this long, or
    /// give up (`nil`).
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, unit: Double) -> Duration? {
        guard attempt < maximumAttempts else { return nil }
        if honorsRetryAfter, let retryAfter {
            return retryAfter <= maximumRetryAfter ? retryAfter : nil
        }
        return backoff(afterAttempt: attempt, unit: unit)
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
