import PushMockCore
import PushMockJSON
import Testing

/// The field list of every message type, written out independently of ``FCMSchema`` from the
/// wire reference (Part B) and the discovery document, so a field missing from the schema
/// fails here rather than silently being "unknown".
let expectedSchemaFields: [String: [String]] = [
    "google.firebase.fcm.v1.SendMessageRequest": ["validate_only", "message"],
    "google.firebase.fcm.v1.Message": [
        "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition", "fid",
    ],
    "google.firebase.fcm.v1.Notification": ["title", "body", "image"],
    "google.firebase.fcm.v1.AndroidConfig": [
        "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options",
        "direct_boot_ok", "bandwidth_constrained_ok", "restricted_satellite_ok",
    ],
    "google.firebase.fcm.v1.AndroidNotification": [
        "title", "body", "icon", "color", "sound", "tag", "click_action", "body_loc_key", "body_loc_args",
        "title_loc_key", "title_loc_args", "channel_id", "ticker", "sticky", "event_time", "local_only",
        "notification_priority", "default_sound", "default_vibrate_timings", "default_light_settings",
        "vibrate_timings", "visibility", "notification_count", "light_settings", "image", "bypass_proxy_notification",
        "proxy",
    ],
    "google.firebase.fcm.v1.LightSettings": ["color", "light_on_duration", "light_off_duration"],
    "google.type.Color": ["red", "green", "blue", "alpha"],
    "google.firebase.fcm.v1.AndroidFcmOptions": ["analytics_label"],
    "google.firebase.fcm.v1.WebpushConfig": ["headers", "data", "notification", "fcm_options"],
    "google.firebase.fcm.v1.WebpushFcmOptions": ["link", "analytics_label"],
    "google.firebase.fcm.v1.ApnsConfig": ["headers", "payload", "fcm_options", "live_activity_token"],
    "google.firebase.fcm.v1.ApnsFcmOptions": ["analytics_label", "image"],
    "google.firebase.fcm.v1.FcmOptions": ["analytics_label"],
]

/// Sample values that satisfy FCM's rules, by field; everything else comes from its kind.
enum FCMSamples {
    static func value(for field: FCMField, in schema: FCMMessageSchema) -> JSONValue {
        let single = scalar(for: field, in: schema)
        return field.isRepeated ? [single] : single
    }

    private static func scalar(for field: FCMField, in schema: FCMMessageSchema) -> JSONValue {
        switch (schema.shortName, field.name) {
        case ("Message", "name"): return "projects/demo/messages/1"
        case ("Message", "token"): return "fake-token-0002"
        case ("Message", "topic"): return "news"
        case ("Message", "condition"): return "'news' in topics || 'sport' in topics"
        case ("Message", "fid"): return "fake-fid-000001"
        case ("AndroidNotification", "color"): return "#11aaFF"
        case ("WebpushFcmOptions", "link"): return "https://example.com/open"
        case (_, "analytics_label"): return "label_1-x.y~z%20"
        case ("ApnsConfig", "headers"): return ["apns-priority": "5", "apns-push-type": "background"]
        case ("WebpushConfig", "headers"): return ["TTL": "15", "Urgency": "high"]
        default: break
        }
        switch field.kind {
        case .string: return .string("sample-\(field.name)")
        case .bool: return true
        case .int32: return 3
        case .float: return 0.5
        case .enumeration(let schema): return .string(schema.values.last!.name)
        case .duration: return "3.5s"
        case .timestamp: return "2024-01-02T03:04:05.123456789Z"
        case .stringMap: return ["key-\(field.name)": "value"]
        case .structObject: return ["aps": ["alert": ["title": "hi"]], "custom": 1]
        case .message(let child): return full(child)
        }
    }

    /// An object with a sample for every field (only `token` from the target oneof).
    static func full(_ schema: FCMMessageSchema) -> JSONValue {
        var object = JSONObject()
        for field in schema.fields where field.oneof == nil || field.name == "token" {
            object.append(key: field.name, value: value(for: field, in: schema))
        }
        return .object(object)
    }

    /// `{"message": <full Message>}`.
    static var request: JSONValue {
        ["message": full(FCMSchema.message)]
    }
}

/// One (message type, field) pair of the schema, for parameterised tests.
struct SchemaFieldCase: CustomTestStringConvertible, Sendable {
    let path: String
    let schema: FCMMessageSchema
    let field: FCMField

    var pathComponents: [String] { path.isEmpty ? [] : path.split(separator: ".").map(String.init) }
    var fieldPath: String { path.isEmpty ? field.name : "\(path).\(field.name)" }
    var testDescription: String { fieldPath }

    /// The full sample request with this field set to `value` under `name` (removed when `name`
    /// is nil), and the other members of its oneof removed.
    func document(_ name: String?, _ value: JSONValue) -> JSONValue {
        FCMTest.modifying(FCMSamples.request, at: pathComponents) { object in
            object[field.name] = nil
            object[field.jsonName] = nil
            if let oneof = field.oneof {
                for sibling in schema.fields where sibling.oneof == oneof {
                    object[sibling.name] = nil
                }
            }
            if let name { object.append(key: name, value: value) }
        }
    }

