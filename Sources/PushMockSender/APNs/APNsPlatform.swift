import PushMockCore
import PushMockJSON

/// A notification rendered for the wire: the engine only adds `authorization`.
struct APNsPreparedRequest: Sendable {
    let deviceToken: String
    let path: String
    let headers: HTTPHeaderList
    let body: [UInt8]

    init(_ notification: APNsNotification, defaultTopic: String?) {
        self.deviceToken = notification.deviceToken
        self.path = "/3/device/" + notification.deviceToken
        var headers = HTTPHeaderList(fields: 8, bytes: 160)
        if let topic = notification.topic ?? defaultTopic {
            headers.append(name: "apns-topic", value: topic)
        }
        headers.append(name: "apns-push-type", value: (notification.pushType ?? .alert).rawValue)
        if let priority = notification.priority {
            headers.append(name: "apns-priority", value: String(priority.rawValue))
        }
        if let expiration = notification.expiration {
            headers.append(name: "apns-expiration", value: String(expiration.secondsSince1970))
        }
        if let collapseID = notification.collapseID {
            headers.append(name: "apns-collapse-id", value: collapseID)
        }
        if let apnsID = notification.apnsID {
            headers.append(name: "apns-id", value: apnsID)
        }
        headers.append(name: "content-type", value: "application/json")
        self.headers = headers
        self.body = notification.payload
    }
}

/// APNs: provider tokens per connection (or none with a client certificate), `/3/device/…`,
/// and the reason table.
struct APNsPlatform: DeliveryPlatform {
    typealias Message = APNsPreparedRequest
    typealias ConnectionAuth = ProviderTokenSource.ConnectionToken?

    /// `nil` with certificate authentication.
    let tokens: ProviderTokenSource?
    let retry: RetryPolicy

    func makeConnectionAuth() -> ConnectionAuth { nil }

    func authorization(_ auth: inout ConnectionAuth, now: Timestamp) -> AuthorizationHeader {
        guard let tokens else { return .none }
        do {
            return .value(try tokens.authorization(for: &auth, now: now))
        } catch {
            return .failed(error)
        }
    }

    func request(for message: APNsPreparedRequest, authorization: String?) -> HTTPRequestMessage {
        var headers = message.headers
        if let authorization {
            headers.append(name: "authorization", value: authorization)
        }
        return HTTPRequestMessage(method: "POST", path: message.path, headers: headers, body: message.body)
    }

    func classify(
        _ response: HTTPResponseMessage,
        message: APNsPreparedRequest,
        auth: inout ConnectionAuth,
        authorization: String?,
        now: Timestamp
    ) -> AttemptVerdict {
        if response.status == 200 {
            return .final(
                .accepted(
                    Acceptance(
                        id: response.headers.first(.apnsID) ?? "",
                        uniqueID: response.headers.first(.apnsUniqueID)
                    )
                )
            )
        }
        let body = try? JSONValue(parsing: response.body)
        let reason = body?["reason"]?.stringValue ?? "HTTP \(response.status)"
        let timestamp = body?["timestamp"]?.int64Value.map(Timestamp.init(millisecondsSince1970:))
        let status = response.status
        if status == 410 {
            return .final(.tokenInvalid(TokenInvalidation(status: status, reason: reason, timestamp: timestamp)))
        }
        let rejection = SendOutcome.rejected(Rejection(status: status, reason: reason))
        if status == 403, reason == APNsReason.expiredProviderToken.rawValue, let tokens {
            // Our token aged out (clock skew, or a long-idle connection): sign a fresh one.
            tokens.invalidate(&auth)
            return .refreshCredentials(fallback: rejection)
        }
        if retry.retryableStatuses.contains(status) {
            let retryAfter = response.headers.first(.retryAfter).flatMap { RetryAfter.parse($0, now: now) }
            return .retry(
                DeliveryFailure(
                    status: status,
                    reason: reason,
                    error: SenderError(.serverError, "APNs answered \(status) \(reason)")
                ),
                retryAfter: retryAfter
            )
        }
        return .final(rejection)
    }

    func verdict(forGoAwayReason reason: String) -> AttemptVerdict? {
        // A GOAWAY naming a certificate or request problem (BadCertificateEnvironment, …) is
        // final; Shutdown, IdleTimeout and the like mean "reconnect and retry".
        let known = APNsReason(rawValue: reason)
        guard let status = known.status, (400..<500).contains(status), known != .idleTimeout else { return nil }
        return .final(.rejected(Rejection(status: status, reason: reason, message: "sent in a GOAWAY frame")))
    }

    func refreshCredentials() async -> SenderError? {
        // Provider tokens are minted on the connection at the next request.
        nil
    }

    func recipient(of message: APNsPreparedRequest) -> String { message.deviceToken }
}
