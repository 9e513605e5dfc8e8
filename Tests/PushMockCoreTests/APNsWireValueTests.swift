import PushMockCore
import Testing

/// Apple's reason table: status of every reason (Handling notification responses from APNs).
let expectedReasonStatuses: [(String, Int)] = [
    ("BadCollapseId", 400), ("BadDeviceToken", 400), ("BadExpirationDate", 400), ("BadMessageId", 400),
    ("BadPriority", 400), ("BadTopic", 400), ("DeviceTokenNotForTopic", 400), ("DuplicateHeaders", 400),
    ("IdleTimeout", 400), ("InvalidPushType", 400), ("MissingDeviceToken", 400), ("MissingTopic", 400),
    ("PayloadEmpty", 400), ("TopicDisallowed", 400),
    ("BadCertificate", 403), ("BadCertificateEnvironment", 403), ("ExpiredProviderToken", 403), ("Forbidden", 403),
    ("InvalidProviderToken", 403), ("MissingProviderToken", 403), ("UnrelatedKeyIdInToken", 403),
    ("BadEnvironmentKeyInToken", 403), ("BadEnvironmentKeyIdInToken", 403),
    ("BadPath", 404), ("MethodNotAllowed", 405), ("ExpiredToken", 410), ("Unregistered", 410),
    ("PayloadTooLarge", 413), ("TooManyProviderTokenUpdates", 429), ("TooManyRequests", 429),
    ("InternalServerError", 500), ("ServiceUnavailable", 503), ("Shutdown", 503),
]

@Suite("APNs wire values")
struct APNsWireValueTests {
    @Test("every reason has Apple's status", arguments: expectedReasonStatuses)
    func reasonStatus(reason: String, status: Int) {
        let parsed = APNsReason(rawValue: reason)
        #expect(parsed.isKnown)
        #expect(parsed.status == status)
        #expect(parsed.rawValue == reason)
        #expect(APNsError(parsed).status == status)
    }

    @Test("the table and the reason list agree both ways")
    func tableComplete() {
        #expect(APNsReason.all.count == expectedReasonStatuses.count)
        #expect(Set(APNsReason.all.map(\.rawValue)) == Set(expectedReasonStatuses.map(\.0)))
        for reason in APNsReason.all {
            #expect(APNsReason(rawValue: reason.rawValue) == reason)
        }
    }

    @Test("unknown reasons survive verbatim")
    func unknownReason() {
        let reason = APNsReason(rawValue: "SomethingNew")
        #expect(!reason.isKnown)
        #expect(reason.status == nil)
        #expect(reason.rawValue == "SomethingNew")
        #expect(APNsError(reason).status == 500)
    }

    @Test("error bodies are exactly Apple's", arguments: APNsReason.all)
    func errorBody(reason: APNsReason) {
        let body = String(decoding: APNsError(reason).body, as: UTF8.self)
        #expect(body == #"{"reason":"\#(reason.rawValue)"}"#)
        #expect(String(decoding: APNsError(reason).goAwayDebugData, as: UTF8.self) == body)
    }

    @Test("410 bodies carry the timestamp in milliseconds; others never do")
    func timestamp() {
        let at = Timestamp(millisecondsSince1970: 1_700_000_000_123)
        #expect(
            String(decoding: APNsError(.unregistered, timestamp: at).body, as: UTF8.self)
                == #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        #expect(
            String(decoding: APNsError(.expiredToken, timestamp: at).body, as: UTF8.self)
                == #"{"reason":"ExpiredToken","timestamp":1700000000123}"#)
        #expect(String(decoding: APNsError(.badDeviceToken, timestamp: at).body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
        #expect(String(decoding: APNsError(.unregistered, timestamp: at).goAwayDebugData, as: UTF8.self) == #"{"reason":"Unregistered"}"#)
    }

    @Test("retry and token-invalidation classification follows Apple's guidance", arguments: APNsReason.all)
    func classification(reason: APNsReason) {
        let retryable: Set<String> = ["TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown", "IdleTimeout"]
        #expect(reason.isRetryable == retryable.contains(reason.rawValue))
        let invalidates: Set<String> = ["Unregistered", "ExpiredToken", "BadDeviceToken", "DeviceTokenNotForTopic"]
        #expect(reason.invalidatesDeviceToken == invalidates.contains(reason.rawValue))
    }

    @Test("environment-key spelling switch")
    func spelling() {
        #expect(APNsReason.EnvironmentKeySpelling.observed.reason.rawValue == "BadEnvironmentKeyInToken")
        #expect(APNsReason.EnvironmentKeySpelling.documented.reason.rawValue == "BadEnvironmentKeyIdInToken")
    }

