import PushMockCore
import PushMockJSON
import PushMockRecording

extension GatewayConnection {
    /// What playback does with one APNs or FCM request.
    enum PlaybackDecision {
        /// Answer with this recorded response.
        case answered(HTTPReply, PlaybackBook.Answer)
        /// No recording matches and the options say to refuse it: answer with this error.
        case rejected(HTTPReply)
        /// No recording matches: answer as the simulation would.
        case simulate
        /// The request failed authentication (or was not a send): the service's own answer
        /// stands, as it would at Apple or Google.
        case notApplicable

        /// Unmatched and answered by the simulation (the record gets `playback: unmatched`).
        var fallsThroughUnmatched: Bool {
            if case .simulate = self { return true }
            return false
        }
    }

    /// Appends the reply and record of a played-back or refused request; returns false when
    /// the request is left to the normal path. `makeRecord` builds the record the service's
    /// outcome would have (connection, auth, notification, namespace); the response part is
    /// then replaced by what was actually sent.
    func answer(
        _ decision: PlaybackDecision,
        replies: inout [HTTPReply],
        records: inout [ExchangeRecord],
        makeRecord: () -> ExchangeRecord
    ) -> Bool {
        switch decision {
        case .answered(let reply, let answer):
            var record = makeRecord()
            Self.annotate(&record, withPlayback: answer)
            replies.append(reply)
            records.append(record)
            return true
        case .rejected(let reply):
            var record = makeRecord()
            Self.annotate(&record, withUnmatchedPlayback: reply)
            replies.append(reply)
            records.append(record)
            return true
        case .simulate, .notApplicable:
            return false
        }
    }

    /// Consults the playback book after the service has handled the request, so that
    /// authentication is checked exactly as without playback: a 401 or 403 from the service
    /// (bad provider token, unknown key, wrong access token or project) is never replaced.
    func played(_ request: HTTPRequestMessage, by playback: PlaybackBook, serviceStatus: Int) -> PlaybackDecision {
        guard serviceStatus != 401, serviceStatus != 403 else { return .notApplicable }
        if let answer = playback.answer(for: request) {
            var headers = HTTPHeaderList()
            for field in answer.headers where field.name.lowercased() != "content-length" {
                headers.append(name: field.name, value: field.value)
            }
            return .answered(.respond(HTTPResponseMessage(status: answer.status, headers: headers, body: answer.body)), answer)
        }
        switch playback.options.unmatched {
        case .simulate:
            return .simulate
        case .reject:
            return .rejected(.respond(Self.unmatchedResponse(for: request)))
        }
    }

    /// 404 in the platform's error envelope.
    static func unmatchedResponse(for request: HTTPRequestMessage) -> HTTPResponseMessage {
        var headers = HTTPHeaderList()
        if GatewayRoute(request) == .fcm {
            headers.append(name: "content-type", value: "application/json; charset=UTF-8")
            let body = #"{"error":{"code":404,"message":"No recorded exchange matches this request (pushmock playback).","status":"NOT_FOUND"}}"#
            return HTTPResponseMessage(status: 404, headers: headers, body: Array(body.utf8))
        }
        headers.append(name: "content-type", value: "application/json")
        return HTTPResponseMessage(status: 404, headers: headers, body: Array(#"{"reason":"PlaybackUnmatched"}"#.utf8))
    }

    /// Makes a record show what was played back: the recorded response replaces the
    /// simulated one, and `playback` names the recorded exchange.
    static func annotate(_ record: inout ExchangeRecord, withPlayback answer: PlaybackBook.Answer) {
        record.response.status = answer.status
        record.response.reason = answer.reason
        record.response.headers = answer.headers
        record.response.body = RecordedBody(capturing: answer.body)
        record.response.timestampMilliseconds = answer.timestampMilliseconds
        if record.platform == "apns" {
            record.notification?.messageID = answer.headers.first(named: "apns-id")
        } else {
            record.notification?.messageID = answer.status == 200
                ? RecordedBody(capturing: answer.body).jsonValue?["name"]?.stringValue
                : nil
        }
        record.notification?.lint = []
        record.annotations["playback"] = "seq \(answer.sequence)"
    }

    /// Makes a record show the refusal of an unmatched request.
    static func annotate(_ record: inout ExchangeRecord, withUnmatchedPlayback reply: HTTPReply) {
        if case .respond(let response) = reply.action {
            record.response.status = response.status
            record.response.reason = record.platform == "fcm" ? "NOT_FOUND" : "PlaybackUnmatched"
            record.response.headers = response.headers
            record.response.body = RecordedBody(capturing: response.body)
            record.response.timestampMilliseconds = nil
        }
        record.notification?.messageID = nil
        record.notification?.lint = []
        record.annotations["playback"] = "unmatched, rejected"
    }
}
