public import NIOCore
public import PushMockCore

/// How one connection speaks HTTP.
public struct HTTPTransportProtocol: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, Hashable, Sendable {
        case h2
        case h2c
        case http11 = "http/1.1"
    }

    private let known: Known

    /// HTTP/2 over TLS (ALPN `h2`, or the preface sent without ALPN).
    public static let h2 = Self(known: .h2)
    /// HTTP/2 over cleartext with prior knowledge.
    public static let h2c = Self(known: .h2c)
    /// HTTP/1.1 (over TLS or cleartext).
    public static let http11 = Self(known: .http11)

    /// `h2`, `h2c` or `http/1.1`, as recorded.
    public var name: String { known.rawValue }
    public var description: String { known.rawValue }

    /// Whether this is HTTP/2.
    public var isHTTP2: Bool { known != .http11 }
}

/// The answer to a batch of requests: right away, or once something finishes — for example
/// the journal write that must reach the OS before any response goes out. `replies[i]`
/// answers `requests[i]`.
public enum HTTPReplyBatch {
    case immediate([HTTPReply])
    case deferred(EventLoopFuture<[HTTPReply]>)
}

/// The application side of one connection. Created by the pipeline once the protocol is known,
/// called only on the connection's event loop, never concurrently.
public protocol HTTPConnectionResponder: AnyObject {
    /// Answers every request that completed during one read cycle, in arrival order. Batching
    /// lets the gateway write one journal append (and at most one fsync) per batch.
    func respond(to requests: [HTTPRequestMessage]) -> HTTPReplyBatch

    /// The connection closed; no more calls follow.
    func connectionClosed()
}
