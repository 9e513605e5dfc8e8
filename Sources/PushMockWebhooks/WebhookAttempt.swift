package import Foundation

/// One try at delivering an event, as the API shows it.
package struct WebhookAttempt: Sendable, Encodable {
    /// How the attempt ended.
    package struct Outcome: Sendable, Hashable, Encodable, CustomStringConvertible {
        private enum Value: String { case delivered, rejected, error }
        private let value: Value

        /// The receiver answered 2xx.
        package static let delivered = Outcome(value: .delivered)
        /// The receiver answered another status.
        package static let rejected = Outcome(value: .rejected)
        /// No answer: refused, reset, timed out, TLS failure.
        package static let error = Outcome(value: .error)

        package var description: String { value.rawValue }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value.rawValue)
        }
    }

    /// 1 for the first try.
    package var attempt: Int
    /// When it started (wall-clock time, ISO 8601 with milliseconds in JSON).
    package var startedAt: Date
    package var durationMilliseconds: Double
    package var outcome: Outcome
    /// The receiver's status, when it answered.
    package var status: Int?
    /// Why there was no answer.
    package var error: String?
    /// The start of the receiver's answer body.
    package var responseBody: String?

    private enum CodingKeys: String, CodingKey {
        case attempt, startedAt, durationMilliseconds, outcome, status, error, responseBody
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(attempt, forKey: .attempt)
        try container.encode(Self.iso8601(startedAt), forKey: .startedAt)
        try container.encode((durationMilliseconds * 1000).rounded() / 1000, forKey: .durationMilliseconds)
        try container.encode(outcome, forKey: .outcome)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(error, forKey: .error)
        if let responseBody, !responseBody.isEmpty { try container.encode(responseBody, forKey: .responseBody) }
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}

/// One event's delivery to one webhook with every attempt so far.
package struct WebhookDelivery: Sendable, Encodable {
    /// Where the delivery stands.
    package struct State: Sendable, Hashable, Encodable, CustomStringConvertible {
        private enum Value: String { case queued, sending, retrying, delivered, failed }
        private let value: Value

        /// Waiting for a free sender.
        package static let queued = State(value: .queued)
        /// An attempt is in flight.
        package static let sending = State(value: .sending)
        /// Waiting out the backoff before the next attempt.
        package static let retrying = State(value: .retrying)
        /// A 2xx answer arrived.
        package static let delivered = State(value: .delivered)
        /// Every attempt failed (or the dispatcher stopped).
        package static let failed = State(value: .failed)

        package var isFinal: Bool { value == .delivered || value == .failed }
        package var description: String { value.rawValue }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value.rawValue)
        }
    }

    /// The event's id (`X-PushMock-Delivery`).
    package var id: String
    package var event: String
    package var state: State
    package var attempts: [WebhookAttempt]
    /// When the next attempt is due, while retrying.
    package var nextAttemptAt: Date?

    private enum CodingKeys: String, CodingKey { case id, event, state, attempts, nextAttemptAt }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(event, forKey: .event)
        try container.encode(state, forKey: .state)
        try container.encode(attempts, forKey: .attempts)
        try container.encodeIfPresent(nextAttemptAt.map(WebhookAttempt.iso8601), forKey: .nextAttemptAt)
    }
}

/// What the API shows of one webhook: its settings (never the secret), counts, and its most
/// recent deliveries (newest first) with their attempts.
package struct WebhookReport: Sendable, Encodable {
    package struct Counts: Sendable, Encodable, Hashable {
        /// Events accepted into the queue.
        package var enqueued = 0
        /// Events dropped because the queue was full.
        package var dropped = 0
        package var attempts = 0
        package var delivered = 0
        /// Events that used up their attempts.
        package var failed = 0
        /// Events not yet final (queued, sending or waiting to retry).
        package var pending = 0
    }

    package var id: String
    package var url: String
    package var signed: Bool
    package var timeoutSeconds: Double
    package var maximumAttempts: Int
    package var initialBackoffSeconds: Double
    package var maximumBackoffSeconds: Double
    package var counts: Counts
    package var deliveries: [WebhookDelivery]
}
