import CNGHTTP2
import NIOCore
public import PushMockCore

/// An error reported by libnghttp2, with the library's own message.
package struct NGHTTP2Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// The library error code (`NGHTTP2_ERR_*`, negative).
    package let code: Int32
    /// What we were doing.
    package let operation: String

    init(_ code: Int, _ operation: String) {
        self.code = Int32(truncatingIfNeeded: code)
        self.operation = operation
    }

    package var description: String {
        "\(operation) failed: \(String(cString: nghttp2_strerror(code))) (\(code))"
    }
}

/// One inbound message (a request on a server session, a response on a client session) being
/// assembled from HEADERS and DATA frames.
///
/// A small final class rather than a struct: the per-stream state is mutated from several
/// callbacks and moved around in a dictionary; a struct with several reference-counted fields
/// was measurably more expensive here (every move retains field by field).
///
/// Its fields, ``OutboundBody``'s and the session's stream tables are not checked for
/// exclusive access at run time (`@exclusivity(unchecked)`): each is confined to one event
/// loop, and no access to them calls anything that could reach the same field (table and
/// array operations, plain assignments). The checks (a thread-local access set, entered and
/// left per access) ran several times per frame callback: 4.6 % of a bulk send's CPU against
/// nghttpd, 0.85 % after (`Benchmarks/README.md`, eighteenth session).
final class InboundStream {
    @exclusivity(unchecked) var method: String?
    @exclusivity(unchecked) var path: String?
    @exclusivity(unchecked) var authority: String?
    @exclusivity(unchecked) var scheme: String?
    @exclusivity(unchecked) var status: Int?
    @exclusivity(unchecked) var headers = HTTPHeaderList()
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var bodyByteCount = 0
    @exclusivity(unchecked) var isComplete = false
    /// Set when the stream was refused (header list too large, body budget exhausted): what
    /// still arrives for it is discarded.
    @exclusivity(unchecked) var isRefused = false
    /// Set once the application has taken the message; the entry stays until the stream
    /// closes so that a response can still be sent.
    @exclusivity(unchecked) var isDelivered = false

    init() {}

    /// Back to the state of a new stream, for reuse by the next stream of the connection
    /// (see ``NGHTTP2Session/recycle(_:)``). Every stored property is reset here.
    func reset() {
        method = nil
        path = nil
        authority = nil
        scheme = nil
        status = nil
        headers = HTTPHeaderList()
        body = []
        bodyByteCount = 0
        isComplete = false
        isRefused = false
        isDelivered = false
    }
}

/// The outbound body of a stream, read by libnghttp2 through the data provider callback,
/// possibly across several `mem_send` calls when flow control holds it back.
final class OutboundBody {
    @exclusivity(unchecked) var bytes: [UInt8]
    @exclusivity(unchecked) var offset = 0
    /// A streamed body (Server-Sent Events) that more bytes may still join: once everything
    /// queued is sent, the data provider defers instead of ending the stream, and
    /// ``NGHTTP2Session/appendToStreamedBody(streamID:_:)`` resumes it.
    @exclusivity(unchecked) var isOpen: Bool

    init(_ bytes: [UInt8], isOpen: Bool = false) {
        self.bytes = bytes
        self.isOpen = isOpen
    }

    /// Bytes queued but not yet handed to libnghttp2.
    var pendingByteCount: Int { bytes.count - offset }
}

/// A GOAWAY frame received from the peer (what a client sees of a server's GOAWAY).
public struct ReceivedGoAway: Sendable, Hashable {
    public var lastStreamID: Int32
    public var errorCode: HTTP2ErrorCode
    public var debugData: [UInt8]
}

/// Owns exactly one `nghttp2_session` and everything libnghttp2 lends it through callbacks.
///
/// Threading: not `Sendable`. The owning channel handler creates it, calls it only on its
/// channel's event loop, and deletes it in `handlerRemoved`. libnghttp2 invokes the callbacks
/// only from inside `receive(_:)` and `drainOutput(into:)`, i.e. synchronously on that loop, so
/// the unretained `user_data` pointer back to this object is always valid when used.
///
/// Lifetimes: header names/values and DATA chunks are copied inside the callback that lends
/// them; the pointer `mem_send` returns is copied before the next call; the name/value arrays
/// passed to `submit_*` live only for the duration of that call (libnghttp2 copies them).
final class NGHTTP2Session {
    enum Role {
        case server
        case client
    }