    static let pushTypes: [(String, String?, Int)] = [
        ("alert", "", 4096), ("background", "", 4096), ("complication", ".complication", 4096),
        ("controls", ".push-type.controls", 4096), ("fileprovider", ".pushkit.fileprovider", 4096),
        ("liveactivity", ".push-type.liveactivity", 4096), ("location", ".location-query", 4096), ("mdm", nil, 4096),
        ("pushtotalk", ".voip-ptt", 4096), ("voip", ".voip", 5120), ("widgets", ".push-type.widgets", 4096),
    ]

    @Test("push types: topic suffix and payload limit", arguments: pushTypes)
    func pushType(name: String, suffix: String?, limit: Int) throws {
        let type = try #require(APNsPushType(rawValue: name))
        #expect(type.topicSuffix == suffix)
        #expect(type.maximumPayloadSize == limit)
        #expect(APNsPushType(bytes: Array(name.utf8)) == type)
        #expect(type.bundleID(fromTopic: "com.example.app" + (suffix ?? "")) == "com.example.app")
        if let suffix, !suffix.isEmpty {
            #expect(APNsPushType.inferred(fromTopic: "com.example.app" + suffix) == type)
            #expect(type.bundleID(fromTopic: "com.example.app") == nil)
        }
    }

    @Test("exactly eleven push types; case matters")
    func pushTypeSet() {
        #expect(APNsPushType.all.count == 11)
        #expect(APNsPushType(rawValue: "Alert") == nil)
        #expect(APNsPushType(rawValue: "") == nil)
        #expect(APNsPushType.inferred(fromTopic: "com.example.app") == .alert)
        #expect(APNsPushType.inferred(fromTopic: ".voip") == .alert)
    }

    @Test(
        "priorities",
        arguments: [("10", 10), ("5", 5), ("1", 1), ("0", nil), ("7", nil), ("05", nil), ("100", nil), ("", nil), (" 5", nil)]
            as [(String, Int?)])
    func priority(text: String, value: Int?) {
        #expect(APNsPriority(bytes: Array(text.utf8))?.rawValue == value)
    }

    @Test(
        "expiration",
        arguments: [
            ("0", 0), ("1800000000", 1_800_000_000), ("-1", nil), ("1.5", nil), ("", nil), ("abc", nil), ("12345678901234567890", nil),
        ] as [(String, Int64?)])
    func expiration(text: String, value: Int64?) {
        #expect(APNsRequestRules.parseExpiration(Array(text.utf8)) == value)
    }

    @Test(
        "apns-id",
        arguments: [
            ("123e4567-e89b-12d3-a456-4266554400a0", true), ("123E4567-E89B-12D3-A456-4266554400A0", true),
            ("123e4567e89b12d3a4564266554400a0", false), ("123e4567-e89b-12d3-a456-4266554400a", false),
            ("123e4567-e89b-12d3-a456-4266554400ag", false), ("", false),
        ])
    func messageID(text: String, valid: Bool) {
        #expect(APNsMessageID.isValid(Array(text.utf8)) == valid)
    }

    @Test("device token formats")
    func tokens() {
        let token64 = String(repeating: "a1", count: 32)
        #expect(APNsDeviceTokenFormat.variable.accepts(token64.utf8))
        #expect(APNsDeviceTokenFormat.variable.accepts(token64.uppercased().utf8))
        #expect(APNsDeviceTokenFormat.variable.accepts(String(repeating: "ab", count: 200).utf8))
        #expect(!APNsDeviceTokenFormat.variable.accepts(String(repeating: "ab", count: 201).utf8))
        #expect(!APNsDeviceTokenFormat.variable.accepts(String(repeating: "ab", count: 7).utf8))
        #expect(!APNsDeviceTokenFormat.variable.accepts((token64 + "a").utf8))
        #expect(!APNsDeviceTokenFormat.variable.accepts((token64.dropLast() + "g").utf8))
        #expect(APNsDeviceTokenFormat.strict64.accepts(token64.utf8))
        #expect(!APNsDeviceTokenFormat.strict64.accepts(String(repeating: "ab", count: 33).utf8))
    }

    @Test(
        "environments by authority",
        arguments: [
            ("api.push.apple.com", "production"), ("api.push.apple.com:443", "production"), ("API.PUSH.APPLE.COM", "production"),
            ("api.sandbox.push.apple.com", "sandbox"), ("api.development.push.apple.com:2197", "sandbox"),
            ("127.0.0.1:2197", nil), ("localhost", nil), ("[::1]:2197", nil),
        ] as [(String, String?)])
    func environment(authority: String, expected: String?) {
        #expect(APNsEnvironment.named(byAuthority: authority)?.name == expected)
    }
}

