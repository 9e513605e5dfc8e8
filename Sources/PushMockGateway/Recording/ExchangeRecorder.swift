import NIOCore
import PushMockAuth
@_spi(Locking) import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockTransport

/// Turns answered requests into ``ExchangeRecord``s and makes them durable before the answers
/// go out: appended to the in-memory store, which assigns sequence numbers, encodes them as
/// JSON Lines and hands each batch's lines to the journal (one append per batch) in sequence
/// order.
struct ExchangeRecorder {
    let store: RecordingStore
    let journal: JournalWriter?

    /// How a batch was committed.
    enum Commit {
        /// Durable already (or no journal): reply now.
        case done
        /// Reply when this completes.
        case pending(EventLoopFuture<Void>)
        /// The journal failed: the exchanges could not be made durable.
        case failed(any Error)
    }

    /// `memo` is the committing connection's (see ``JournalLineMemo``).
    func commit(_ records: inout [ExchangeRecord], memo: inout JournalLineMemo, eventLoop: any EventLoop) -> Commit {
        guard !records.isEmpty else { return .done }
        guard let journal else {
            store.append(&records, memo: &memo) { _ in }
            return .done
        }
        // The store numbers the records and hands their lines to the journal under one lock,
        // so the journal's lines are in sequence order whichever event loop commits.
        switch journal.durability {
        case .written, .fsyncInterval:
            // Written synchronously: on failure the completion runs before `append` returns.
            let failure = SanitizerVisibleMutex<(any Error)?>(nil)
            let written = store.append(&records, memo: &memo) { bytes in
                journal.append(bytes) { result in
                    if case .failure(let error) = result {
                        failure.withLock { $0 = error }
                    }
                }
            }
            if written { return .done }
            return .failed(failure.withLock { $0 } ?? JournalFailure())
        case .fsyncEachBatch:
            let promise = eventLoop.makePromise(of: Void.self)
            store.append(&records, memo: &memo) { bytes in
                _ = journal.append(bytes) { result in
                    promise.completeWith(result)
                }
            }
            return .pending(promise.futureResult)
        }
    }

    /// After a batch's journal write failed, the clients get `answer` (a 500) instead of what
    /// was recorded: the in-memory records are amended to say so — the status, reason, headers
    /// and body actually sent, with annotations `journalError` (the failure) and
    /// `intendedStatus` (what the service had decided). The journal itself has no line for
    /// them (its writer refuses every append after a failure). Records and answers thus never
    /// contradict each other.
    func recordJournalFailure(_ records: [ExchangeRecord], error: any Error, answer: HTTPResponseMessage) {
        let amended = records.map { record -> ExchangeRecord in
            var record = record
            record.annotations["journalError"] = "\(error)"
            record.annotations["intendedStatus"] = String(record.response.status)
            record.response = ResponseInfo(
                status: answer.status,
                reason: APNsReason.internalServerError.rawValue,
                headers: answer.headers,
                body: answer.body.isEmpty ? .none : RecordedBody(capturing: answer.body)
            )
            return record
        }
        store.replace(amended)
    }

    struct JournalFailure: Error, CustomStringConvertible {
        var description: String { "the journal write failed" }
    }

    // MARK: Building records

