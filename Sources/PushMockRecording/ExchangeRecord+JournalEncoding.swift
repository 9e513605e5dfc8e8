import PushMockCore
import PushMockJSON

extension ExchangeRecord {
    /// The journal format version written in every line's `"v"` field.
    public static let journalFormatVersion = 1

    /// Appends this record as one journal line (compact JSON object plus `\n`) to `output`.
    ///
    /// Hot path: runs once per request on the event loop, after ``RecordingStore/append(_:)-(ExchangeRecord)``
    /// has assigned ``sequence``. It writes bytes directly through ``JSONWriter`` — no Foundation
    /// JSON, no `DateFormatter`, no intermediate strings; JSON bodies and JWT parts are copied
    /// verbatim. Reuse one `output` buffer across calls to avoid reallocations.
    ///
    /// Precondition: ``RecordedBody/json(_:)`` bodies and the JWT parts are valid compact JSON
    /// (checked in debug builds only).
    public func encodeJSONLine(into output: inout [UInt8]) {
        JSONWriter.write(into: &output) { writer in
            writer.beginObject()
            writer.staticKey("v")
            writer.number(Self.journalFormatVersion)
            writer.staticKey("seq")
            writer.number(sequence)
            var memo = JournalLineMemo.disabled
            writeMembersAfterSequence(to: &writer, memo: &memo)
        }
        output.append(0x0A)
    }

    /// Room to leave in front of ``encodeJSONLineAfterSequence(into:)``'s output for
    /// ``writeLineStart(sequence:into:endingAt:)``: `{"v":` + version + `,"seq":` + up to 20
    /// digits + `,`.
    package static let lineStartCapacity = 48

    /// Appends this record's journal line *without its start* — `{"v":1,"seq":N,` — to
    /// `output`: everything from `"time"` to the closing `}` and `\n`.
    ///
    /// Lets ``RecordingStore`` encode a line before the record has a sequence number (outside
    /// its lock) and put the start in front once the number is assigned (under it), so that
    /// numbering, the in-memory order and the journal order are one and the same. Leave
    /// ``lineStartCapacity`` bytes in front of the output for the start. `memo` holds the
    /// members the line may share with the connection's previous one.
    package func encodeJSONLineAfterSequence(into output: inout [UInt8], memo: inout JournalLineMemo) {
        JSONWriter.write(into: &output) { writer in
            writeMembersAfterSequence(to: &writer, memo: &memo)
        }
        output.append(0x0A)
    }

