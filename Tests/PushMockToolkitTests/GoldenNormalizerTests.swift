import Foundation
import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

@Suite("Golden files: normalisation")
struct GoldenNormalizerTests {
    /// A fully specified APNs record, so the whole entry can be checked word for word.
    static func fixedRecord(apnsID: String = "EC1BF194-B3B2-424A-89A9-5A918A6E6B5D") -> ExchangeRecord {
        ExchangeRecord(
            sequence: 42,
            timeMilliseconds: 1_795_304_400_123,
            namespace: "ci-7",
            platform: .apns,
            connection: ConnectionInfo(id: 3, transport: "h2", tls: true, alpn: "h2", remoteAddress: "127.0.0.1:50111"),
            streamID: 1,
            environment: "sandbox",
            request: RequestInfo(
                method: "POST",
                path: "/3/device/740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad",
                authority: "localhost:2197",
                scheme: "https",
                headers: [
                    HeaderField("apns-topic", "com.example.app"),
                    HeaderField("apns-push-type", "alert"),
                    HeaderField("user-agent", "MyApp/1.2 (iPhone)"),
                    HeaderField("apns-priority", "10"),
                    HeaderField("apns-expiration", "1795308000"),
                    HeaderField("apns-collapse-id", "dose-42"),
                    HeaderField("authorization", "bearer [JWT kid=ABC123DEFG iss=DEF123GHIJ; decoded in auth, signature withheld]"),
                ],
                body: .json(
                    Array(#"{"dose_id":"d-42","aps":{"badge":1,"alert":{"title":"Time for your dose","body":"Take 250 mcg"}}}"#.utf8)),
                bodySize: 91
            ),
            auth: AuthInfo(
                scheme: "bearer-jwt",
                jwtHeader: Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8),
                jwtClaims: Array(#"{"iss":"DEF123GHIJ","iat":1795304400}"#.utf8),
                keyID: "ABC123DEFG",
                teamID: "DEF123GHIJ"
            ),
            notification: NotificationInfo(
                token: "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad",
                topic: "com.example.app", pushType: "alert", priority: 10, expiration: 1_795_308_000,
                collapseID: "dose-42", messageID: apnsID
            ),
            response: ResponseInfo(
                status: 200,
                headers: [HeaderField("apns-id", apnsID), HeaderField("apns-unique-id", "6D4C2A5E-8F0B-4B1C-9A3D-2E7F1C0B9A88")]
            ),
            latencyMicroseconds: 85,
            annotations: ["fault": "none"]
        )
    }

    @Test("an APNs entry: reviewer-relevant fields in reading order, noise left out")
    func apnsEntry() {
        let document = GoldenDocument(records: [Self.fixedRecord()])
        #expect(
            document.text == """
                {
                  "format": "pushmock-golden",
                  "version": 1,
                  "notifications": [
                    {
                      "platform": "apns",
                      "environment": "sandbox",
                      "method": "POST",
                      "path": "/3/device/<token-1>",
                      "headers": {
                        "apns-collapse-id": "dose-42",
                        "apns-expiration": "+3600s",
                        "apns-priority": "10",
                        "apns-push-type": "alert",
                        "apns-topic": "com.example.app"
                      },
                      "auth": {
                        "scheme": "bearer-jwt",
                        "jwtHeader": {
                          "alg": "ES256",
                          "kid": "ABC123DEFG"
                        },
                        "jwtClaims": {
                          "iss": "DEF123GHIJ"
                        }
                      },
                      "payload": {
                        "aps": {
                          "alert": {
                            "body": "Take 250 mcg",
                            "title": "Time for your dose"
                          },
                          "badge": 1
                        },
                        "dose_id": "d-42"
                      },
                      "response": {
                        "status": 200,
                        "headers": {
                          "apns-id": "<apns-id-1>"
                        }
                      }
                    }
                  ]
                }

                """)
    }

    @Test("transport noise never appears")
    func noTransportNoise() {
        let text = GoldenDocument(records: [Self.fixedRecord()]).text
        for noise in ["user-agent", "127.0.0.1", "latency", "ci-7", "streamID", "connection", "1795304400123", "localhost:2197", "fault"] {
            #expect(!text.contains(noise), "\(noise) leaked into the golden file")
        }
    }

    // MARK: Volatile fields

    @Test("apns-id and apns-unique-id become numbered placeholders; the same id gets the same one")
    func apnsIdentifiers() {
        var factory = RecordFactory(seed: 1)
        let token = factory.apnsToken()
        let retryID = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
        let records = [
            factory.apns(token: token),
            factory.apns(token: token, clientAPNsID: retryID),
            factory.apns(token: token, clientAPNsID: retryID.lowercased()),
        ]
        var configuration = GoldenConfiguration()
        configuration.responseHeaders = GoldenHeaderSelection(names: ["apns-id", "apns-unique-id"])
        let entries = GoldenNormalizer(configuration: configuration).entries(for: records)
        #expect(entries[0]["response"]?["headers"]?["apns-id"] == "<apns-id-1>")
        #expect(entries[0]["response"]?["headers"]?["apns-unique-id"] == "<apns-unique-id-1>")
        #expect(entries[1]["headers"]?["apns-id"] == "<apns-id-2>")
        #expect(entries[1]["response"]?["headers"]?["apns-id"] == "<apns-id-2>")
        #expect(entries[1]["response"]?["headers"]?["apns-unique-id"] == "<apns-unique-id-2>")
        // A retry with the same id (in another letter case) is recognisably the same.
        #expect(entries[2]["headers"]?["apns-id"] == "<apns-id-2>")
    }

    @Test("FCM message names keep the project and replace the id, consistently in the response body")
    func fcmMessageNames() throws {
        var factory = RecordFactory(seed: 2)
        let token = factory.fcmToken()
        let records = [factory.fcm(token: token), factory.fcm(token: token)]
        var configuration = GoldenConfiguration()
        configuration.includesResponseBody = true
        let entries = GoldenNormalizer(configuration: configuration).entries(for: records)
        #expect(entries[0]["response"]?["name"] == "projects/demo-project/messages/<message-1>")
        #expect(entries[0]["response"]?["body"]?["name"] == "projects/demo-project/messages/<message-1>")
        #expect(entries[1]["response"]?["name"] == "projects/demo-project/messages/<message-2>")
        #expect(entries[0]["path"] == "/v1/projects/demo-project/messages:send")
        #expect(entries[0]["payload"]?["message"]?["token"] == "<token-1>")
        #expect(entries[1]["payload"]?["message"]?["token"] == "<token-1>")
    }

    @Test(
        "apns-expiration is rendered relative to the send time",
        arguments: [
            // (seconds after the client's "now", ms between that and receipt, rounding, rendered)
            (3600, 0, 60, "+3600s"),
            (3600, 999, 60, "+3600s"),
            (3600, 1_800, 60, "+3600s"),
            (86_400, 450, 60, "+86400s"),
            (45, 0, 1, "+45s"),
            (-120, 0, 60, "-120s"),
            (3600, 1_800, 1, "+3598s"),
        ] as [(Int64, Int64, Int, String)]
    )
    func relativeExpiration(expiresIn: Int64, jitter: Int64, rounding: Int, rendered: String) {
        var factory = RecordFactory(seed: 3)
        let record = factory.apns(token: factory.apnsToken(), expiresIn: expiresIn, jitterMilliseconds: jitter)
        var configuration = GoldenConfiguration()
        configuration.expiration = .relativeToSendTime(roundedTo: rounding)
        let entry = GoldenNormalizer(configuration: configuration).entry(for: record)
        #expect(entry["headers"]?["apns-expiration"]?.stringValue == rendered)
    }

    @Test("apns-expiration 0 stays 0; absolute mode and non-numbers keep the value")
    func expirationSpecialCases() {
        var record = Self.fixedRecord()
        record.request.headers = [HeaderField("apns-expiration", "0")]
        #expect(GoldenNormalizer().entry(for: record)["headers"]?["apns-expiration"] == "0")
        record.request.headers = [HeaderField("apns-expiration", "soon")]
        #expect(GoldenNormalizer().entry(for: record)["headers"]?["apns-expiration"] == "soon")
        record.request.headers = [HeaderField("apns-expiration", "1795308000")]
        let absolute = GoldenNormalizer(configuration: GoldenConfiguration(expiration: .absolute))
        #expect(absolute.entry(for: record)["headers"]?["apns-expiration"] == "1795308000")
    }

    @Test("FCM's apns-expiration inside the message is relative too")
    func fcmExpiration() {
        var factory = RecordFactory(seed: 4)
        let entry = GoldenNormalizer().entry(for: factory.fcm(token: factory.fcmToken()))
        #expect(entry["payload"]?["message"]?["apns"]?["headers"]?["apns-expiration"] == "+86400s")
    }

    @Test("the 410 timestamp becomes <timestamp>, in the response and its body")
    func goneTimestamp() {
        var factory = RecordFactory(seed: 5)
        let record = factory.apns(token: factory.apnsToken(), status: 410, reason: "Unregistered", goneSince: 1_795_000_000_000)
        var configuration = GoldenConfiguration()
        configuration.includesResponseBody = true
        let response = GoldenNormalizer(configuration: configuration).entry(for: record)["response"]
        #expect(response?["status"] == 410)
        #expect(response?["reason"] == "Unregistered")
        #expect(response?["timestamp"] == "<timestamp>")
        #expect(response?["body"] == ["reason": "Unregistered", "timestamp": "<timestamp>"])
    }

    @Test("JWTs: stable claims kept, volatile claims dropped, tokens in headers and payloads redacted")
    func jwts() {
        var factory = RecordFactory(seed: 6)
        var configuration = GoldenConfiguration()
        configuration.requestHeaders = GoldenHeaderSelection(names: ["authorization"], prefixes: ["apns-"])
        let normalizer = GoldenNormalizer(configuration: configuration)

        let apns = normalizer.entry(for: factory.apns(token: factory.apnsToken()))
        #expect(apns["auth"]?["jwtClaims"] == ["iss": "DEF123GHIJ"])
        #expect(apns["auth"]?["jwtHeader"] == ["alg": "ES256", "kid": "ABC123DEFG"])
        #expect(apns["headers"]?["authorization"] == "bearer <jwt>")

        let fcm = normalizer.entry(for: factory.fcm(token: factory.fcmToken()))
        #expect(fcm["auth"] == ["scheme": "bearer", "subject": "sender@demo-project.iam.gserviceaccount.com"])
        #expect(fcm["headers"]?["authorization"] == "Bearer <access-token>")
        #expect(fcm["payload"]?["message"]?["data"]?["session"] == "<jwt>")

        var keepJWTs = configuration
        keepJWTs.redactsJWTsInPayload = false
        keepJWTs.volatileJWTClaims = []
        let kept = GoldenNormalizer(configuration: keepJWTs).entry(for: factory.apns(token: factory.apnsToken()))
        #expect(kept["auth"]?["jwtClaims"]?["iat"] != nil)
    }

    @Test("certificate authentication shows the subject; auth can be left out")
    func certificateAuthentication() {
        var record = Self.fixedRecord()
        record.auth = AuthInfo(scheme: "certificate", subject: "CN=Apple Push Services: com.example.app")
        #expect(
            GoldenNormalizer().entry(for: record)["auth"] == [
                "scheme": "certificate", "subject": "CN=Apple Push Services: com.example.app",
            ])
        #expect(GoldenNormalizer(configuration: GoldenConfiguration(includesAuthentication: false)).entry(for: record)["auth"] == nil)
    }

