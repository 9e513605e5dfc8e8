import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PushMockCore
import PushMockTestSupport
import Testing

@testable import PushMockTransport

/// Echoes the request line and body length; `/reset` resets, `/goaway` sends GOAWAY.
final class EchoResponder: HTTPConnectionResponder {
    let transport: HTTPTransportProtocol
    init(transport: HTTPTransportProtocol) { self.transport = transport }

    func respond(to requests: consuming [HTTPRequestMessage]) -> HTTPReplyBatch {
        .immediate(
            requests.map { request in
                switch request.path {
                case "/reset": return HTTPReply(.resetStream(.refusedStream))
                case "/goaway":
                    return HTTPReply(
                        .goAway(.noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8), lastStreamID: 0, closeConnection: true))
                case "/slow": return HTTPReply(.respond(HTTPResponseMessage(status: 200)), delay: .milliseconds(50))
                default:
                    var headers = HTTPHeaderList()
                    headers.append(name: "x-transport", value: transport.name)
                    headers.append(name: "x-method", value: request.method)
                    headers.append(name: "x-path", value: request.path)
                    headers.append(name: "x-header-count", value: String(request.headers.count))
                    let body = Array("\(request.method) \(request.path) \(request.bodyByteCount)".utf8)
                    return .respond(HTTPResponseMessage(status: 200, headers: headers, body: body))
                }
            })
    }

    func connectionClosed() {}
}

func startCleartextServer() async throws -> any Channel {
    let pipeline = HTTPServerPipeline()
    return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try pipeline.addCleartextDetection(to: channel) { EchoResponder(transport: $0) }
            }
        }
        .bind(host: "127.0.0.1", port: 0).get()
}

@Suite("Transport round trips")
struct TransportRoundTripTests {
    @Test("our HTTP/2 client and server exchange requests over h2c")
    func h2cRoundTrip() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        var headers = HTTPHeaderList()
        headers.append(name: "apns-topic", value: "com.example")
        let response = try await client.send(
            HTTPRequestMessage(method: "POST", path: "/3/device/abc", headers: headers, body: Array("{}".utf8))
        )
        #expect(response.status == 200)
        #expect(response.headers.first(named: "x-transport") == "h2c")
        #expect(String(decoding: response.body, as: UTF8.self) == "POST /3/device/abc 2")

