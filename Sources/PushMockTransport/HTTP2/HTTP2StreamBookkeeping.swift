/// Sizes of the per-stream structures of one HTTP/2 server connection, for tests and
/// diagnostics: every one of them is released as its stream closes, so a connection that has
/// no stream open reports all zeros however many streams it has carried.
package struct HTTP2StreamBookkeeping: Hashable, Sendable, CustomStringConvertible {
    /// Streams with request state (headers, body, or a request waiting for its reply).
    package var inboundStreams: Int
    /// Response bodies not yet fully handed to libnghttp2.
    package var outboundBodies: Int
    /// Streams whose request completed but was not yet handed to the responder.
    package var completedStreams: Int
    /// Stream closures not yet processed by the handler.
    package var closedStreams: Int
    /// Replies waiting for their delay (fault latency) to elapse.
    package var delayedReplies: Int
    /// Streamed responses (Server-Sent Events) whose producer is still running.
    package var streamProducers: Int
    /// Stream structures libnghttp2 itself still keeps among the last 1,024 client streams
    /// (closed streams retained for RFC 7540 priorities would show here).
    package var libraryStreams: Int

    package init(
        inboundStreams: Int,
        outboundBodies: Int,
        completedStreams: Int,
        closedStreams: Int,
        delayedReplies: Int,
        streamProducers: Int = 0,
        libraryStreams: Int = 0
    ) {
        self.inboundStreams = inboundStreams
        self.outboundBodies = outboundBodies
        self.completedStreams = completedStreams
        self.closedStreams = closedStreams
        self.delayedReplies = delayedReplies
        self.streamProducers = streamProducers
        self.libraryStreams = libraryStreams
    }

    /// Nothing is held for any stream.
    package static let empty = Self(inboundStreams: 0, outboundBodies: 0, completedStreams: 0, closedStreams: 0, delayedReplies: 0)

    package var description: String {
        "inbound \(inboundStreams), outbound \(outboundBodies), completed \(completedStreams), closed \(closedStreams), delayed \(delayedReplies), streams \(streamProducers), libnghttp2 \(libraryStreams)"
    }
}