    // MARK: Tokens

    @Test("device tokens get aliases in order of first appearance, everywhere they appear")
    func tokenAliases() {
        var factory = RecordFactory(seed: 7)
        let phone = factory.apnsToken()
        let tablet = factory.apnsToken()
        let records = [
            factory.apns(token: tablet),
            factory.apns(token: phone, extraPayload: [("deviceToken", .string(tablet))]),
            factory.apns(token: tablet),
        ]
        let entries = GoldenNormalizer().entries(for: records)
        #expect(entries.map { $0["path"]?.stringValue } == ["/3/device/<token-1>", "/3/device/<token-2>", "/3/device/<token-1>"])
        #expect(entries[1]["payload"]?["deviceToken"] == "<token-1>")

        let kept = GoldenNormalizer(configuration: GoldenConfiguration(deviceTokens: .keep)).entries(for: records)
        #expect(kept[0]["path"]?.stringValue == "/3/device/" + tablet)
    }

    @Test("a token in the path is aliased even when the record has no notification details")
    func pathTokenWithoutNotification() {
        var record = Self.fixedRecord()
        record.notification = nil
        record.request.path = "/3/device/abc123"
        #expect(GoldenNormalizer().entry(for: record)["path"] == "/3/device/<token-1>")
    }

    // MARK: Stability

