import PushMockCore
import PushMockJSON
import PushMockRecording

/// Records of the Expo push API. Bodies are recorded decoded (the JSON, whatever the
/// `Content-Encoding` on the wire; annotations say how it travelled), and access tokens are
/// withheld.
extension ExchangeRecorder {
    static func expoSendRecord(
        _ exchange: ExpoSendExchange,
        connection: GatewayConnectionContext,
        time: Timestamp,
        latencyMicroseconds: Int64
    ) -> ExchangeRecord {
        var notification = NotificationInfo()
        var annotations: [String: String] = [:]
        if let send = exchange.send {
            notification.project = send.project
            if send.entries.count == 1, let message = send.entries.first?.message {
                notification.token = message.to
            }
            if let first = send.entries.first?.message {
                notification.priority = first.priority.map(\.apnsPriority)
                notification.collapseID = first.collapseID
                notification.expiration = first.expiration.map { Int64($0) }
            }
            notification.resolvedTokens = exchange.relayed.map { send.entries[$0].message.to }
            annotations["notifications"] = String(send.entries.count)
        }
        if !exchange.tickets.isEmpty {
            var ok = 0
            var errors: [String: Int] = [:]
            var ids: [String] = []
            for ticket in exchange.tickets {
                switch ticket {
                case .ok(let id):
                    ok += 1
                    ids.append(id.rawValue)
                case .error(let error):
                    errors[error.code.rawValue, default: 0] += 1
                }
            }
            annotations["tickets"] = (["ok \(ok)"] + errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" })
                .joined(separator: ", ")
            if exchange.tickets.count == 1, ids.count == 1 { notification.messageID = ids[0] }
            if !ids.isEmpty { annotations["receiptIds"] = ids.joined(separator: " ") }
        }
        return expoRecord(
            request: exchange.request,
            receivedCoding: exchange.receivedCoding,
            notification: notification,
            reply: exchange.reply ?? HTTPReply(.noResponse),
            responseJSON: exchange.responseJSON,
            reason: exchange.requestError?.code.rawValue,
            connection: connection,
            time: time,
            latencyMicroseconds: latencyMicroseconds,
            annotations: annotations
        )
    }

    static func expoReceiptsRecord(
        _ exchange: ExpoReceiptsExchange,
        connection: GatewayConnectionContext,
        time: Timestamp,
        latencyMicroseconds: Int64
    ) -> ExchangeRecord {
        var annotations: [String: String] = [:]
        if case .success(let ids) = exchange.parsed {
            annotations["receiptsRequested"] = String(ids.count)
            annotations["receiptsReturned"] = String(exchange.receipts.count)
        }
        return expoRecord(
            request: exchange.request,
            receivedCoding: exchange.receivedCoding,
            notification: nil,
            reply: exchange.reply ?? HTTPReply(.noResponse),
            responseJSON: exchange.responseJSON,
            reason: exchange.requestError?.code.rawValue,
            connection: connection,
            time: time,
            latencyMicroseconds: latencyMicroseconds,
            annotations: annotations
        )
    }

    private static func expoRecord(
        request: HTTPRequestMessage,
        receivedCoding: HTTPContentCoding,
        notification: NotificationInfo?,
        reply: HTTPReply,
        responseJSON: [UInt8],
        reason: String?,
        connection: GatewayConnectionContext,
        time: Timestamp,
        latencyMicroseconds: Int64,
        annotations: [String: String]
    ) -> ExchangeRecord {
        var annotations = annotations
        if receivedCoding != .identity {
            annotations["requestContentEncoding"] = receivedCoding.description
        }
        var auth: AuthInfo?
        if let token = ExpoHTTP.bearerToken(in: request) {
            auth = AuthInfo(scheme: "bearer", detail: "Expo access token \(fingerprint(token))")
        }
        var status = 0
        var responseHeaders = HTTPHeaderList()
        var responseBody = RecordedBody.none
        if case .respond(let response) = reply.action {
            status = response.status
            responseHeaders = response.headers
            if response.headers.first(named: "content-encoding") != nil {
                annotations["responseContentEncoding"] = "gzip"
            }
            if !responseJSON.isEmpty {
                responseBody = RecordedBody(capturing: responseJSON)
            }
        }
        return ExchangeRecord(
            timeMilliseconds: time.millisecondsSince1970,
            platform: .expo,
            connection: connection.recordedConnection,
            streamID: request.streamID,
            request: RequestInfo(
                method: request.method,
                path: request.path,
                authority: request.authority,
                scheme: request.scheme,
                headers: recordedHeaders(request.headers, authorization: "Bearer [Expo access token; withheld]", on: connection),
                body: recordedBody(request.body, on: connection),
                bodySize: request.bodyByteCount
            ),
            auth: auth,
            notification: notification,
            response: ResponseInfo(status: status, reason: reason, headers: responseHeaders, body: responseBody),
            latencyMicroseconds: latencyMicroseconds,
            annotations: annotations
        )
    }
}
