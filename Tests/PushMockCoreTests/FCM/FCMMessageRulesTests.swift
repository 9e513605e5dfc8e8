import PushMockCore
import PushMockJSON
import Testing

/// Steps 5–11 of the validator: FCM's rules on a message that fits the schema.
@Suite("FCM message rules")
struct FCMMessageRulesTests {
    static let reservedExplanation =
        #""from", "message_type" and keys starting with "google." or "gcm.notification." are reserved"#
    static let legacyExplanation = #""from", "message_type" and keys starting with "google" or "gcm" are reserved"#

    // MARK: Reserved data keys

    @Test(
        "reserved data keys (documented rule)",
        arguments: [
            ("from", true), ("message_type", true), ("google.c.a.e", true), ("gcm.notification.title", true),
            ("google", false), ("googleapis", false), ("gcm", false), ("gcm.n.e", false), ("From", false),
            ("fromage", false), ("notification", false), ("collapse_key", false),
        ]
    )
    func reservedKeys(key: String, reserved: Bool) throws {
        for (place, path) in [("data", "message.data"), ("android", "message.android.data")] {
            let data: JSONValue = .object(JSONObject([(key: "ok", value: "1"), (key: key, value: "v")]))
            let message =
                place == "data"
                ? FCMTest.message([("data", data)])
                : FCMTest.message([("android", ["data": data])])
            let result = FCMTest.validate(message: message)
            if reserved {
                FCMTest.expectError(
                    result,
                    FCMTest.ruleError(
                        field: "\(path)[1].key",
                        description: "Invalid data key \"\(key)\": \(Self.reservedExplanation)."
                    )
                )
            } else {
                _ = try #require(FCMTest.success(result))
            }
        }
    }

    @Test(
        "reserved data keys (legacy prefixes rule)",
        arguments: [("google", true), ("googleapis", true), ("gcm", true), ("gcmx", true), ("from", true), ("go", false)]
    )
    func legacyReservedKeys(key: String, reserved: Bool) {
        let options = FCMValidationOptions(reservedDataKeys: .legacyPrefixes)
        let result = FCMTest.validate(message: FCMTest.message([("data", .object(JSONObject([(key: key, value: "v")])))]), options: options)
        if reserved {
            FCMTest.expectError(
                result,
                FCMTest.ruleError(
                    field: "message.data[0].key",
                    description: "Invalid data key \"\(key)\": \(Self.legacyExplanation)."
                )
            )
        } else {
            #expect(FCMTest.success(result) != nil)
        }
        #expect(FCMReservedDataKeys(rawValue: "legacy-prefixes") == .legacyPrefixes)
        #expect(FCMReservedDataKeys.all == [.documented, .legacyPrefixes])
    }

    @Test("the generic-message option keeps the specific text in the violation only")
    func genericMessages() {
        let options = FCMValidationOptions(genericInvalidArgumentMessages: true)
        FCMTest.expectError(
            FCMTest.validate(message: FCMTest.message([("data", ["from": "x"])]), options: options),
            FCMTest.ruleError(
                field: "message.data[0].key",
                description: "Invalid data key \"from\": \(Self.reservedExplanation).",
                message: "Request contains an invalid argument."
            )
        )
        FCMTest.expectError(
            FCMTest.validate(message: FCMTest.message([("apns", ["headers": ["apns-priority": "7"]])]), options: options),
            FCMTest.ruleError(
                field: "message.apns.headers",
                description: "Invalid APNs header apns-priority: 7 (APNs answers BadPriority).",
                message: "Request contains an invalid argument."
            )
        )
    }

    // MARK: Topics