    @Test(
        "the same scenario with different random ids, tokens, times and member order gives the same file",
        arguments: [(1, 2), (3, 4), (5, 99)] as [(UInt64, UInt64)]
    )
    func stableAcrossRuns(first: UInt64, second: UInt64) {
        var one = RecordFactory(seed: first)
        var two = RecordFactory(seed: second)
        let firstText = GoldenDocument(records: one.scenario()).text
        let secondText = GoldenDocument(records: two.scenario()).text
        #expect(firstText == secondText)
    }

    @Test("by-content order gives the same file whatever order concurrent sends arrived in")
    func byContentOrder() {
        var factory = RecordFactory(seed: 8)
        let records = (0..<6).map { index in factory.apns(token: factory.apnsToken(), title: "Message \(index % 3)") }
        var configuration = GoldenConfiguration()
        configuration.order = .byContent
        let ordered = GoldenDocument(records: records, configuration: configuration)
        let shuffled = GoldenDocument(records: records.reversed(), configuration: configuration)
        #expect(ordered.text == shuffled.text)
        #expect(
            ordered.entries.map { $0["payload"]?["aps"]?["alert"]?["title"]?.stringValue ?? "" }
                == ["Message 0", "Message 0", "Message 1", "Message 1", "Message 2", "Message 2"])
        #expect(ordered.entries.map { $0["path"]?.stringValue ?? "" } == (1...6).map { "/3/device/<token-\($0)>" })
    }

    @Test("payload members are sorted unless asked to keep the sender's order")
    func payloadMemberOrder() {
        var factory = RecordFactory(seed: 9)
        let token = factory.apnsToken()
        let reversed = factory.apns(token: token, reversedPayloadMembers: true)
        #expect(GoldenNormalizer().entry(for: reversed)["payload"]?.objectValue?.keys == ["aps", "dose_id"])
        let keeping = GoldenNormalizer(configuration: GoldenConfiguration(sortsPayloadMembers: false))
        #expect(keeping.entry(for: reversed)["payload"]?.objectValue?.keys == ["dose_id", "aps"])
    }

    // MARK: Selection

    @Test("only APNs and FCM exchanges by default; all records with platforms = nil")
    func platformFilter() {
        var factory = RecordFactory(seed: 10)
        let records = factory.scenario()
        #expect(GoldenNormalizer().entries(for: records).count == 5)
        #expect(GoldenNormalizer(configuration: GoldenConfiguration(platforms: nil)).entries(for: records).count == 6)
        #expect(GoldenNormalizer(configuration: GoldenConfiguration(platforms: [.fcm])).entries(for: records).count == 1)
    }

    @Test("lint codes and chosen annotations on request")
    func lintAndAnnotations() {
        var factory = RecordFactory(seed: 11)
        let record = factory.apns(token: factory.apnsToken())
        #expect(GoldenNormalizer().entry(for: record)["lint"] == nil)
        let entry = GoldenNormalizer(configuration: GoldenConfiguration(includesLint: true, annotations: ["fault"])).entry(for: record)
        #expect(entry["lint"] == ["apns.example"])
        #expect(entry["annotations"] == ["fault": "none"])
    }

    @Test("text and binary bodies")
    func nonJSONBodies() {
        var record = Self.fixedRecord()
        record.request.body = .text("not json")
        #expect(GoldenNormalizer().entry(for: record)["payloadText"] == "not json")
        record.request.body = .binary([0xFF, 0x00, 0x01])
        #expect(GoldenNormalizer().entry(for: record)["payloadBase64"] == "/wAB")
    }

    // MARK: Rules

    @Test("rules: ignore, redact, regex replacement and aliases, in payload or entry scope")
    func rules() throws {
        var factory = RecordFactory(seed: 12)
        let token = factory.apnsToken()
        let records = [
            factory.apns(token: token, body: "Take 250 mcg at 08:30", collapseID: "c-1", extraPayload: [("userId", "u-981")]),
            factory.apns(token: token, body: "Take 500 mcg at 20:15", collapseID: "c-2", extraPayload: [("userId", "u-123")]),
            factory.apns(token: token, body: "Take 500 mcg at 21:00", collapseID: "c-3", extraPayload: [("userId", "u-981")]),
        ]
        var configuration = GoldenConfiguration()
        configuration.rules = [
            try .ignore("$.dose_id"),
            try .redact("$.aps.alert.body", matching: #"\d{1,2}:\d{2}"#, with: "<time>"),
            try .alias("$.userId", as: "user"),
            try .redact("$.headers['apns-collapse-id']", in: .entry),
            try .ignore("$.aps.sound"),
        ]
        let entries = GoldenNormalizer(configuration: configuration).entries(for: records)
        #expect(entries[0]["payload"]?["dose_id"] == nil)
        #expect(entries[0]["payload"]?["aps"]?["sound"] == nil)
        #expect(
            entries.map { $0["payload"]?["aps"]?["alert"]?["body"]?.stringValue ?? "" }
                == ["Take 250 mcg at <time>", "Take 500 mcg at <time>", "Take 500 mcg at <time>"])
        #expect(entries.map { $0["payload"]?["userId"]?.stringValue ?? "" } == ["<user-1>", "<user-2>", "<user-1>"])
        #expect(entries[0]["headers"]?["apns-collapse-id"] == "<redacted>")
    }

    @Test("wildcards and indices in rule paths")
    func wildcardRules() throws {
        var factory = RecordFactory(seed: 13)
        let record = factory.apns(token: factory.apnsToken(), extraPayload: [("items", [["id": 1, "at": "x"], ["id": 2, "at": "y"]])])
        let configuration = GoldenConfiguration(rules: [try .ignore("$.items[*].at"), try .redact("$.items[-1].id", with: "<last>")])
        let entry = GoldenNormalizer(configuration: configuration).entry(for: record)
        #expect(entry["payload"]?["items"] == [["id": 1], ["id": "<last>"]])
    }

    @Test(
        "invalid rules are rejected when they are made",
        arguments: [
            ("aps.alert", GoldenRule.Scope.payload, GoldenRule.Action.remove),
            ("$..body", .payload, .remove),
            ("$.aps", .payload, .replaceMatches(pattern: "(unclosed", replacement: "x")),
            ("$.userId", .payload, .alias(prefix: "")),
            ("$", .entry, .remove),
        ]
    )
    func invalidRules(path: String, scope: GoldenRule.Scope, action: GoldenRule.Action) {
        #expect(throws: GoldenError.self) {
            try GoldenRule(path: path, scope: scope, action: action)
        }
        do {
            _ = try GoldenRule(path: path, scope: scope, action: action)
        } catch {
            #expect(error.code == .invalidRule)
        }
    }
}
