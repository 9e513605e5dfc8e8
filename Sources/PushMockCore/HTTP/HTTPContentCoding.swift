import CZlib

/// A `Content-Encoding` the gateway can read (Expo's push API "optionally accepts
/// gzip-compressed request bodies"; the Node SDK gzips bodies over 1 KiB) and write (`gzip`
/// answers when the client's `Accept-Encoding` allows them).
package struct HTTPContentCoding: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String, Hashable, Sendable {
        case identity
        case gzip
        case deflate
    }

    private let value: Value

    /// No coding.
    package static let identity = HTTPContentCoding(value: .identity)
    /// RFC 1952 gzip (also accepted as `x-gzip`).
    package static let gzip = HTTPContentCoding(value: .gzip)
    /// RFC 1950 zlib stream; raw RFC 1951 deflate is read too, as some clients send it.
    package static let deflate = HTTPContentCoding(value: .deflate)

    private init(value: Value) { self.value = value }

    /// The coding named by a `Content-Encoding` value; `nil` for codings the gateway cannot read.
    package init?(headerValue: String) {
        switch headerValue.contentCodingTrimmed().lowercased() {
        case "", "identity": self = .identity
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        default: return nil
        }
    }

    package var description: String { value.rawValue }

    /// Whether an `Accept-Encoding` value allows gzip (a `q=0` weight refuses it).
    package static func acceptsGzip(_ acceptEncoding: String) -> Bool {
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first?.contentCodingTrimmed().lowercased(), name == "gzip" || name == "*" else { continue }
            // RFC 9110 §12.4.2: qvalue = "0" [ "." 0*3DIGIT ]; "q=0." refuses too.
            let refused = parts.dropFirst().contains { parameter in
                let text = parameter.contentCodingTrimmed().lowercased()
                guard text.hasPrefix("q=") else { return false }
                let weight = text.dropFirst(2)
                return weight.first == "0" && weight.dropFirst().allSatisfy { $0 == "." || $0 == "0" }
            }
            return !refused
        }
        return false
    }
}

/// Why a coded body could not be decoded.
package enum HTTPContentCodingError: Error, Hashable, Sendable {
    /// Not a valid stream of the coding.
    case corrupt
    /// The decoded body would exceed the limit (a decompression bomb guard).
    case tooLarge(limit: Int)
}

extension HTTPContentCoding {
    /// Decodes `bytes`; at most `limit` decoded bytes.
    package func decode(_ bytes: [UInt8], limit: Int) throws(HTTPContentCodingError) -> [UInt8] {
        switch value {
        case .identity:
            return bytes
        case .gzip:
            return try ZlibStream.inflate(bytes, windowBits: 15 + 16, limit: limit, members: .many)
        case .deflate:
            do {
                return try ZlibStream.inflate(bytes, windowBits: 15, limit: limit, members: .one)
            } catch .corrupt {
                return try ZlibStream.inflate(bytes, windowBits: -15, limit: limit, members: .one)
            }
        }
    }

    /// `bytes` gzip-compressed (default level).
    package static func gzipCompress(_ bytes: [UInt8]) -> [UInt8] {
        ZlibStream.deflate(bytes, windowBits: 15 + 16)
    }
}

/// zlib's streaming API over whole buffers; every return code checked.
private enum ZlibStream {
    /// How many compressed streams a body may hold one after another.
    enum Members {
        /// zlib and raw deflate: one stream, nothing after it.
        case one
        /// gzip: one or more members (RFC 1952 §2.2, what `gzip -d`, Python and Node decode),
        /// then at most zero bytes of padding. Only the first member was decoded, and whatever
        /// followed it, members or garbage, was dropped without a word.
        case many
    }

    static func inflate(_ input: [UInt8], windowBits: Int32, limit: Int, members: Members) throws(HTTPContentCodingError) -> [UInt8] {
        // zlib keeps a pointer back to its z_stream: the stream lives at one heap address for
        // its whole life, never in a Swift variable the compiler may move or copy.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard pushmock_inflate_init2(stream, windowBits) == Z_OK else { throw .corrupt }
        defer { inflateEnd(stream) }
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(1024, input.count * 4)))
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var status: Int32 = Z_OK
        var tooLarge = false
        input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = UInt32(source.count)
            while true {
                repeat {
                    chunk.withUnsafeMutableBufferPointer { buffer in
                        stream.pointee.next_out = buffer.baseAddress
                        stream.pointee.avail_out = UInt32(buffer.count)
                        status = CZlib.inflate(stream, Z_NO_FLUSH)
                        let produced = buffer.count - Int(stream.pointee.avail_out)
                        if output.count + produced > limit {
                            tooLarge = true
                        } else {
                            output.append(contentsOf: buffer[0..<produced])
                        }
                        // The pointer lent by withUnsafeMutableBufferPointer must not outlive it.
                        stream.pointee.next_out = nil
                    }
                } while status == Z_OK && !tooLarge && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
                // After a complete stream: done at the end of the input; otherwise another gzip
                // member (or zero padding) may follow, and anything else is not the body.
                let rest = Int(stream.pointee.avail_in)
                guard status == Z_STREAM_END, !tooLarge, rest > 0 else { break }
                let remaining = UnsafeBufferPointer(start: source.baseAddress.map { $0 + (source.count - rest) }, count: rest)
                if members == .many, remaining.allSatisfy({ $0 == 0 }) { break }
                guard members == .many, inflateReset(stream) == Z_OK else {
                    status = Z_DATA_ERROR
                    break
                }
            }
            stream.pointee.next_in = nil
        }
        if tooLarge { throw .tooLarge(limit: limit) }
        // A complete stream ends with Z_STREAM_END; anything else is truncated or corrupt.
        guard status == Z_STREAM_END else { throw .corrupt }
        return output
    }

    static func deflate(_ input: [UInt8], windowBits: Int32) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard pushmock_deflate_init2(stream, Z_DEFAULT_COMPRESSION, windowBits) == Z_OK else {
            preconditionFailure("zlib deflateInit2 failed (out of memory)")
        }
        defer { deflateEnd(stream) }
        let bound = Int(deflateBound(stream, UInt(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var status: Int32 = Z_OK
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.pointee.avail_in = UInt32(source.count)
                stream.pointee.next_out = target.baseAddress
                stream.pointee.avail_out = UInt32(target.count)
                // deflateBound guarantees one Z_FINISH call completes.
                status = CZlib.deflate(stream, Z_FINISH)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
        }
        precondition(status == Z_STREAM_END, "zlib deflate did not finish within deflateBound")
        output.removeLast(bound - Int(stream.pointee.total_out))
        return output
    }
}

extension StringProtocol {
    fileprivate func contentCodingTrimmed() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
