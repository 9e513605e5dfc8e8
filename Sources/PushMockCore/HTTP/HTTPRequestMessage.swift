#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One complete HTTP request as the gateway sees it, whatever the transport (HTTP/2 over TLS,
/// h2c, HTTP/1.1). Pseudo-headers are fields; ``headers`` holds the regular fields in order.
public struct HTTPRequestMessage: Sendable {
    /// `:method` (HTTP/1.1: the request-line method).
    public var method: String
    /// `:path` including any query string.
    public var path: String
    /// `:authority`, or the `Host` header over HTTP/1.1.
    public var authority: String?
    /// `:scheme` (HTTP/1.1: `http` or `https` from the listener).
    public var scheme: String?
    /// Regular header fields, names in lower case, order and duplicates kept.
    public var headers: HTTPHeaderList
    /// The body bytes received, up to the transport's storage cap.
    public var body: [UInt8]
    /// How many body bytes arrived in total; larger than `body.count` when the cap cut it off.
    public var bodyByteCount: Int
    /// The HTTP/2 stream, or `nil` over HTTP/1.1.
    public var streamID: Int32?

    /// Whether the body was cut off at the storage cap.
    public var isBodyTruncated: Bool { bodyByteCount > body.count }

    /// The path without its query string.
    public var pathWithoutQuery: Substring {
        if let question = queryMarkIndex { return path[..<question] }
        return Substring(path)
    }

    /// The query string after `?`, if any.
    public var query: Substring? {
        guard let question = queryMarkIndex else { return nil }
        return path[path.utf8.index(after: question)...]
    }

    /// Where the `?` is, as an index into ``path``.
    private var queryMarkIndex: String.Index? {
        let utf8 = path.utf8
        guard let offset = queryMarkOffset else { return nil }
        return utf8.index(utf8.startIndex, offsetBy: offset)
    }

    /// How many bytes of ``path``'s UTF-8 come before its `?`, or `nil` without one. Searched
    /// with `memchr`: a Character search walks grapheme boundaries, and `utf8.firstIndex(of:)`
    /// advanced a `String.Index` per byte (1.3 % of the default server's samples; routing and
    /// the APNs endpoint ask for every request).
    package var queryMarkOffset: Int? {
        let found = path.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let base = bytes.baseAddress, let mark = memchr(base, Int32(UInt8(ascii: "?")), bytes.count) else {
                return nil
            }
            return base.distance(to: mark.assumingMemoryBound(to: UInt8.self))
        }
        if let found { return found }
        // A bridged or otherwise non-contiguous string: the generic search.
        let utf8 = path.utf8
        return utf8.firstIndex(of: UInt8(ascii: "?")).map { utf8.distance(from: utf8.startIndex, to: $0) }
    }
}

/// An HTTP response: status, regular headers (no `:status`), body.
public struct HTTPResponseMessage: Sendable {
    public var status: Int
    public var headers: HTTPHeaderList
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaderList = HTTPHeaderList(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension HTTPRequestMessage {
    // In an extension, so that the struct keeps its memberwise initialiser and this one goes
    // through it: written in the struct as assignments to each field of `self`, it built the
    // request twice and copied one into the result, a retain and a release of every string
    // and buffer in it, for every request the transports hand over.
    public init(
        method: String,
        path: String,
        authority: String? = nil,
        scheme: String? = nil,
        headers: HTTPHeaderList = HTTPHeaderList(),
        body: [UInt8] = [],
        bodyByteCount: Int? = nil,
        streamID: Int32? = nil
    ) {
        let byteCount: Int = bodyByteCount ?? body.count
        self.init(
            method: method, path: path, authority: authority, scheme: scheme, headers: headers, body: body,
            bodyByteCount: byteCount, streamID: streamID)
    }
}
