import PushMockGateway
import PushMockSender
import PushMockTesting
import Testing

/// A test process on a loaded CI machine can take longer than a real client's 10 s to finish a
/// TLS handshake; the harness's own clients wait as long as its gateway does.
@Suite("Harness connect timeouts")
struct HarnessConnectTimeoutTests {
    @Test("the harness's clients wait as long for a handshake as its gateway does")
    func harnessConnectTimeouts() async throws {
        try await withPushMock { mock in
            #expect(mock.clientConnectTimeout == .seconds(120))
            let apns = try mock.apnsSenderConfiguration()
            let fcm = try mock.fcmSenderConfiguration()
            #expect(apns.connection.connectTimeout == .seconds(120))
            #expect(fcm.connection.connectTimeout == .seconds(120))
            #expect(mock.expoSenderConfiguration().connectTimeout == .seconds(120))
            // Everything else keeps a real service's 10 s.
            #expect(ConnectionConfiguration().connectTimeout == .seconds(10))
            #expect(ExpoSenderConfiguration().connectTimeout == .seconds(10))
        }
        try await withPushMock(configure: { $0.connectionLimits.handshakeTimeout = .seconds(30) }) { mock in
            #expect(mock.clientConnectTimeout == .seconds(30))
        }
    }
}
