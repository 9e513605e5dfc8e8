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
        let path = request.pathWithoutQuery
        if path.hasPrefix("/3/device") {
            self = .apnsDevice
        } else if path.hasPrefix("/v1/") || path.hasPrefix("/projects/") || path == "/fcm/send" || path == "/batch" {
            self = .fcmSend
        } else if path == "/token" || path == "/oauth2/v4/token" {
            self = .oauthToken
        } else if path == ExpoSendEndpoint.path {
            self = .expoSend
        } else if path == ExpoReceiptsEndpoint.path {
            self = .expoReceipts
        } else if path.hasPrefix("/iid/") {
            self = .iidTopics
        } else if path.hasPrefix(Self.controlPrefix) || path == "/_pushmock" {
            self = .control
        } else if path == MetricsEndpoint.path {
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
