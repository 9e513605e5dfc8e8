import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

/// An APNs record with a payload, for queries.
func apnsRecord(
    _ sequence: UInt64,
    token: String = "00fc13ad",
    topic: String = "com.example.app",
    status: Int = 200,
    reason: String? = nil,
    payload: String = #"{"aps":{"alert":{"title":"Hi","body":"there"}}}"#,
    time: Int64 = 1_795_255_200_000,
    namespace: String? = "com.example.app",
    pushType: String = "alert",
    priority: Int = 10
) -> ExchangeRecord {
    ExchangeRecord(
        sequence: sequence,
        timeMilliseconds: time + Int64(sequence) * 1000,
        namespace: namespace,
        platform: .apns,
        environment: "sandbox",
        request: RequestInfo(method: "POST", path: "/3/device/\(token)", body: RecordedBody(capturing: Array(payload.utf8))),
        notification: NotificationInfo(token: token, topic: topic, pushType: pushType, priority: priority, messageID: "id-\(sequence)"),
        response: ResponseInfo(status: status, reason: reason)
    )
}

@Suite("Payload predicates")
struct PayloadPredicateTests {
    @Test(
        "text forms",
        arguments: [
            ("$.aps.alert.title=Hi", "$.aps.alert.title", "=", JSONValue.string("Hi")),
            ("$.aps.alert.title==Hi", "$.aps.alert.title", "=", .string("Hi")),
            ("$.aps.badge=3", "$.aps.badge", "=", .number("3")),
            (#"$.aps['content-available']=1"#, #"$.aps['content-available']"#, "=", .number("1")),
            (#"$.x="quoted""#, "$.x", "=", .string("quoted")),
            ("$.aps.sound!=default", "$.aps.sound", "!=", .string("default")),
            ("$.aps.alert.title~Time for *", "$.aps.alert.title", "~", .string("Time for *")),
            ("$.deep_link", "$.deep_link", "exists", nil),
            ("!$.aps.sound", "$.aps.sound", "absent", nil),
            ("$.a=x=y", "$.a", "=", .string("x=y")),
        ] as [(String, String, String, JSONValue?)])
    func parses(text: String, path: String, op: String, value: JSONValue?) throws {
        let predicate = try PayloadPredicate(parsing: text)
        #expect(predicate.path == path)
        #expect(predicate.op.description == op)
        #expect(predicate.value == value)
        #expect(try PayloadPredicate(parsing: predicate.description) == predicate, "the description parses back")
    }

    @Test("bad paths are refused with a reason", arguments: ["aps.alert", "$.[", "=x"])
    func refuses(text: String) {
        #expect(throws: QueryError.self) { try PayloadPredicate(parsing: text) }
    }

    /// A `!` outside brackets and quotes is an operator or a mistake, with or without a value
    /// after it (`$.x!y` was read as a path that must exist).
    @Test("a stray ! is an unknown operator", arguments: ["$.x!y", "!$.x!y", "$.x!yz=3", "$.a!"])
    func strayExclamationMark(text: String) {
        #expect {
            try PayloadPredicate(parsing: text)
        } throws: { error in
            (error as? QueryError)?.description.hasSuffix(
                "unknown operator; use =, !=, ~ or !~ (or PATH for present, !PATH for absent)") == true
        }
    }

    @Test(
        "a ! inside brackets or quotes is part of the path",
        arguments: [
            ("$['x!y']", "$['x!y']", PayloadPredicate.Operator.exists), ("!$['x!y']", "$['x!y']", .absent),
            ("$[\"a!\"]=1", "$[\"a!\"]", .equals),
        ])
    func quotedExclamationMark(text: String, path: String, op: PayloadPredicate.Operator) throws {
        let predicate = try PayloadPredicate(parsing: text)
        #expect(predicate.path == path)
        #expect(predicate.op == op)
    }

    /// The operator is found by Unicode scalar: a value that begins with an emoji modifier or
    /// a combining mark forms one character with the `=` before it.
    @Test(
        "an operator before a combining mark or emoji modifier is still the operator",
        arguments: [("$[2]!=\u{1F3FB}", "\u{1F3FB}"), ("$.a=\u{301}x", "\u{301}x"), ("$.a~\u{200D}*", "\u{200D}*")])
    func operatorBeforeCombiningMark(text: String, value: String) throws {
        let predicate = try PayloadPredicate(parsing: text)
        #expect(predicate.value?.stringValue == value)
        #expect(predicate.path == (text.hasPrefix("$[2]") ? "$[2]" : "$.a"))
    }

    /// The JSON form is held to the text form's rules (schemathesis found `{"path": ""}` taken).
    @Test("the JSON form refuses a path the text form refuses", arguments: ["", "aps.alert", "$.["])
    func jsonFormRefusesBadPaths(path: String) {
        let json = #"{"path":\#(JSONValue.string(path).compactString),"op":"="}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PayloadPredicate.self, from: Data(json.utf8)) }
    }

    @Test("evaluation")
    func evaluation() throws {
        let body = try JSONValue(
            parsing: #"{"aps":{"alert":{"title":"Time for your BPC-157"},"badge":2},"deep_link":"loop://protocols/p1/log"}"#)
        #expect(try PayloadPredicate(parsing: "$.aps.alert.title=Time for your BPC-157").evaluate(body).passed)
        #expect(try PayloadPredicate(parsing: "$.aps.alert.title~Time for *").evaluate(body).passed)
        #expect(try PayloadPredicate(parsing: "$.aps.badge=2").evaluate(body).passed)
        #expect(!(try PayloadPredicate(parsing: "$.aps.badge=\"2\"").evaluate(body).passed), "a JSON string is not a number")
        #expect(try PayloadPredicate(parsing: "$.aps.sound!=default").evaluate(body).passed, "absent is not equal")
        #expect(try PayloadPredicate(parsing: "!$.aps.sound").evaluate(body).passed)
        #expect(!(try PayloadPredicate(parsing: "$.aps.sound").evaluate(body).passed))
        #expect(!(try PayloadPredicate(parsing: "$.deep_link").evaluate(nil).passed), "no JSON body")
    }
}

@Suite("Recording queries")
struct RecordingQueryTests {
    @Test("REST items round trip and evaluate")
    func queryItems() throws {
        let items: [(name: String, value: String)] = [
            ("platform", "apns"), ("namespace", "com.example.app"), ("token", "00FC*"), ("status", "2xx"),
            ("pushType", "alert"), ("priority", "10"), ("since", "2026-11-21T10:00:00Z"), ("where", "$.aps.alert.title=Hi"),
        ]
        let query = try RecordingQuery(queryItems: items)
        #expect(query.queryItems.map(\.name).sorted() == items.map(\.name).sorted())
        #expect(try RecordingQuery(queryItems: query.queryItems) == query)
        #expect(query.matches(apnsRecord(1)))
        #expect(!query.matches(apnsRecord(2, status: 410, reason: "Unregistered")))
        #expect(!query.matches(apnsRecord(3, payload: #"{"aps":{"alert":"Hello"}}"#)))
        #expect(!query.matches(apnsRecord(4, time: 1_795_255_100_000)), "before since")
        #expect(!query.matches(apnsRecord(5, token: "ffff")))
    }

    @Test("bad items are refused", arguments: [("status", "two hundred"), ("priority", "high"), ("since", "yesterday"), ("where", "$.[")])
    func badItems(name: String, value: String) {
        #expect(throws: QueryError.self) { try RecordingQuery(queryItems: [(name, value)]) }
    }

    @Test(
        "since and until: relative times are resolved against the given now, numbers stay milliseconds",
        arguments: [
            ("since", "-2h", 1_795_249_815_250),
            ("until", "+5m", 1_795_257_315_250),
            ("since", "now", 1_795_257_015_250),
            ("since", "2026-11-21T10:00:00Z", 1_795_255_200_000),
            ("since", "-5", -5),
            ("until", "1795255200000", 1_795_255_200_000),
        ] as [(String, String, Int64)]
    )
    func relativeTimes(name: String, value: String, expected: Int64) throws {
        let now = Timestamp(millisecondsSince1970: 1_795_257_015_250)
        let query = try RecordingQuery(queryItems: [(name, value)], now: now)
        #expect((name == "since" ? query.since : query.until) == Timestamp(millisecondsSince1970: expected))
    }

    @Test("a time of day is in the given time zone, on now's day")
    func timeOfDay() throws {
        let query = try RecordingQuery(
            queryItems: [("since", "10:02")], now: Timestamp(millisecondsSince1970: 1_795_257_015_250),
            timeZone: TimeZone(identifier: "UTC")!)
        #expect(query.since == Timestamp(millisecondsSince1970: 1_795_255_320_000))
    }

    @Test("the clock is read only for relative times")
    func clockReadOnlyWhenNeeded() throws {
        var reads = 0
        func now() -> Timestamp {
            reads += 1
            return Timestamp(millisecondsSince1970: 0)
        }
        _ = try RecordingQuery(queryItems: [("since", "2026-11-21T10:00:00Z"), ("until", "1795255200000")], now: now())
        #expect(reads == 0)
        _ = try RecordingQuery(queryItems: [("since", "-2h")], now: now())
        #expect(reads == 1)
    }

    @Test("a bad time names the forms", arguments: ["since", "until"])
    func badTime(name: String) {
        #expect(throws: QueryError("\(name)=25:00: ISO 8601 (2026-11-21T10:00:00Z), milliseconds, now, -2h, +5m or 10:02")) {
            try RecordingQuery(queryItems: [(name, "25:00")])
        }
        #expect(
            throws: QueryError("\(name)=-9223372036854775808: a time must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z")
        ) {
            try RecordingQuery(queryItems: [(name, "-9223372036854775808")])
        }
    }

