import PushMockCore
import Testing

@testable import PushMockRecording

/// ``JournalLineMemo``: the members a connection's lines repeat are written from the memo, and
/// every line is byte for byte what it is without one.
@Suite("Journal line memo")
struct JournalLineMemoTests {
    static let connectionA = ConnectionInfo(id: 7, transport: "h2", tls: true, alpn: "h2", remoteAddress: "127.0.0.1:50111")
    static let connectionB = ConnectionInfo(id: 8, transport: "h2c", tls: false, remoteAddress: "[::1]:40000")
    static let headers = HTTPHeaderList([
        ("authorization", "bearer [JWT kid=K iss=T; decoded in auth, signature withheld]"), ("apns-topic", "com.example"),
        ("apns-push-type", "alert"), ("user-agent", "quote \" backslash \\ tab \t"),
    ])
    static let token = AuthInfo(
        scheme: "bearer-jwt", jwtHeader: Array(#"{"alg":"ES256","kid":"K"}"#.utf8), jwtClaims: Array(#"{"iss":"T","iat":1}"#.utf8),
        keyID: "K", teamID: "T", detail: "new provider token on this connection")

    static func record(
        _ connection: ConnectionInfo, headers: HTTPHeaderList, auth: AuthInfo?, token: String = "ab"
    ) -> ExchangeRecord {
        ExchangeRecord(
            timeMilliseconds: 1_795_304_400_123, namespace: "ns", platform: .apns, connection: connection, streamID: 1,
            environment: "sandbox",
            request: RequestInfo(
                method: "POST", path: "/3/device/" + token, headers: headers, body: .json(Array(#"{"aps":{}}"#.utf8)), bodySize: 10),
            auth: auth, notification: NotificationInfo(token: token, topic: "com.example"),
            response: ResponseInfo(status: 200, headers: HTTPHeaderList([("apns-id", "id-" + token)])))
    }

    /// A connection's run of records: the same list (shared and merely equal), a changed
    /// list, a token whose `detail` changes, another connection, no auth, a list too long to
    /// keep, and back.
    static var records: [ExchangeRecord] {
        var token = Self.token
        let first = record(connectionA, headers: headers, auth: token, token: "01")
        token.detail = nil
        var changed = headers
        changed.append(name: "apns-collapse-id", value: "c")
        let equalCopy = HTTPHeaderList(headers.pairs.map { ($0.name, $0.value) })
        var long = headers
        long.append(name: "x-long", value: String(repeating: "é", count: 3000))
        return [
            first,
            record(connectionA, headers: headers, auth: token, token: "02"),
            record(connectionA, headers: equalCopy, auth: token, token: "03"),
            record(connectionA, headers: changed, auth: token, token: "04"),
            record(connectionB, headers: changed, auth: nil, token: "05"),
            record(connectionB, headers: long, auth: nil, token: "06"),
            record(connectionB, headers: long, auth: Self.token, token: "07"),
            record(connectionA, headers: headers, auth: token, token: "08"),
            record(connectionA, headers: headers, auth: token, token: "09"),
        ]
    }

    static func line(_ record: ExchangeRecord, memo: inout JournalLineMemo) -> [UInt8] {
        var line: [UInt8] = []
        record.encodeJSONLineAfterSequence(into: &line, memo: &memo)
        return line
    }

    @Test("every line is the same with and without the memo, and repeated members come from it")
    func linesAreUnchanged() {
        var memo = JournalLineMemo()
        var disabled = JournalLineMemo.disabled
        for (index, record) in Self.records.enumerated() {
            let withMemo = Self.line(record, memo: &memo)
            let without = Self.line(record, memo: &disabled)
            #expect(withMemo == without, "line \(index): \(String(decoding: withMemo, as: UTF8.self))")
        }
        // 2: connection and shared list; 3: connection, equal list, token; 4: connection, token;
        // 5: list; 6: connection (the long list is never kept); 7: connection (the first
        // token is back in the memo); 8: nothing (connection, list and token all changed
        // back); 9: all three.
        #expect(memo.reuses == 2 + 3 + 2 + 1 + 1 + 1 + 0 + 3)
        #expect(disabled.reuses == 0)
    }

    @Test("a store's journal bytes and stored lines are the same with and without the memo")
    func storeBytesAreUnchanged() {
        let plain = RecordingStore()
        let memoised = RecordingStore()
        var memo = JournalLineMemo()
        var plainJournal: [UInt8] = []
        var memoJournal: [UInt8] = []
        let all = Self.records
        for batch in [all[0..<1], all[1..<4], all[4..<9]] {
            var left = Array(batch)
            var right = Array(batch)
            plain.append(&left) { plainJournal += $0 }
            memoised.append(&right, memo: &memo) { memoJournal += $0 }
        }
        #expect(memo.reuses > 0)
        #expect(plainJournal == memoJournal)
        #expect(plain.allLines() == memoised.allLines())
    }
}

extension RecordingStore {
    fileprivate func allLines() -> [[UInt8]] {
        entries(newestFirst: false).map { Array($0.line) }
    }
}
