import PushMockCore
import PushMockJSON
import PushMockRecording
import Testing

@Suite("ExchangeRecord journal coding")
struct ExchangeRecordCodingTests {
    struct Variant: Sendable, CustomTestStringConvertible {
        var name: String
        var record: ExchangeRecord
        var testDescription: String { name }
    }

    static let variants: [Variant] = {
        var list: [Variant] = []
        func add(_ name: String, _ change: (inout ExchangeRecord) -> Void) {
            var record = makeAPNsRecord(sequence: 42)
            change(&record)
            list.append(Variant(name: name, record: record))
        }
        add("fully populated APNs record") { _ in }
        add("minimal record") { $0 = ExchangeRecord(sequence: 1) }
        add("no optionals at all") { record in
            record.namespace = nil
            record.streamID = nil
            record.environment = nil
            record.auth = nil
            record.notification = nil
            record.annotations = [:]
            record.connection = ConnectionInfo(id: 1, transport: "http/1.1", tls: false)
            record.request.authority = nil
            record.request.scheme = nil
        }
        add("text bodies with control characters and non-ASCII") { record in
            record.request.body = .text("line1\nline2\r\n\t\"quoted\" \\ back \u{0}\u{1F} é 日本 😀 \u{2028}")
            record.response.body = .text("")
        }
        add("binary bodies") { record in
            record.request.body = .binary([0x00, 0xFF, 0x80, 0x0A, 0x22, 0x5C])
            record.response.body = .binary([])
        }
        add("JSON bodies of every kind") { record in
            record.request.body = .json(Array("null".utf8))
            record.response.body = .json(Array(#"{"reason":"BadDeviceToken","timestamp":1795304400000}"#.utf8))
        }
        add("JSON body with escapes kept verbatim") { record in
            record.request.body = .json(Array(#"["\u00e9\/\ud83d\ude00",1.50,-0,1e400]"#.utf8))
        }
        add("410 with timestamp and reason") { record in
            record.response = ResponseInfo(
                status: 410, reason: "Unregistered", headers: [HeaderField("apns-id", "x")],
                body: .json(Array(#"{"reason":"Unregistered","timestamp":1795304400000}"#.utf8)),
                timestampMilliseconds: 1_795_304_400_000
            )
        }
        add("FCM record with resolved tokens") { record in
            record.platform = .fcm
            record.environment = nil
            record.auth = AuthInfo(scheme: "bearer", subject: "svc@project.iam.gserviceaccount.com")
            record.notification = NotificationInfo(
                topic: "news", priority: 5, messageID: "projects/p/messages/123", project: "p",
                condition: "'a' in topics && !('b' in topics)", resolvedTokens: ["t1", "t2", "t\"3"]
            )
        }
        add("lint findings") { record in
            record.notification?.lint = [
                LintNote(
                    code: "apns.background-high-priority", severity: "warning", field: "apns-priority",
                    message: "priority 10 on a \"background\" push", source: "https://developer.apple.com/x"
                ),
                LintNote(code: "apns.thread-id-empty", severity: "info", field: "aps.thread-id", message: "é", source: ""),
            ]
        }
        add("certificate auth without JWT") { record in
            record.auth = AuthInfo(scheme: "certificate", subject: "CN=ä, O=\"Quote\"")
        }
        add("extreme numbers") { record in
            record.sequence = UInt64.max
            record.timeMilliseconds = -1
            record.streamID = Int32.max
            record.latencyMicroseconds = Int64.max
            record.request.bodySize = Int.max
            record.connection.id = UInt64.max
            record.notification?.expiration = Int64.min
            record.notification?.priority = -5
            record.response.status = 999
        }
        add("control namespace and header names needing escapes") { record in
            record.platform = .unknown
            record.namespace = "name\"space\\\n"
            record.request.headers = [HeaderField("x-\u{7}", "\u{1B}[31m"), HeaderField("", "")]
            record.annotations = ["z": "last", "a": "first", "é": "accent", "": "empty"]
        }
        add("pre-epoch time") { $0.timeMilliseconds = -62_135_596_800_000 }
        return list
    }()

    @Test("encodes one compact, valid JSON line and decodes it back unchanged", arguments: variants)
    func roundTrip(_ variant: Variant) throws {
        let line = variant.record.jsonLine
        #expect(line.last == 0x0A)
        #expect(line.dropLast().allSatisfy { $0 != 0x0A && $0 != 0x0D })
        let scan = JSONScanner.scan(line.dropLast())
        #expect(scan.isObject)
        #expect(scan.isCompact)
        let decoded = try ExchangeRecord.decode(jsonLine: line)
        #expect(decoded == variant.record)
        // Re-encoding the decoded record gives the identical bytes.
        #expect(decoded.jsonLine == line)
    }

    @Test("field order and formatting follow the documented format")
    func exactLayout() throws {
        var record = ExchangeRecord(sequence: 5, timeMilliseconds: 1_795_304_400_123, platform: .apns)
        record.request = RequestInfo(
            method: "POST", path: "/3/device/x", headers: [HeaderField("a", "b")], body: .json(Array("{}".utf8)), bodySize: 2)
        record.response = ResponseInfo(status: 200)
        record.annotations = ["b": "2", "a": "1"]
        let text = String(decoding: record.jsonLine, as: UTF8.self)
        #expect(
            text == #"{"v":1,"seq":5,"time":"2026-11-21T23:40:00.123Z","timeMs":1795304400123,"platform":"apns","#
                + #""connection":{"id":0,"transport":"h2c","tls":false},"request":{"method":"POST","path":"/3/device/x","#
                + #""headers":[["a","b"]],"body":{},"bodySize":2},"response":{"status":200,"headers":[]},"#
                + #""latencyMicroseconds":0,"annotations":{"a":"1","b":"2"}}"# + "\n"
        )
    }

    @Test("appends to a reused buffer")
    func reuseBuffer() throws {
        var buffer: [UInt8] = []
        let first = makeAPNsRecord(sequence: 1)
        let second = makeAPNsRecord(sequence: 2)
        first.encodeJSONLine(into: &buffer)
        second.encodeJSONLine(into: &buffer)
        let entries = JournalReader.entries(in: buffer)
        #expect(entries == [.record(first, line: 1), .record(second, line: 2)])
    }

    @Test("tolerates unknown fields, nulls, whitespace and a missing timeMs")
    func forwardCompatibility() throws {
        let line = """
            { "v": 1, "seq": 9, "time": "2026-11-21T23:40:00.123Z", "future": {"x": [1,2]}, "platform": "fcm",
              "namespace": null,
              "connection": {"id": 1, "transport": "h2", "tls": true, "newConnField": 3},
              "request": {"method": "POST", "path": "/v1/projects/p/messages:send", "headers": [],
                          "body": { "message" : { "token" : "t" } }, "bodySize": 40, "extra": true},
              "response": {"status": 200, "headers": [["content-type", "application/json"]]},
              "latencyMicroseconds": 12 }
            """
        let record = try ExchangeRecord.decode(jsonLine: Array(line.utf8))
        #expect(record.sequence == 9)
        #expect(record.timeMilliseconds == 1_795_304_400_123)
        #expect(record.namespace == nil)
        #expect(record.request.body == .json(Array(#"{"message":{"token":"t"}}"#.utf8)))
        #expect(record.request.body.jsonValue?["message"]?["token"]?.stringValue == "t")
        #expect(record.response.headers.firstValue(named: "Content-Type") == "application/json")
    }

    @Test(
        "reports precise decoding errors",
        arguments: [
            ("not json", "invalid JSON"),
            ("[1]", "line is not a JSON object"),
            (#"{"v":2,"seq":1}"#, "unsupported journal format version 2"),
            (#"{"seq":1}"#, "missing field v"),
            (#"{"v":1,"seq":-1,"timeMs":0}"#, "field seq is not an unsigned 64-bit integer"),
            (#"{"v":1,"seq":1}"#, "missing field timeMs"),
            (#"{"v":1,"seq":1,"time":"yesterday"}"#, "field time is not an ISO-8601 UTC timestamp"),
            (
                #"{"v":1,"seq":1,"timeMs":-9223372036854775808}"#,
                "field timeMs is not a time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z"
            ),
            (#"{"v":1,"seq":1,"timeMs":253402300800000}"#, "field timeMs is not a time between 0001-01-01T00:00:00Z"),
            (
                #"{"v":1,"seq":1,"timeMs":0,"platform":"apns","connection":{"id":1,"transport":"h2","tls":"yes"}}"#,
                "field connection.tls is not a boolean"
            ),
            (
                #"{"v":1,"seq":1,"timeMs":0,"platform":"apns","connection":{"id":1,"transport":"h2","tls":true},"request":{"method":"GET","path":"/","headers":[["a"]]}}"#,
                "field request.headers[0] is not a [name, value] pair of strings"
            ),
            (
                #"{"v":1,"seq":1,"timeMs":0,"platform":"apns","connection":{"id":1,"transport":"h2","tls":true},"request":{"method":"GET","path":"/"}}"#,
                "missing field response"
            ),
            (
                #"{"v":1,"seq":1,"timeMs":0,"platform":"apns","connection":{"id":1,"transport":"h2","tls":true},"request":{"method":"GET","path":"/","bodyBase64":"!!"},"response":{"status":200}}"#,
                "field request.bodyBase64 is not valid Base64"
            ),
        ]
    )
    func decodingErrors(_ line: String, _ message: String) {
        do {
            _ = try ExchangeRecord.decode(jsonLine: Array(line.utf8))
            Issue.record("decoded unexpectedly")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
        }
    }

    @Test("classifies captured bodies")
    func bodyClassification() {
        #expect(RecordedBody(capturing: [UInt8]()) == .none)
        #expect(RecordedBody(capturing: Array("{\n  \"a\" : 1\n}\n".utf8)) == .json(Array(#"{"a":1}"#.utf8)))
        let compact = Array(#"{"a":1}"#.utf8)
        #expect(RecordedBody(capturing: compact) == .json(compact))
        #expect(RecordedBody(capturing: Array("hello wörld".utf8)) == .text("hello wörld"))
        #expect(RecordedBody(capturing: [0xFF, 0xFE]) == .binary([0xFF, 0xFE]))
        #expect(RecordedBody(capturing: Array("{\"a\":".utf8)) == .text("{\"a\":"))
        #expect(RecordedBody.text("é").byteCount == 2)
        #expect(RecordedBody(capturing: Array("[1]".utf8)[...]).bytes == Array("[1]".utf8))
    }
}
