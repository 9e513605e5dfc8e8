package import NIOCore
package import PushMockCore

/// How one connection speaks HTTP.
package struct HTTPTransportProtocol: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, Hashable, Sendable {
        case h2
        case h2c
        case http11 = "http/1.1"
    }

    private let known: Known

    /// HTTP/2 over TLS (ALPN `h2`, or the preface sent without ALPN).
    package static let h2 = Self(known: .h2)
    /// HTTP/2 over cleartext with prior knowledge.
    package static let h2c = Self(known: .h2c)
    /// HTTP/1.1 (over TLS or cleartext).
    package static let http11 = Self(known: .http11)

    /// `h2`, `h2c` or `http/1.1`, as recorded.
    package var name: String { known.rawValue }
    package var description: String { known.rawValue }

    /// Whether this is HTTP/2.
    package var isHTTP2: Bool { known != .http11 }
}

/// The answer to a batch of requests: right away, or once something finishes — for example
/// the journal write that must reach the OS before any response goes out. `replies[i]`
/// answers `requests[i]`.
package enum HTTPReplyBatch {
    case immediate([HTTPReply])
    case deferred(EventLoopFuture<[HTTPReply]>)
}

/// The application side of one connection. Created by the pipeline once the protocol is known,
/// called only on the connection's event loop, never concurrently.
package protocol HTTPConnectionResponder: AnyObject {
    /// Answers every request that completed during one read cycle, in arrival order. Batching
    /// lets the gateway write one journal append (and at most one fsync) per batch.
    ///
    /// The requests are the responder's to take apart (`consuming`): the gateway moves each
    /// one into its exchange instead of copying it.
    func respond(to requests: consuming [HTTPRequestMessage]) -> HTTPReplyBatch

    /// The connection closed; no more calls follow.
    func connectionClosed()
}