    @Test(
        "message.topic",
        arguments: [
            ("news", nil as String?),
            ("a-Z_0.9~%2F", nil),
            ("/topics/news", #"Invalid topic name "/topics/news": the "/topics/" prefix must not be provided."#),
            ("", #"Invalid topic name "": a topic name must not be empty."#),
            ("a b", #"Invalid topic name "a b": ' ' is not allowed; topic names must match [a-zA-Z0-9-_.~%]+."#),
            ("private/news", #"Invalid topic name "private/news": '/' is not allowed; topic names must match [a-zA-Z0-9-_.~%]+."#),
            ("caf\u{E9}", "Invalid topic name \"caf\u{E9}\": '\u{E9}' is not allowed; topic names must match [a-zA-Z0-9-_.~%]+."),
        ]
    )
    func topic(topic: String, error: String?) {
        let result = FCMTest.validate(message: ["topic": .string(topic)])
        if let error {
            FCMTest.expectError(result, FCMTest.ruleError(field: "message.topic", description: error))
        } else {
            #expect(FCMTest.success(result)?.message.target == .topic(topic))
        }
    }

    @Test(
        "message.condition errors",
        arguments: [
            ("", "the condition is empty"),
            ("'a' in topic", "expected 'in topics' but found 'topic'"),
            ("a in topics", "expected a quoted topic name, '(' or '!' but found 'a'"),
            (
                "'a' in topics && 'b' in topics && 'c' in topics && 'd' in topics && 'e' in topics && 'f' in topics",
                "the condition has 6 topics; at most 5 are allowed"
            ),
        ]
    )
    func conditionErrors(condition: String, reason: String) {
        FCMTest.expectError(
            FCMTest.validate(message: ["condition": .string(condition)]),
            FCMTest.ruleError(field: "message.condition", description: "Invalid condition \"\(condition)\": \(reason).")
        )
    }

    @Test("the topic limit is configurable")
    func conditionLimit() {
        let six = "'a' in topics || 'b' in topics || 'c' in topics || 'd' in topics || 'e' in topics || 'f' in topics"
        #expect(FCMTest.success(FCMTest.validate(message: ["condition": .string(six)], options: .init(maximumConditionTopics: 6))) != nil)
    }

    @Test("message.fid: lenient and realistic")
    func fid() {
        #expect(
            FCMTest.success(FCMTest.validate(message: ["fid": "cAbCdEfGhIjKlMnOpQrStU"], options: .init(identifierRule: .realistic))) != nil
        )
        for fid in ["aAbCdEfGhIjKlMnOpQrStU", "cAbCdEfGhIjKlMnOpQrSt", "fake-fid-000001"] {
            FCMTest.expectError(
                FCMTest.validate(message: ["fid": .string(fid)], options: .init(identifierRule: .realistic)),
                FCMTest.ruleError(field: "message.fid", description: "The installation ID is not a valid Firebase installation ID")
            )
        }
        FCMTest.expectError(
            FCMTest.validate(message: ["fid": "short"]),
            FCMTest.ruleError(field: "message.fid", description: "The installation ID is not a valid Firebase installation ID")
        )
    }

    @Test("message.token under the realistic rule")
    func realisticToken() {
        let real =
            "eU2zIkuCiss:APA91bE8KUg54SOhwfkuU9xFPqIuOXLaAbXJAx2YPq6U2oW8GqdfXwhtSnD1dCRcrp3ylIlQU3HqNqDCiN94HjqrQz7Ty0ANe0IJo4Oea95WIy5gFrWJUin0jmscwdfnVjMRxmkjbTtC"
        let options = FCMValidationOptions(identifierRule: .realistic)
        #expect(FCMTest.success(FCMTest.validate(message: ["token": .string(real)], options: options)) != nil)
        FCMTest.expectError(
            FCMTest.validate(message: ["token": .string(FCMTest.token)], options: options),
            FCMError.invalidRegistrationToken().bodyValue
        )
    }

    // MARK: Android

    @Test(
        "android.ttl range",
        arguments: [
            ("2419201s", "2419201s"), ("-1s", "-1s"), ("2419200.000000001s", "2419200.000000001s"), ("-0.5s", "-0.500000000s"),
        ]
    )
    func ttlRange(ttl: String, shown: String) {
        FCMTest.expectError(
            FCMTest.validate(message: FCMTest.message([("android", ["ttl": .string(ttl)])])),
            FCMTest.ruleError(
                field: "message.android.ttl",
                description: "Invalid TTL \"\(shown)\": it must be between 0s and 2419200s (4 weeks)."
            )
        )
    }

    @Test("android.ttl: seconds as FCM applies them")
    func ttlSeconds() throws {
        let request = try #require(FCMTest.success(FCMTest.validate(message: FCMTest.message([("android", ["ttl": "3.9s"])]))))
        #expect(request.message.android?.ttlSeconds == 3)
        let none = try #require(FCMTest.success(FCMTest.validate(message: FCMTest.message([("android", ["priority": "high"])]))))
        #expect(none.message.android?.ttlSeconds == 2_419_200)
    }

    @Test(
        "android.notification.color",
        arguments: [
            ("#a1B2c3", true), ("#000000", true), ("#abc", false), ("red", false), ("#1234567", false), ("#12345g", false),
            ("112233", false),
        ]
    )
    func color(color: String, valid: Bool) {
        let result = FCMTest.validate(message: FCMTest.message([("android", ["notification": ["color": .string(color)]])]))
        if valid {
            #expect(FCMTest.success(result)?.message.android?.notification?.color == color)
        } else {
            FCMTest.expectError(
                result,
                FCMTest.ruleError(
                    field: "message.android.notification.color",
                    description: "Invalid color \"\(color)\": it must be in the form #rrggbb."
                )
            )
        }
    }

    @Test("*_loc_args require *_loc_key", arguments: ["title", "body"])
    func locArgs(prefix: String) {
        let args = "\(prefix)_loc_args"
        FCMTest.expectError(
            FCMTest.validate(
                message: FCMTest.message([("android", ["notification": .object(JSONObject([(key: args, value: .array(["x"]))]))])])),
            FCMTest.ruleError(
                field: "message.android.notification.\(prefix)_loc_key",
                description: "\(prefix)_loc_key is required when \(prefix)_loc_args is set."
            )
        )
        let withKey: JSONValue = .object(JSONObject([(key: args, value: .array(["x"])), (key: "\(prefix)_loc_key", value: "k")]))
        #expect(FCMTest.success(FCMTest.validate(message: FCMTest.message([("android", ["notification": withKey])]))) != nil)
        let empty: JSONValue = .object(JSONObject([(key: args, value: .array([]))]))
        #expect(FCMTest.success(FCMTest.validate(message: FCMTest.message([("android", ["notification": empty])]))) != nil)
    }

    @Test("notification_count must not be negative")
    func notificationCount() {
        FCMTest.expectError(
            FCMTest.validate(message: FCMTest.message([("android", ["notification": ["notificationCount": -1]])])),
            FCMTest.ruleError(
                field: "message.android.notification.notification_count",
                description: "notification_count must not be negative (got -1)."
            )
        )
        #expect(
            FCMTest.success(FCMTest.validate(message: FCMTest.message([("android", ["notification": ["notification_count": 0]])])))?
                .message.android?.notification?.notificationCount == 0
        )
    }

    @Test("vibrate_timings must not be negative")
    func vibrateTimings() {
        FCMTest.expectError(
            FCMTest.validate(message: FCMTest.message([("android", ["notification": ["vibrate_timings": ["1s", "-0.5s"]]])])),
            FCMTest.ruleError(
                field: "message.android.notification.vibrate_timings[1]",
                description: "vibrate_timings must not be negative."
            )
        )
    }

    @Test(
        "light_settings: all three fields, components in [0, 1], durations not negative",
        arguments: [
            (
                #"{"light_on_duration":"1s","light_off_duration":"1s"}"#, "light_settings.color",
                "light_settings.color is required."
            ),
            (
                #"{"color":{"red":1},"light_off_duration":"1s"}"#, "light_settings.light_on_duration",
                "light_settings.light_on_duration is required."
            ),
            (
                #"{"color":{"red":1},"light_on_duration":"1s"}"#, "light_settings.light_off_duration",
                "light_settings.light_off_duration is required."
            ),
            (
                #"{"color":{"red":1.5},"light_on_duration":"1s","light_off_duration":"1s"}"#, "light_settings.color",
                "light_settings.color components must be between 0 and 1."
            ),
            (
                #"{"color":{"red":1,"alpha":-0.1},"light_on_duration":"1s","light_off_duration":"1s"}"#,
                "light_settings.color", "light_settings.color components must be between 0 and 1."
            ),
            (
                #"{"color":{},"light_on_duration":"-1s","light_off_duration":"1s"}"#, "light_settings.light_on_duration",
                "light_settings.light_on_duration must not be negative."
            ),
            (
                #"{"color":{},"light_on_duration":"1s","light_off_duration":"-1s"}"#, "light_settings.light_off_duration",
                "light_settings.light_off_duration must not be negative."
            ),
        ]
    )
    func lightSettings(settings: String, field: String, description: String) {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":"fake-token-0001","android":{"notification":{"light_settings":\#(settings)}}}}"#),
            FCMTest.ruleError(field: "message.android.notification.\(field)", description: description)
        )
    }

    @Test("light_settings are typed")
    func lightSettingsTyped() throws {
        let request = try #require(
            FCMTest.success(
                FCMTest.validate(
                    #"{"message":{"token":"fake-token-0001","android":{"notification":{"lightSettings":{"color":{"red":0.5,"green":"1","blue":0,"alpha":0.25},"lightOnDuration":"0.2s","lightOffDuration":"1s"}}}}}"#
                )
            )
        )
        #expect(
            request.message.android?.notification?.lightSettings
                == FCMLightSettings(
                    color: FCMColor(red: 0.5, green: 1, blue: 0, alpha: 0.25),
                    lightOnDuration: .milliseconds(200),
                    lightOffDuration: .seconds(1)
                )
        )
    }

    // MARK: Analytics labels

    @Test(
        "analytics labels everywhere",
        arguments: [
            ("fcm_options", "message.fcm_options.analytics_label"),
            ("android", "message.android.fcm_options.analytics_label"),
            ("webpush", "message.webpush.fcm_options.analytics_label"),
            ("apns", "message.apns.fcm_options.analytics_label"),
        ]
    )
    func analyticsLabels(place: String, path: String) {
        func message(_ label: String) -> JSONValue {
            let options: JSONValue = ["analytics_label": .string(label)]
            return FCMTest.message([(place, place == "fcm_options" ? options : ["fcm_options": options])])
        }
        let longest = String(repeating: "a", count: 50)
        #expect(FCMTest.success(FCMTest.validate(message: message(longest))) != nil)
        #expect(FCMTest.success(FCMTest.validate(message: message("A-z_0.9~%"))) != nil)
        for bad in [longest + "a", "", "has space", "sl/ash"] {
            FCMTest.expectError(
                FCMTest.validate(message: message(bad)),
                FCMTest.ruleError(
                    field: path,
                    description: "Invalid analytics label \"\(bad)\": it must match ^[a-zA-Z0-9-_.~%]{1,50}$."
                )
            )
        }
    }

    // MARK: Web push

    @Test(
        "webpush.fcm_options.link must be https",
        arguments: [
            ("https://example.com/a?b#c", true), ("HTTPS://example.com", true), ("https://x", true),
            ("http://example.com", false), ("https://", false), ("example.com", false), ("https:///path", false),
            ("https://exa mple.com", false), ("ftp://example.com", false), ("/relative", false),
        ]
    )
    func link(link: String, valid: Bool) {
        let result = FCMTest.validate(message: FCMTest.message([("webpush", ["fcm_options": ["link": .string(link)]])]))
        if valid {
            #expect(FCMTest.success(result)?.message.webpush?.link == link)
        } else {
            FCMTest.expectError(
                result,
                FCMTest.ruleError(
                    field: "message.webpush.fcm_options.link",
                    description: "Invalid link \"\(link)\": HTTPS is required."
                )
            )
        }
    }

    @Test("webpush is typed, with its notification kept as sent")
    func webpush() throws {
        let request = try #require(
            FCMTest.success(
                FCMTest.validate(
                    #"{"message":{"token":"fake-token-0001","data":{"a":"1","b":"2"},"webpush":{"headers":{"TTL":"15"},"data":{"b":"3","c":"4"},"notification":{"title":"t","actions":[{"action":"x"}]}}}}"#
                )
            )
        )
        let webpush = try #require(request.message.webpush)
        #expect(webpush.headers == ["TTL": "15"])
        #expect(webpush.notification == FCMTest.json(#"{"title":"t","actions":[{"action":"x"}]}"#))
        #expect(request.message.webpushData == ["a": "1", "b": "3", "c": "4"])
        #expect(request.message.androidData == ["a": "1", "b": "2"])
    }

    // MARK: APNs

    @Test(
        "apns.headers go through the APNs header rules",
        arguments: [
            (#"{"apns-priority":"7"}"#, "Invalid APNs header apns-priority: 7", "BadPriority"),
            (#"{"apns-expiration":"soon"}"#, "Invalid APNs header apns-expiration: soon", "BadExpirationDate"),
            (
                #"{"apns-collapse-id":"\#(String(repeating: "c", count: 65))"}"#,
                "Invalid APNs header apns-collapse-id: \(String(repeating: "c", count: 65))", "BadCollapseId"
            ),
            (#"{"apns-push-type":"Alert"}"#, "Invalid APNs header apns-push-type: Alert", "InvalidPushType"),
            (#"{"apns-id":"not-a-uuid"}"#, "Invalid APNs header apns-id: not-a-uuid", "BadMessageId"),
        ]
    )
    func apnsHeaderRules(headers: String, message: String, reason: String) {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":"fake-token-0001","apns":{"headers":\#(headers)}}}"#),
            FCMTest.ruleError(
                field: "message.apns.headers",
                description: "\(message) (APNs answers \(reason)).",
                message: message
            )
        )
    }

    @Test("apns.headers: names that differ only in case are duplicates")
    func apnsDuplicateHeaders() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":"fake-token-0001","apns":{"headers":{"apns-priority":"10","APNS-Priority":"5"}}}}"#),
            FCMTest.ruleError(
                field: "message.apns.headers",
                description: "Duplicate APNs header apns-priority (APNs answers DuplicateHeaders).",
                message: "Duplicate APNs header apns-priority"
            )
        )
    }

    @Test("apns.headers: parsed values, lower-cased names, last JSON duplicate wins")
    func apnsHeaderValues() throws {
        let uuid = "123e4567-e89b-12d3-a456-426614174000"
        let request = try #require(
            FCMTest.success(
                FCMTest.validate(
                    #"{"message":{"token":"fake-token-0001","apns":{"headers":{"apns-priority":"7","APNs-Push-Type":"voip","apns-priority":"10","apns-expiration":"0","apns-collapse-id":"c","apns-id":"\#(uuid)","apns-topic":"com.example.voip"},"live_activity_token":"la"}}}"#
                )
            )
        )
        let apns = try #require(request.message.apns)
        #expect(
            apns.headers.pairs.map(\.name) == [
                "apns-priority", "apns-push-type", "apns-expiration", "apns-collapse-id", "apns-id", "apns-topic",
            ])
        #expect(apns.headerValues.priority == .immediate)
        #expect(apns.headerValues.pushType == .voip)
        #expect(apns.headerValues.expiration == 0)
        #expect(apns.headerValues.collapseID == "c")
        #expect(apns.headerValues.apnsID == uuid)
        #expect(apns.headerValues.topic == "com.example.voip")
        #expect(apns.effectivePushType == .voip)
        #expect(apns.liveActivityToken == "la")
    }

    /// `{"aps":{},"p":"<n × a>"}` is 17 + n bytes.
    static func apnsPayload(bytes: Int) -> JSONValue {
        ["aps": [:], "p": .string(String(repeating: "a", count: bytes - 17))]
    }

    @Test(
        "apns.payload size follows the APNs limit of its push type",
        arguments: [(nil as String?, 4096), ("alert", 4096), ("background", 4096), ("voip", 5120)]
    )
    func apnsPayloadSize(pushType: String?, limit: Int) {
        func message(_ size: Int) -> JSONValue {
            var apns: JSONObject = ["payload": Self.apnsPayload(bytes: size)]
            if let pushType { apns["headers"] = ["apns-push-type": .string(pushType)] }
            return FCMTest.message([("apns", .object(apns))])
        }
        #expect(FCMTest.success(FCMTest.validate(message: message(limit)))?.message.apns?.payloadByteCount == limit)
        FCMTest.expectError(
            FCMTest.validate(message: message(limit + 1)),
            FCMTest.ruleError(
                field: "message.apns.payload",
                description:
                    "The APNs payload is \(limit + 1) bytes; APNs accepts at most \(limit) bytes for apns-push-type \(pushType ?? "alert").",
                message: "APNs message is too big"
            )
        )
    }

    // MARK: Payload size

    @Test(
        "message size limit: 4096 bytes, 2048 for topics and conditions",
        arguments: [
            (["token": .string(FCMTest.token)], 4096, "Android message is too big"),
            (["fid": "fake-fid-000001"], 4096, "Android message is too big"),
            (["topic": "news"], 2048, "Topic message is too big"),
            (["condition": "'news' in topics"], 2048, "Topic message is too big"),
        ] as [(JSONValue, Int, String)]
    )
    func payloadLimit(target: JSONValue, limit: Int, message: String) throws {
        func body(_ size: Int) -> JSONValue {
            var object = target.objectValue ?? JSONObject()
            // "k" + value: size bytes in total.
            object["data"] = ["k": .string(String(repeating: "v", count: size - 1))]
            return .object(object)
        }
        let request = try #require(FCMTest.success(FCMTest.validate(message: body(limit))))
        #expect(request.message.payloadSize == limit)
        FCMTest.expectError(
            FCMTest.validate(message: body(limit + 1)),
            FCMTest.errorBody(
                code: 400,
                status: "INVALID_ARGUMENT",
                message: message,
                details: [["@type": .string(FCMTest.badRequestType)], FCMTest.fcmError("INVALID_ARGUMENT")]
            )
        )
    }

    @Test("the measured size: message.data plus the top-level notification text, nothing else")
    func payloadSizeDefinition() throws {
        let request = try #require(
            FCMTest.success(
                FCMTest.validate(
                    #"{"message":{"token":"fake-token-0001","data":{"ab":"cd","\u00e9":"x"},"android":{"data":{"ab":"z","n":"1"},"notification":{"title":"not counted"}},"notification":{"title":"T","body":"BB","image":"https://i"},"webpush":{"data":{"w":"not counted"}},"apns":{"payload":{"aps":{"alert":"not counted"}}}}}"#
                )
            )
        )
        // ab=cd (4) + é=x (3) + T (1) + BB (2) + https://i (9); android.data and the platform
        // blocks are not counted.
        #expect(request.message.payloadSize == 19)
        #expect(request.message.androidData == ["ab": "z", "\u{E9}": "x", "n": "1"])
        #expect(request.message.androidTitle == "not counted")
        #expect(request.message.androidBody == "BB")
    }

    /// Bodies whose counted part is `counted` bytes (data and top-level notification mixed),
    /// so the boundary is tested however the bytes are split.
    static let countedShapes: [(name: String, build: @Sendable (Int) -> [(String, JSONValue)])] = [
        ("data only", { size in [("data", ["k": .string(String(repeating: "v", count: size - 1))])] }),
        ("notification only", { size in [("notification", ["body": .string(String(repeating: "b", count: size))])] }),
        (
            "data and notification",
            { size in
                [
                    ("data", ["key": .string(String(repeating: "v", count: 1000 - 3))]),
                    ("notification", ["title": "T", "body": .string(String(repeating: "b", count: size - 1000 - 1))]),
                ]
            }
        ),
    ]

    @Test(
        "4096 counted bytes are accepted, 4097 get Google's too-big error, however they are split",
        arguments: [0, 1, 2]
    )
    func payloadBoundary(shape: Int) throws {
        let build = Self.countedShapes[shape].build
        let accepted = try #require(FCMTest.success(FCMTest.validate(message: FCMTest.message(build(4096)))))
        #expect(accepted.message.payloadSize == 4096)
        FCMTest.expectError(
            FCMTest.validate(message: FCMTest.message(build(4097))),
            FCMTest.errorBody(
                code: 400,
                status: "INVALID_ARGUMENT",
                message: "Android message is too big",
                details: [["@type": .string(FCMTest.badRequestType)], FCMTest.fcmError("INVALID_ARGUMENT")]
            )
        )
    }

    @Test(
        "5000-byte values outside data and the top-level notification are accepted (FCM does not count them)",
        arguments: [
            ["android", "notification", "body"],
            ["android", "notification", "title"],
            ["android", "data", "k"],
            ["webpush", "data", "k"],
            ["webpush", "notification", "body"],
        ]
    )
    func uncountedBlocks(path: [String]) throws {
        var value = JSONValue.string(String(repeating: "x", count: 5000))
        for key in path.reversed() {
            value = .object(JSONObject([(key: key, value: value)]))
        }
        let members = [(path[0], value.objectValue?[path[0]] ?? .null), ("data", ["small": "1"] as JSONValue)]
        let request = try #require(FCMTest.success(FCMTest.validate(message: FCMTest.message(members))))
        #expect(request.message.payloadSize == 6)
    }

    @Test("configurable limits")
    func configurableLimits() {
        let options = FCMValidationOptions(maximumPayloadSize: 10, maximumTopicPayloadSize: 5)
        #expect(FCMTest.success(FCMTest.validate(message: FCMTest.message([("data", ["k": "123456789"])]), options: options)) != nil)
        #expect(FCMTest.failure(FCMTest.validate(message: FCMTest.message([("data", ["k": "1234567890"])]), options: options)) != nil)
        #expect(FCMTest.failure(FCMTest.validate(message: ["topic": "t", "data": ["k": "12345"]], options: options)) != nil)
    }
}