    static let all: [SchemaFieldCase] = FCMSchema.allMessageTypes.flatMap { entry in
        entry.schema.fields.map { SchemaFieldCase(path: entry.path, schema: entry.schema, field: $0) }
    }
}

/// One enum value spelled one way.
struct EnumSpellingCase: CustomTestStringConvertible, Sendable {
    let path: [String]
    let field: String
    let spelling: JSONValue
    let expected: String

    var testDescription: String { "\(path.joined(separator: ".")).\(field) = \(spelling)" }

    static let all: [EnumSpellingCase] = {
        var cases: [EnumSpellingCase] = []
        for entry in FCMSchema.allMessageTypes {
            for field in entry.schema.fields {
                guard case .enumeration(let schema) = field.kind else { continue }
                let path = entry.path.split(separator: ".").map(String.init)
                for value in schema.values {
                    let mixed = String(value.name.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.lowercased()) : $0.element })
                    for spelling in [
                        JSONValue.string(value.name), .string(value.name.lowercased()), .string(mixed), JSONValue(value.number),
                    ] {
                        cases.append(EnumSpellingCase(path: path, field: field.name, spelling: spelling, expected: value.name))
                    }
                }
            }
        }
        return cases
    }()
}

@Suite("FCM schema")
struct FCMSchemaTests {
    @Test("every message type has exactly the documented fields")
    func fieldLists() {
        let declared = Dictionary(
            FCMSchema.allMessageTypes.map { ($0.schema.name, $0.schema.fields.map(\.name)) },
            uniquingKeysWith: { first, _ in first }
        )
        #expect(declared == expectedSchemaFields)
        #expect(
            FCMSchema.allMessageTypes.map(\.path) == [
                "", "message", "message.notification", "message.android", "message.android.notification",
                "message.android.notification.light_settings", "message.android.notification.light_settings.color",
                "message.android.fcm_options", "message.webpush", "message.webpush.fcm_options", "message.apns",
                "message.apns.fcm_options", "message.fcm_options",
            ]
        )
    }

    @Test("JSON names are protoc's lowerCamelCase")
    func jsonNames() {
        let field = FCMSchema.androidNotification.field(named: "default_vibrate_timings")
        #expect(field?.jsonName == "defaultVibrateTimings")
        #expect(FCMSchema.androidConfig.field(named: "restrictedSatelliteOk")?.name == "restricted_satellite_ok")
        #expect(FCMSchema.sendMessageRequest.field(named: "validateOnly")?.name == "validate_only")
        #expect(FCMSchema.apnsConfig.field(named: "liveActivityToken")?.name == "live_activity_token")
        #expect(FCMSchema.message.field(named: "Token") == nil)
        #expect(FCMSchema.message.field(named: "fcmoptions") == nil)
    }

    @Test("the full sample request is valid")
    func fullSample() throws {
        let request = try #require(FCMTest.success(FCMMessageValidator.validate(json: FCMSamples.request)))
        let message = request.message
        #expect(message.target == .token("fake-token-0002"))
        #expect(message.android?.notification?.lightSettings?.lightOnDuration == .milliseconds(3500))
        #expect(message.android?.notification?.visibility == .secret)
        #expect(message.android?.priority == .high)
        #expect(message.android?.notification?.proxy == .ifPriorityLowered)
        #expect(message.android?.notification?.notificationPriority == .max)
        #expect(message.apns?.headerValues.priority == .considerPower)
        #expect(message.apns?.headerValues.pushType == .background)
        #expect(message.apns?.headers.pairs.map(\.name) == ["apns-priority", "apns-push-type"])
        #expect(message.webpush?.link == "https://example.com/open")
        #expect(message.fcmOptions?.analyticsLabel == "label_1-x.y~z%20")
        #expect(request.rawMessage == FCMSamples.full(FCMSchema.message))
    }

    @Test("every field is read in both spellings, identically", arguments: SchemaFieldCase.all)
    func bothSpellings(_ entry: SchemaFieldCase) throws {
        let sample = FCMSamples.value(for: entry.field, in: entry.schema)
        func document(_ name: String?) -> JSONValue { entry.document(name, sample) }
        let snake = try #require(FCMTest.success(FCMMessageValidator.validate(json: document(entry.field.name))))
        let camel = try #require(FCMTest.success(FCMMessageValidator.validate(json: document(entry.field.jsonName))))
        #expect(snake.message == camel.message)
        #expect(snake.validateOnly == camel.validateOnly)
        // The field must reach the typed result: without it, the result differs (or fails).
        if entry.fieldPath != "message" {
            switch FCMMessageValidator.validate(json: document(nil)) {
            case .success(let without):
                #expect(without.message != snake.message || without.validateOnly != snake.validateOnly)
            case .failure(let error):
                #expect(error.httpStatus == 400)
            }
        }
    }

    @Test("an unknown field is reported at its enclosing path", arguments: FCMSchema.allMessageTypes.map(\.path))
    func unknownField(path: String) {
        let components = path.isEmpty ? [] : path.split(separator: ".").map(String.init)
        let document = FCMTest.modifying(FCMSamples.request, at: components) { $0.append(key: "bogusField", value: "x") }
        FCMTest.expectError(FCMMessageValidator.validate(json: document), FCMTest.unknownName("bogusField", at: path))
    }

    @Test("a wrongly typed value names the field's type", arguments: SchemaFieldCase.all)
    func wrongType(_ entry: SchemaFieldCase) {
        let bad: JSONValue
        let expectedValue: String
        let path = entry.fieldPath
        let type = entry.field.kind.typeName
        if entry.field.isRepeated {
            bad = "not-a-list"
            expectedValue = #""not-a-list""#
        } else {
            switch entry.field.kind {
            case .string: (bad, expectedValue) = (12, "12")
            case .bool: (bad, expectedValue) = ("yes", #""yes""#)
            case .int32: (bad, expectedValue) = (.number("1.5"), "1.5")
            case .float: (bad, expectedValue) = ("abc", #""abc""#)
            case .enumeration: (bad, expectedValue) = ("BOGUS", #""BOGUS""#)
            case .duration:
                (bad, expectedValue) = (12, "Field '\(entry.field.name)', Invalid data type for duration, value is 12")
            case .timestamp:
                (bad, expectedValue) = (true, "Field '\(entry.field.name)', Invalid data type for timestamp, value is true")
            case .stringMap, .structObject, .message: (bad, expectedValue) = ("x", #""x""#)
            }
        }
        let document = entry.document(entry.field.name, bad)
        FCMTest.expectError(FCMMessageValidator.validate(json: document), FCMTest.invalidValue(path, type, expectedValue))
    }

    @Test("a list for a single field: not repeating", arguments: SchemaFieldCase.all.filter { !$0.field.isRepeated })
    func listForSingleField(_ entry: SchemaFieldCase) {
        let document = entry.document(entry.field.name, [["a": "b"]])
        let expected: JSONValue
        if case .stringMap = entry.field.kind {
            expected = FCMTest.invalidValue(
                entry.fieldPath,
                "Map",
                "Cannot bind a list to map for field '\(entry.field.name)'."
            )
        } else {
            expected = FCMTest.payloadError([
                FCMTest.unknownNameLine(
                    entry.field.name,
                    at: entry.path,
                    reason: "Proto field is not repeating, cannot start list."
                )
            ])
        }
        FCMTest.expectError(FCMMessageValidator.validate(json: document), expected)
    }

    @Test("enum values: any letter case, or the number", arguments: EnumSpellingCase.all)
    func enumSpellings(_ entry: EnumSpellingCase) throws {
        let document = FCMTest.modifying(FCMSamples.request, at: entry.path) { object in
            object[entry.field] = entry.spelling
        }
        let request = try #require(FCMTest.success(FCMMessageValidator.validate(json: document)))
        let android = request.message.android
        let name: String?
        switch entry.field {
        case "priority": name = android?.priority?.name
        case "notification_priority": name = android?.notification?.notificationPriority?.name
        case "visibility": name = android?.notification?.visibility?.name
        case "proxy": name = android?.notification?.proxy?.name
        default: name = nil
        }
        #expect(name == entry.expected)
    }

    @Test("enum numbers out of range and fractional numbers are rejected")
    func enumNumbers() {
        for (value, text) in [(JSONValue(2), "2"), (.number("1.5"), "1.5"), (JSONValue(-1), "-1"), ("1", #""1""#)] {
            FCMTest.expectError(
                FCMTest.validate(message: FCMTest.message([("android", ["priority": value])])),
                FCMTest.invalidValue(
                    "message.android.priority",
                    "type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority",
                    text
                )
            )
        }
        FCMTest.expectError(
            FCMTest.validate(message: FCMTest.message([("android", ["priority": "URGENT"])])),
            FCMTest.invalidValue(
                "message.android.priority",
                "type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority",
                #""URGENT""#
            )
        )
    }

    @Test("typed enums agree with their schemas")
    func typedEnums() {
        #expect(FCMAndroidMessagePriority.all.map(\.name) == FCMAndroidMessagePriority.schema.values.map(\.name))
        #expect(FCMAndroidMessagePriority.all.map(\.number) == [0, 1])
        #expect(
            FCMNotificationPriority.all.map(\.name) == [
                "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX",
            ])
        #expect(FCMNotificationVisibility.all.map(\.name) == ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"])
        #expect(FCMNotificationProxy.all.map(\.name) == ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"])
        #expect(FCMAndroidMessagePriority(name: "high") == .high)
        #expect(FCMNotificationVisibility(number: 2) == .public)
        #expect(FCMNotificationProxy(name: "if_priority_lowered") == .ifPriorityLowered)
        #expect(FCMNotificationPriority(number: 6) == nil)
        #expect(FCMNotificationPriority(name: "PRIORITY_HUGE") == nil)
    }
}
