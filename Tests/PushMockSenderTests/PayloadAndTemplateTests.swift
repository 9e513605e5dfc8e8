import Foundation
import PushMockAuth
import PushMockCore
import PushMockJSON
import PushMockSender
import Testing

@Suite("APNs payload builder")
struct APNsPayloadTests {
    @Test(
        "each aps field renders under its wire name",
        arguments: [
            (APNsPayload(alert: .text("Hi")), #"{"aps":{"alert":"Hi"}}"#),
            (
                APNsPayload(alert: .init(title: "T", subtitle: "S", body: "B", launchImage: "L")),
                #"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"L"}}}"#
            ),
            (
                APNsPayload(
                    alert: .init(
                        titleLocKey: "TK", titleLocArgs: ["a"], subtitleLocKey: "SK", subtitleLocArgs: ["b"], locKey: "K",
                        locArgs: ["c", "d"])),
                #"{"aps":{"alert":{"title-loc-key":"TK","title-loc-args":["a"],"subtitle-loc-key":"SK","subtitle-loc-args":["b"],"loc-key":"K","loc-args":["c","d"]}}}"#
            ),
            (APNsPayload(badge: 0), #"{"aps":{"badge":0}}"#),
            (APNsPayload(sound: .default), #"{"aps":{"sound":"default"}}"#),
            (APNsPayload(sound: .named("bell.caf")), #"{"aps":{"sound":"bell.caf"}}"#),
            (
                APNsPayload(sound: .critical(name: "alarm.caf", volume: 0.5)),
                #"{"aps":{"sound":{"critical":1,"name":"alarm.caf","volume":0.5}}}"#
            ),
            (APNsPayload(threadID: "t", category: "c"), #"{"aps":{"thread-id":"t","category":"c"}}"#),
            (APNsPayload.background(), #"{"aps":{"content-available":1}}"#),
            (APNsPayload(mutableContent: true, targetContentID: "w"), #"{"aps":{"mutable-content":1,"target-content-id":"w"}}"#),
            (
                APNsPayload(interruptionLevel: .timeSensitive, relevanceScore: 0.75),
                #"{"aps":{"interruption-level":"time-sensitive","relevance-score":0.75}}"#
            ),
            (APNsPayload(filterCriteria: "work"), #"{"aps":{"filter-criteria":"work"}}"#),
            (
                APNsPayload(
                    alert: .init(title: "Score"),
                    liveActivity: .init(
                        event: .start,
                        timestamp: 1_700_000_000,
                        contentState: ["home": 1, "away": 0],
                        staleDate: 1_700_003_600,
                        dismissalDate: 1_700_007_200,
                        attributesType: "MatchAttributes",
                        attributes: ["match": "A-B"],
                        inputPushToken: true,
                        inputPushChannel: "Y2hhbm5lbA=="
                    )
                ),
                #"{"aps":{"alert":{"title":"Score"},"event":"start","timestamp":1700000000,"content-state":{"home":1,"away":0},"stale-date":1700003600,"dismissal-date":1700007200,"attributes-type":"MatchAttributes","attributes":{"match":"A-B"},"input-push-token":1,"input-push-channel":"Y2hhbm5lbA=="}}"#
            ),
            (
                APNsPayload(alert: .text("Open"), custom: ["link": "myapp://orders/42", "ids": [1, 2]]),
                #"{"aps":{"alert":"Open"},"link":"myapp://orders/42","ids":[1,2]}"#
            ),
        ] as [(APNsPayload, String)]
    )
    func encoding(payload: APNsPayload, expected: String) throws {
        #expect(String(decoding: payload.encoded(), as: UTF8.self) == expected)
    }

    @Test("the suggested push type follows the payload")
    func suggestedPushType() {
        #expect(APNsPayload(alert: .text("x")).suggestedPushType == .alert)
        #expect(APNsPayload.background().suggestedPushType == .background)
        #expect(APNsPayload(badge: 1, contentAvailable: true).suggestedPushType == .alert)
        #expect(APNsPayload(liveActivity: .init(event: .update, timestamp: 1)).suggestedPushType == .liveactivity)
        #expect(APNsNotification(deviceToken: "00", payload: .background()).pushType == .background)
    }

    @Test("interruption levels round-trip", arguments: APNsPayload.InterruptionLevel.all)
    func interruptionLevels(level: APNsPayload.InterruptionLevel) {
        #expect(APNsPayload.InterruptionLevel(rawValue: level.rawValue) == level)
    }
}

@Suite("FCM message builder")
struct FCMPushMessageTests {
    @Test("typed fields render with the SDKs' snake_case names")
    func encoding() throws {
        var message = FCMPushMessage(target: .token("tok"), notification: .init(title: "T", body: "B", image: "https://i"))
        message.data = ["b": "2", "a": "1"]
        message.android = .init(
            collapseKey: "c",
            priority: .high,
            ttl: .seconds(90),
            restrictedPackageName: "com.x",
            data: ["k": "v"],
            notification: .init(title: "AT", color: "#ff0000", clickAction: "OPEN", channelID: "ch"),
            directBootOK: true
        )
        message.apns = .init(headers: ["apns-priority": "5"], payload: APNsPayload(badge: 3))
        message.webpush = .init(headers: ["TTL": "15"], data: ["w": "1"], notification: ["title": "W"], link: "https://example.com")
        message.analyticsLabel = "campaign"
        message.extra = ["fid": "ignored-by-builder"]
        let expected = #"""
            {"validate_only":true,"message":{"token":"tok","notification":{"title":"T","body":"B","image":"https://i"},"data":{"a":"1","b":"2"},"android":{"collapse_key":"c","priority":"high","ttl":"90s","restricted_package_name":"com.x","data":{"k":"v"},"notification":{"title":"AT","color":"#ff0000","click_action":"OPEN","channel_id":"ch"},"direct_boot_ok":true},"apns":{"headers":{"apns-priority":"5"},"payload":{"aps":{"badge":3}}},"webpush":{"headers":{"TTL":"15"},"data":{"w":"1"},"notification":{"title":"W"},"fcm_options":{"link":"https://example.com"}},"fcm_options":{"analytics_label":"campaign"},"fid":"ignored-by-builder"}}
            """#
        #expect(String(decoding: message.requestBody(validateOnly: true), as: UTF8.self) == expected)
    }

    @Test("a message from JSON keeps its fields; the target must be exactly one")
    func fromJSON() throws {
        let message = try FCMPushMessage(json: try JSONValue(parsing: #"{"topic":"news","notification":{"title":"x"}}"#))
        #expect(message.target == .topic("news"))
        #expect(
            String(decoding: message.requestBody(validateOnly: false), as: UTF8.self)
                == #"{"message":{"topic":"news","notification":{"title":"x"}}}"#)
        #expect(throws: SenderError.self) { try FCMPushMessage(json: try JSONValue(parsing: #"{"topic":"a","token":"b"}"#)) }
        #expect(throws: SenderError.self) { try FCMPushMessage(json: try JSONValue(parsing: #"{"notification":{}}"#)) }
        #expect(FCMPushMessage.Target.topic("/topics/x").value == "x")
    }
}

@Suite("Templates")
struct TemplateTests {
    @Test("placeholders in text, typed whole-value substitution, dotted paths, keys")
    func rendering() throws {
        let template = try NotificationTemplate(
            json: #"""
                {"aps":{"alert":{"title":"Hi {{ user.first_name }}","body":"Time for your {{compound_name}} ({{ dose }} mg)"},"badge":"{{ count }}"},"{{ key }}":"{{ payload }}"}
                """#
        )
        #expect(template.variables == ["user.first_name", "compound_name", "dose", "count", "key", "payload"])
        let data: JSONObject = [
            "user": ["first_name": "Ada"], "compound_name": "vitamin \"D\"", "dose": 25, "count": 3, "key": "extra",
            "payload": ["a": [1, true]],
        ]
        let rendered = try template.render(data)
        #expect(
            rendered.compactString
                == #"{"aps":{"alert":{"title":"Hi Ada","body":"Time for your vitamin \"D\" (25 mg)"},"badge":3},"extra":{"a":[1,true]}}"#
        )
    }

    @Test("a missing variable is an error naming it; defaults fill gaps")
    func missing() throws {
        let template = try NotificationTemplate(
            json: #"{"aps":{"alert":"Time for your {{ compound_name }}, {{ name | default: 'friend' }}"}}"#)
        #expect(template.missingVariables(in: [:]) == ["compound_name"])
        #expect(template.missingVariables(in: ["compound_name": "zinc"]).isEmpty)
        #expect(throws: SenderError(.templateVariableMissing, #"template variable "compound_name" is missing from the data"#)) {
            try template.render(["name": "Ada"])
        }
        #expect(try template.render(["compound_name": "zinc"]).compactString == #"{"aps":{"alert":"Time for your zinc, friend"}}"#)
    }

    @Test(
        "syntax errors are caught when the template is made",
        arguments: [#"{"a":"{{ name"}"#, #"{"a":"{{ }}"}"#, #"{"a":"{{ a | upper }}"}"#, #"{"a":"{{ a b }}"}"#]
    )
    func syntax(text: String) {
        #expect(throws: SenderError.self) { try NotificationTemplate(json: text) }
        do {
            _ = try NotificationTemplate(json: text)
        } catch {
            #expect(error.code == .templateSyntax)
        }
    }

    @Test("a template without placeholders renders to itself; plain text renders too")
    func constant() throws {
        let template = try NotificationTemplate(json: #"{"aps":{"alert":"Hi","badge":1}}"#)
        #expect(!template.hasPlaceholders)
        #expect(try template.render([:]).compactString == #"{"aps":{"alert":"Hi","badge":1}}"#)
        #expect(try NotificationTemplate.renderText("Hi {{ n }}!", data: ["n": 2]) == "Hi 2!")
        #expect(throws: SenderError.self) { try NotificationTemplate(json: "not json") }
    }
}

@Suite("Recipient files")
struct RecipientFileTests {
    @Test("CSV: header, quoted fields with commas, quotes and newlines, CRLF, data columns")
    func csv() throws {
        let text = "token,compound_name,note\r\n00aa,\"vitamin D, 1000 IU\",\"say \"\"hi\"\"\"\r\n\r\n00bb,zinc,\"two\nlines\"\n"
        let recipients = try RecipientFile.parseCSV(text)
        #expect(recipients.count == 2)
        #expect(recipients[0].token == "00aa")
        #expect(recipients[0].data == ["compound_name": "vitamin D, 1000 IU", "note": #"say "hi""#])
        #expect(recipients[1].data["note"] == "two\nlines")
        #expect(recipients[0].line == 2 && recipients[1].line == 4)
    }

    /// Excel's "CSV UTF-8" export starts with a byte-order mark: the header was refused for a
    /// column named "\u{FEFF}token", invisible in the message.
    @Test("a file starting with a byte-order mark reads as without it, CSV and JSON Lines", arguments: ["csv", "jsonl"])
    func byteOrderMark(format: String) throws {
        let directory = NSTemporaryDirectory() + "pushmock-bom-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/recipients." + format
        let text = format == "csv" ? "token,name\n00aa,Ada\n" : #"{"token":"00aa","name":"Ada"}"# + "\n"
        try Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)).write(to: URL(fileURLWithPath: path))
        let recipients = try RecipientFile.load(path: path)
        #expect(recipients.map(\.token) == ["00aa"])
        #expect(recipients.first?.data["name"] == "Ada")
    }

    @Test("CSV errors name the line", arguments: ["name\nx\n", "token,a\n00,1,2\n", "token\n\"open\n", "token,a\n0\"0,1\n"])
    func csvErrors(text: String) {
        #expect(throws: SenderError.self) { try RecipientFile.parseCSV(text) }
    }

    @Test("JSON Lines: token or topic, a data object and other members as data (any JSON type)")
    func jsonLines() throws {
        let text = """
            {"token":"00aa","data":{"compound_name":"zinc"},"count":2}
            // a comment

            {"topic":"news","headline":{"en":"Hi"}}
            {"registration_token":"r1","condition":null}
            """
        let recipients = try RecipientFile.parseJSONLines(text)
        #expect(recipients.count == 3)
        #expect(recipients[0].token == "00aa")
        #expect(recipients[0].data == ["compound_name": "zinc", "count": 2])
        #expect(recipients[1].topic == "news")
        #expect(recipients[1].data["headline"]?["en"] == "Hi")
        #expect(recipients[1].line == 4)
        #expect(recipients[2].token == "r1")
    }

    @Test("JSON Lines errors", arguments: [#"{"data":{}}"#, "[1]", "{nope", #"{"token":"a","topic":"b"}"#, #"{"token":""}"#])
    func jsonLinesErrors(text: String) {
        #expect(throws: SenderError.self) { try RecipientFile.parseJSONLines(text) }
    }
}

@Suite("Retry policy and Retry-After")
struct RetryPolicyTests {
    @Test("exponential backoff, capped; jitter only shortens; attempts bound the retries")
    func backoff() {
        let policy = RetryPolicy(
            maximumAttempts: 6, initialBackoff: .milliseconds(100), multiplier: 3, maximumBackoff: .seconds(2), jitter: 0.5)
        #expect(
            (1...5).map { policy.baseBackoff(afterAttempt: $0) } == [
                .milliseconds(100), .milliseconds(300), .milliseconds(900), .seconds(2), .seconds(2),
            ])
        #expect(policy.backoff(afterAttempt: 2, unit: 1) == .milliseconds(300))
        #expect(policy.backoff(afterAttempt: 2, unit: 0) == .milliseconds(150))
        let seeded = JitterSource.seeded(42)
        for attempt in 1...5 {
            let value = policy.backoff(afterAttempt: attempt, unit: seeded.next())
            #expect(value >= policy.baseBackoff(afterAttempt: attempt) / 2 && value <= policy.baseBackoff(afterAttempt: attempt))
        }
        #expect(policy.delay(afterAttempt: 5, retryAfter: nil, unit: 1) == .seconds(2))
        #expect(policy.delay(afterAttempt: 6, retryAfter: nil, unit: 1) == nil)
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(30), unit: 1) == .seconds(30))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(121), unit: 1) == nil)
        var ignoring = policy
        ignoring.honorsRetryAfter = false
        #expect(ignoring.delay(afterAttempt: 1, retryAfter: .seconds(30), unit: 1) == .milliseconds(100))
        #expect(RetryPolicy.never.delay(afterAttempt: 1, retryAfter: nil, unit: 1) == nil)
    }

    @Test("seeded jitter repeats")
    func seeded() {
        let a = JitterSource.seeded(7)
        let b = JitterSource.seeded(7)
        #expect((0..<5).map { _ in a.next() } == (0..<5).map { _ in b.next() })
    }

    @Test(
        "invalid policies are refused", arguments: [RetryPolicy(maximumAttempts: 0), RetryPolicy(multiplier: 0.5), RetryPolicy(jitter: 2)])
    func invalid(policy: RetryPolicy) {
        #expect(throws: SenderError.self) { try policy.validate() }
    }

    @Test("Retry-After: delta seconds and HTTP-dates relative to the injected clock")
    func retryAfter() {
        let now = Timestamp(secondsSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .zero)
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == .seconds(30))
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:27:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse("soon", now: now) == nil)
        #expect(RetryAfter.parse("-5", now: now) == nil)
    }
}

@Suite("Provider token schedule")
struct ProviderTokenScheduleTests {
    let start = Timestamp(secondsSince1970: 1_800_000_000)

    func minutes(_ value: Int) -> Timestamp { start + .seconds(value * 60) }

    @Test("the refresh interval must lie in [20, 60) minutes", arguments: [19, 60, 61])
    func interval(minutes: Int) {
        #expect(throws: SenderError.self) {
            try ProviderTokenSource(key: .generate(keyID: "K000000001", teamID: "T000000001"), refreshInterval: .seconds(minutes * 60))
        }
    }

    @Test("a connection never changes tokens within 20 minutes, and never holds one past 60")
    func perConnectionRules() throws {
        let source = try ProviderTokenSource(key: .generate(keyID: "K000000001", teamID: "T000000001"))
        var first: ProviderTokenSource.ConnectionToken?
        var late: ProviderTokenSource.ConnectionToken?
        let a0 = try source.authorization(for: &first, now: minutes(0))
        // A connection opened at minute 45 cannot keep the minute-0 token for 20 minutes: it
        // gets a fresh one.
        let b45 = try source.authorization(for: &late, now: minutes(45))
        #expect(a0 != b45)
        #expect(late?.issuedAt == minutes(45))
        // The first connection moves on at 50 to the token minted at 45 (age 5).
        #expect(try source.authorization(for: &first, now: minutes(49)) == a0)
        #expect(try source.authorization(for: &first, now: minutes(50)) == b45)
        #expect(first?.adoptedAt == minutes(50))
        // The minute-45 token is 50 minutes old at 95, but the first connection adopted it at
        // 50: fine to switch at 95 (held 45 minutes).
        #expect(try source.authorization(for: &late, now: minutes(64)) == b45)
        let c95 = try source.authorization(for: &late, now: minutes(95))
        #expect(c95 != b45)
        #expect(try source.authorization(for: &first, now: minutes(95)) == c95)
        #expect(source.mintedCount == 3)
    }

    @Test("after ExpiredProviderToken the connection takes a fresh token at once")
    func invalidation() throws {
        let source = try ProviderTokenSource(key: .generate(keyID: "K000000001", teamID: "T000000001"))
        var connection: ProviderTokenSource.ConnectionToken?
        let old = try source.authorization(for: &connection, now: minutes(0))
        source.invalidate(&connection)
        let fresh = try source.authorization(for: &connection, now: minutes(1))
        #expect(fresh != old)
        #expect(source.mintedCount == 2)
    }
}

@Suite("Endpoints and summaries")
struct EndpointAndSummaryTests {
    @Test(
        "URLs",
        arguments: [
            ("https://api.push.apple.com", "api.push.apple.com", 443, true, "api.push.apple.com", ""),
            ("https://127.0.0.1:2197", "127.0.0.1", 2197, true, "127.0.0.1:2197", ""),
            ("http://localhost:2198/", "localhost", 2198, false, "localhost:2198", ""),
            ("https://[::1]:8443/v1", "::1", 8443, true, "[::1]:8443", "/v1"),
        ] as [(String, String, Int, Bool, String, String)]
    )
    func urls(url: String, host: String, port: Int, tls: Bool, authority: String, prefix: String) throws {
        let endpoint = try SenderEndpoint(url: url)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
        #expect(endpoint.usesTLS == tls)
        #expect(endpoint.effectiveAuthority == authority)
        #expect(endpoint.pathPrefix == prefix)
    }

    @Test("bad URLs", arguments: ["ftp://x", "api.push.apple.com", "https://"])
    func badURLs(url: String) {
        #expect(throws: SenderError.self) { try SenderEndpoint(url: url) }
    }

    @Test("the tally counts every class and computes nearest-rank percentiles")
    func tally() {
        let tally = DeliveryTally()
        for index in 1...100 {
            tally.record(
                SendResult(recipient: "t\(index)", outcome: .accepted(Acceptance(id: "x")), attempts: 1, latency: .milliseconds(index)))
        }
        tally.record(
            SendResult(
                recipient: "r", outcome: .rejected(Rejection(status: 400, reason: "BadDeviceToken")), attempts: 1, latency: .milliseconds(1)
            ))
        tally.record(
            SendResult(
                recipient: "g",
                outcome: .tokenInvalid(
                    TokenInvalidation(status: 410, reason: "Unregistered", timestamp: Timestamp(millisecondsSince1970: 5))), attempts: 1,
                latency: .milliseconds(1)))
        tally.record(
            SendResult(
                recipient: "f",
                outcome: .failed(DeliveryFailure(status: 503, reason: "ServiceUnavailable", error: SenderError(.serverError, "x"))),
                attempts: 3,
                latency: .milliseconds(1)
            )
        )
        let summary = tally.summary()
        #expect(summary.sent == 103)
        #expect(summary.accepted == 100 && summary.rejected == 1 && summary.failed == 1 && summary.invalidTokens.count == 1)
        #expect(summary.requests == 105 && summary.retries == 2)
        #expect(summary.latencyP50 == .milliseconds(49))
        #expect(summary.latencyP99 == .milliseconds(99))
        #expect(summary.notAccepted == 3)
        let json = summary.jsonValue
        #expect(json["invalidTokens"]?[0]?["timestamp"] == 5)
        #expect(json["rejectedByReason"]?["BadDeviceToken"] == 1)
        #expect(json["problems"]?.arrayValue?.count == 2)
        #expect(tally.progress == DeliveryTally.Progress(done: 103, accepted: 100, notAccepted: 3, retries: 2))
    }

    @Test("every error code has a distinct name")
    func errorCodes() {
        #expect(Set(SenderError.Code.all.map(\.description)).count == SenderError.Code.all.count)
    }
}
