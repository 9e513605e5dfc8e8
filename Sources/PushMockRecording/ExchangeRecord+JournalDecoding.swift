import PushMockCore
import PushMockJSON

extension ExchangeRecord {
    /// Reads one journal line back (cold path: goes through ``JSONValue``).
    ///
    /// Accepts the line with or without its terminating `\n` (or `\r\n`). Unknown fields are
    /// ignored, so journals written by newer versions of the same format still load; `null` is
    /// treated like an absent field. JSON bodies and JWT parts are recovered byte-for-byte as they
    /// appear in the line. `timeMs` is authoritative; `time` is only parsed when `timeMs` is absent.
    ///
    /// Required: `v` (must be 1), `seq`, `timeMs` or `time`, `platform`, `connection` (with `id`,
    /// `transport`, `tls`), `request` (with `method`, `path`), `response` (with `status`).
    public static func decode(jsonLine: some Collection<UInt8>) throws(JournalDecodingError) -> ExchangeRecord {
        var bytes = Array(jsonLine)
        while let last = bytes.last, last == 0x0A || last == 0x0D {
            bytes.removeLast()
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw .syntax(error)
        }
        guard case .object(let object) = value else { throw .notAnObject }
        // One scan of the line finds where each top-level member is, so that the embedded JSON
        // of `request`, `auth` and `response` is found by scanning those objects only (finding
        // each from the top took eight scans of the whole line per record).
        let document = JSONScanner.rangeOfDocument(in: bytes)
        let memberRanges = JSONScanner.memberValueRanges(inObjectAt: document, in: bytes) ?? [:]
        let root = FieldReader(object: object, path: "", bytes: bytes, keyPath: [], range: document, memberRanges: memberRanges)
        guard let version = root.value("v") else { throw .missingField("v") }
        guard version == .number("1") else { throw .unsupportedVersion(version.compactString) }

        var record = ExchangeRecord()
        record.sequence = try root.requiredUInt64("seq")
        if let milliseconds = try root.int64("timeMs") {
            record.timeMilliseconds = milliseconds
        } else if let text = try root.string("time") {
            guard let milliseconds = JournalTimestamp.parse(text) else {
                throw .invalidField("time", expected: "an ISO-8601 UTC timestamp")
            }
            record.timeMilliseconds = milliseconds
        } else {
            throw .missingField("timeMs")
        }
        // Times outside years 1–9999 are never written; read back, they would overflow the
        // arithmetic of checks and replay (a gap between two records).
        guard InputLimits.timestampMilliseconds.contains(record.timeMilliseconds) else {
            throw .invalidField("timeMs", expected: "a time \(InputLimits.timestampRangeText)")
        }
        record.namespace = try root.string("namespace")
        let platformName = try root.requiredString("platform")
        guard let platform = Platform(rawValue: platformName) else {
            throw .invalidField("platform", expected: Platform.expectedValues)
        }
        record.platform = platform

        let connection = try root.requiredObject("connection")
        record.connection = ConnectionInfo(
            id: try connection.requiredUInt64("id"),
            transport: try connection.requiredString("transport"),
            tls: try connection.requiredBool("tls"),
            alpn: try connection.string("alpn"),
            remoteAddress: try connection.string("remoteAddress"),
            clientCertificateSubject: try connection.string("clientCertificateSubject")
        )

        if let streamID = try root.int64("streamID") {
            guard let narrowed = Int32(exactly: streamID) else {
                throw .invalidField("streamID", expected: "a 32-bit integer")
            }
            record.streamID = narrowed
        }
        record.environment = try root.string("environment")

        let request = try root.requiredObject("request")
        record.request = RequestInfo(
            method: try request.requiredString("method"),
            path: try request.requiredString("path"),
            authority: try request.string("authority"),
            scheme: try request.string("scheme"),
            headers: try request.headers("headers"),
            body: try request.body(),
            bodySize: try request.int("bodySize") ?? 0
        )

        if let auth = try root.object("auth") {
            record.auth = AuthInfo(
                scheme: try auth.requiredString("scheme"),
                jwtHeader: try auth.rawJSON("jwtHeader"),
                jwtClaims: try auth.rawJSON("jwtClaims"),
                keyID: try auth.string("keyID"),
                teamID: try auth.string("teamID"),
                subject: try auth.string("subject"),
                detail: try auth.string("detail")
            )
        }

        if let notification = try root.object("notification") {
            record.notification = NotificationInfo(
                token: try notification.string("token"),
                topic: try notification.string("topic"),
                pushType: try notification.string("pushType"),
                priority: try notification.int("priority"),
                expiration: try notification.int64("expiration"),
                collapseID: try notification.string("collapseID"),
                messageID: try notification.string("messageID"),
                project: try notification.string("project"),
                condition: try notification.string("condition"),
                resolvedTokens: try notification.strings("resolvedTokens"),
                lint: try notification.lintNotes()
            )
        }

        let response = try root.requiredObject("response")
        record.response = ResponseInfo(
            status: try response.requiredInt("status"),
            reason: try response.string("reason"),
            headers: try response.headers("headers"),
            body: try response.body(),
            timestampMilliseconds: try response.int64("timestampMilliseconds")
        )

        record.latencyMicroseconds = try root.int64("latencyMicroseconds") ?? 0
        if let annotations = try root.object("annotations") {
            for member in annotations.object.members {
                guard case .string(let text) = member.value else {
                    throw .invalidField(annotations.fieldPath(member.key), expected: "a string")
                }
                record.annotations[member.key] = text
            }
        }
        return record
    }
}

