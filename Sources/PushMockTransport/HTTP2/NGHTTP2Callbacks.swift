import CNGHTTP2
import PushMockCore

/// The one libnghttp2 callback table shared by every session (libnghttp2 copies it into each
/// session at creation). Callbacks are `@convention(c)` and capture nothing: they find their
/// ``NGHTTP2Session`` through `user_data`.
///
/// Every callback returns 0: a non-zero return would kill the whole session, and nothing here
/// is a reason to. Malformed input is handled by libnghttp2 (RST_STREAM / GOAWAY) before it
/// reaches these callbacks.
enum NGHTTP2Callbacks {
    /// Built once; immutable afterwards, so sharing the pointer across threads is safe.
    nonisolated(unsafe) static let shared: OpaquePointer = makeCallbacks()

    private static func makeCallbacks() -> OpaquePointer {
        var callbacks: OpaquePointer?
        let result = nghttp2_session_callbacks_new(&callbacks)
        // Only fails on out-of-memory, in which case nothing else would work either.
        guard result == 0, let callbacks else {
            fatalError("nghttp2_session_callbacks_new failed: \(result)")
        }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        return callbacks
    }

    /// Runs `body` with the session that owns `userData`, without retaining it: the session
    /// outlives every callback (callbacks run only inside its own `mem_recv`/`mem_send`).
    @inline(__always)
    private static func withOwner<Result>(_ userData: UnsafeMutableRawPointer?, _ body: (NGHTTP2Session) -> Result) -> Result {
        Unmanaged<NGHTTP2Session>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
    }

    private static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        guard let frame else { return 0 }
        let header = frame.pointee.hd
        guard header.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
        withOwner(userData) { session in
            session.beginHeaderBlock(streamID: header.stream_id, category: frame.pointee.headers.cat)
        }
        return 0
    }

    private static let onHeader: nghttp2_on_header_callback = {
        _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value else { return 0 }
        withOwner(userData) { session in
            // Copy now: the pointers are valid only during this callback.
            session.appendToHeaderBlock(
                streamID: frame.pointee.hd.stream_id,
                name: UnsafeRawBufferPointer(start: name, count: nameLength),
                value: UnsafeRawBufferPointer(start: value, count: valueLength)
            )
        }
        return 0
    }

    private static let onDataChunk: nghttp2_on_data_chunk_recv_callback = {
        _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        withOwner(userData) { session in
            guard let stream = session.inbound[streamID], !stream.isComplete, !stream.isRefused else { return }
            stream.bodyByteCount += length
            if let code = session.storeBody(data, length: length, in: stream) {
                session.refuse(streamID, stream, with: code)
                return
            }
            if session.role == .server, stream.bodyByteCount > session.maximumStoredBodyBytes {
                // Too large for any endpoint: hand it over now (truncated, answered 413) rather
                // than wait for the rest, which is discarded unread.
                stream.isComplete = true
                session.completed.append(streamID)
            }
        }
        return 0
    }

    private static let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        withOwner(userData) { session in
            frameReceived(frame, session: session)
        }
        return 0
    }

    private static func frameReceived(_ frame: UnsafePointer<nghttp2_frame>, session: NGHTTP2Session) {
        let header = frame.pointee.hd
        switch UInt32(header.type) {
        case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
            if header.type == UInt8(NGHTTP2_HEADERS.rawValue) {
                // END_HEADERS has been seen (libnghttp2 reports HEADERS after CONTINUATIONs).
                session.endHeaderBlock(streamID: header.stream_id)
            }
            guard header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
                let stream = session.inbound[header.stream_id], !stream.isComplete, !stream.isRefused
            else { return }
            if session.role == .client, stream.status == nil {
                // END_STREAM on an informational response cannot happen in valid HTTP/2;
                // libnghttp2's messaging checks reset such streams.
                return
            }
            stream.isComplete = true
            session.completed.append(header.stream_id)
        case NGHTTP2_RST_STREAM.rawValue where session.role == .client:
            session.peerResetStreams.insert(header.stream_id)
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.pointee.goaway
            var debugData: [UInt8] = []
            if goAway.opaque_data_len > 0, let opaque = goAway.opaque_data {
                debugData = Array(UnsafeBufferPointer(start: opaque, count: goAway.opaque_data_len))
            }
            session.receivedGoAway = ReceivedGoAway(
                lastStreamID: goAway.last_stream_id,
                errorCode: .init(networkCode: goAway.error_code),
                debugData: debugData
            )
        case NGHTTP2_SETTINGS.rawValue:
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
                session.remoteSettingsChanged = true
            }
        case NGHTTP2_PING.rawValue:
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 {
                session.pingAcknowledgements += 1
            }
        default:
            break
        }
    }

    private static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        withOwner(userData) { session in
            session.outbound.removeValue(forKey: streamID)
            if session.role == .server, let stream = session.inbound.removeValue(forKey: streamID) {
                session.releaseBody(of: stream)
                session.recycle(stream)
            }
            session.closed.append((streamID, errorCode))
        }
        return 0
    }

    /// Reads the outbound body of a stream into libnghttp2's buffer, at most `length` bytes per
    /// call (flow control may make that small), and flags EOF with the last byte.
    static let readOutboundBody: nghttp2_data_source_read_callback = {
        _, streamID, buffer, length, flags, _, userData in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return withOwner(userData) { session in
            readBody(streamID: streamID, into: buffer, length: length, flags: flags, session: session)
        }
    }

    private static func readBody(
        streamID: Int32,
        into buffer: UnsafeMutablePointer<UInt8>,
        length: Int,
        flags: UnsafeMutablePointer<UInt32>,
        session: NGHTTP2Session
    ) -> Int {
        guard let body = session.outbound[streamID] else {
            // Nothing to send (should not happen): end the stream cleanly.
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(length, body.bytes.count - body.offset)
        if count > 0 {
            body.bytes.withUnsafeBufferPointer { source in
                buffer.update(from: source.baseAddress! + body.offset, count: count)
            }
            body.offset += count
        }
        if body.offset >= body.bytes.count {
            if body.isOpen {
                // A streamed body waiting for its producer: keep the stream open, drop what is
                // sent, and wait for `nghttp2_session_resume_data`.
                body.bytes.removeAll(keepingCapacity: true)
                body.offset = 0
                return count > 0 ? count : Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            session.outbound.removeValue(forKey: streamID)
        }
        return count
    }
}