@Suite("Stateless request rules")
struct APNsRequestRulesTests {
    func headers(_ pairs: [(String, String)]) -> HTTPHeaderList { HTTPHeaderList(pairs) }

    @Test("duplicates among apns-* and authorization only")
    func duplicates() {
        #expect(APNsRequestRules.firstDuplicate(in: headers([("apns-topic", "a"), ("apns-topic", "b")])) == "apns-topic")
        #expect(APNsRequestRules.firstDuplicate(in: headers([("authorization", "a"), ("authorization", "b")])) == "authorization")
        #expect(APNsRequestRules.firstDuplicate(in: headers([("accept", "a"), ("accept", "b")])) == nil)
        #expect(APNsRequestRules.firstDuplicate(in: headers([("apns-topic", "a"), ("apns-priority", "10")])) == nil)
    }

    @Test("a valid apns-id is echoed even on DuplicateHeaders; an invalid one never is")
    func echo() {
        let id = "123e4567-e89b-12d3-a456-4266554400a0"
        guard
            case .failure(let duplicate) = APNsRequestRules.parse(
                method: "POST", path: "/3/device/ab", headers: headers([("apns-id", id), ("apns-topic", "a"), ("apns-topic", "a")])
            )
        else { Issue.record("expected failure"); return }
        #expect(duplicate.error.reason == .duplicateHeaders)
        #expect(duplicate.apnsID == id)
        guard case .failure(let bad) = APNsRequestRules.parse(method: "POST", path: "/3/device/ab", headers: headers([("apns-id", "x")]))
        else {
            Issue.record("expected failure"); return
        }
        #expect(bad.error.reason == .badMessageId)
        #expect(bad.apnsID == nil)
    }

    @Test(
        "a known topic is shared when apns-topic has its bytes, and never stands in for another",
        arguments: ["com.example.app", "com.example.app.voip", "com.example.ap", "com.example.apq", "COM.EXAMPLE.APP", "é.app"])
    func knownTopic(_ sent: String) throws {
        let known = "com.example.app"
        let result = APNsRequestRules.parse(
            method: "POST", path: "/3/device/ab", headers: headers([("apns-topic", sent)]), knownTopic: known)
        let topic = try #require(try result.get().headers.topic)
        #expect(topic == sent)
        let list = headers([("apns-topic", sent)])
        #expect(list.valueEquals(at: 0, known) == (sent == known))
        #expect(list.valueEquals(at: 0, sent))
        #expect(!list.valueEquals(at: 0, ""))
    }

    @Test("parsed values")
    func parsed() throws {
        let result = APNsRequestRules.parse(
            method: "POST",
            path: "/3/device/abcdef0123456789",
            headers: headers([
                ("apns-topic", "com.example.app.voip"), ("apns-priority", "5"), ("apns-expiration", "0"),
                ("apns-collapse-id", "c1"), ("authorization", "bearer x"),
            ])
        )
        let request = try result.get()
        #expect(request.deviceToken == "abcdef0123456789")
        let value = request.headers
        #expect(value.priority == .considerPower)
        #expect(value.expiration == 0)
        #expect(value.collapseID == "c1")
        #expect(value.pushType == nil)
        #expect(value.effectivePushType == .voip)
        #expect(value.authorizationIndex == 4)
        #expect(value.effectivePriority.rawValue == 5)
    }

    @Test("payload limits")
    func payload() {
        #expect(APNsRequestRules.checkPayload(byteCount: 0, pushType: .alert) == .payloadEmpty)
        #expect(APNsRequestRules.checkPayload(byteCount: 4096, pushType: .alert) == nil)
        #expect(APNsRequestRules.checkPayload(byteCount: 4097, pushType: .alert) == .payloadTooLarge)
        #expect(APNsRequestRules.checkPayload(byteCount: 5120, pushType: .voip) == nil)
        #expect(APNsRequestRules.checkPayload(byteCount: 5121, pushType: .voip) == .payloadTooLarge)
    }

    @Test("topic rules")
    func topics() {
        #expect(APNsRequestRules.checkTopic("com.example.app", pushType: .alert) == nil)
        #expect(APNsRequestRules.checkTopic("com.example.voip", pushType: .alert) == nil)
        #expect(APNsRequestRules.checkTopic("com.example.app", pushType: .voip) == .topicDisallowed)
        #expect(APNsRequestRules.checkTopic("com.example.app.voip", pushType: .voip) == nil)
        #expect(APNsRequestRules.checkTopic(".voip", pushType: .voip) == .topicDisallowed)
        #expect(APNsRequestRules.checkTopic("anything", pushType: .mdm) == nil)
    }
}
