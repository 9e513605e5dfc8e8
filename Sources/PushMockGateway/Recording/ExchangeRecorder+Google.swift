import Foundation
import PushMockAuth
import PushMockCore
import PushMockJSON
import PushMockRecording

/// Records of the Google endpoints: FCM sends, OAuth2 token requests and IID topic changes.
/// Credentials are recorded decoded, never raw: the assertion's header and claims (not its
/// signature), and for access tokens the service account and scopes they stand for plus a
/// short fingerprint that ties an FCM send to the token request that produced its token.
extension ExchangeRecorder {
    static func fcmRecord(
        _ outcome: FCMSendExchange,
        connection: GatewayConnectionContext,
        time: Timestamp,
        namespace: String?,
        latencyMicroseconds: Int64
    ) -> ExchangeRecord {
        let request = outcome.request
        var notification = NotificationInfo()
        notification.project = outcome.project?.rawValue
        notification.messageID = outcome.messageName
        notification.resolvedTokens = outcome.resolvedTokens.map(\.rawValue)
        if let message = outcome.send?.message {
            switch message.target {
            case .token(let token), .fid(let token): notification.token = token
            case .topic(let topic): notification.topic = topic
            case .condition(let condition): notification.condition = condition.expression
            }
            notification.collapseID = message.android?.collapseKey
        }
        var annotations: [String: String] = [:]
        if outcome.send?.validateOnly == true {
            annotations["validateOnly"] = "true"
        }
        return googleRecord(
            platform: .fcm,
            request: request,
            recordedBody: recordedBody(request.body, on: connection),
            grant: outcome.grant,
            notification: notification,
            reply: outcome.reply ?? HTTPReply(.noResponse),
            reason: outcome.error.map { $0.fcmErrorCode?.rawValue ?? $0.status.name },
            connection: connection,
            time: time,
            namespace: namespace,
            latencyMicroseconds: latencyMicroseconds,
            annotations: annotations
        )
    }

    static func iidRecord(
        _ outcome: IIDTopicExchange,
        connection: GatewayConnectionContext,
        time: Timestamp,
        latencyMicroseconds: Int64
    ) -> ExchangeRecord {
        var notification = NotificationInfo()
        notification.topic = outcome.topic
        notification.project = outcome.project
        notification.resolvedTokens = outcome.tokens
        return topicManagementRecord(
            outcome.request, grant: outcome.grant, notification: notification, reply: outcome.reply, reason: outcome.error,
            namespace: nil, connection: connection, time: time, latencyMicroseconds: latencyMicroseconds)
    }

    static func topicSubscriptionRecord(
        _ outcome: FCMTopicSubscriptionExchange,
        connection: GatewayConnectionContext,
        time: Timestamp,
        latencyMicroseconds: Int64
    ) -> ExchangeRecord {
        var notification = NotificationInfo()
        notification.topic = outcome.topic
        notification.project = outcome.project?.rawValue
        notification.token = outcome.registration
        return topicManagementRecord(
            outcome.request, grant: outcome.grant, notification: notification, reply: outcome.reply,
            reason: outcome.error?.status.rawValue, namespace: outcome.project?.rawValue, connection: connection, time: time,
            latencyMicroseconds: latencyMicroseconds)
    }

    /// Topic management, whichever API carried it (platform `iid`).
    private static func topicManagementRecord(
        _ request: HTTPRequestMessage, grant: AccessTokenGrant?, notification: NotificationInfo, reply: HTTPReply?, reason: String?,
        namespace: String?, connection: GatewayConnectionContext, time: Timestamp, latencyMicroseconds: Int64
    ) -> ExchangeRecord {
        googleRecord(
            platform: .iid,
            request: request,
            recordedBody: recordedBody(request.body, on: connection),
            grant: grant,
            notification: notification,
            reply: reply ?? HTTPReply(.noResponse),
            reason: reason,
            connection: connection,
            time: time,
            namespace: namespace,
            latencyMicroseconds: latencyMicroseconds,
            annotations: [:]
        )
    }

