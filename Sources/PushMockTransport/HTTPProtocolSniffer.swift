package import NIOCore

/// Decides between HTTP/2 and HTTP/1.1 by looking at the first bytes a client sends.
///
/// Used on the cleartext listener (h2c with prior knowledge and HTTP/1.1 share one port) and
/// after a TLS handshake that negotiated no ALPN protocol: some real APNs clients send the
/// HTTP/2 connection preface straight after the handshake without offering `h2`.
package final class HTTPProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    /// What the client speaks.
    package enum Detected: Sendable {
        case http2
        case http1
    }

    /// The HTTP/2 client connection preface (RFC 9113 §3.4).
    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private let configure: (Detected, any Channel) throws -> Void
    private var buffered: ByteBuffer?
    private var decided = false

    /// - Parameter configure: adds the handlers for the detected protocol behind this one; it
    ///   runs on the event loop, and the bytes seen so far are replayed to them afterwards.
    package init(configure: @escaping (Detected, any Channel) throws -> Void) {
        self.configure = configure
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if decided {
            context.fireChannelRead(data)
            return
        }
        if buffered == nil {
            buffered = incoming
        } else {
            buffered!.writeBuffer(&incoming)
        }
        guard let verdict = Self.classify(buffered!) else { return }
        decide(verdict, context: context)
    }

    /// `nil` while the bytes so far are a prefix of the preface and too short to be sure.
    static func classify(_ buffer: ByteBuffer) -> Detected? {
        let count = min(buffer.readableBytes, preface.count)
        let matches = buffer.withUnsafeReadableBytes { bytes in
            bytes.prefix(count).elementsEqual(preface.prefix(count))
        }
        if !matches { return .http1 }
        return count == preface.count ? .http2 : nil
    }

    private func decide(_ verdict: Detected, context: ChannelHandlerContext) {
        decided = true
        do {
            try configure(verdict, context.channel)
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
            return
        }
        if let pending = buffered {
            buffered = nil
            context.fireChannelRead(wrapInboundOut(pending))
            context.fireChannelReadComplete()
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
