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
package indirect enum HTTPReplyBatch {
    case immediate([HTTPReply])
    case deferred(EventLoopFuture<[HTTPReply]>)
    /// The batch's replies, except that the requests `late` names (long polls, expectations
    /// with `within`) are answered when their own reply is ready; the batch's replies at
    /// those indices are placeholders and never sent. Over HTTP/2 every other stream is
    /// answered without waiting for them (one read may carry a 5-minute long poll and a push
    /// on another stream); HTTP/1.1 answers in order anyway.
    case withLateReplies(HTTPReplyBatch, late: [HTTPLateReply])

    /// Every reply once all are ready, in request order: what HTTP/1.1 needs.
    package func allReplies(on eventLoop: any EventLoop) -> EventLoopFuture<[HTTPReply]> {
        switch self {
        case .immediate(let replies):
            return eventLoop.makeSucceededFuture(replies)
        case .deferred(let future):
            return future
        case .withLateReplies(let batch, let late):
            let lateReplies = late.map(\.reply)
            let indices = late.map(\.index)
            return batch.allReplies(on: eventLoop).flatMap { replies in
                EventLoopFuture.whenAllSucceed(lateReplies, on: eventLoop).map { answers in
                    var replies = replies
                    for (index, answer) in zip(indices, answers) where replies.indices.contains(index) {
                        replies[index] = answer
                    }
                    return replies
                }
            }
        }
    }
}

/// A reply that comes later than the rest of its batch: `reply` answers `requests[index]`.
package struct HTTPLateReply {
    package var index: Int
    package var reply: EventLoopFuture<HTTPReply>

    package init(index: Int, reply: EventLoopFuture<HTTPReply>) {
        self.index = index
        self.reply = reply
    }
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