    let role: Role
    /// libnghttp2's session. `nil` only during `init` and after `close()`.
    private var session: OpaquePointer?
    /// Messages being received, by stream. (This and the three below: unchecked for the
    /// reason ``InboundStream`` gives.)
    @exclusivity(unchecked) var inbound = StreamTable<InboundStream>()
    /// Stream structures of closed streams, reset, for the next streams: allocating one per
    /// stream and freeing it at close was a `malloc`, a `free` and an object's set-up and
    /// tear-down per request. Bounded by ``maximumSpareStreams``.
    @exclusivity(unchecked) private var spareStreams: [InboundStream] = []
    private static let maximumSpareStreams = 128
    /// Streams whose inbound message completed since the application last looked, in order.
    @exclusivity(unchecked) var completed: [Int32] = []
    /// Streams closed since the application last looked, with the RST_STREAM/GOAWAY code.
    @exclusivity(unchecked) var closed: [(streamID: Int32, errorCode: UInt32)] = []
    /// Bodies being sent, by stream.
    @exclusivity(unchecked) var outbound = StreamTable<OutboundBody>()
    /// Streams the peer reset with RST_STREAM, until the application handles their close (the
    /// client tells a server's reset from one libnghttp2 made itself over a malformed response).
    var peerResetStreams: Set<Int32> = []
    /// The last GOAWAY the peer sent.
    var receivedGoAway: ReceivedGoAway?
    /// Whether the peer's SETTINGS changed since the application last looked.
    var remoteSettingsChanged = false
    /// PING ACKs received since the application last looked.
    var pingAcknowledgements = 0
    /// What the connection may hold of inbound messages.
    let limits: InboundLimits
    /// How many inbound body bytes are stored per stream; the rest is only counted.
    var maximumStoredBodyBytes: Int { limits.maximumStoredBodyBytes }
    /// Body bytes stored across all streams right now (reserved from the server budget too).
    private(set) var storedBodyBytes = 0
    /// Streams whose header list exceeded the limit since the application last looked: the
    /// server answers them 431 without handing them over.
    var oversizedHeaderStreams: [Int32] = []

    /// The header block being received. HTTP/2 never interleaves header blocks (a HEADERS
    /// frame and its CONTINUATIONs are contiguous), so one is enough; collecting it here keeps
    /// the per-field callback free of dictionary lookups and reference counting.
    ///
    /// One stored property, changed only through its own methods, whose accesses are not
    /// checked at run time: every access is a call to a `HeaderBlock` method, which calls
    /// nothing that could reach the session, so no two can overlap. The dynamic check (a
    /// thread-local access set) ran once per header field of every message, ≈ 0.7 % of a
    /// bulk send's CPU.
    @exclusivity(unchecked) private var block = HeaderBlock()

    /// Names of header fields this side sends whose values are new in every message
    /// (``HTTP2ServerConfiguration/perMessageValueHeaders``, ``HTTP2ClientHandler/perMessageValueHeaders``;
    /// at most 64).
    private let perMessageValueNames: [HTTPFieldName]
    /// Bit `i` set: a field named `perMessageValueNames[i]` was sent indexed on this connection.
    private var perMessageNamesSentIndexed: UInt64 = 0

    init(
        role: Role,
        limits: InboundLimits,
        peerMaxConcurrentStreams: UInt32? = nil,
        perMessageValueNames: [HTTPFieldName] = []
    ) throws {
        self.role = role
        self.limits = limits
        self.perMessageValueNames = Array(perMessageValueNames.prefix(64))

        var option: OpaquePointer?
        let optionResult = nghttp2_option_new(&option)
        guard optionResult == 0, let option else {
            throw NGHTTP2Error(Int(optionResult), "nghttp2_option_new")
        }
        defer { nghttp2_option_del(option) }
        // libnghttp2 1.52 keeps up to MAX_CONCURRENT_STREAMS closed streams in its stream map
        // for the RFC 7540 priority tree, which RFC 9113 deprecated and APNs ignores; later
        // libnghttp2 releases dropped the retention altogether. Kept, they filled each
        // connection's stream map with up to a thousand stale entries, and its lookups missed
        // the cache (`nghttp2_map_find`: 1.4 % of the default server's samples, 0.3 % without).
        nghttp2_option_set_no_closed_streams(option, 1)
        if let peerMaxConcurrentStreams {
            // Until the server's SETTINGS arrive, assume this many streams (RFC default: unlimited).
            nghttp2_option_set_peer_max_concurrent_streams(option, peerMaxConcurrentStreams)
        }

        var created: OpaquePointer?
        let userData = Unmanaged.passUnretained(self).toOpaque()
        let result: Int32
        switch role {
        case .server:
            result = nghttp2_session_server_new2(&created, NGHTTP2Callbacks.shared, userData, option)
        case .client:
            result = nghttp2_session_client_new2(&created, NGHTTP2Callbacks.shared, userData, option)
        }
        guard result == 0, let created else {
            throw NGHTTP2Error(Int(result), "nghttp2_session_new")
        }
        self.session = created
    }

