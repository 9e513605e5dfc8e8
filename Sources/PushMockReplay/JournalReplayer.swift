package import PushMockCore
package import PushMockRecording
package import PushMockSender
package import PushMockToolkit

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
package struct JournalReplayer: Sendable {
    /// Sends APNs requests; `nil` skips them.
    package var apns: APNsSender?
    /// Sends FCM requests; `nil` skips them.
    package var fcm: FCMSender?
    /// Which recorded exchanges to replay (an empty query: all replayable ones).
    package var query: RecordingQuery
    /// Replaces the project in FCM paths (the new service account's project, usually).
    package var fcmProject: String?

    package init(apns: APNsSender? = nil, fcm: FCMSender? = nil, query: RecordingQuery = RecordingQuery(), fcmProject: String? = nil) {
        self.apns = apns
        self.fcm = fcm
        self.query = query
        self.fcmProject = fcmProject
    }

    /// The records that would be replayed, in sequence order.
    package func selection(from records: [ExchangeRecord]) -> [ExchangeRecord] {
        records
            .filter { ReplayableRequest.isReplayable($0) && query.matches($0) }
            .sorted { $0.sequence < $1.sequence }
    }

    /// Replays the selected records in order; `onComparison` sees each comparison as it is
    /// made (for progress output).
    package func replay(
        _ records: [ExchangeRecord],
        onComparison: @Sendable (ReplayComparison) -> Void = { _ in }
    ) async -> ReplayReport {
        var comparisons: [ReplayComparison] = []
        for record in selection(from: records) {
            let request = ReplayableRequest.wireRequest(for: record, fcmProject: fcmProject)
            let recorded = ReplayOutcome(recorded: record)
            let result: SendResult?
            switch record.platform {
            case .apns: result = await apns?.send(wireRequest: request)
            case .fcm: result = await fcm?.send(wireRequest: request)
            default: result = nil
            }
            let comparison = ReplayComparison(
                sequence: record.sequence,
                platform: record.platform,
                recipient: request.recipient,
                path: request.path,
                recorded: recorded,
                replayed: result.map { ReplayOutcome($0.outcome) },
                attempts: result?.attempts ?? 0,
                replayedID: result.flatMap { result -> String? in
                    if case .accepted(let acceptance) = result.outcome, !acceptance.id.isEmpty { return acceptance.id }
                    return nil
                }
            )
            onComparison(comparison)
            comparisons.append(comparison)
        }
        return ReplayReport(comparisons: comparisons)
    }
}

/// One recorded exchange next to what happened when it was sent again.
package struct ReplayComparison: Sendable, Hashable {
    /// The recorded exchange's sequence number.
    package var sequence: UInt64
    /// `apns` or `fcm`.
    package var platform: Platform
    /// Device token, `topic:…`, `condition:…`.
    package var recipient: String
    /// The path sent (after any project rewrite).
    package var path: String
    /// The recorded outcome.
    package var recorded: ReplayOutcome
    /// The new outcome; `nil` when the platform had no sender (skipped).
    package var replayed: ReplayOutcome?
    /// Requests the sender made (retries included).
    package var attempts: Int
    /// The new `apns-id` or FCM message name, when accepted.
    package var replayedID: String?

    package init(
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
    package var verdict: Verdict {
        guard let replayed else { return .skipped }
        return recorded.matches(replayed) ? .same : .different
    }

    package enum Verdict: String, Sendable, Hashable {
        case same
        case different
        /// Not sent: no sender for its platform.
        case skipped
    }
}
