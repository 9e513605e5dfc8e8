public import PushMockCore

/// A request given exactly as it should go on the wire — path, headers and body bytes — for
/// callers that already have one (replaying a journal) rather than a notification to render.
///
/// The sender adds only `authorization` (a provider token or access token of its own
/// credentials); whatever `authorization` the headers carry is dropped, so recorded
/// credentials are never reused.
public struct WireRequest: Sendable, Hashable {
    /// `:path`, e.g. `/3/device/<token>` or `/v1/projects/<project>/messages:send`.
    public var path: String
    /// Headers to send as they are (no pseudo-headers, no `authorization`).
    public var headers: HTTPHeaderList
    /// The body bytes, sent unchanged.
    public var body: [UInt8]
    /// How results name the request (a device token, `topic:<name>`, …).
    public var recipient: String

    public init(path: String, headers: HTTPHeaderList, body: [UInt8], recipient: String) {
        self.path = path
        self.headers = headers
        self.body = body
        self.recipient = recipient
    }

    /// The request prepared for the engine: never with the caller's `authorization`.
    var prepared: PreparedRequest {
        PreparedRequest(
            recipient: recipient,
            path: path,
            headers: headers.firstIndex(of: HTTPFieldName("authorization")) == nil
                ? headers
                : HTTPHeaderList(headers.filter { $0.name.lowercased() != "authorization" }.map { ($0.name, $0.value) }),
            headersKey: PreparedRequest.newHeadersKey(),
            body: body
        )
    }
}

extension APNsSender {
    /// Sends a request as given (path, headers, body), authorised with this sender's
    /// credentials, with the sender's retries and outcome classification.
    public func send(wireRequest request: WireRequest) async -> SendResult {
        await engine.send(request.prepared)
    }
}

extension FCMSender {
    /// Sends a request as given (path, headers, body) with this sender's access token, with
    /// the sender's retries and outcome classification.
    public func send(wireRequest request: WireRequest) async -> SendResult {
        do {
            _ = try await accessTokens.token()
        } catch {
            return SendResult(
                recipient: request.recipient,
                outcome: .failed(DeliveryFailure(reason: "credentials", error: error)),
                attempts: 0,
                latency: .zero
            )
        }
        return await engine.send(request.prepared)
    }
}
