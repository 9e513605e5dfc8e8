import PushMockCore
import PushMockJSON

/// Renders notifications into ``PreparedRequest``s. Consecutive notifications with the same
/// headers (a bulk send) share one header list.
struct APNsRequestBuilder {
    let defaultTopic: String?
    private var last: (key: HeaderKey, headers: HTTPHeaderList, id: Int)?

    private struct HeaderKey: Equatable {
        var topic: String?
        var pushType: APNsPushType?
        var priority: APNsPriority?
        var expiration: APNsNotification.Expiration?
        var collapseID: String?
        var apnsID: String?
    }

    init(defaultTopic: String?) {
        self.defaultTopic = defaultTopic
    }

    mutating func request(for notification: APNsNotification) -> PreparedRequest {
        let key = HeaderKey(
            topic: notification.topic ?? defaultTopic,
            pushType: notification.pushType,
            priority: notification.priority,
            expiration: notification.expiration,
            collapseID: notification.collapseID,
            apnsID: notification.apnsID
        )
        let headers: HTTPHeaderList
        let id: Int
        if let last, last.key == key {
            headers = last.headers
            id = last.id
        } else {
            headers = Self.headers(key)
            id = PreparedRequest.newHeadersKey()
            last = (key, headers, id)
        }
        return PreparedRequest(
            recipient: notification.deviceToken,
            path: "/3/device/",
            pathSuffix: notification.deviceToken,
            headers: headers,
            headersKey: id,
            body: notification.payload
        )
    }

    private static func headers(_ key: HeaderKey) -> HTTPHeaderList {
        var headers = HTTPHeaderList(fields: 8, bytes: 160)
        if let topic = key.topic {
            headers.append(.apnsTopic, value: topic)
        }
        headers.append(.apnsPushType, value: (key.pushType ?? .alert).rawValue)
        if let priority = key.priority {
            headers.append(.apnsPriority, value: String(priority.rawValue))
        }
        if let expiration = key.expiration {
            headers.append(.apnsExpiration, value: String(expiration.secondsSince1970))
        }
        if let collapseID = key.collapseID {
            headers.append(.apnsCollapseID, value: collapseID)
        }
        if let apnsID = key.apnsID {
            headers.append(.apnsID, value: apnsID)
        }
        headers.append(.contentType, value: "application/json")
        return headers
    }
}

/// APNs: provider tokens per connection (or none with a client certificate), `/3/device/…`,
/// and the reason table.
struct APNsPlatform: DeliveryPlatform {
    /// `nil` with certificate authentication.
    let tokens: ProviderTokenSource?
    let retry: RetryPolicy

    func authorization(_ auth: inout ConnectionAuthState, now: Timestamp) -> AuthorizationHeader {
        guard let tokens else { return .none }
        do {
            return .value(try tokens.authorization(for: &auth.providerToken, now: now))
        } catch {
            return .failed(error)
        }
    }

    func classify(
        _ response: HTTPResponseMessage,
        auth: inout ConnectionAuthState,
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
            // Our token aged out (clock skew, or a long-idle connection): sign a fresh one —
            // unless this request carried an older token than the connection sends now (it was
            // in flight when the connection moved on): then it is only resent with the current
            // one, which replacing again would be a second update within 20 minutes.
            if authorization == nil || authorization == auth.providerToken?.header {
                tokens.invalidate(&auth.providerToken)
            }
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
}