        // Many concurrent streams on one connection.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<500 {
                group.addTask {
                    try await client.send(HTTPRequestMessage(method: "POST", path: "/n/\(index)", body: [1, 2, 3])).status
                }
            }
            var count = 0
            for try await status in group {
                #expect(status == 200)
                count += 1
            }
            #expect(count == 500)
        }
        await client.close()
        try await server.close()
    }

    @Test("reset, delayed and GOAWAY replies reach the client")
    func resetAndGoAway() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        await #expect(throws: HTTP2ClientError(.streamReset(.refusedStream))) {
            _ = try await client.send(HTTPRequestMessage(method: "GET", path: "/reset"))
        }
        let slow = try await client.send(HTTPRequestMessage(method: "GET", path: "/slow"))
        #expect(slow.status == 200)
        do {
            _ = try await client.send(HTTPRequestMessage(method: "GET", path: "/goaway"))
            Issue.record("expected a GOAWAY error")
        } catch let error as HTTP2ClientError {
            guard case .goAway(let goAway) = error.kind else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(String(decoding: goAway.debugData, as: UTF8.self) == #"{"reason":"Shutdown"}"#)
            #expect(goAway.lastStreamID == 0)
        }
        await client.closeFuture()
        try await server.close()
    }

    @Test(
        "a HEAD answer never carries the body the responder produced",
        arguments: ["--http1.1", "--http2-prior-knowledge"]
    )
    func headHasNoBody(flag: String) async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        // Twice on one HTTP/1.1 connection: the framing must stay intact for the next request.
        // (curl 7.88 cannot reuse an h2c prior-knowledge connection at all — "Error in the HTTP2
        // framing layer" for GET too — so HTTP/2 sends one request.)
        let url = "http://127.0.0.1:\(port)/x"
        let urls = flag == "--http1.1" ? [url, url] : [url]
        let result = try await ChildProcess.run(
            "/usr/bin/curl", ["-s", "-S", "--head", flag, "--max-time", "120", "-w", "[%{http_code} %{size_download}]\n"] + urls)
        let (text, errorText) = (result.output, result.error)
        #expect(result.status == 0, "\(flag): \(errorText)")
        #expect(text.components(separatedBy: "[200 0]").count == urls.count + 1, "\(flag): \(text)")
        #expect(text.lowercased().contains("x-method: head"), "\(text)")
        #expect(!text.contains("HEAD /x"), "the body leaked: \(text)")
        try await server.close()
    }

    @Test("the HTTP/2 session submits HEAD answers without DATA")
    func headInSession() throws {
        let client = try NGHTTP2Session(role: .client, maximumStoredBodyBytes: 1 << 16)
        let server = try NGHTTP2Session(role: .server, maximumStoredBodyBytes: 1 << 16)
        try client.submitSettings([])
        try server.submitSettings([])
        _ = try client.submitRequest(method: "HEAD", path: "/h", scheme: "http", authority: "a", headers: HTTPHeaderList(), body: [])
        _ = try client.submitRequest(method: "GET", path: "/g", scheme: "http", authority: "a", headers: HTTPHeaderList(), body: [])
        try exchange(from: client, to: server)
        #expect(server.completed == [1, 3])
        for streamID in server.completed {
            _ = server.takeRequest(streamID: streamID)
            #expect(try server.submitResponse(streamID: streamID, status: 405, headers: HTTPHeaderList(), body: Array("body".utf8)))
        }
        server.completed.removeAll()
        #expect(server.bookkeeping.outboundBodies == 1, "only GET keeps a body to send")
        try exchange(from: server, to: client)
        #expect(client.inbound[1]?.status == 405)
        #expect(client.inbound[1]?.bodyByteCount == 0)
        #expect(client.inbound[1]?.isComplete == true)
        #expect(client.inbound[3]?.body == Array("body".utf8))
        #expect(
            server.bookkeeping
                == HTTP2StreamBookkeeping(inboundStreams: 0, outboundBodies: 0, completedStreams: 0, closedStreams: 2, delayedReplies: 0))
    }

    @Test("curl speaks HTTP/1.1 and h2c prior knowledge to the same port")
    func curlBothProtocols() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        for (flag, expected) in [("--http1.1", "http/1.1"), ("--http2-prior-knowledge", "h2c")] {
            let output = try await ChildProcess.run(
                "/usr/bin/curl", ["-s", "-i", flag, "-X", "POST", "-d", "hello", "http://127.0.0.1:\(port)/x"]
            )
            .output
            #expect(output.lowercased().contains("x-transport: \(expected)"), "\(flag): \(output)")
            #expect(output.hasSuffix("POST /x 5"))
        }
        try await server.close()
    }

    @Test("the connect timeout covers the TLS handshake: a server that accepts and stays silent fails the connect")
    func silentServerTimesOut() async throws {
        // Accepts TCP and reads the ClientHello into the void: no ServerHello ever comes.
        let accepted = NIOLockedValueBox<[any Channel]>([])
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.withLockedValue { $0.append(channel) }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        // Without the timeout the connect would wait for ever: after a minute, hang up, which
        // fails it with `connectionClosed` instead of `connectTimeout`.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            for channel in accepted.withLockedValue({ $0 }) { channel.close(promise: nil) }
        }
        defer { watchdog.cancel() }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.applicationProtocols = ["h2"]
        do {
            let client = try await HTTP2ClientConnection.connect(
                to: .init(host: "127.0.0.1", port: port, tls: tls, serverHostname: "localhost", connectTimeout: .milliseconds(300)))
            Issue.record("connected to a server that never answered the handshake")
            await client.close()
        } catch let error as ChannelError {
            #expect(error == .connectTimeout(.milliseconds(300)))
        } catch {
            Issue.record("expected the connect timeout, got \(error)")
        }
        try await silent.close()
    }
}

/// Moves everything `sender` wants to send into `receiver`.
func exchange(from sender: NGHTTP2Session, to receiver: NGHTTP2Session) throws {
    var buffer = ByteBufferAllocator().buffer(capacity: 4096)
    try sender.drainOutput(into: &buffer)
    try buffer.withUnsafeReadableBytes { try receiver.receive($0) }
}