    /// A session with the default limits and `maximumStoredBodyBytes` per message (tests).
    convenience init(role: Role, maximumStoredBodyBytes: Int, peerMaxConcurrentStreams: UInt32? = nil) throws {
        var limits = role == .client ? HTTP2ClientHandler.responseLimits : InboundLimits()
        limits.maximumStoredBodyBytes = maximumStoredBodyBytes
        try self.init(role: role, limits: limits, peerMaxConcurrentStreams: peerMaxConcurrentStreams)
    }

    deinit {
        if let session {
            nghttp2_session_del(session)
        }
    }

    /// Deletes the libnghttp2 session and every per-stream structure (`nghttp2_session_del`
    /// does not report streams still open). Safe to call more than once.
    func close() {
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
        inbound.removeAll()
        spareStreams.removeAll()
        outbound.removeAll()
        completed.removeAll()
        closed.removeAll()
        oversizedHeaderStreams.removeAll()
        releaseAllBodyBytes()
        block = HeaderBlock()
    }

    // MARK: Body storage

    /// Stores up to `length` bytes of a DATA chunk for `stream` within every cap. Returns the
    /// error code to reset the stream with when a connection or server cap is reached.
    func storeBody(_ data: UnsafePointer<UInt8>, length: Int, in stream: InboundStream) -> HTTP2ErrorCode? {
        let count = min(maximumStoredBodyBytes - stream.body.count, length)
        guard count > 0 else { return nil }
        guard storedBodyBytes + count <= limits.maximumBufferedBodyBytesPerConnection else { return .enhanceYourCalm }
        if let budget = limits.serverBudget, !budget.reserve(count) { return .refusedStream }
        storedBodyBytes += count
        // Copy now: the chunk is valid only during this callback.
        stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        return nil
    }

    /// Keeps a closed stream's structure for the next stream. Called once the stream has left
    /// ``inbound`` and its body was released; nothing else holds stream structures across
    /// libnghttp2 calls.
    func recycle(_ stream: InboundStream) {
        guard spareStreams.count < Self.maximumSpareStreams else { return }
        stream.reset()
        spareStreams.append(stream)
    }

    /// Gives back what `stream` holds of the connection's and the server's body budgets.
    func releaseBody(of stream: InboundStream) {
        let count = stream.body.count
        guard count > 0 else { return }
        stream.body = []
        storedBodyBytes -= count
        limits.serverBudget?.release(count)
    }

    private func releaseAllBodyBytes() {
        limits.serverBudget?.release(storedBodyBytes)
        storedBodyBytes = 0
    }

    /// Resets `stream` and forgets what it holds; later frames for it are discarded.
    func refuse(_ streamID: Int32, _ stream: InboundStream, with code: HTTP2ErrorCode) {
        stream.isRefused = true
        stream.isComplete = true
        stream.isDelivered = true
        releaseBody(of: stream)
        // A failure to queue the reset is not fatal for the connection; the stream's entry
        // still goes when the peer's frames close it.
        try? submitReset(streamID: streamID, errorCode: code)
    }

    /// How many entries the per-stream structures hold right now; all of them shrink back as
    /// streams close, so on an idle connection every count is zero.
    var bookkeeping: HTTP2StreamBookkeeping {
        HTTP2StreamBookkeeping(
            inboundStreams: inbound.count,
            outboundBodies: outbound.count,
            completedStreams: completed.count,
            closedStreams: closed.count,
            delayedReplies: 0,
            libraryStreams: libraryStreamCount(amongLast: 1024)
        )
    }

    /// How many of the peer's last `count` streams libnghttp2 still keeps a structure for.
    /// There is no counting call in its API, so this looks each stream ID up (tests and
    /// diagnostics only).
    private func libraryStreamCount(amongLast count: Int32) -> Int {
        guard let session else { return 0 }
        var streamID = nghttp2_session_get_last_proc_stream_id(session)
        var held = 0
        var looked: Int32 = 0
        while streamID > 0, looked < count {
            if nghttp2_session_find_stream(session, streamID) != nil { held += 1 }
            streamID -= 2
            looked += 1
        }
        return held
    }

