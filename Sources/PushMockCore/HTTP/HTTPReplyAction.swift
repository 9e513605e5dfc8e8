/// What the transport does for one request: a response, or one of the stream- and
/// connection-level behaviours real gateways show (RST_STREAM, GOAWAY with JSON debug data,
/// a dropped connection, no answer at all), optionally after a delay.
public struct HTTPReply: Sendable {
    /// The action.
    public enum Action: Sendable {
        /// Send this response.
        case respond(HTTPResponseMessage)
        /// Reset the stream with this error code (HTTP/1.1: close the connection).
        case resetStream(HTTP2ErrorCode)
        /// Send GOAWAY with this error code and debug data (APNs puts `{"reason":"…"}` there).
        /// `lastStreamID` `nil` means "the last stream this connection processed"; APNs uses 0
        /// for `BadCertificateEnvironment`. When `closeConnection` is set the connection closes
        /// once the frame is written. HTTP/1.1: the connection closes.
        case goAway(HTTP2ErrorCode, debugData: [UInt8], lastStreamID: Int32?, closeConnection: Bool)
        /// Close the connection without a word.
        case closeConnection
        /// Never answer; the client's timeout has to fire.
        case noResponse
        /// Send the head now and the body as it is produced (Server-Sent Events): chunked over
        /// HTTP/1.1, DATA frames over HTTP/2. The transport stops reading the body — which
        /// cancels its producer — when the stream or the connection closes.
        case stream(HTTPStreamingResponse)
    }

    /// What to do.
    public var action: Action
    /// Wait this long before acting (injected latency).
    public var delay: Duration?
    /// SETTINGS to send before acting (for example MAX_CONCURRENT_STREAMS 1).
    public var settings: [HTTP2Setting]

    public init(_ action: Action, delay: Duration? = nil, settings: [HTTP2Setting] = []) {
        self.action = action
        self.delay = delay
        self.settings = settings
    }

    /// A plain response.
    public static func respond(_ response: HTTPResponseMessage) -> HTTPReply {
        HTTPReply(.respond(response))
    }
}
