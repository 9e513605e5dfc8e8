import PushMockGateway
import PushMockSender
import PushMockTesting
import Testing

/// A test process on a loaded CI machine can take longer than a real client's 10 s to finish a
/// TLS handshake, or 30 s to answer; the harness's own clients wait as long as its gateway does.
@Suite("Harness client timeouts")
struct HarnessClientTimeoutTests {
    @Test("the harness's clients wait as long for a handshake as its gateway does, and 2 minutes for an answer")
    func harnessClientTimeouts() async throws {
        try await withPushMock { mock in
            #expect(mock.clientConnectTimeout == .seconds(120))
            let apns = try mock.apnsSenderConfiguration()
            let fcm = try mock.fcmSenderConfiguration()
            #expect(apns.connection.connectTimeout == .seconds(120))
            #expect(fcm.connection.connectTimeout == .seconds(120))
            #expect(mock.expoSenderConfiguration().connectTimeout == .seconds(120))
            // And each request gets 2 minutes: a late answer must not become a retry.
            #expect(apns.connection.requestTimeout == .seconds(120))
            #expect(fcm.connection.requestTimeout == .seconds(120))
            #expect(mock.expoSenderConfiguration().requestTimeout == .seconds(120))
            // Everything else keeps a real service's 10 s.
            #expect(ConnectionConfiguration().connectTimeout == .seconds(10))
            #expect(ExpoSenderConfiguration().connectTimeout == .seconds(10))
            #expect(ConnectionConfiguration().requestTimeout == .seconds(30))
            #expect(ExpoSenderConfiguration().requestTimeout == .seconds(30))
        }
        try await withPushMock(configure: { $0.connectionLimits.handshakeTimeout = .seconds(30) }) { mock in
            #expect(mock.clientConnectTimeout == .seconds(30))
        }
    }
}