    @Test("status classes", arguments: [("4xx", 410, true), ("4xx", 200, false), ("200", 200, true), ("5xx", 503, true)])
    func statusClasses(filter: String, status: Int, expected: Bool) {
        #expect(StatusFilter(filter)?.contains(status) == expected)
    }

    @Test("JSON form round trips")
    func codable() throws {
        let json =
            #"{"platform":"apns","token":"00fc*","status":"4xx","since":1795255200000,"payload":[{"path":"$.aps.badge","op":"=","value":3}]}"#
        let query = try JSONDecoder().decode(RecordingQuery.self, from: Data(json.utf8))
        #expect(query.status == StatusFilter("4xx"))
        #expect(query.since == Timestamp(millisecondsSince1970: 1_795_255_200_000))
        let again = try JSONDecoder().decode(RecordingQuery.self, from: JSONEncoder().encode(query))
        #expect(again == query)
    }
}

@Suite("Free-text search (text=)")
struct TextSearchTests {
    static let fcmBody =
        #"{"message":{"token":"fcm-tok","notification":{"title":"Lab results ready","body":"Open the app"},"data":{"orderId":"ORD-77"}}}"#
    static let expoBody = #"[{"to":"ExponentPushToken[abc]","title":"Dose reminder","body":"Café at 10"}]"#

