import PushMockCore
import Testing

@testable import PushMockGateway

/// Routing compares the path's bytes: each service's paths, the edges of every prefix, query
/// strings, and the authority fallback for Google's hosts.
struct EndpointRoutingTests {
    @Test(
        "a request is routed by its path",
        arguments: [
            ("/3/device/abc", EndpointID.apnsDevice),
            ("/3/device", .apnsDevice),
            ("/3/device/abc?x=1", .apnsDevice),
            ("/3/devic", .unrouted),
            ("/3/", .unrouted),
            ("/v1/projects/p/messages:send", .fcmSend),
            ("/v1/", .fcmSend),
            ("/v1", .unrouted),
            ("/projects/p/messages:send", .fcmSend),
            ("/v1/projects/p/registrations/a:b/topicSubscriptions", .fcmTopicSubscriptions),
            ("/projects/p/registrations/a:b/topicSubscriptions/t?allow_missing=true", .fcmTopicSubscriptions),
            ("/v1/projects/p/registrations/", .fcmTopicSubscriptions),
            ("/v1/projects/p/registrations", .fcmSend),
            ("/v1/projects//registrations/a", .fcmSend),
            ("/v1/projects/p/q/registrations/a", .fcmSend),
            ("/v1/projects/p", .fcmSend),
            ("/v1/registrations/a", .fcmSend),
            ("/fcm/send", .fcmSend),
            ("/fcm/send/x", .unrouted),
            ("/batch", .fcmSend),
            ("/batch?x", .fcmSend),
            ("/batchx", .unrouted),
            ("/token", .oauthToken),
            ("/oauth2/v4/token", .oauthToken),
            ("/oauth2/v4/tokens", .unrouted),
            ("/--/api/v2/push/send", .expoSend),
            ("/--/api/v2/push/send?useFcmV1=true", .expoSend),
            ("/--/api/v2/push/sendx", .unrouted),
            ("/--/api/v2/push/getReceipts", .expoReceipts),
            ("/iid/v1:batchAdd", .iidTopics),
            ("/iid", .unrouted),
            ("/_pushmock/health", .control),
            ("/_pushmock", .control),
            ("/_pushmockx", .unrouted),
            ("/metrics", .metrics),
            ("/metrics?format=text", .metrics),
            ("/", .unrouted),
            ("", .unrouted),
            ("/é/3/device", .unrouted),
        ] as [(String, EndpointID)]
    )
    func byPath(path: String, expected: EndpointID) {
        #expect(EndpointID(routing: HTTPRequestMessage(method: "POST", path: path)) == expected)
    }

    @Test("the inbox is served only where asked, and Google's hosts take unknown paths to FCM")
    func inboxAndAuthority() {
        let root = HTTPRequestMessage(method: "GET", path: "/")
        #expect(EndpointID(routing: root, servesInbox: true) == .inbox)
        #expect(EndpointID(routing: root, servesInbox: false) == .unrouted)
        let google = HTTPRequestMessage(method: "POST", path: "/some/path", authority: "fcm.googleapis.com:443")
        #expect(EndpointID(routing: google) == .fcmSend)
        let other = HTTPRequestMessage(method: "POST", path: "/some/path", authority: "example.com")
        #expect(EndpointID(routing: other) == .unrouted)
    }
}
