/// Playback: answer requests that match recorded ones with the recorded responses
/// (`docs/replay.md`).
public struct PlaybackOptions: Sendable, Hashable {
    /// How closely a request must resemble a recorded one.
    public enum Match: String, Sendable, Hashable, Codable, CaseIterable {
        /// Method and path (so the device token or FCM project) only.
        case path
        /// Method, path, the headers that change what is pushed (`apns-topic`,
        /// `apns-push-type`, `apns-priority`, `apns-collapse-id`) and the JSON body with member
        /// order ignored. The default.
        case body
        /// As `body`, plus `apns-expiration` and `apns-id`, and the body byte for byte (after
        /// removing insignificant whitespace).
        case strict
    }

    /// What happens to a request no recorded exchange matches.
    public enum Unmatched: String, Sendable, Hashable, Codable, CaseIterable {
        /// Answer it as the gateway normally would (simulation). The default.
        case simulate
        /// Answer 404 (APNs `{"reason":"PlaybackUnmatched"}`, FCM `NOT_FOUND`), so a test
        /// notices every request the recording did not foresee.
        case reject
    }

    /// The journal whose answers are played back.
    public var journalPath: String
    /// Default ``Match/body``.
    public var match: Match
    /// Default ``Unmatched/simulate``.
    public var unmatched: Unmatched

    public init(journalPath: String, match: Match = .body, unmatched: Unmatched = .simulate) {
        self.journalPath = journalPath
        self.match = match
        self.unmatched = unmatched
    }
}