    @Test(
        "finds the text, ignoring case, in payload strings on every platform and in the token, topic, reason, path",
        arguments: [
            ("hi", 1, true),  // APNs title "Hi"
            ("THERE", 1, true),  // APNs body
            ("00FC13", 1, true),  // token, any case
            ("example.APP", 1, true),  // topic
            ("unregist", 2, true),  // reason
            ("/3/device", 1, true),  // path
            ("lab results", 3, true),  // FCM notification title
            ("ord-77", 3, true),  // FCM data value
            ("dose REMINDER", 4, true),  // Expo title in an array body
            ("cafe", 4, true),  // diacritics do not matter
            ("title", 1, false),  // keys are not searched
            ("nowhere", 1, false),
        ] as [(String, Int, Bool)])
    func matches(text: String, record: Int, expected: Bool) throws {
        let records = [
            apnsRecord(1),
            apnsRecord(2, status: 410, reason: "Unregistered"),
            apnsRecord(3, token: "fcm-tok", payload: Self.fcmBody),
            apnsRecord(4, token: "ExponentPushToken[abc]", payload: Self.expoBody),
        ]
        let search = try #require(TextSearch(text))
        #expect(search.matches(records[record - 1]) == expected)
        #expect(RecordingQuery(text: search).matches(records[record - 1]) == expected)
    }

