import PushMockCore
import PushMockJSON
import PushMockRecording

/// What playback does with one authenticated APNs or FCM request. Authentication has run
/// already, so a 401 or 403 the service gives is never replaced, as at Apple or Google.
///
/// Indirect: every request's pipeline holds a `PlaybackDecision?` (nil unless `serve
/// --playback`), and inline the optional took 129 bytes that were copied around seven times per
/// request; boxed it is one word.
indirect enum PlaybackDecision {
    /// Answer with this recorded response.
    case answered(HTTPReply, PlaybackBook.Answer)
    /// No recording matches and the options say to refuse it: answer with this error.
    case rejected(HTTPReply)
    /// No recording matches: answer as the simulation would (the record gets
    /// `playback: unmatched`).
    case simulate

    /// The answer playback gives, if it gives one.
    var reply: HTTPReply? {
        switch self {
        case .answered(let reply, _), .rejected(let reply): return reply
        case .simulate: return nil
        }
    }
}

extension GatewayConnection {
    /// Looks the request up in the playback book; the endpoint turns a recorded answer (or the
    /// refusal of an unmatched request) into its reply.
    func play<Endpoint: GatewayEndpoint>(
        _ endpoint: Endpoint,
        _ exchange: inout Endpoint.Exchange,
        from playback: PlaybackBook,
        in context: PipelineContext
    ) -> PlaybackDecision {
        if let answer = playback.answer(for: exchange.request) {
            return .answered(endpoint.playBack(answer, &exchange, in: context), answer)
        }
        switch playback.options.unmatched {
        case .simulate:
            return .simulate
        case .reject:
            return .rejected(endpoint.refuseUnmatchedPlayback(&exchange))
        }
    }

    /// The recorded response as it was, without its `content-length` (the transport sets it).
    static func recordedReply(_ answer: PlaybackBook.Answer) -> HTTPReply {
        var headers = HTTPHeaderList()
        for field in answer.headers where field.name.lowercased() != "content-length" {
            headers.append(name: field.name, value: field.value)
        }
        return .respond(HTTPResponseMessage(status: answer.status, headers: headers, body: answer.body))
    }

    /// 404 in the platform's error envelope.
    static func unmatchedResponse(platform: Platform?) -> HTTPResponseMessage {
        var headers = HTTPHeaderList()
        if platform == .fcm {
            headers.append(name: "content-type", value: "application/json; charset=UTF-8")
            let body =
                #"{"error":{"code":404,"message":"No recorded exchange matches this request (pushmock playback).","status":"NOT_FOUND"}}"#
            return HTTPResponseMessage(status: 404, headers: headers, body: Array(body.utf8))
        }
        headers.append(name: "content-type", value: "application/json")
        return HTTPResponseMessage(status: 404, headers: headers, body: Array(#"{"reason":"PlaybackUnmatched"}"#.utf8))
    }

    /// The reason a refused unmatched request is recorded with, per platform.
    static func unmatchedReason(platform: Platform) -> String {
        switch platform {
        case .fcm: return "NOT_FOUND"
        case .expo: return ExpoPlayback.unmatchedCode
        default: return "PlaybackUnmatched"
        }
    }

    /// Makes a record show what playback did.
    static func annotate(_ record: inout ExchangeRecord, with decision: PlaybackDecision) {
        switch decision {
        case .answered(_, let answer): annotate(&record, withPlayback: answer)
        case .rejected(let reply): annotate(&record, withUnmatchedPlayback: reply)
        case .simulate: record.annotations["playback"] = "unmatched"
        }
    }

    /// The recorded response replaces the simulated one, and `playback` names the recorded
    /// exchange.
    private static func annotate(_ record: inout ExchangeRecord, withPlayback answer: PlaybackBook.Answer) {
        record.response.status = answer.status
        record.response.reason = answer.reason
        record.response.headers = answer.headers
        record.response.body = RecordedBody(capturing: answer.body)
        record.response.timestampMilliseconds = answer.timestampMilliseconds
        switch record.platform {
        case .apns:
            record.notification?.messageID = answer.headers.first(named: "apns-id")
        case .fcm:
            record.notification?.messageID =
                answer.status == 200
                ? RecordedBody(capturing: answer.body).jsonValue?["name"]?.stringValue
                : nil
        default:
            // Expo: the endpoint has read the recorded tickets into the exchange already.
            break
        }
        record.notification?.lint = []
        record.annotations["playback"] = "seq \(answer.sequence)"
    }

    /// The refusal of an unmatched request.
    private static func annotate(_ record: inout ExchangeRecord, withUnmatchedPlayback reply: HTTPReply) {
        if case .respond(let response) = reply.action {
            record.response.status = response.status
            record.response.reason = unmatchedReason(platform: record.platform)
            record.response.headers = response.headers
            record.response.body = RecordedBody(capturing: response.body)
            record.response.timestampMilliseconds = nil
        }
        record.notification?.messageID = nil
        record.notification?.lint = []
        record.annotations["playback"] = "unmatched, rejected"
    }
}