    static func oauthRecord(
        _ outcome: OAuthTokenExchange,
        connection: GatewayConnectionContext,
        time: Timestamp,
        latencyMicroseconds: Int64
    ) -> ExchangeRecord {
        let request = outcome.request
        var auth: AuthInfo?
        if let assertion = outcome.assertion {
            auth = AuthInfo(
                scheme: "jwt-bearer-assertion",
                jwtHeader: compactJSON(assertion.headerJSON),
                jwtClaims: compactJSON(assertion.claimsJSON),
                keyID: assertion.keyID,
                subject: assertion.issuer,
                detail: outcome.grant == nil ? "not accepted" : nil
            )
        }
        // The form carries the signed assertion: record it without the signature.
        let form = outcome.form.map { field -> String in
            if field.name == "assertion" {
                return "assertion=[JWT of \(outcome.assertion?.issuer ?? "?"); decoded in auth, signature withheld]"
            }
            return "\(field.name)=\(field.value)"
        }.joined(separator: "&")
        var annotations: [String: String] = [:]
        if let grant = outcome.grant {
            annotations["accessToken"] = fingerprint(grant.token)
            annotations["scopes"] = grant.scopes.joined(separator: " ")
            annotations["expiresAt"] = grant.expiresAt.description
        }
        var response = outcome.reply ?? HTTPReply(.noResponse)
        if let grant = outcome.grant, case .respond(var message) = response.action {
            // The issued token is a credential too: keep only its fingerprint.
            let text = String(decoding: message.body, as: UTF8.self).replacingOccurrences(
                of: grant.token, with: "ya29.c.[withheld; fingerprint \(fingerprint(grant.token))]")
            message.body = Array(text.utf8)
            response = .respond(message)
        }
        var record = googleRecord(
            platform: .oauth,
            request: request,
            recordedBody: form.isEmpty ? .none : .text(form),
            grant: nil,
            notification: nil,
            reply: response,
            reason: outcome.error,
            connection: connection,
            time: time,
            latencyMicroseconds: latencyMicroseconds,
            annotations: annotations
        )
        record.auth = auth
        return record
    }

    /// A short, stable tag for an access token (its last 8 characters).
    static func fingerprint(_ token: String) -> String {
        "…" + String(token.suffix(8))
    }

    private static func compactJSON(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        let scan = JSONScanner.scan(bytes)
        guard scan.isValid else { return nil }
        return scan.isCompact ? bytes : JSONCompactor.compacted(bytes)
    }

    private static func googleRecord(
        platform: Platform,
        request: HTTPRequestMessage,
        recordedBody: RecordedBody,
        grant: AccessTokenGrant?,
        notification: NotificationInfo?,
        reply: HTTPReply,
        reason: String?,
        connection: GatewayConnectionContext,
        time: Timestamp,
        namespace: String? = nil,
        latencyMicroseconds: Int64,
        annotations: [String: String]
    ) -> ExchangeRecord {
        var auth: AuthInfo?
        var placeholder = "[withheld]"
        if let grant {
            auth = AuthInfo(
                scheme: "bearer",
                subject: grant.clientEmail,
                detail: "project \(grant.projectID); scopes \(grant.scopes.joined(separator: " ")); token \(fingerprint(grant.token))"
            )
            placeholder = "Bearer [access token \(fingerprint(grant.token)) of \(grant.clientEmail); withheld]"
        } else if let token = GoogleBearer.token(in: request) {
            auth = AuthInfo(scheme: "bearer", detail: "unknown or expired token \(fingerprint(token))")
        }
        var status = 0
        var responseHeaders = HTTPHeaderList()
        var responseBody = RecordedBody.none
        switch reply.action {
        case .respond(let response):
            status = response.status
            responseHeaders = response.headers
            if !response.body.isEmpty {
                responseBody = RecordedBody(capturing: response.body)
            }
        default:
            break
        }
        return ExchangeRecord(
            timeMilliseconds: time.millisecondsSince1970,
            namespace: namespace,
            platform: platform,
            connection: connection.recordedConnection,
            streamID: request.streamID,
            request: RequestInfo(
                method: request.method,
                path: request.path,
                authority: request.authority,
                scheme: request.scheme,
                headers: recordedHeaders(request.headers, authorization: placeholder, on: connection),
                body: recordedBody,
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