    var isOpen: Bool { session != nil }

    // MARK: Input and output

    /// Feeds received bytes. Callbacks run inside this call and fill ``inbound``,
    /// ``completed``, ``closed``. Throws on a fatal error (e.g. a bad client preface); on a
    /// protocol error libnghttp2 queues a GOAWAY itself, so drain the output and close.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(NGHTTP2Error) {
        guard let session, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let consumed = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if consumed < 0 {
            throw NGHTTP2Error(consumed, "nghttp2_session_mem_recv")
        }
    }

    /// Serialises every frame libnghttp2 wants to send into `output`.
    func drainOutput(into output: inout ByteBuffer) throws(NGHTTP2Error) {
        guard let session else { return }
        while true {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 {
                throw NGHTTP2Error(length, "nghttp2_session_mem_send")
            }
            guard length > 0, let chunk else { return }
            // The chunk is valid only until the next mem_send: copy now.
            output.writeBytes(UnsafeRawBufferPointer(start: chunk, count: length))
        }
    }

    /// Whether the session still wants to read or write; when neither, the connection can close.
    var wantsIO: Bool {
        guard let session else { return false }
        return nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    /// The highest stream ID the session has processed (for GOAWAY).
    var lastProcessedStreamID: Int32 {
        guard let session else { return 0 }
        return nghttp2_session_get_last_proc_stream_id(session)
    }

    /// A SETTINGS value the peer announced (e.g. MAX_CONCURRENT_STREAMS).
    func remoteSetting(_ identifier: UInt16) -> UInt32 {
        guard let session else { return 0 }
        return nghttp2_session_get_remote_settings(session, nghttp2_settings_id(rawValue: UInt32(identifier)))
    }

    // MARK: Header blocks

    func beginHeaderBlock(streamID: Int32, category: nghttp2_headers_category) {
        let isTrailer: Bool
        switch role {
        case .server:
            // Trailers (a second HEADERS block) are not part of any push API; ignore them.
            isTrailer = category != NGHTTP2_HCAT_REQUEST
        case .client:
            // Headers after a final response are trailers.
            isTrailer = category == NGHTTP2_HCAT_HEADERS && (inbound[streamID]?.status.map { $0 >= 200 } ?? false)
        }
        block.begin(streamID: streamID, isTrailer: isTrailer)
    }

    func appendToHeaderBlock(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        block.append(streamID: streamID, name: name, value: value, limit: limits.maximumHeaderListBytes)
    }

    /// Moves the finished block into its stream.
    func endHeaderBlock(streamID: Int32) {
        guard var finished = block.end(streamID: streamID) else { return }
        let stream: InboundStream
        if let existing = inbound[streamID] {
            stream = existing
        } else if role == .server {
            stream = spareStreams.popLast() ?? InboundStream()
            inbound[streamID] = stream
        } else {
            return
        }
        stream.method = finished.method
        if finished.size > limits.maximumHeaderListBytes {
            if role == .server {
                // Answered 431 by the server (what nghttpx does); the body is discarded.
                stream.isRefused = true
                stream.isComplete = true
                stream.isDelivered = true
                oversizedHeaderStreams.append(streamID)
            } else {
                // A response keeps its status; its oversized headers are dropped.
                stream.status = finished.status
                stream.headers = HTTPHeaderList()
            }
            return
        }
        stream.path = finished.path
        stream.authority = finished.authority
        stream.scheme = finished.scheme
        stream.status = finished.status
        stream.headers = finished.takeHeaders()
    }

    // MARK: Submitting frames

    /// Queues SETTINGS.
    func submitSettings(_ settings: [HTTP2Setting]) throws(NGHTTP2Error) {
        guard let session else { return }
        var entries = settings.map {
            nghttp2_settings_entry(settings_id: Int32($0.identifier), value: $0.value)
        }
        let result = entries.withUnsafeMutableBufferPointer { buffer in
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), buffer.baseAddress, buffer.count)
        }
        try check(result, "nghttp2_submit_settings")
    }

    /// Queues a response on `streamID`: HEADERS with END_STREAM when `body` is empty (what APNs
    /// sends on success), else HEADERS followed by DATA. The answer to a `HEAD` request never
    /// carries DATA, whatever `body` holds (RFC 9110 §9.3.2; HTTP/2 clients treat DATA there
    /// as a protocol error). Returns `false` (without throwing) when the stream is gone — the
    /// client reset it — which is not an error of ours.
    @discardableResult
    func submitResponse(streamID: Int32, status: Int, headers: HTTPHeaderList, body: [UInt8]) throws(NGHTTP2Error) -> Bool {
        guard let session, let stream = inbound[streamID] else { return false }
        let body = stream.method == "HEAD" ? [] : body
        let statusBytes = HTTPStatusBytes.bytes(for: status)
        let result: Int32 = NGHTTP2HeaderBlock.withNameValues(
            firstName: HTTPStatusBytes.statusName,
            firstValue: statusBytes,
            headers: headers,
            flags: { indexingFlags(of: headers, at: $0) }
        ) { nameValues, count in
            if body.isEmpty {
                return nghttp2_submit_response(session, streamID, nameValues, count, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: NGHTTP2Callbacks.readOutboundBody
            )
            return nghttp2_submit_response(session, streamID, nameValues, count, &provider)
        }
        if result == NGHTTP2_ERR_DATA_EXIST.rawValue {
            // A response is already queued on this stream; it will close the stream.
            return false
        }
        if result < 0, nghttp2_is_fatal(result) == 0 {
            // The stream is open (its entry is still here) but cannot carry this response: reset
            // it, or it and its entry would stay until the connection closes.
            try submitReset(streamID: streamID, errorCode: .internalError)
            return false
        }
        try check(result, "nghttp2_submit_response")
        if !body.isEmpty {
            outbound[streamID] = OutboundBody(body)
        }
        return true
    }

    /// How field `index` of an outgoing header block is to be encoded (`NGHTTP2_NV_FLAG_*`).
    ///
    /// A field whose value is new in every message (an `apns-id`, in a response or in a
    /// request that sets one) is sent as a never-indexed literal: indexing it would add an
    /// entry to both sides' HPACK dynamic tables per message, evicting older ones, with no
    /// chance of reuse: ≈ 5 % of the gateway's
    /// throughput (`Benchmarks/README.md`, twenty-second session). The first such field of
    /// each name on a connection is indexed normally, so its *name* is in the peer's table and
    /// later literals refer to it by index instead of spelling it out. Should the entry be
    /// evicted later, libnghttp2 spells the name out again: the encoding stays correct either way.
    private func indexingFlags(of headers: HTTPHeaderList, at index: Int) -> UInt8 {
        for position in perMessageValueNames.indices where headers.nameEquals(index, perMessageValueNames[position]) {
            let bit: UInt64 = 1 << UInt64(position)
            guard perMessageNamesSentIndexed & bit != 0 else {
                perMessageNamesSentIndexed |= bit
                return UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
            }
            return UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        }
        return UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
    }

    /// Queues the head of a streamed response on `streamID`; its body follows through
    /// ``appendToStreamedBody(streamID:_:)`` and ends with ``finishStreamedBody(streamID:)``.
    /// Returns `false` when the stream is gone, or when the request was `HEAD` (the head is
    /// then sent with END_STREAM and there is no body to stream).
    func submitStreamingResponse(streamID: Int32, status: Int, headers: HTTPHeaderList) throws(NGHTTP2Error) -> Bool {
        guard let session, let stream = inbound[streamID] else { return false }
        let isHead = stream.method == "HEAD"
        let result: Int32 = NGHTTP2HeaderBlock.withNameValues(
            firstName: HTTPStatusBytes.statusName,
            firstValue: HTTPStatusBytes.bytes(for: status),
            headers: headers,
            flags: { indexingFlags(of: headers, at: $0) }
        ) { nameValues, count in
            if isHead {
                return nghttp2_submit_response(session, streamID, nameValues, count, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: NGHTTP2Callbacks.readOutboundBody
            )
            return nghttp2_submit_response(session, streamID, nameValues, count, &provider)
        }
        if result == NGHTTP2_ERR_DATA_EXIST.rawValue {
            return false
        }
        if result < 0, nghttp2_is_fatal(result) == 0 {
            try submitReset(streamID: streamID, errorCode: .internalError)
            return false
        }
        try check(result, "nghttp2_submit_response")
        guard !isHead else { return false }
        outbound[streamID] = OutboundBody([], isOpen: true)
        return true
    }

    /// Queues more bytes of a streamed body and wakes its deferred data provider. Returns the
    /// bytes now waiting to be sent, or `nil` when the stream is gone (closed or reset).
    func appendToStreamedBody(streamID: Int32, _ bytes: [UInt8]) throws(NGHTTP2Error) -> Int? {
        guard session != nil, let body = outbound[streamID], body.isOpen else { return nil }
        body.bytes.append(contentsOf: bytes)
        try resumeData(streamID: streamID)
        return body.pendingByteCount
    }

    /// Ends a streamed body: END_STREAM follows the bytes still queued.
    func finishStreamedBody(streamID: Int32) throws(NGHTTP2Error) {
        guard session != nil, let body = outbound[streamID], body.isOpen else { return }
        body.isOpen = false
        try resumeData(streamID: streamID)
    }

    private func resumeData(streamID: Int32) throws(NGHTTP2Error) {
        guard let session else { return }
        let result = nghttp2_session_resume_data(session, streamID)
        // NGHTTP2_ERR_INVALID_ARGUMENT: the provider is not deferred right now (it has not
        // run out of bytes yet, so it will read the new ones on its next call). Not an error.
        if result == NGHTTP2_ERR_INVALID_ARGUMENT.rawValue { return }
        try check(result, "nghttp2_session_resume_data")
    }

    /// Queues a request (client role). Returns the new stream ID.
    func submitRequest(
        method: String,
        path: String,
        pathSuffix: String = "",
        scheme: String,
        authority: String,
        headers: HTTPHeaderList,
        body: [UInt8]
    ) throws(NGHTTP2Error) -> Int32 {
        guard let session else { throw NGHTTP2Error(Int(NGHTTP2_ERR_INVALID_STATE.rawValue), "submit on a closed session") }
        let streamID: Int32 = NGHTTP2HeaderBlock.withRequestNameValues(
            method: method,
            scheme: scheme,
            authority: authority,
            path: path,
            pathSuffix: pathSuffix,
            headers: headers,
            flags: { indexingFlags(of: headers, at: $0) }
        ) { nameValues, count in
            if body.isEmpty {
                return nghttp2_submit_request(session, nil, nameValues, count, nil, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: NGHTTP2Callbacks.readOutboundBody
            )
            return nghttp2_submit_request(session, nil, nameValues, count, &provider, nil)
        }
        guard streamID > 0 else {
            throw NGHTTP2Error(Int(streamID), "nghttp2_submit_request")
        }
        if !body.isEmpty {
            outbound[streamID] = OutboundBody(body)
        }
        inbound[streamID] = InboundStream()
        return streamID
    }

    /// Queues RST_STREAM.
    func submitReset(streamID: Int32, errorCode: HTTP2ErrorCode) throws(NGHTTP2Error) {
        guard let session else { return }
        let result = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode.networkCode)
        try check(result, "nghttp2_submit_rst_stream")
    }

    /// Queues GOAWAY with debug data (APNs sends `{"reason":"…"}` there).
    func submitGoAway(lastStreamID: Int32, errorCode: HTTP2ErrorCode, debugData: [UInt8]) throws(NGHTTP2Error) {
        guard let session else { return }
        let result = debugData.withUnsafeBufferPointer { data in
            nghttp2_submit_goaway(
                session,
                UInt8(NGHTTP2_FLAG_NONE.rawValue),
                lastStreamID,
                errorCode.networkCode,
                data.baseAddress,
                data.count
            )
        }
        try check(result, "nghttp2_submit_goaway")
    }

    /// Queues a PING (client keep-alive).
    func submitPing() throws(NGHTTP2Error) {
        guard let session else { return }
        try check(nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil), "nghttp2_submit_ping")
    }

    /// Only fatal library errors are thrown; a non-fatal failure to submit one frame (for
    /// example a stream that just closed) must not take the connection down.
    private func check(_ result: Int32, _ operation: String) throws(NGHTTP2Error) {
        if result < 0, nghttp2_is_fatal(result) != 0 {
            throw NGHTTP2Error(Int(result), operation)
        }
    }

    /// Takes the completed inbound message of `streamID` as a request (server role).
    func takeRequest(streamID: Int32) -> HTTPRequestMessage? {
        guard let stream = inbound[streamID], stream.isComplete, !stream.isDelivered else { return nil }
        stream.isDelivered = true
        // The body now belongs to the request: it leaves the connection's budget.
        let body = stream.body
        releaseBody(of: stream)
        let message = HTTPRequestMessage(
            method: stream.method ?? "",
            path: stream.path ?? "",
            authority: stream.authority,
            scheme: stream.scheme,
            headers: stream.headers,
            body: body,
            bodyByteCount: stream.bodyByteCount,
            streamID: streamID
        )
        stream.headers = HTTPHeaderList()
        return message
    }
}