    /// Writes the start of a journal line, `{"v":1,"seq":<sequence>,`, so that it ends just
    /// before `end` in `buffer` (which must have ``lineStartCapacity`` bytes of room in front
    /// of `end`), and returns the index where it starts. Together with the output of
    /// ``encodeJSONLineAfterSequence(into:)`` at `end` it forms the same bytes as
    /// ``encodeJSONLine(into:)``.
    package static func writeLineStart(sequence: UInt64, into buffer: inout [UInt8], endingAt end: Int) -> Int {
        buffer.withUnsafeMutableBufferPointer { bytes in
            var position = end
            func put(_ byte: UInt8) {
                position -= 1
                bytes[position] = byte
            }
            func put(decimal value: UInt64) {
                var remaining = value
                repeat {
                    put(UInt8(ascii: "0") + UInt8(remaining % 10))
                    remaining /= 10
                } while remaining > 0
            }
            func put(_ literal: StaticString) {
                literal.withUTF8Buffer { text in
                    for byte in text.reversed() { put(byte) }
                }
            }
            put(UInt8(ascii: ","))
            put(decimal: sequence)
            put(#","seq":"#)
            put(decimal: UInt64(journalFormatVersion))
            put(#"{"v":"#)
            return position
        }
    }

    /// Every member after `"seq"`, and the closing brace (the writer is inside the line's
    /// object; a comma is added before the first member if one is due).
    private func writeMembersAfterSequence(to writer: inout JSONWriter, memo: inout JournalLineMemo) {
        writer.staticKey("time")
        writer.rawValue(maximumLength: JournalTimestamp.maximumQuotedLength) { pointer in
            JournalTimestamp.write(millisecondsSinceEpoch: timeMilliseconds, to: pointer)
        }
        writer.staticKey("timeMs")
        writer.number(timeMilliseconds)
        writer.optional("namespace", namespace)
        writer.staticKey("platform")
        writer.string(platform.rawValue)

        let connection = connection
        writer.member(&memo.connection, value: connection, reuses: &memo.reuses, enabled: memo.isEnabled, isCurrent: { $0 == connection }) {
            writer in
            writer.staticKey("connection")
            writer.beginObject()
            writer.staticKey("id")
            writer.number(connection.id)
            writer.staticKey("transport")
            writer.string(connection.transport)
            writer.staticKey("tls")
            writer.bool(connection.tls)
            writer.optional("alpn", connection.alpn)
            writer.optional("remoteAddress", connection.remoteAddress)
            writer.optional("clientCertificateSubject", connection.clientCertificateSubject)
            writer.endObject()
        }

        if let streamID {
            writer.staticKey("streamID")
            writer.number(Int(streamID))
        }
        writer.optional("environment", environment)

        writer.staticKey("request")
        writer.beginObject()
        writer.staticKey("method")
        writer.string(request.method)
        writer.staticKey("path")
        writer.string(request.path)
        writer.optional("authority", request.authority)
        writer.optional("scheme", request.scheme)
        let headers = request.headers
        writer.member(
            &memo.requestHeaders, value: headers, reuses: &memo.reuses, enabled: memo.isEnabled, isCurrent: { $0.isSameList(as: headers) }
        ) {
            $0.headers(headers)
        }
        writer.body(request.body)
        writer.staticKey("bodySize")
        writer.number(request.bodySize)
        writer.endObject()

        if let auth {
            writer.member(&memo.auth, value: auth, reuses: &memo.reuses, enabled: memo.isEnabled, isCurrent: { $0 == auth }) { writer in
                writer.staticKey("auth")
                writer.beginObject()
                writer.staticKey("scheme")
                writer.string(auth.scheme)
                writer.optionalJSON("jwtHeader", auth.jwtHeader)
                writer.optionalJSON("jwtClaims", auth.jwtClaims)
                writer.optional("keyID", auth.keyID)
                writer.optional("teamID", auth.teamID)
                writer.optional("subject", auth.subject)
                writer.optional("detail", auth.detail)
                writer.endObject()
            }
        }

        if let notification {
            writer.staticKey("notification")
            writer.beginObject()
            writer.optional("token", notification.token)
            writer.optional("topic", notification.topic)
            writer.optional("pushType", notification.pushType)
            if let priority = notification.priority {
                writer.staticKey("priority")
                writer.number(priority)
            }
            if let expiration = notification.expiration {
                writer.staticKey("expiration")
                writer.number(expiration)
            }
            writer.optional("collapseID", notification.collapseID)
            writer.optional("messageID", notification.messageID)
            writer.optional("project", notification.project)
            writer.optional("condition", notification.condition)
            if !notification.resolvedTokens.isEmpty {
                writer.staticKey("resolvedTokens")
                writer.beginArray()
                for token in notification.resolvedTokens {
                    writer.string(token)
                }
                writer.endArray()
            }
            if !notification.lint.isEmpty {
                writer.staticKey("lint")
                writer.beginArray()
                for note in notification.lint {
                    writer.beginObject()
                    writer.staticKey("code")
                    writer.string(note.code)
                    writer.staticKey("severity")
                    writer.string(note.severity)
                    writer.staticKey("field")
                    writer.string(note.field)
                    writer.staticKey("message")
                    writer.string(note.message)
                    writer.staticKey("source")
                    writer.string(note.source)
                    writer.endObject()
                }
                writer.endArray()
            }
            writer.endObject()
        }

        writer.staticKey("response")
        writer.beginObject()
        writer.staticKey("status")
        writer.number(response.status)
        writer.optional("reason", response.reason)
        writer.headers(response.headers)
        writer.body(response.body)
        if let timestamp = response.timestampMilliseconds {
            writer.staticKey("timestampMilliseconds")
            writer.number(timestamp)
        }
        writer.endObject()

        writer.staticKey("latencyMicroseconds")
        writer.number(latencyMicroseconds)

        if !annotations.isEmpty {
            writer.staticKey("annotations")
            writer.beginObject()
            if annotations.count == 1, let only = annotations.first {
                writer.key(only.key)
                writer.string(only.value)
            } else {
                for key in annotations.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    writer.key(key)
                    writer.string(annotations[key]!)
                }
            }
            writer.endObject()
        }
        writer.endObject()
    }

    /// Convenience for tests and cold paths: the journal line as a new array.
    public var jsonLine: [UInt8] {
        var output: [UInt8] = []
        encodeJSONLine(into: &output)
        return output
    }
}

extension JSONWriter {
    @inline(__always)
    mutating func optional(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        staticKey(key)
        string(value)
    }

    @inline(__always)
    mutating func optionalJSON(_ key: StaticString, _ value: [UInt8]?) {
        guard let value else { return }
        assert(JSONScanner.scan(value).isCompact, "\(key) must be valid compact JSON")
        staticKey(key)
        raw(value)
    }

    @inline(__always)
    mutating func headers(_ headers: HTTPHeaderList) {
        staticKey("headers")
        beginArray()
        headers.forEachField { name, value in
            beginArray()
            string(utf8: name)
            string(utf8: value)
            endArray()
        }
        endArray()
    }

    @inline(__always)
    mutating func body(_ body: RecordedBody) {
        switch body {
        case .none:
            break
        case .json(let bytes):
            assert(JSONScanner.scan(bytes).isCompact, "a .json body must be valid compact JSON")
            staticKey("body")
            raw(bytes)
        case .text(let text):
            staticKey("bodyText")
            string(text)
        case .binary(let bytes):
            staticKey("bodyBase64")
            base64String(bytes)
        }
    }
}