/// Typed, path-aware access to one object of a decoded journal line.
private struct FieldReader {
    let object: JSONObject
    let path: String
    /// The whole line, for recovering embedded JSON verbatim.
    let bytes: [UInt8]
    let keyPath: [String]
    /// Where this object is in `bytes`, when that is known without a scan (the root's member
    /// objects); `nil` otherwise, and embedded JSON is then found from the top.
    let range: Range<Int>?
    /// The value ranges of this object's members (the root only).
    let memberRanges: [String: Range<Int>]

    func fieldPath(_ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    /// The member, with `null` treated as absent.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws(JournalDecodingError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw .invalidField(fieldPath(key), expected: "a string") }
        return text
    }

    func requiredString(_ key: String) throws(JournalDecodingError) -> String {
        guard let text = try string(key) else { throw .missingField(fieldPath(key)) }
        return text
    }

    func int64(_ key: String) throws(JournalDecodingError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard let number = value.int64Value else { throw .invalidField(fieldPath(key), expected: "a 64-bit integer") }
        return number
    }

    func int(_ key: String) throws(JournalDecodingError) -> Int? {
        guard let value = value(key) else { return nil }
        guard let number = value.intValue else { throw .invalidField(fieldPath(key), expected: "an integer") }
        return number
    }

    func requiredInt(_ key: String) throws(JournalDecodingError) -> Int {
        guard let number = try int(key) else { throw .missingField(fieldPath(key)) }
        return number
    }

    func requiredUInt64(_ key: String) throws(JournalDecodingError) -> UInt64 {
        guard let value = value(key) else { throw .missingField(fieldPath(key)) }
        guard let number = value.uint64Value else {
            throw .invalidField(fieldPath(key), expected: "an unsigned 64-bit integer")
        }
        return number
    }

    func requiredBool(_ key: String) throws(JournalDecodingError) -> Bool {
        guard let value = value(key) else { throw .missingField(fieldPath(key)) }
        guard case .bool(let flag) = value else { throw .invalidField(fieldPath(key), expected: "a boolean") }
        return flag
    }

    func object(_ key: String) throws(JournalDecodingError) -> FieldReader? {
        guard let value = value(key) else { return nil }
        guard case .object(let nested) = value else { throw .invalidField(fieldPath(key), expected: "an object") }
        return FieldReader(
            object: nested, path: fieldPath(key), bytes: bytes, keyPath: keyPath + [key], range: memberRanges[key], memberRanges: [:])
    }

    func requiredObject(_ key: String) throws(JournalDecodingError) -> FieldReader {
        guard let nested = try object(key) else { throw .missingField(fieldPath(key)) }
        return nested
    }

    func strings(_ key: String) throws(JournalDecodingError) -> [String] {
        guard let value = value(key) else { return [] }
        guard case .array(let elements) = value else { throw .invalidField(fieldPath(key), expected: "an array of strings") }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                throw .invalidField("\(fieldPath(key))[\(index)]", expected: "a string")
            }
            result.append(text)
        }
        return result
    }

    /// `lint`: an array of finding objects.
    func lintNotes() throws(JournalDecodingError) -> [LintNote] {
        guard let value = value("lint") else { return [] }
        guard case .array(let elements) = value else { throw .invalidField(fieldPath("lint"), expected: "an array of findings") }
        var notes: [LintNote] = []
        for (index, element) in elements.enumerated() {
            guard case .object(let object) = element else {
                throw .invalidField("\(fieldPath("lint"))[\(index)]", expected: "an object")
            }
            let finding = FieldReader(
                object: object, path: "\(fieldPath("lint"))[\(index)]", bytes: bytes, keyPath: keyPath + ["lint"], range: nil,
                memberRanges: [:])
            notes.append(
                LintNote(
                    code: try finding.requiredString("code"),
                    severity: try finding.requiredString("severity"),
                    field: try finding.string("field") ?? "",
                    message: try finding.requiredString("message"),
                    source: try finding.string("source") ?? ""
                )
            )
        }
        return notes
    }

    func headers(_ key: String) throws(JournalDecodingError) -> HTTPHeaderList {
        guard let value = value(key) else { return HTTPHeaderList() }
        guard case .array(let elements) = value else { throw .invalidField(fieldPath(key), expected: "an array of pairs") }
        var result = HTTPHeaderList()
        for (index, element) in elements.enumerated() {
            guard case .array(let pair) = element, pair.count == 2,
                case .string(let name) = pair[0], case .string(let text) = pair[1]
            else {
                throw .invalidField("\(fieldPath(key))[\(index)]", expected: "a [name, value] pair of strings")
            }
            result.append(name: name, value: text)
        }
        return result
    }

    /// The member's JSON exactly as it appears in the line (compacted if the line was
    /// hand-edited with whitespace). Unlike other fields, `null` here is the JSON value `null`.
    func rawJSON(_ key: String) throws(JournalDecodingError) -> [UInt8]? {
        guard object[key] != nil else { return nil }
        let found =
            if let range { JSONScanner.rangeOfMember(named: key, inObjectAt: range, in: bytes) } else {
                JSONScanner.rangeOfValue(atKeyPath: keyPath + [key], in: bytes)
            }
        guard let range = found else {
            throw .invalidField(fieldPath(key), expected: "locatable JSON")
        }
        let slice = bytes[range]
        return JSONScanner.scan(slice).isCompact ? Array(slice) : JSONCompactor.compacted(slice)
    }

    func body() throws(JournalDecodingError) -> RecordedBody {
        if let json = try rawJSON("body") {
            return .json(json)
        }
        if let text = try string("bodyText") {
            return .text(text)
        }
        if let encoded = try string("bodyBase64") {
            guard let decoded = Base64.decode(encoded) else {
                throw .invalidField(fieldPath("bodyBase64"), expected: "valid Base64")
            }
            return .binary(decoded)
        }
        return .none
    }
}