    /// The record of one APNs exchange.
    static func apnsRecord(
        _ outcome: APNsExchange,
        connection: GatewayConnectionContext,
        time: Timestamp,
        namespace: String?,
        latencyMicroseconds: Int64,
        into record: inout ExchangeRecord
    ) {
        // Read through `outcome.request` in place: `let request = outcome.request` copied the
        // request (a retain and a release per string and buffer in it; request copies fell
        // from 0.86 % to 0.67 % of the default server's samples).
        var auth: AuthInfo?
        var authorizationPlaceholder = "[absent]"
        if let authentication = outcome.authentication {
            switch authentication.method {
            case .providerToken(let verified):
                auth = AuthInfo(
                    scheme: "bearer-jwt",
                    jwtHeader: verified.headerJSON,
                    jwtClaims: verified.claimsJSON,
                    keyID: verified.parsed.keyID,
                    teamID: verified.parsed.teamID,
                    detail: authentication.isNewToken ? "new provider token on this connection" : nil
                )
                authorizationPlaceholder = verified.recordedAuthorization
            case .certificate(let certificate):
                auth = AuthInfo(scheme: "certificate", subject: certificate.subject)
            case .none:
                auth = AuthInfo(scheme: "none")
            }
        } else if let index = outcome.request.headers.firstIndex(of: .authorization) {
            // Rejected before or during authentication: record what can be decoded, never the
            // signature.
            let value = outcome.request.headers.value(at: index)
            auth = undecodedAuth(value)
            authorizationPlaceholder = "[withheld; see auth]"
        }

        var annotations: [String: String] = [:]
        if outcome.pushTypeInferred, outcome.pushType != nil {
            annotations["pushTypeInferred"] = "true"
        }
        var responseHeaders = HTTPHeaderList()
        var responseBody = RecordedBody.none
        var status = outcome.status
        // Switched over in place: `outcome.reply?.action ?? .noResponse` copied the reply.
        switch outcome.reply?.action {
        case .respond(let response)?:
            status = response.status
            // Shared with the reply (copy-on-write): no copy is made.
            responseHeaders = response.headers
            if !response.body.isEmpty {
                responseBody = RecordedBody(capturing: response.body)
            }
        case .goAway(let code, let debugData, let lastStreamID, _)?:
            annotations["goAway"] =
                "\(code.name) lastStreamID=\(lastStreamID.map(String.init) ?? "last") \(String(decoding: debugData, as: UTF8.self))"
        case .resetStream(let code)?:
            annotations["resetStream"] = code.name
        case .closeConnection?:
            annotations["closeConnection"] = "true"
        case .noResponse?, nil:
            annotations["noResponse"] = "true"
        case .stream(let streaming)?:
            // No recorded endpoint streams; the head is what there would be to record.
            status = streaming.status
            responseHeaders = streaming.headers
        }

        // Field by field into the batch's record (see `GatewayEndpoint.record`).
        record.timeMilliseconds = time.millisecondsSince1970
        record.namespace = namespace
        record.platform = .apns
        record.connection = connection.recordedConnection
        record.streamID = outcome.request.streamID
        record.environment = outcome.environment.name
        record.request.method = outcome.request.method
        record.request.path = outcome.request.path
        record.request.authority = outcome.request.authority
        record.request.scheme = outcome.request.scheme
        record.request.headers = recordedHeaders(outcome.request.headers, authorization: authorizationPlaceholder, on: connection)
        record.request.body = recordedBody(outcome.request.body, on: connection)
        record.request.bodySize = outcome.request.bodyByteCount
        // Moved and built in place: a local `NotificationInfo` filled field by field was built
        // with its defaults, copied into the record and destroyed (≈ 1 % of the samples with
        // the auth's copy).
        record.auth = consume auth
        record.notification = NotificationInfo(
            token: outcome.deviceToken,
            topic: outcome.topic ?? outcome.headers?.topic,
            pushType: outcome.pushType?.rawValue ?? outcome.headers?.pushType?.rawValue,
            priority: outcome.headers?.effectivePriority.rawValue,
            expiration: outcome.headers?.expiration,
            collapseID: outcome.headers?.collapseID,
            messageID: outcome.apnsID
        )
        record.response.status = status
        record.response.reason = outcome.reason?.rawValue
        record.response.headers = responseHeaders
        record.response.body = responseBody
        record.response.timestampMilliseconds = outcome.timestamp?.millisecondsSince1970
        record.latencyMicroseconds = latencyMicroseconds
        record.annotations = annotations
    }