/// `:status` values as bytes, precomputed for the statuses the gateway sends.
enum HTTPStatusBytes {
    static let statusName: [UInt8] = Array(":status".utf8)
    private static let table: [[UInt8]] = (0..<600).map { Array(String($0).utf8) }

    static func bytes(for status: Int) -> [UInt8] {
        status >= 0 && status < table.count ? table[status] : Array(String(status).utf8)
    }
}

/// Builds the `nghttp2_nv` array for a header block. Pointers into the Swift arrays are valid
/// only inside `body`; libnghttp2 copies names and values during the submit call.
enum NGHTTP2HeaderBlock {
    /// The fields of a response head: `firstName: firstValue` (`:status`), then `headers`.
    /// `flags(index)` gives the `NGHTTP2_NV_FLAG_*` of field `index` of `headers` (the first
    /// field, `firstName`, is always indexed normally). The array lives on the stack.
    static func withNameValues<Result>(
        firstName: [UInt8],
        firstValue: [UInt8],
        headers: HTTPHeaderList,
        flags: (_ index: Int) -> UInt8,
        _ body: (UnsafePointer<nghttp2_nv>, Int) -> Result
    ) -> Result {
        firstName.withUnsafeBufferPointer { name in
            firstValue.withUnsafeBufferPointer { value in
                headers.withUnsafeStorage { storage in
                    withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: headers.count + 1) { nameValues in
                        nameValues.initializeElement(at: 0, to: makeNV(name, value))
                        var count = 1
                        if let base = storage.baseAddress {
                            for index in 0..<headers.count {
                                let name = headers.nameRange(at: index)
                                let value = headers.valueRange(at: index)
                                nameValues.initializeElement(
                                    at: count,
                                    to: nghttp2_nv(
                                        name: UnsafeMutablePointer(mutating: base + name.lowerBound),
                                        value: UnsafeMutablePointer(mutating: base + value.lowerBound),
                                        namelen: name.count,
                                        valuelen: value.count,
                                        flags: flags(index)
                                    ))
                                count += 1
                            }
                        }
                        return body(UnsafePointer(nameValues.baseAddress!), count)
                    }
                }
            }
        }
    }

    /// The pseudo-headers and `headers` of a request, without building an intermediate header
    /// list: names are static strings, values point into the strings' own UTF-8 storage, and
    /// the `nghttp2_nv` array lives on the stack. Valid only inside `body`.
    ///
    /// `:path` is `path` followed by `pathSuffix`: joined here, in a buffer that lives only
    /// for the call (`nghttp2_submit_request` copies every name and value).
    static func withRequestNameValues<Result>(
        method: String,
        scheme: String,
        authority: String,
        path: String,
        pathSuffix: String = "",
        headers: HTTPHeaderList,
        flags: (_ index: Int) -> UInt8 = { _ in UInt8(NGHTTP2_NV_FLAG_NONE.rawValue) },
        _ body: (UnsafePointer<nghttp2_nv>, Int) -> Result
    ) -> Result {
        var path = path
        guard !pathSuffix.isEmpty else {
            return path.withUTF8 { pathBytes in
                withRequestNameValues(
                    method: method, scheme: scheme, authority: authority, pathBytes: pathBytes, headers: headers, flags: flags, body)
            }
        }
        var suffix = pathSuffix
        return path.withUTF8 { prefixBytes in
            suffix.withUTF8 { suffixBytes in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefixBytes.count + suffixBytes.count) { joined in
                    let afterPrefix = joined.initialize(fromContentsOf: prefixBytes)
                    _ = joined[afterPrefix...].initialize(fromContentsOf: suffixBytes)
                    defer { joined.deinitialize() }
                    return withRequestNameValues(
                        method: method, scheme: scheme, authority: authority, pathBytes: UnsafeBufferPointer(joined),
                        headers: headers, flags: flags, body)
                }
            }
        }
    }

    private static func withRequestNameValues<Result>(
        method: String,
        scheme: String,
        authority: String,
        pathBytes: UnsafeBufferPointer<UInt8>,
        headers: HTTPHeaderList,
        flags: (_ index: Int) -> UInt8,
        _ body: (UnsafePointer<nghttp2_nv>, Int) -> Result
    ) -> Result {
        var method = method
        var scheme = scheme
        var authority = authority
        return method.withUTF8 { methodBytes in
            scheme.withUTF8 { schemeBytes in
                authority.withUTF8 { authorityBytes in
                    headers.withUnsafeStorage { storage in
                        withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: 4 + headers.count) { nameValues in
                            nameValues[0] = staticNV(":method", methodBytes)
                            nameValues[1] = staticNV(":scheme", schemeBytes)
                            nameValues[2] = staticNV(":authority", authorityBytes)
                            nameValues[3] = staticNV(":path", pathBytes)
                            var count = 4
                            if let base = storage.baseAddress {
                                for index in 0..<headers.count {
                                    let name = headers.nameRange(at: index)
                                    let value = headers.valueRange(at: index)
                                    nameValues[count] = nghttp2_nv(
                                        name: UnsafeMutablePointer(mutating: base + name.lowerBound),
                                        value: UnsafeMutablePointer(mutating: base + value.lowerBound),
                                        namelen: name.count,
                                        valuelen: value.count,
                                        flags: flags(index)
                                    )
                                    count += 1
                                }
                            }
                            return body(UnsafePointer(nameValues.baseAddress!), count)
                        }
                    }
                }
            }
        }
    }

    private static func staticNV(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>) -> nghttp2_nv {
        let namePointer = UnsafeMutablePointer(mutating: name.utf8Start)
        return nghttp2_nv(
            name: namePointer,
            // An empty value still needs a valid pointer; its length is 0.
            value: UnsafeMutablePointer(mutating: value.baseAddress ?? name.utf8Start),
            namelen: name.utf8CodeUnitCount,
            valuelen: value.count,
            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        )
    }

    private static func makeNV(_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> nghttp2_nv {
        nghttp2_nv(
            name: UnsafeMutablePointer(mutating: name.baseAddress!),
            value: UnsafeMutablePointer(mutating: value.baseAddress ?? name.baseAddress!),
            namelen: name.count,
            valuelen: value.count,
            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        )
    }
}

