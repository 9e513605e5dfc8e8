import Glibc
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import PushMockTransport

@Suite("Connect failures in words")
struct ConnectFailureTextTests {
    @Test(
        "system errors read as strerror, in lower case",
        arguments: [
            (ECONNREFUSED, "connection refused"), (ETIMEDOUT, "connection timed out"), (EHOSTUNREACH, "no route to host"),
            (ENETUNREACH, "network is unreachable"),
        ])
    func systemErrors(code: CInt, text: String) {
        #expect(ConnectFailureText.describe(IOError(errnoCode: code, reason: "connect")) == text)
    }

    @Test(
        "the connect timeout says how long",
        arguments: [(TimeAmount.seconds(10), "timed out after 10 s"), (.milliseconds(250), "timed out after 250 ms")])
    func connectTimeout(amount: TimeAmount, text: String) {
        #expect(ConnectFailureText.describe(ChannelError.connectTimeout(amount)) == text)
        #expect(ConnectFailureText.isConnectFailure(ChannelError.connectTimeout(amount)))
    }

    @Test("TLS failures in words: a certificate for another name, a connection closed without close_notify")
    func tlsFailures() {
        #expect(
            ConnectFailureText.describe(NIOSSLExtraError.failedToValidateHostname)
                == "the server's TLS certificate is not for this host name")
        #expect(ConnectFailureText.describe(NIOSSLError.uncleanShutdown) == "the server closed the TLS connection")
    }

    @Test("anything else keeps its own description, and is not taken for a connect failure")
    func otherErrors() {
        #expect(ConnectFailureText.describe(ChannelError.ioOnClosedChannel) == "\(ChannelError.ioOnClosedChannel)")
        #expect(!ConnectFailureText.isConnectFailure(ChannelError.ioOnClosedChannel))
        #expect(!ConnectFailureText.isConnectFailure(HTTP2ClientError(.connectionClosed)))
    }

    /// The error NIO really throws: `NIOConnectionError`, one failure per address tried.
    @Test("nothing listening: a real connect attempt reads \"connection refused\"")
    func refused() async throws {
        // A port that was free a moment ago: bind, note it, close. Another test running in
        // parallel may take the same port in between (a clean-clone run saw "something
        // accepted"), so a port that accepts is a race to try again, not the behaviour under test.
        var accepted: [Int] = []
        for _ in 0..<5 {
            let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0).get()
            let port = try #require(listener.localAddress?.port)
            try await listener.close()
            do {
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: port).get()
                try await channel.close()
                accepted.append(port)
                continue
            } catch {
                #expect(error is NIOConnectionError, "\(error)")
                #expect(ConnectFailureText.isConnectFailure(error))
                #expect(ConnectFailureText.describe(error) == "connection refused", "\(error)")
                return
            }
        }
        Issue.record("something accepted on each of \(accepted)")
    }
}
