package import NIOCore
import NIOHTTP1
import NIOTLS

/// Builds the protocol part of a server connection's pipeline, after TLS (if any).
///
/// - TLS: ALPN `h2` → HTTP/2; `http/1.1` → HTTP/1.1; no ALPN → sniff the first bytes.
/// - Cleartext: sniff (h2c prior knowledge, else HTTP/1.1).
package struct HTTPServerPipeline: Sendable {
    /// HTTP/2 settings.
    package var http2: HTTP2ServerConfiguration

    package init(http2: HTTP2ServerConfiguration = HTTP2ServerConfiguration()) {
        self.http2 = http2
    }

    /// The ALPN protocols the TLS listener offers, in preference order.
    package static let alpnProtocols = ["h2", "http/1.1"]

    /// Adds the ALPN handler for a TLS connection. `makeResponder` is called once the protocol
    /// is known (after the handshake, so it can inspect the client certificate).
    package func addTLSNegotiation(
        to channel: any Channel,
        makeResponder: @escaping (HTTPTransportProtocol, _ alpn: String?) -> any HTTPConnectionResponder
    ) throws {
        let http2 = self.http2
        let negotiation = ApplicationProtocolNegotiationHandler { result, channel in
            channel.eventLoop.makeCompletedFuture {
                switch result {
                case .negotiated("h2"):
                    try channel.pipeline.syncOperations.addHandler(
                        HTTP2ServerHandler(configuration: http2, responder: makeResponder(.h2, "h2"))
                    )
                case .negotiated(let other):
                    let alpn: String? = other
                    try Self.addHTTP1(to: channel, scheme: "https", http2: http2) {
                        makeResponder(.http11, alpn)
                    }
                case .fallback:
                    try channel.pipeline.syncOperations.addHandler(
                        HTTPProtocolSniffer { detected, channel in
                            try Self.add(detected, to: channel, scheme: "https", http2: http2) { transport in
                                makeResponder(transport, nil)
                            }
                        }
                    )
                }
            }
        }
        try channel.pipeline.syncOperations.addHandler(negotiation)
    }

    /// Adds the sniffer for a cleartext connection.
    package func addCleartextDetection(
        to channel: any Channel,
        makeResponder: @escaping (HTTPTransportProtocol) -> any HTTPConnectionResponder
    ) throws {
        let http2 = self.http2
        try channel.pipeline.syncOperations.addHandler(
            HTTPProtocolSniffer { detected, channel in
                try Self.add(detected, to: channel, scheme: "http", http2: http2) { transport in
                    makeResponder(transport == .h2 ? .h2c : transport)
                }
            }
        )
    }

    private static func add(
        _ detected: HTTPProtocolSniffer.Detected,
        to channel: any Channel,
        scheme: String,
        http2: HTTP2ServerConfiguration,
        makeResponder: (HTTPTransportProtocol) -> any HTTPConnectionResponder
    ) throws {
        switch detected {
        case .http2:
            try channel.pipeline.syncOperations.addHandler(
                HTTP2ServerHandler(configuration: http2, responder: makeResponder(.h2))
            )
        case .http1:
            try addHTTP1(to: channel, scheme: scheme, http2: http2) { makeResponder(.http11) }
        }
    }

    private static func addHTTP1(
        to channel: any Channel,
        scheme: String,
        http2: HTTP2ServerConfiguration,
        makeResponder: () -> any HTTPConnectionResponder
    ) throws {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            // HTTP1ServerHandler orders pipelined answers itself and keeps reading, so that a
            // client hanging up during a long poll is noticed.
            withPipeliningAssistance: false,
            // HTTP1ServerHandler answers framing errors itself, after the answers before them.
            withErrorHandling: false
        )
        try channel.pipeline.syncOperations.addHandler(
            HTTP1ServerHandler(
                responder: makeResponder(),
                scheme: scheme,
                maximumStoredBodyBytes: http2.maximumStoredBodyBytes,
                maximumHeaderListBytes: http2.maximumHeaderListBytes,
                bodyBudget: http2.bodyBudget
            )
        )
    }
}
