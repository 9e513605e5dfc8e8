import PushMockCore
import PushMockJSON
import Testing

/// Step 1–4 of the validator: JSON syntax, the root, the schema transcoder's errors, the target
/// oneof and `validate_only`.
@Suite("FCM request parsing")
struct FCMPayloadParsingTests {
    // MARK: Data values

    @Test("a non-string data value: Google's exact body")
    func nonStringDataValue() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":"fake-token-0001","data":{"count":12}}}"#),
            FCMTest.json(
                #"{"error":{"code":400,"message":"Invalid value at 'message.data[0].value' (TYPE_STRING), 12","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.data[0].value","description":"Invalid value at 'message.data[0].value' (TYPE_STRING), 12"}]}]}}"#
            )
        )
    }

    @Test(
        "data values of every JSON type",
        arguments: [
            (#"{"a":"x","b":true}"#, "message.data[1].value", "true"),
            (#"{"a":1.50}"#, "message.data[0].value", "1.50"),
            (#"{"a":[1]}"#, "message.data[0].value", "[1]"),
            (#"{"a":{}}"#, "message.data[0].value", "{}"),
            (#"{"a":"x","a":"y","b":-0}"#, "message.data[2].value", "-0"),
        ]
    )
    func dataValueTypes(data: String, path: String, value: String) {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":"fake-token-0001","data":\#(data)}}"#),
            FCMTest.invalidValue(path, "TYPE_STRING", value)
        )
    }

    @Test("an object as a map value: its names are unknown at the value's path")
    func objectAsMapValue() {
        FCMTest.expectError(
            FCMTest.validate(
                #"{"message":{"token":"fake-token-0001","android":{"data":{"a":"1","b":"2","c":"3","d":{"metadata":"x","more":1}}}}}"#
            ),
            FCMTest.payloadError([
                FCMTest.unknownNameLine("metadata", at: "message.android.data[3].value"),
                FCMTest.unknownNameLine("more", at: "message.android.data[3].value"),
            ])
        )
    }

    @Test("null as a map value reads as an empty string; null fields are unset")
    func nulls() throws {
        let request = try #require(
            FCMTest.success(
                FCMTest.validate(
                    #"{"message":{"token":"fake-token-0001","data":{"a":null},"notification":null,"topic":null},"validate_only":null}"#
                )
            )
        )
        #expect(request.message.data == ["a": ""])
        #expect(request.message.notification == nil)
        #expect(request.message.target == .token(FCMTest.token))
        #expect(request.validateOnly == false)
    }

    @Test("map keys are taken verbatim and duplicates keep the last value")
    func mapKeys() throws {
        let request = try #require(
            FCMTest.success(
                FCMTest.validate(
                    #"{"message":{"token":"fake-token-0001","data":{"collapse_key":"1","Key":"2","key":"3","Key":"4"}}}"#
                )
            )
        )
        #expect(request.message.data?.pairs.map(\.key) == ["collapse_key", "Key", "key"])
        #expect(request.message.data?["Key"] == "4")
        #expect(request.rawMessage["data"]?.objectValue?.count == 4)
    }

    // MARK: Unknown names

    @Test("unknown names at the top level: one line and one field-less violation each")
    func topLevelUnknownNames() {
        FCMTest.expectError(
            FCMTest.validate(#"{"to":"/topics/news","notification":{"title":"x"},"priority":"high"}"#),
            FCMTest.payloadError([
                FCMTest.unknownNameLine("to", at: ""),
                FCMTest.unknownNameLine("notification", at: ""),
                FCMTest.unknownNameLine("priority", at: ""),
            ])
        )
    }

    @Test("unknown name inside message: Google's exact body")
    func unknownInMessage() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"tokens":["fake-token-0001"]}}"#),
            FCMTest.json(
                #"{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"tokens\" at 'message': Cannot find field.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message","description":"Invalid JSON payload received. Unknown name \"tokens\" at 'message': Cannot find field."}]}]}}"#
            )
        )
    }

    @Test("names are case-sensitive: neither spelling, no error hiding")
    func wrongCase() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"Token":"fake-token-0001","android":{"CollapseKey":"x","collapse-key":"y"}}}"#),
            FCMTest.payloadError([
                FCMTest.unknownNameLine("Token", at: "message"),
                FCMTest.unknownNameLine("CollapseKey", at: "message.android"),
                FCMTest.unknownNameLine("collapse-key", at: "message.android"),
            ])
        )
    }

    @Test("problems of different kinds are reported together, in document order")
    func mixedProblems() {
        FCMTest.expectError(
            FCMTest.validate(
                #"{"message":{"data":{"a":1},"android":{"priority":"URGENT","bogus":1},"notification":[{}],"token":"fake-token-0001"}}"#
            ),
            FCMTest.payloadError([
                ("Invalid value at 'message.data[0].value' (TYPE_STRING), 1", "message.data[0].value"),
                (
                    #"Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), "URGENT""#,
                    "message.android.priority"
                ),
                FCMTest.unknownNameLine("bogus", at: "message.android"),
                FCMTest.unknownNameLine(
                    "notification",
                    at: "message",
                    reason: "Proto field is not repeating, cannot start list."
                ),
            ])
        )
    }

    @Test("an object given for a string field: its names are unknown there")
    func objectForScalar() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":{"value":"x"}}}"#),
            FCMTest.unknownName("value", at: "message.token")
        )
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":{}}}"#),
            FCMTest.invalidValue("message.token", "TYPE_STRING", "{}")
        )
    }

    @Test("list elements: wrong types and nulls are reported with their index")
    func listElements() {
        FCMTest.expectError(
            FCMTest.validate(
                #"{"message":{"token":"fake-token-0001","android":{"notification":{"body_loc_key":"k","body_loc_args":["a",2,null]}}}}"#
            ),
            FCMTest.payloadError([
                (
                    "Invalid value at 'message.android.notification.body_loc_args[1]' (TYPE_STRING), 2",
                    "message.android.notification.body_loc_args[1]"
                ),
                (
                    "Invalid value at 'message.android.notification.body_loc_args[2]' (TYPE_STRING), null",
                    "message.android.notification.body_loc_args[2]"
                ),
            ])
        )
        FCMTest.expectError(
            FCMTest.validate(
                #"{"message":{"token":"fake-token-0001","android":{"notification":{"vibrate_timings":["1s","3"]}}}}"#
            ),
            FCMTest.invalidValue(
                "message.android.notification.vibrate_timings[1]",
                "type.googleapis.com/google.protobuf.Duration",
                "Field '', Illegal duration format; duration must end with 's'"
            )
        )
    }

    @Test(
        "scalar conversions of proto3 JSON",
        arguments: [
            (#"{"notification_count":"7"}"#, true),
            (#"{"notification_count":7.0}"#, true),
            (#"{"notification_count":2147483647}"#, true),
            (#"{"notification_count":2147483648}"#, false),
            (#"{"notification_count":"7.5"}"#, false),
            (#"{"notification_count":" 7"}"#, false),
            (#"{"sticky":"true"}"#, false),
            (#"{"sticky":1}"#, false),
            (#"{"light_settings":{"color":{"red":"0.25","green":"1","blue":0},"light_on_duration":"1s","light_off_duration":"1s"}}"#, true),
            (
                #"{"light_settings":{"color":{"red":"0x1p-2","green":1,"blue":0},"light_on_duration":"1s","light_off_duration":"1s"}}"#,
                false
            ),
            (#"{"light_settings":{"color":{"red":1e39,"green":1,"blue":0},"light_on_duration":"1s","light_off_duration":"1s"}}"#, false),
        ]
    )
    func scalarConversions(notification: String, accepted: Bool) {
        let result = FCMTest.validate(
            #"{"message":{"token":"fake-token-0001","android":{"notification":\#(notification)}}}"#
        )
        switch result {
        case .success:
            #expect(accepted)
        case .failure(let error):
            #expect(!accepted, "\(error)")
            #expect(error.fcmErrorCode == nil)
            #expect(error.fieldViolations.count == 1)
        }
    }

    // MARK: Durations and timestamps

    @Test(
        "android.ttl",
        arguments: [
            (#""0s""#, Duration.zero as Duration?, nil as String?),
            (#""3.5s""#, .milliseconds(3500), nil),
            (#""3.000000001s""#, .seconds(3) + .nanoseconds(1), nil),
            (#""2419200s""#, .seconds(2_419_200), nil),
            (#""2419200.000000000s""#, .seconds(2_419_200), nil),
            (#""3""#, nil, "Field 'ttl', Illegal duration format; duration must end with 's'"),
            (#""1.5""#, nil, "Field 'ttl', Illegal duration format; duration must end with 's'"),
            (#""s""#, nil, "Field 'ttl', Invalid duration format, failed to parse seconds"),
            (#""+3s""#, nil, "Field 'ttl', Invalid duration format, failed to parse seconds"),
            (#""3 s""#, nil, "Field 'ttl', Invalid duration format, failed to parse seconds"),
            (#""3.s""#, nil, "Field 'ttl', Invalid duration format, failed to parse nano seconds"),
            (#""3.0000000001s""#, nil, "Field 'ttl', Invalid duration format, failed to parse nano seconds"),
            (#""315576000001s""#, nil, "Field 'ttl', Duration value exceeds limits"),
            (#""99999999999999999999s""#, nil, "Field 'ttl', Invalid duration format, failed to parse seconds"),
            ("3600", nil, "Field 'ttl', Invalid data type for duration, value is 3600"),
        ]
    )
    func ttlFormat(ttl: String, expected: Duration?, error: String?) throws {
        let result = FCMTest.validate(#"{"message":{"token":"fake-token-0001","android":{"ttl":\#(ttl)}}}"#)
        if let error {
            FCMTest.expectError(
                result,
                FCMTest.invalidValue("message.android.ttl", "type.googleapis.com/google.protobuf.Duration", error)
            )
        } else {
            let request = try #require(FCMTest.success(result))
            #expect(request.message.android?.ttl == expected)
        }
    }

    @Test("the sent name appears in the duration error")
    func durationSentName() {
        FCMTest.expectError(
            FCMTest.validate(
                #"{"message":{"token":"fake-token-0001","android":{"notification":{"light_settings":{"color":{},"lightOnDuration":"1","light_off_duration":"1s"}}}}}"#
            ),
            FCMTest.invalidValue(
                "message.android.notification.light_settings.light_on_duration",
                "type.googleapis.com/google.protobuf.Duration",
                "Field 'lightOnDuration', Illegal duration format; duration must end with 's'"
            )
        )
    }

    @Test(
        "android.notification.event_time",
        arguments: [
            ("2024-01-02T03:04:05Z", 1_704_164_645_000 as Int64?),
            ("2024-01-02T03:04:05.123456789Z", 1_704_164_645_123),
            ("2024-01-02T03:04:05.1Z", 1_704_164_645_100),
            ("2024-01-02T03:04:05+01:00", 1_704_161_045_000),
            ("2024-01-02T03:04:05.5-02:30", 1_704_173_645_500),
            ("2024-02-29T00:00:00Z", 1_709_164_800_000),
            ("0001-01-01T00:00:00Z", -62_135_596_800_000),
            ("2023-02-29T00:00:00Z", nil),
            ("2024-04-31T00:00:00Z", nil),
            ("2024-01-02 03:04:05Z", nil),
            ("2024-01-02T03:04:05", nil),
            ("2024-01-02t03:04:05z", nil),
            ("2024-01-02T24:00:00Z", nil),
            ("2024-01-02T03:04:60Z", nil),
            ("2024-01-02T03:04:05.Z", nil),
            ("2024-01-02T03:04:05.1234567890Z", nil),
            ("2024-01-02T03:04:05+0100", nil),
            ("0000-01-01T00:00:00Z", nil),
            ("yesterday", nil),
        ]
    )
    func eventTime(text: String, milliseconds: Int64?) throws {
        let result = FCMTest.validate(
            #"{"message":{"token":"fake-token-0001","android":{"notification":{"event_time":"\#(text)"}}}}"#
        )
        if let milliseconds {
            let request = try #require(FCMTest.success(result))
            #expect(request.message.android?.notification?.eventTime == Timestamp(millisecondsSince1970: milliseconds))
        } else {
            FCMTest.expectError(
                result,
                FCMTest.invalidValue(
                    "message.android.notification.event_time",
                    "type.googleapis.com/google.protobuf.Timestamp",
                    "Field 'event_time', Invalid time format: \(text)"
                )
            )
        }
    }

    @Test("a number for a timestamp")
    func eventTimeNumber() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":"fake-token-0001","android":{"notification":{"eventTime":1704164645}}}}"#),
            FCMTest.invalidValue(
                "message.android.notification.event_time",
                "type.googleapis.com/google.protobuf.Timestamp",
                "Field 'eventTime', Invalid data type for timestamp, value is 1704164645"
            )
        )
    }

    // MARK: Target oneof

    @Test(
        "no target: recipient not set",
        arguments: [
            #"{"message":{"notification":{"title":"x"}}}"#,
            #"{"message":{}}"#,
            #"{"message":null}"#,
            #"{}"#,
            #"{"validate_only":true}"#,
            "",
            " \n\t ",
        ]
    )
    func noTarget(body: String) {
        FCMTest.expectError(FCMTest.validate(body), FCMError.recipientNotSet().bodyValue)
        FCMTest.expectError(
            FCMTest.validate(body),
            FCMTest.errorBody(
                code: 400,
                status: "INVALID_ARGUMENT",
                message: "Recipient of the message is not set.",
                details: [
                    FCMTest.badRequest([("message", "Recipient of the message is not set.")]),
                    FCMTest.fcmError("INVALID_ARGUMENT"),
                ]
            )
        )
    }

    @Test(
        "exactly one target",
        arguments: [
            (#""token":"fake-token-0001""#, FCMTarget.token("fake-token-0001")),
            (#""topic":"news""#, .topic("news")),
            (#""fid":"fake-fid-000001""#, .fid("fake-fid-000001")),
        ]
    )
    func oneTarget(member: String, expected: FCMTarget) throws {
        let request = try #require(FCMTest.success(FCMTest.validate(#"{"message":{\#(member)}}"#)))
        #expect(request.message.target == expected)
        #expect(request.message.target.fieldName == expected.fieldName)
    }

    @Test("a condition target")
    func conditionTarget() throws {
        let request = try #require(
            FCMTest.success(FCMTest.validate(#"{"message":{"condition":"'a' in topics && !('b' in topics)"}}"#))
        )
        guard case .condition(let condition) = request.message.target else {
            Issue.record("not a condition: \(request.message.target)")
            return
        }
        #expect(condition.topics == ["a", "b"])
        #expect(request.message.target.isFanOut)
    }

    @Test("two targets: Google's oneof error with the second name as sent")
    func twoTargets() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":"fake-token-0001","topic":"news"}}"#),
            FCMTest.invalidValue(
                "message",
                "oneof",
                "oneof field 'target' is already set. Cannot set 'topic'"
            )
        )
    }

    @Test("three targets: one line per extra target")
    func threeTargets() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"topic":"news","fid":"fake-fid-000001","condition":"'a' in topics"}}"#),
            FCMTest.payloadError([
                (
                    "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set 'fid'",
                    "message"
                ),
                (
                    "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set 'condition'",
                    "message"
                ),
            ])
        )
    }

    @Test("the same target twice: the last occurrence wins")
    func repeatedTarget() throws {
        let request = try #require(
            FCMTest.success(FCMTest.validate(#"{"message":{"token":"fake-token-0001","token":"fake-token-0002"}}"#))
        )
        #expect(request.message.target == .token("fake-token-0002"))
    }

    @Test("malformed registration tokens", arguments: ["", "short", "has space 123", "tok\u{E9}n-000001", "token/with/slash"])
    func malformedToken(token: String) {
        FCMTest.expectError(
            FCMTest.validate(message: ["token": .string(token)]),
            FCMError.invalidRegistrationToken().bodyValue
        )
    }

    // MARK: validate_only

    @Test(
        "validate_only in both spellings",
        arguments: [
            (#","validate_only":true"#, true),
            (#","validateOnly":true"#, true),
            (#","validate_only":false"#, false),
            ("", false),
            (#","validate_only":false,"validateOnly":true"#, true),
            (#","validateOnly":true,"validate_only":false"#, false),
        ]
    )
    func validateOnly(member: String, expected: Bool) throws {
        let request = try #require(
            FCMTest.success(FCMTest.validate(#"{"message":{"token":"fake-token-0001"}\#(member)}"#))
        )
        #expect(request.validateOnly == expected)
    }

    @Test("validate_only must be a JSON boolean")
    func validateOnlyType() {
        FCMTest.expectError(
            FCMTest.validate(#"{"message":{"token":"fake-token-0001"},"validate_only":"true"}"#),
            FCMTest.invalidValue("validate_only", "TYPE_BOOL", #""true""#)
        )
    }

    // MARK: Root and syntax

    @Test("the root must be an object", arguments: ["[]", #""message""#, "1", "null", "true"])
    func rootNotObject(body: String) {
        FCMTest.expectError(
            FCMTest.validate(body),
            FCMTest.json(
                #"{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"\": Root element must be a message.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"description":"Invalid JSON payload received. Unknown name \"\": Root element must be a message."}]}]}}"#
            )
        )
    }

    @Test(
        "JSON syntax errors read like Google's parser",
        arguments: [
            ("not json", "Unexpected token.\nnot json\n^"),
            (
                #"{"message": {"a": NaN}}"#,
                "Unexpected token.\n{\"message\": {\"a\": NaN}}\n                  ^"
            ),
            (
                #"{"message": {"token": "fake-token-0001", "data": {"score": tru}}}"#,
                "Unexpected token.\n, \"data\": {\"score\": tru}}}\n                    ^"
            ),
            (
                #"{"message": {"token" "x"}}"#,
                "Expected : between key:value pair.\n\"message\": {\"token\" \"x\"}}\n                    ^"
            ),
            (
                #"{"message": {"token": "x" "y"}}"#,
                "Expected , or } after key:value pair.\nage\": {\"token\": \"x\" \"y\"}}\n                    ^"
            ),
            (
                #"{"message": ["a" "b"]}"#,
                "Expected , or ] after array value.\n{\"message\": [\"a\" \"b\"]}\n                 ^"
            ),
            (
                #"{"message": {"token": "x",}}"#,
                "Expected an object key or }.\nage\": {\"token\": \"x\",}}\n                    ^"
            ),
            (#"{"message": {"token": "x""#, "Unexpected end of string. Expected , or } after key:value pair.\n\n^"),
            (#"{"message": {"token": "x"#, "Unexpected end of string. Closing quote expected in string.\n\n^"),
            (#"{"message": {"token":"#, "Unexpected end of string. Expected a value.\n\n^"),
            (#"{"message": {"token""#, "Unexpected end of string. Expected : between key:value pair.\n\n^"),
            (#"{"message": {"#, "Unexpected end of string. Expected an object key or }.\n\n^"),
            (#"{"message": ["x","#, "Unexpected end of string. Expected a value.\n\n^"),
            (#"{"message": ["x""#, "Unexpected end of string. Expected , or ] after array value.\n\n^"),
            (#"{} x"#, "Parsing terminated before end of input.\n{} x\n   ^"),
            (#"{"a": 01}"#, "Unable to parse number.\n{\"a\": 01}\n      ^"),
            (#"{"a": "\x"}"#, "Invalid escape sequence.\n{\"a\": \"\\x\"}\n       ^"),
        ]
    )
    func syntax(body: String, reason: String) {
        let text = "Invalid JSON payload received. " + reason
        FCMTest.expectError(
            FCMTest.validate(body),
            FCMTest.errorBody(
                code: 400,
                status: "INVALID_ARGUMENT",
                message: text,
                details: [FCMTest.badRequest([(nil, text)])]
            )
        )
    }

    @Test("invalid UTF-8 and excessive nesting")
    func bytesAndDepth() {
        var body = Array(#"{"message": {"token": "x"#.utf8)
        body.append(0xFF)
        body.append(contentsOf: Array(#""}}"#.utf8))
        let utf8Text =
            "Invalid JSON payload received. Encountered non UTF-8 code points.\nssage\": {\"token\": \"x\u{FFFD}\"}}\n                    ^"
        FCMTest.expectError(
            FCMMessageValidator.validate(body: body),
            FCMTest.errorBody(
                code: 400,
                status: "INVALID_ARGUMENT",
                message: utf8Text,
                details: [FCMTest.badRequest([(nil, utf8Text)])]
            )
        )

        let deep =
            #"{"message": {"token": "fake-token-0001", "apns": {"payload": "#
            + String(repeating: "[", count: 120) + String(repeating: "]", count: 120) + "}}}"
        let deepText =
            "Invalid JSON payload received. Message too deep. Max recursion depth reached.\n"
            + String(repeating: "[", count: 40) + "\n" + String(repeating: " ", count: 20) + "^"
        FCMTest.expectError(
            FCMTest.validate(deep),
            FCMTest.errorBody(
                code: 400,
                status: "INVALID_ARGUMENT",
                message: deepText,
                details: [FCMTest.badRequest([(nil, deepText)])]
            )
        )
    }

    @Test("the raw message is kept as sent, spellings and duplicates included")
    func rawMessage() throws {
        let text = #"{"message":{"token":"fake-token-0001","fcmOptions":{"analytics_label":"a"},"data":{"k":"1","k":"2"}}}"#
        let request = try #require(FCMTest.success(FCMTest.validate(text)))
        #expect(
            request.rawMessage.compactString
                == #"{"token":"fake-token-0001","fcmOptions":{"analytics_label":"a"},"data":{"k":"1","k":"2"}}"#)
        #expect(request.message.data == ["k": "2"])
        #expect(request.message.fcmOptions?.analyticsLabel == "a")
    }
}
