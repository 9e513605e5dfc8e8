import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One POST over a fresh HTTP/1.1 connection (TLS for `https`), closed afterwards. Webhooks are
/// rare next to pushes and receivers are often scripts, so a connection per attempt keeps the
/// client simple and never reuses a half-closed socket.
struct WebhookHTTPClient: Sendable {
    let group: any EventLoopGroup

    /// What a receiver answered.
    struct Answer: Sendable {
        var status: Int
        /// The first bytes of the body (for the attempt log).
        var bodyPrefix: String
    }

    /// Why an attempt got no answer.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    static let maximumKeptBodyBytes = 512

    func post(
        to target: WebhookTarget,
        headers extra: [(String, String)],
        body: [UInt8],
        timeout: Duration,
        verifyCertificate: Bool,
        trustedCertificates: [NIOSSLCertificate]
    ) async throws -> Answer {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.hostHeader)
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "User-Agent", value: "PushMock-Webhooks")
        for (name, value) in extra {
            headers.add(name: name, value: value)
        }
        let sslContext: NIOSSLContext?
        if target.isTLS {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = ["http/1.1"]
            if !verifyCertificate {
                configuration.certificateVerification = .none
            } else if !trustedCertificates.isEmpty {
                configuration.additionalTrustRoots = [.certificates(trustedCertificates)]
            }
            sslContext = try NIOSSLContext(configuration: configuration)
        } else {
            sslContext = nil
        }
        // Saturating: callers bound the timeout, but a trap here would take the gateway down.
        let (wholeNanoseconds, overflow) = timeout.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let timeAmount = TimeAmount.nanoseconds(overflow ? .max : wholeNanoseconds &+ timeout.components.attoseconds / 1_000_000_000)
        let eventLoop = group.next()
        let promise = eventLoop.makePromise(of: Answer.self)
        let serverName = target.host
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeAmount)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        let handler = try NIOSSLClientHandler(
                            context: sslContext,
                            serverHostname: Self.isIPAddress(serverName) ? nil : serverName
                        )
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
                }
            }
        let timeoutTask = eventLoop.scheduleTask(in: timeAmount) {
            promise.fail(Failure(description: "timed out after \(timeout)"))
        }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: target.host, port: target.port).get()
        } catch {
            timeoutTask.cancel()
            promise.fail(error)
            throw Failure(description: "cannot connect to \(target.hostHeader): \(error)")
        }
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: target.pathAndQuery, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { error in
            promise.fail(Failure(description: "cannot send: \(error)"))
        }
        do {
            let answer = try await promise.futureResult.get()
            timeoutTask.cancel()
            channel.close(promise: nil)
            return answer
        } catch {
            timeoutTask.cancel()
            channel.close(promise: nil)
            if let failure = error as? Failure { throw failure }
            throw Failure(description: "\(error)")
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}

/// Collects the status and the start of the body; completes at the end of the response, or
/// fails when the connection closes before it.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<WebhookHTTPClient.Answer>
    private var status: Int?
    private var body: [UInt8] = []

    init(promise: EventLoopPromise<WebhookHTTPClient.Answer>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(let buffer):
            let room = WebhookHTTPClient.maximumKeptBodyBytes - body.count
            if room > 0 { body.append(contentsOf: buffer.readableBytesView.prefix(room)) }
        case .end:
            promise.succeed(.init(status: status ?? 0, bodyPrefix: String(decoding: body, as: UTF8.self)))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(WebhookHTTPClient.Failure(description: "the receiver closed the connection before answering"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(WebhookHTTPClient.Failure(description: "\(error)"))
        context.close(promise: nil)
    }
}
