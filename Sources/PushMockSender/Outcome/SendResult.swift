/// The result of sending one notification: who it was for, how it ended, and what it took.
public struct SendResult: Sendable, Hashable, CustomStringConvertible {
    /// The device token, or `topic:<name>` / `condition:<expression>` for FCM fan-out.
    public var recipient: String
    /// How it ended.
    public var outcome: SendOutcome
    /// How many requests were sent (1 when the first attempt decided it).
    public var attempts: Int
    /// Round-trip time of the last attempt (request written → response complete); zero when
    /// no request went out.
    public var latency: Duration
    /// The position of the notification in a bulk send (its row in a recipient file), if any.
    public var index: Int?

    public init(recipient: String, outcome: SendOutcome, attempts: Int, latency: Duration, index: Int? = nil) {
        self.recipient = recipient
        self.outcome = outcome
        self.attempts = attempts
        self.latency = latency
        self.index = index
    }

    /// Requests beyond the first.
    public var retries: Int { max(0, attempts - 1) }

    public var description: String {
        "\(recipient): \(outcome) after \(attempts) attempt\(attempts == 1 ? "" : "s")"
    }
}