/// The header block being received, field by field (``NGHTTP2Session/beginHeaderBlock(streamID:category:)``
/// and the callbacks after it).
private struct HeaderBlock {
    var streamID: Int32 = 0
    var isActive = false
    var isTrailer = false
    var headers = HTTPHeaderList()
    var method: String?
    var path: String?
    var authority: String?
    var scheme: String?
    var status: Int?
    /// The RFC 9113 size of the header block so far; past the limit nothing more is copied.
    var size = 0

    mutating func begin(streamID: Int32, isTrailer: Bool) {
        self.streamID = streamID
        self.isTrailer = isTrailer
        isActive = true
        size = 0
        if !isTrailer {
            headers = HTTPHeaderList(fields: 12, bytes: 512)
            method = nil
            path = nil
            authority = nil
            scheme = nil
            status = nil
        }
    }

    mutating func append(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, limit: Int) {
        guard isActive, !isTrailer, streamID == self.streamID else { return }
        // Count every field (an HPACK bomb expands in these callbacks) but copy none past the
        // limit: memory stays bounded by the limit whatever the block expands to.
        size += InboundLimits.fieldSize(nameCount: name.count, valueCount: value.count)
        guard size <= limit else { return }
        if name.count > 1, name[0] == UInt8(ascii: ":") {
            let text = String(decoding: value, as: UTF8.self)
            // Distinguish by length and the second byte (`:path`, `:method`, `:scheme`,
            // `:status`, `:authority`); libnghttp2 has already rejected unknown pseudo-headers.
            switch (name.count, name[1]) {
            case (5, UInt8(ascii: "p")): path = text
            case (7, UInt8(ascii: "m")): method = text
            case (7, UInt8(ascii: "s")) where name[2] == UInt8(ascii: "c"): scheme = text
            case (7, UInt8(ascii: "s")): status = Int(text)
            case (10, UInt8(ascii: "a")): authority = text
            default: break
            }
        } else {
            headers.append(name: name, value: value)
        }
    }

    /// Ends the block of `streamID` and returns what it gathered, or `nil` when there is
    /// nothing to hand over: no block of that stream, trailers, or an informational (1xx)
    /// response (the final one follows). The block's header list moves out with the result.
    mutating func end(streamID: Int32) -> Finished? {
        guard isActive, streamID == self.streamID else { return nil }
        isActive = false
        guard !isTrailer else { return nil }
        if let status, status < 200 { return nil }
        var finished = Finished(method: method, path: path, authority: authority, scheme: scheme, status: status, size: size)
        swap(&finished.headers, &headers)
        return finished
    }

    struct Finished {
        var method: String?
        var path: String?
        var authority: String?
        var scheme: String?
        var status: Int?
        var size: Int
        var headers = HTTPHeaderList()

        /// The header list, moved out.
        mutating func takeHeaders() -> HTTPHeaderList {
            var taken = HTTPHeaderList()
            swap(&taken, &headers)
            return taken
        }
    }
}
