public import PushMockCore
public import PushMockRecording
public import PushMockSender
public import PushMockToolkit

/// Sends recorded requests again — to the mock, another mock or a real gateway — with fresh
/// credentials, and compares each new outcome with the recorded one.
///
/// ```swift
/// let (records, _) = try JournalReader.readAll(path: "Recordings/journal.jsonl")
/// let report = try await withAPNsSender(configuration: apnsConfiguration) { apns in
///     await JournalReplayer(apns: apns).replay(records)
/// }
/// print(report.renderText())
/// ```
///
/// Requests go out one at a time in journal order (sequence numbers), because order can
/// change outcomes (a token that ends after N sends, a collapse ID, a rate limit). The senders
/// are the caller's: their retry policy decides whether a recorded 503 can turn into an
/// acceptance — `RetryPolicy(maximumAttempts: 1)` compares outcomes 1:1.
public struct JournalReplayer: Sendable {
    /// Sends APNs requests; `nil` skips them.
    public var apns: APNsSender?
    /// Sends FCM requests; `nil` skips them.
    public var fcm: FCMSender?
    /// Sends Expo push requests; `nil` skips them.
    public var expo: ExpoSender?
    /// Which recorded exchanges to replay (an empty query: all replayable ones).
    public var query: RecordingQuery
    /// Replaces the project in FCM paths (the new service account's project, usually).
    public var fcmProject: String?

    public init(
        apns: APNsSender? = nil,
        fcm: FCMSender? = nil,
        expo: ExpoSender? = nil,
        query: RecordingQuery = RecordingQuery(),
        fcmProject: String? = nil
    ) {
        self.apns = apns
        self.fcm = fcm
        self.expo = expo
        self.query = query
        self.fcmProject = fcmProject
    }

    /// The records that would be replayed, in sequence order.
    public func selection(from records: [ExchangeRecord]) -> [ExchangeRecord] {
        records
            .filter { ReplayableRequest.isReplayable($0) && query.matches($0) }
            .sorted { $0.sequence < $1.sequence }
    }

    /// Replays the selected records in order; `onComparison` sees each comparison as it is
    /// made (for progress output).
    public func replay(
        _ records: [ExchangeRecord],
        onComparison: @Sendable (ReplayComparison) -> Void = { _ in }
    ) async -> ReplayReport {
        var comparisons: [ReplayComparison] = []
        for record in selection(from: records) {
            let request = ReplayableRequest.wireRequest(for: record, fcmProject: fcmProject)
            let recorded = ReplayOutcome(recorded: record)
            var replayed: ReplayOutcome?
            var attempts = 0
            var replayedID: String?
            switch record.platform {
            case .apns, .fcm:
                let result: SendResult? =
                    record.platform == .apns ? await apns?.send(wireRequest: request) : await fcm?.send(wireRequest: request)
                if let result {
                    replayed = ReplayOutcome(result.outcome)
                    attempts = result.attempts
                    if case .accepted(let acceptance) = result.outcome, !acceptance.id.isEmpty { replayedID = acceptance.id }
                }
            case .expo:
                if let result = await expo?.send(wireRequest: request) {
                    replayed = ReplayOutcome(result)
                    attempts = result.attempts
                    if case .tickets(let tickets) = result.outcome {
                        let ids = tickets.compactMap { ticket -> String? in
                            if case .ok(let id) = ticket { return id }
                            return nil
                        }
                        replayedID = ids.isEmpty ? nil : ids.joined(separator: " ")
                    }
                }
            default:
                break
            }
            let comparison = ReplayComparison(
                sequence: record.sequence,
                platform: record.platform,
                recipient: request.recipient,
                path: request.path,
                recorded: recorded,
                replayed: replayed,
                attempts: attempts,
                replayedID: replayedID
            )
            onComparison(comparison)
            comparisons.append(comparison)
        }
        return ReplayReport(comparisons: comparisons)
    }
}

/// One recorded exchange next to what happened when it was sent again.
public struct ReplayComparison: Sendable, Hashable {
    /// The recorded exchange's sequence number.
    public var sequence: UInt64
    /// `apns`, `fcm` or `expo`.
    public var platform: Platform
    /// Device token, `topic:…`, `condition:…`.
    public var recipient: String
    /// The path sent (after any project rewrite).
    public var path: String
    /// The recorded outcome.
    public var recorded: ReplayOutcome
    /// The new outcome; `nil` when the platform had no sender (skipped).
    public var replayed: ReplayOutcome?
    /// Requests the sender made (retries included).
    public var attempts: Int
    /// The new `apns-id` or FCM message name when accepted; for Expo the new receipt ids of
    /// the ok tickets, space-separated.
    public var replayedID: String?

    public init(
        sequence: UInt64,
        platform: Platform,
        recipient: String,
        path: String,
        recorded: ReplayOutcome,
        replayed: ReplayOutcome?,
        attempts: Int = 1,
        replayedID: String? = nil
    ) {
        self.sequence = sequence
        self.platform = platform
        self.recipient = recipient
        self.path = path
        self.recorded = recorded
        self.replayed = replayed
        self.attempts = attempts
        self.replayedID = replayedID
    }

    /// Same, different, or skipped.
    public var verdict: Verdict {
        guard let replayed else { return .skipped }
        return recorded.matches(replayed) ? .same : .different
    }

    public enum Verdict: String, Sendable, Hashable {
        case same
        case different
        /// Not sent: no sender for its platform.
        case skipped
    }
}
