@_spi(Locking) package import PushMockCore
import PushMockJSON
package import PushMockRecording

/// The recorded answers a playback gateway gives, by request key. Each key keeps its answers
/// in journal order; identical requests take them one after another, and once they are used
/// up the last one is given again (a sender that retries, or a test that sends once more, sees
/// the final recorded state rather than a sudden simulation answer).
package final class PlaybackBook: Sendable {
    /// One recorded answer.
    package struct Answer: Sendable, Hashable {
        /// The recorded exchange it comes from.
        package var sequence: UInt64
        package var status: Int
        package var reason: String?
        package var headers: HTTPHeaderList
        package var body: [UInt8]
        package var timestampMilliseconds: Int64?
    }

    /// What identifies a request, per ``PlaybackOptions/Match``.
    struct Key: Hashable {
        var method: String
        var path: String
        var headers: [String?]
        var body: [UInt8]
    }

    private struct Queue {
        var answers: [Answer]
        var next = 0
    }

    package let options: PlaybackOptions
    private let queues: SanitizerVisibleMutex<[Key: Queue]>
    /// Recorded exchanges that can be played back.
    package let answerCount: Int
    /// The last recorded receipt of each Expo receipt id (from the journal's getReceipts
    /// answers): what a played-back ticket's receipt turns out to be.
    package let expoReceipts: [String: ExpoReceipt]
    /// Journal lines that could not be read, so nothing of theirs is played back (the server
    /// logs them at start: requests they would have answered are simulated or refused).
    package let damagedLines: [JournalProblem]

    /// The platforms whose exchanges are played back.
    static let platforms: Set<Platform> = [.apns, .fcm, .expo]

    /// Indexes the APNs, FCM and Expo exchanges of `records` (others, and exchanges that got no
    /// HTTP answer, are ignored).
    package init(records: [ExchangeRecord], options: PlaybackOptions, damagedLines: [JournalProblem] = []) {
        self.damagedLines = damagedLines
        var queues: [Key: Queue] = [:]
        var count = 0
        var expoReceipts: [String: ExpoReceipt] = [:]
        for record in records.sorted(by: { $0.sequence < $1.sequence }) {
            guard Self.platforms.contains(record.platform), record.response.status != 0 else { continue }
            if record.platform == .expo, record.response.status == 200,
                let json = record.response.body.jsonValue, json["data"]?.arrayValue == nil,
                let answer = ExpoReceiptsResponse(json: json)
            {
                for (id, receipt) in answer.receipts { expoReceipts[id.rawValue] = receipt }
            }
            let key = Self.key(
                method: record.request.method,
                path: record.request.path,
                headers: record.request.headers,
                body: record.request.body,
                match: options.match
            )
            let answer = Answer(
                sequence: record.sequence,
                status: record.response.status,
                reason: record.response.reason,
                headers: record.response.headers,
                body: record.response.body.bytes,
                timestampMilliseconds: record.response.timestampMilliseconds
            )
            queues[key, default: Queue(answers: [])].answers.append(answer)
            count += 1
        }
        self.options = options
        self.queues = SanitizerVisibleMutex(queues)
        self.answerCount = count
        self.expoReceipts = expoReceipts
    }

    /// Loads a journal; damaged lines are skipped and kept in ``damagedLines``.
    package convenience init(options: PlaybackOptions) throws(JournalIOError) {
        let (records, problems) = try JournalFiles.readAll(path: options.journalPath)
        self.init(records: records, options: options, damagedLines: problems)
    }

    /// The next recorded answer for this request, or `nil` when none matches.
    package func answer(for request: HTTPRequestMessage) -> Answer? {
        let key = Self.key(
            method: request.method,
            path: request.path,
            headers: request.headers,
            body: RecordedBody(capturing: request.body),
            match: options.match
        )
        return queues.withLock { queues -> Answer? in
            guard var queue = queues[key], let last = queue.answers.last else { return nil }
            guard queue.next < queue.answers.count else { return last }
            let answer = queue.answers[queue.next]
            queue.next += 1
            queues[key] = queue
            return answer
        }
    }

    /// Headers compared in `body` mode: the ones that change what is pushed and how.
    static let bodyModeHeaders = ["apns-topic", "apns-push-type", "apns-priority", "apns-collapse-id"]
    /// Added in `strict` mode.
    static let strictModeHeaders = bodyModeHeaders + ["apns-expiration", "apns-id"]

    static func key(method: String, path: String, headers: HTTPHeaderList, body: RecordedBody, match: PlaybackOptions.Match) -> Key {
        switch match {
        case .path:
            return Key(method: method, path: path, headers: [], body: [])
        case .body:
            let canonical: [UInt8]
            if let json = body.jsonValue {
                canonical = json.canonicalBytes
            } else {
                canonical = body.bytes
            }
            return Key(method: method, path: path, headers: bodyModeHeaders.map { headers.first(named: $0) }, body: canonical)
        case .strict:
            return Key(method: method, path: path, headers: strictModeHeaders.map { headers.first(named: $0) }, body: body.bytes)
        }
    }
}