    @Test("blank text is no condition; the item round trips through REST items and JSON")
    func itemsAndJSON() throws {
        #expect(TextSearch("  ") == nil)
        #expect(try RecordingQuery(queryItems: [("text", "")]).isEmpty)
        let query = try RecordingQuery(queryItems: [("platform", "apns"), ("text", " Lab results ")])
        #expect(query.text?.text == "Lab results")
        #expect(query.queryItems.last?.name == "text")
        #expect(query.queryItems.last?.value == "Lab results")
        #expect(try RecordingQuery(queryItems: query.queryItems) == query)
        let decoded = try JSONDecoder().decode(RecordingQuery.self, from: Data(#"{"text":"lab"}"#.utf8))
        #expect(decoded.text == TextSearch("lab"))
        #expect(try JSONDecoder().decode(RecordingQuery.self, from: JSONEncoder().encode(decoded)) == decoded)
        #expect(RecordingQuery.queryItemNames.contains("text"))
    }

    @Test("a near miss names the text condition")
    func nearMiss() {
        let query = RecordingQuery(text: TextSearch("Lab results"))
        let result = ExpectationEvaluator.evaluate(Expectation(query: query), records: [apnsRecord(1)])
        #expect(!result.passed)
        #expect(result.nearestMisses.first?.mismatches.map(\.condition) == ["text"])
        #expect(query.summary == "text=Lab results")
    }
}

@Suite("Expectations")
struct ExpectationTests {
    let records = [
        apnsRecord(1, payload: #"{"aps":{"alert":{"title":"Time for your {{compound_name}}"}}}"#),
        apnsRecord(2, token: "ffff0000", status: 500, payload: #"{"aps":{"alert":{"title":"Time for your BPC-157"}}}"#),
        apnsRecord(3, status: 410, reason: "Unregistered"),
    ]

    @Test("a miss names what was expected, what came, and the nearest misses")
    func nearestMisses() throws {
        let query = RecordingQuery(
            token: Glob("00fc13ad"), status: .exactly(200), payload: [try .equals("$.aps.alert.title", "Time for your BPC-157")])
        let result = ExpectationEvaluator.evaluate(Expectation(query: query), records: records)
        #expect(!result.passed)
        #expect(result.matchedCount == 0)
        #expect(result.nearestMisses.count == 3)
        let closest = try #require(result.nearestMisses.first)
        #expect(closest.record.sequence == 1, "one condition off beats two off")
        #expect(closest.mismatches.map(\.condition) == ["$.aps.alert.title"])
        #expect(closest.mismatches.first?.actual == "Time for your {{compound_name}}")
        #expect(result.message.contains("expected exactly 1 exchange where"))
        #expect(result.message.contains(#"$.aps.alert.title: expected Time for your BPC-157, got Time for your {{compound_name}}"#))
    }

    @Test(
        "counts",
        arguments: [
            (CountRule.exactly(1), 1, true), (.exactly(1), 2, false), (.atLeast(2), 2, true), (.atMost(1), 2, false), (.none, 0, true),
            (.none, 1, false),
        ] as [(CountRule, Int, Bool)])
    func counts(rule: CountRule, matches: Int, passes: Bool) {
        let records = (0..<matches).map { apnsRecord(UInt64($0)) }
        #expect(
            ExpectationEvaluator.evaluate(Expectation(query: RecordingQuery(platform: .apns), count: rule), records: records).passed
                == passes)
    }

    @Test("order: steps must appear in sequence; a wrong order is said so")
    func order() throws {
        let title: (String) throws -> RecordingQuery = { RecordingQuery(payload: [try .equals("$.aps.alert.title", .string($0))]) }
        let sequence = [
            apnsRecord(1, payload: #"{"aps":{"alert":{"title":"A"}}}"#), apnsRecord(2, payload: #"{"aps":{"alert":{"title":"B"}}}"#),
        ]
        #expect(ExpectationEvaluator.evaluate(OrderExpectation(steps: [try title("A"), try title("B")]), records: sequence).passed)
        let reversed = ExpectationEvaluator.evaluate(OrderExpectation(steps: [try title("B"), try title("A")]), records: sequence)
        #expect(!reversed.passed)
        #expect(reversed.message.contains("the order is wrong"))
    }

    @Test("JSON form: count shorthand, within as text")
    func codable() throws {
        let json = #"{"query":{"token":"00fc13ad"},"count":{"atLeast":2},"within":"1m30s"}"#
        let expectation = try JSONDecoder().decode(Expectation.self, from: Data(json.utf8))
        #expect(expectation.count == .atLeast(2))
        #expect(expectation.within == .seconds(90))
        #expect(try JSONDecoder().decode(Expectation.self, from: Data(#"{"query":{},"count":0}"#.utf8)).count == .none)
    }

    /// The batch's form shows in its shape, so a problem is reported where it is: in the
    /// wrapped form, an element of `expectations`, not "no query" from trying another form.
    @Test(
        "a batch's problem names its place in the form its shape shows",
        arguments: [
            (#"{"expectations":[{"query":{"priority":"high"}}]}"#, ".expectations[0].query.priority"),
            (#"[{"query":{}},{"count":1}]"#, "[1]: missing \"query\""),
            (#"{"query":{"token":7}}"#, ".query.token"),
            (#"{"order":[{"steps":"a"}]}"#, ".order[0].steps"),
            // A count that can never be met is a mistake, in either spelling.
            (#"{"query":{},"count":-1}"#, ".count: count needs 0 ≤ exactly"),
            (#"{"query":{},"count":{"exactly":-1}}"#, ".count: count needs 0 ≤ exactly"),
            (#"{"query":{},"count":{"atLeast":3,"atMost":2}}"#, ".count: count needs 0 ≤ atLeast ≤ atMost"),
            // A misspelt member left its default in force and the check passed.
            (#"{"query":{"platfrm":"apns"},"count":{"atLeast":1}}"#, #".query.platfrm: unknown member "platfrm" in a query"#),
            (#"{"query":{},"count":{"none":true}}"#, #".count.none: unknown member "none" in a count"#),
            (#"{"query":{},"cont":{"atLeast":1}}"#, #".cont: unknown member "cont" in an expectation"#),
            (
                #"{"query":{},"deepLink":{"routes":{"routes":[]},"opens":"/x"}}"#,
                #".deepLink.opens: unknown member "opens" in deepLink"#
            ),
            (#"{"expectations":[{"query":{}}],"ordr":[]}"#, #".ordr: unknown member "ordr" in a batch of expectations"#),
            (#"{"order":[{"steps":[{}],"nme":"x"}]}"#, #".order[0].nme: unknown member "nme" in an order expectation"#),
            (#"{"query":{"payload":[{"path":"$.a","op":"=","vlue":1}]}}"#, #".query.payload[0].vlue: unknown member "vlue""#),
            // Bodies that read as a check that cannot fail, or ignore a member.
            (#"{"query":{},"within":-1}"#, ".within: within must not be negative"),
            (#"{"query":{},"count":{}}"#, ".count: count needs exactly, or atLeast and/or atMost"),
            (#"{"query":{},"count":{"exactly":1,"atLeast":1}}"#, ".count: count takes exactly, or atLeast and/or atMost, not both"),
            (#"{"order":[{"steps":[]}]}"#, ".order[0].steps: an order needs at least one step"),
            // As `--within` and the API: a check waits at most five minutes.
            (#"{"query":{},"within":"301s"}"#, "within is at most 300s"),
            (#"[{"query":{}},{"query":{},"within":"1000000h"}]"#, "within is at most 300s"),
        ])
    func batchProblems(json: String, place: String) {
        do {
            _ = try ExpectationBatch(json: Data(json.utf8))
            Issue.record("\(json) was read")
        } catch {
            #expect(error.description.contains(place), "\(error.description)")
            #expect(!error.description.contains("CodingKeys"), "\(error.description)")
        }
    }

    @Test("JUnit XML escapes and counts failures")
    func junit() {
        let failing = ExpectationEvaluator.evaluate(
            Expectation(name: "<dose & reminder>", query: RecordingQuery(platform: .fcm)), records: records)
        let passing = ExpectationEvaluator.evaluate(
            Expectation(query: RecordingQuery(platform: .apns), count: .atLeast(1)), records: records)
        let xml = JUnitReport.render(JUnitReport.testCases([failing, passing]))
        #expect(xml.contains(#"<testsuites tests="2" failures="1">"#))
        #expect(xml.contains("&lt;dose &amp; reminder&gt;"))
        #expect(xml.contains("<failure message="))
        #expect(!xml.contains("<dose"))
    }
}

@Suite("Queries over a store")
struct StoreQueryTests {
    @Test("prefilter by summary, page through, wait for late records")
    func store() async throws {
        let store = RecordingStore()
        for index in 1...1200 {
            _ = store.append(apnsRecord(0, token: index % 3 == 0 ? "aa00" : "bb00"))
        }
        let query = RecordingQuery(token: Glob("aa00"))
        #expect(store.entries(matching: query).count == 400, "beyond one 512-entry page")
        #expect(store.entries(matching: query, limit: 10).count == 10)
        let late = Task {
            try await Task.sleep(for: .milliseconds(50))
            _ = store.append(apnsRecord(0, token: "cc00"))
        }
        // Returns as soon as the record arrives; the deadline only has to survive a loaded machine.
        let found = await store.wait(for: RecordingQuery(token: Glob("cc00")), timeout: .seconds(120))
        #expect(found.count == 1)
        try await late.value
        let none = await store.evaluate(Expectation(query: RecordingQuery(token: Glob("dd00")), count: .none, within: .milliseconds(20)))
        #expect(none.passed)
    }

    @Test("records: each page asked whether anyone still waits; matches in order, with and without a query")
    func cancelledBetweenPages() {
        let store = RecordingStore()
        for index in 1...1200 {
            _ = store.append(apnsRecord(0, token: index % 3 == 0 ? "aa00" : "bb00"))
        }
        #expect(store.records(matching: RecordingQuery()).map(\.sequence) == Array(1...1200))
        #expect(store.records(matching: RecordingQuery(token: Glob("aa00"))).map(\.sequence) == (1...400).map { UInt64($0 * 3) })
        #expect(store.records(matching: RecordingQuery(), newestFirst: true, limit: 3).map(\.sequence) == [1200, 1199, 1198])
        // Cancelled once the first page of 512 is in: nothing more is decoded.
        var asked = 0
        let cut = store.records(
            matching: RecordingQuery(),
            isCancelled: {
                asked += 1
                return asked > 1
            })
        #expect(asked == 2)
        #expect(cut.map(\.sequence) == Array(1...512))
        #expect(store.records(matching: RecordingQuery(), isCancelled: { true }).isEmpty)
    }
}
