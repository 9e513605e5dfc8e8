import PushMockCore

/// Which endpoint a request goes to, by path (and, for Google's hosts, authority). All services
/// share one port, as they share a process. Decided once per request, before parsing.
enum EndpointID: Hashable {
    /// `/3/device/…`: the APNs provider API.
    case apnsDevice
    /// `/v1/projects/…`, `/projects/…`, and the retired legacy `/fcm/send` and `/batch`: FCM.
    case fcmSend
    /// `/token`, `/oauth2/v4/token`: Google's OAuth2 token endpoint.
    case oauthToken
    /// `/iid/…`: the Instance ID topic API.
    case iidTopics
    /// `/--/api/v2/push/send`: the Expo push service.
    case expoSend
    /// `/--/api/v2/push/getReceipts`: Expo push receipts.
    case expoReceipts
    /// `/_pushmock/…`: the control API (not recorded).
    case control
    /// `GET /` and the inbox's files, on a listener that serves the web inbox (not recorded).
    case inbox
    /// `/metrics`: the gateway's Prometheus series (not recorded).
    case metrics
    /// Anything else: APNs answers 404 BadPath (Google hosts get Google's 404).
    case unrouted

    static let controlPrefix = "/_pushmock/"

    /// `servesInbox`: whether the connection's listener serves the web inbox (the cleartext
    /// listener and `--inbox-port`; never the TLS listeners, where `/` is APNs's `BadPath`).
    init(routing request: HTTPRequestMessage, servesInbox: Bool = false) {
        // Compared as bytes: `Substring.hasPrefix` compares Characters, and this runs for every
        // request.
        let path = request.pathWithoutQuery.utf8
        func starts(_ prefix: StaticString) -> Bool { prefix.withUTF8Buffer { path.starts(with: $0) } }
        func equals(_ other: StaticString) -> Bool { other.withUTF8Buffer { path.elementsEqual($0) } }
        if starts("/3/device") {
            self = .apnsDevice
        } else if starts("/v1/") || starts("/projects/") || equals("/fcm/send") || equals("/batch") {
            self = .fcmSend
        } else if equals("/token") || equals("/oauth2/v4/token") {
            self = .oauthToken
        } else if path.elementsEqual(ExpoSendEndpoint.path.utf8) {
            self = .expoSend
        } else if path.elementsEqual(ExpoReceiptsEndpoint.path.utf8) {
            self = .expoReceipts
        } else if starts("/iid/") {
            self = .iidTopics
        } else if path.starts(with: Self.controlPrefix.utf8) || equals("/_pushmock") {
            self = .control
        } else if path.elementsEqual(MetricsEndpoint.path.utf8) {
            self = .metrics
        } else if servesInbox, InboxEndpoint.serves(request) {
            self = .inbox
        } else if let authority = request.authority, Self.isGoogleHost(authority) {
            self = .fcmSend
        } else {
            self = .unrouted
        }
    }

    static func isGoogleHost(_ authority: String) -> Bool {
        let host = authority.split(separator: ":").first.map(String.init)?.lowercased() ?? ""
        return host.hasSuffix(".googleapis.com")
    }
}