    /// The namespace a record belongs to, for isolating parallel test runs: the
    /// `x-pushmock-namespace` request header when the sender adds one, else the app (APNs
    /// bundle ID, FCM project).
    static func namespace(of request: HTTPRequestMessage, app: String?) -> String? {
        if let index = request.headers.firstIndex(of: HTTPFieldName("x-pushmock-namespace")) {
            return request.headers.value(at: index)
        }
        return app
    }

    /// ``recordedHeaders(_:authorization:)``, reusing the connection's last result when the
    /// request repeats the headers of the last one recorded on it.
    static func recordedHeaders(
        _ headers: HTTPHeaderList, authorization placeholder: String, on connection: GatewayConnectionContext
    ) -> HTTPHeaderList {
        if let last = connection.lastRecordedHeaders, last.placeholder == placeholder, last.request.hasSameFields(as: headers) {
            return last.recorded
        }
        let recorded = recordedHeaders(headers, authorization: placeholder)
        connection.lastRecordedHeaders = (headers, placeholder, recorded)
        return recorded
    }

    /// `body` as the record keeps it: the last recorded body of the connection when the bytes
    /// are the same (see ``GatewayConnectionContext/lastRecordedBody``), else classified anew.
    static func recordedBody(_ body: [UInt8], on connection: GatewayConnectionContext) -> RecordedBody {
        guard !body.isEmpty else { return .none }
        if let last = connection.lastRecordedBody, last.request.hasSameBytes(as: body) { return last.recorded }
        let recorded = RecordedBody(capturing: body)
        connection.lastRecordedBody = (body, recorded)
        return recorded
    }

    /// The request headers for the record: shared as they are, or — when they carry an
    /// `authorization` field or another credential (``credentialFields``) — copied with the
    /// `authorization` value replaced by `placeholder` and the others by `[withheld]`. The
    /// record feeds the journal, the API, the inbox and replay alike, so this is the one place.
    static func recordedHeaders(_ headers: HTTPHeaderList, authorization placeholder: String) -> HTTPHeaderList {
        headers.replacingValues { index in
            if headers.nameEquals(index, .authorization) { return placeholder }
            return credentialFields.contains { headers.nameEquals(index, $0) } ? withheld : nil
        }
    }

    /// Header fields that carry credentials besides `authorization`: never stored verbatim.
    static let credentialFields: [HTTPFieldName] = [
        HTTPFieldName("proxy-authorization"), HTTPFieldName("cookie"), HTTPFieldName("set-cookie"),
        HTTPFieldName("x-api-key"), HTTPFieldName("x-goog-api-key"), HTTPFieldName("x-auth-token"),
        HTTPFieldName("x-access-token"), HTTPFieldName("x-pushmock-control-token"),
    ]

    /// What replaces a credential-bearing header's value in a record.
    static let withheld = "[withheld]"

    /// Decodes the header and claims of a JWT that failed verification, for the record.
    static func undecodedAuth(_ authorization: String) -> AuthInfo {
        guard let token = APNsConnectionAuthenticator.bearerToken(authorization) else {
            return AuthInfo(scheme: "bearer", detail: "no bearer token")
        }
        guard let jws = try? CompactJWS(parsing: token) else {
            return AuthInfo(scheme: "bearer", detail: "not a JWT")
        }
        // Only embed what is valid JSON: the journal embeds these bytes verbatim.
        let header = Array(jws.compactHeaderJSON.utf8)
        let claims = Array(jws.compactClaimsJSON.utf8)
        let headerIsJSON = JSONScanner.scan(header).isCompact
        let claimsAreJSON = JSONScanner.scan(claims).isCompact
        let parsed = try? APNsProviderToken(parsing: token)
        return AuthInfo(
            scheme: "bearer-jwt",
            jwtHeader: headerIsJSON ? header : nil,
            jwtClaims: claimsAreJSON ? claims : nil,
            keyID: parsed?.keyID,
            teamID: parsed?.teamID,
            detail: "not accepted"
        )
    }
}
