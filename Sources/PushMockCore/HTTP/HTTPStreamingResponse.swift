/// A response whose body is produced over time, such as a Server-Sent Events feed.
///
/// Public only because it is the payload of the public ``HTTPReply/Action``; the gateway is
/// its one producer. The body is an `AsyncStream` so the transport can consume it from one task
/// per stream and end it by cancelling that task (the stream's `onTermination` or the
/// unfolding closure's cancellation then releases whatever the producer waits on).
public struct HTTPStreamingResponse: Sendable {
    /// Status of the head.
    public var status: Int
    /// Headers of the head (no `content-length`: the length is not known).
    public var headers: HTTPHeaderList
    /// The body in chunks; the response ends when the sequence ends.
    public var body: AsyncStream<[UInt8]> {
        get { bodyReference.stream }
        set { bodyReference = BodyReference(newValue) }
    }

    /// The body behind a reference of our own. `AsyncStream` is a resilient standard-library
    /// type: stored inline, it left this struct, ``HTTPReply/Action`` and every value holding
    /// an ``HTTPReply`` without a layout known at compile time, so each copy, destroy and case
    /// test of any reply — on every request — went through the runtime's value witnesses.
    private var bodyReference: BodyReference

    private final class BodyReference: Sendable {
        let stream: AsyncStream<[UInt8]>
        init(_ stream: AsyncStream<[UInt8]>) { self.stream = stream }
    }

    public init(status: Int, headers: HTTPHeaderList, body: AsyncStream<[UInt8]>) {
        self.status = status
        self.headers = headers
        self.bodyReference = BodyReference(body)
    }
}
