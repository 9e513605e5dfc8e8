import PushMockCore
import PushMockJSON
import Testing

/// Every field's validation: the member added to a valid single message, and the
/// `VALIDATION_ERROR` message it produces (`nil`: accepted).
let expoFieldCases: [(String, String?)] = [
    (#""data":{"a":1}"#, nil), (#""data":[1]"#, "data must be of type object."),
    (#""data":"x""#, "data must be of type object."), (#""data":null"#, nil),
    (#""title":"t""#, nil), (#""title":1"#, "title must be a string."),
    (#""subtitle":"s""#, nil), (#""subtitle":true"#, "subtitle must be a string."),
    (#""body":"b""#, nil), (#""body":{}"#, "body must be a string."),
    (#""sound":"default""#, nil), (#""sound":"bells_sound.wav""#, nil), (#""sound":null"#, nil),
    (#""sound":1"#, "sound must be one of [string, object]."),
    (#""sound":{"critical":true,"name":"default","volume":0.5}"#, nil),
    (#""sound":{"critical":"yes"}"#, "sound.critical must be a boolean."),
    (#""sound":{"name":1}"#, "sound.name must be a string."), (#""sound":{"name":null}"#, nil),
    (#""sound":{"volume":"1"}"#, "sound.volume must be a number."),
    (#""sound":{"volume":1.5}"#, "sound.volume must be less than or equal to 1."),
    (#""sound":{"volume":-0.1}"#, "sound.volume must be greater than or equal to 0."),
    (#""ttl":0"#, nil), (#""ttl":2419200"#, nil), (#""ttl":1.5"#, nil),
    (#""ttl":"60""#, "ttl must be a number."), (#""ttl":-1"#, "ttl must be greater than or equal to 0."),
    (#""expiration":1700000000"#, nil), (#""expiration":"soon""#, "expiration must be a number."),
    (#""expiration":-5"#, "expiration must be greater than or equal to 0."),
    // Joi refuses numbers beyond 2^53 - 1 before any rule; such a ttl once crashed the gateway.
    (#""ttl":1e300"#, "ttl must be a safe number."), (#""ttl":-1e300"#, "ttl must be a safe number."),
    (#""ttl":9007199254740991"#, nil), (#""ttl":9007199254740992"#, "ttl must be a safe number."),
    (#""expiration":1e300"#, "expiration must be a safe number."), (#""expiration":9007199254740991"#, nil),
    (#""badge":1e300"#, "badge must be a safe number."),
    (#""priority":"default""#, nil), (#""priority":"normal""#, nil), (#""priority":"high""#, nil),
    (#""priority":"HIGH""#, "priority must be one of [default, normal, high]."),
    (#""priority":10"#, "priority must be one of [default, normal, high]."),
    (#""badge":0"#, nil), (#""badge":3"#, nil), (#""badge":"3""#, "badge must be a number."),
    (#""badge":1.5"#, "badge must be an integer."), (#""badge":-1"#, "badge must be greater than or equal to 0."),
    (#""channelId":"default""#, nil), (#""channelId":5"#, "channelId must be a string."),
    (#""categoryId":"reply""#, nil), (#""categoryId":[]"#, "categoryId must be a string."),
    (#""icon":"myicon""#, nil), (#""icon":false"#, "icon must be a string."),
    (#""richContent":{"image":"https://example.com/a.png"}"#, nil), (#""richContent":{}"#, nil),
    (#""richContent":"https://x""#, "richContent must be of type object."),
    (#""richContent":{"image":1}"#, "richContent.image must be a string."),
    (#""collapseId":"c""#, nil), (#""collapseId":1"#, "collapseId must be a string."),
    (#""tag":"t""#, nil), (#""tag":1"#, "tag must be a string."),
    (#""mutableContent":true"#, nil), (#""mutableContent":"true""#, "mutableContent must be a boolean."),
    (#""_contentAvailable":true"#, nil), (#""_contentAvailable":1"#, "_contentAvailable must be a boolean."),
    (#""interruptionLevel":"active""#, nil), (#""interruptionLevel":"critical""#, nil),
    (#""interruptionLevel":"passive""#, nil), (#""interruptionLevel":"time-sensitive""#, nil),
    (#""interruptionLevel":"urgent""#, "interruptionLevel must be one of [active, critical, passive, time-sensitive]."),
    (#""_displayInForeground":true"#, nil), (#""_category":"legacy""#, nil), (#""somethingNew":1"#, nil),
]

@Suite("Expo send request parsing")
struct ExpoPushRequestParserTests {
    @Test("every field is validated as documented", arguments: expoFieldCases)
    func field(member: String, expected: String?) {
        let single = expoRequestError(#"{"to":"\#(sampleToken)",\#(member)}"#)
        #expect(single?.message == expected)
        #expect(single.map(\.code) == expected.map { _ in .validationError })
        #expect(single?.httpStatus == expected.map { _ in 400 })
        // In an array the path carries the message's index.
        let array = expoRequestError(#"[{"to":"\#(sampleToken)"},{"to":"\#(sampleToken)",\#(member)}]"#)
        #expect(array?.message == expected.map { "[1]." + $0 })
    }

    @Test("fields are read into their types")
    func typedMessage() throws {
        let json = #"""
            {"to":"\#(sampleToken)","data":{"route":"/inbox"},"title":"T","subtitle":"S","body":"B",
             "sound":{"critical":true,"name":"default","volume":0.8},"ttl":60,"expiration":1700000000,
             "priority":"high","badge":2,"channelId":"ch","categoryId":"cat","icon":"ic",
             "richContent":{"image":"https://e.x/i.png"},"collapseId":"co","tag":"tg",
             "mutableContent":true,"_contentAvailable":true,"interruptionLevel":"time-sensitive"}
            """#
        let request = try parseExpo(json).get()
        let message = try #require(request.entries.first?.message)
        #expect(message.to == sampleToken)
        #expect(message.token?.identifier == "xxxxxxxxxxxxxxxxxxxxxx")
        #expect(message.data?["route"] == .string("/inbox"))
        #expect(message.title == "T" && message.subtitle == "S" && message.body == "B")
        #expect(message.sound == .critical(ExpoCriticalSound(critical: true, name: "default", volume: 0.8)))
        #expect(message.ttl == 60 && message.expiration == 1_700_000_000)
        #expect(message.priority == .high && message.badge == 2)
        #expect(message.channelID == "ch" && message.categoryID == "cat" && message.icon == "ic")
        #expect(message.richContentImage == "https://e.x/i.png")
        #expect(message.collapseID == "co" && message.tag == "tg")
        #expect(message.mutableContent == true && message.contentAvailable == true)
        #expect(message.interruptionLevel == .timeSensitive)
        #expect(message.object.keys.first == "to")
    }

    @Test("null means absent for every field (SDKs that send every key get tickets)")
    func nulls() throws {
        let fields = [
            "data", "title", "subtitle", "body", "sound", "ttl", "expiration", "priority", "badge",
            "channelId", "categoryId", "icon", "richContent", "collapseId", "tag", "mutableContent",
            "_contentAvailable", "interruptionLevel",
        ]
        let json = "{\"to\":\"\(sampleToken)\"," + fields.map { "\"\($0)\":null" }.joined(separator: ",") + "}"
        let message = try #require(try parseExpo(json).get().entries.first?.message)
        #expect(message.title == nil && message.sound == nil && message.priority == nil && message.badge == nil)
    }

    @Test("unknown members are refused only when asked")
    func unknownFields() {
        var options = ExpoValidationOptions()
        options.rejectsUnknownFields = true
        #expect(expoRequestError(#"{"to":"\#(sampleToken)","foo":1}"#, options: options)?.message == "foo is not allowed.")
        #expect(expoRequestError(#"[{"to":"\#(sampleToken)","_category":"x"}]"#, options: options) == nil)
    }

    @Test(
        "the shape of the body and of to",
        arguments: [
            ("", "The request body must be valid JSON."), ("{", "The request body must be valid JSON."),
            ("12", "value must be one of [object, array]."), (#""x""#, "value must be one of [object, array]."),
            ("[1]", "[0] must be of type object."), (#"[{"to":"\#(sampleToken)"},[]]"#, "[1] must be of type object."),
            ("{}", "to is required."), (#"{"to":null}"#, "to is required."), ("[{}]", "[0].to is required."),
            (#"{"to":5}"#, "to must be one of [string, array]."), (#"{"to":{}}"#, "to must be one of [string, array]."),
            (#"{"to":[]}"#, "to must contain at least 1 items."),
            (#"{"to":["\#(sampleToken)",7]}"#, "to[1] must be a string."),
            (#"[{"to":"a"},{"to":["b",null]}]"#, "[1].to[1] must be a string."),
        ]
    )
    func shape(json: String, expected: String) {
        let error = expoRequestError(json)
        #expect(error?.message == expected)
        #expect(error?.code == .validationError)
    }

    @Test("a single object with one to string gets one ticket object; everything else an array")
    func ticketShape() throws {
        #expect(try parseExpo(#"{"to":"\#(sampleToken)"}"#).get().shape == .single)
        #expect(try parseExpo(#"{"to":["\#(sampleToken)"]}"#).get().shape == .array)
        #expect(try parseExpo(#"[{"to":"\#(sampleToken)"}]"#).get().shape == .array)
        #expect(try parseExpo("[]").get().entries.isEmpty)
    }

    @Test("to lists expand to one entry per token, in request order")
    func expansion() throws {
        let json = #"""
            [{"to":"ExponentPushToken[a]","body":"1"},
             {"to":["ExponentPushToken[b]","ExpoPushToken[c]","ExponentPushToken[b]"],"body":"2"},
             {"to":"ExponentPushToken[d]"}]
            """#
        let entries = try parseExpo(json).get().entries
        #expect(
            entries.map(\.message.to) == [
                "ExponentPushToken[a]", "ExponentPushToken[b]", "ExpoPushToken[c]",
                "ExponentPushToken[b]", "ExponentPushToken[d]",
            ])
        #expect(entries.map(\.message.messageIndex) == [0, 1, 1, 1, 2])
        #expect(entries.map(\.message.body) == ["1", "2", "2", "2", nil])
        #expect(entries[2].message.object["to"] == .string("ExpoPushToken[c]"))
        #expect(entries.allSatisfy { $0.ticketError == nil })
    }

    @Test(
        "100 notifications pass, 101 are refused — counted after expanding to lists",
        arguments: [
            (100, 1, true), (101, 1, false), (1, 100, true), (1, 101, false), (50, 2, true), (51, 2, false),
        ])
    func notificationLimit(messages: Int, tokensEach: Int, accepted: Bool) throws {
        let to =
            tokensEach == 1
            ? "\"\(sampleToken)\""
            : "[" + Array(repeating: "\"\(sampleToken)\"", count: tokensEach).joined(separator: ",") + "]"
        let json = "[" + Array(repeating: "{\"to\":\(to)}", count: messages).joined(separator: ",") + "]"
        switch parseExpo(json) {
        case .success(let request):
            #expect(accepted)
            #expect(request.entries.count == messages * tokensEach)
        case .failure(let error):
            #expect(!accepted)
            #expect(error.code == .pushTooManyNotifications)
            #expect(error.httpStatus == 400)
            #expect(
                error.message
                    == "You can send a maximum of 100 notifications per request (received \(messages * tokensEach)); divide your requests.")
        }
    }

    @Test("the count is checked before the fields")
    func countBeforeFields() {
        let json = "[" + Array(repeating: #"{"to":"\#(sampleToken)","badge":"x"}"#, count: 101).joined(separator: ",") + "]"
        #expect(expoRequestError(json)?.code == .pushTooManyNotifications)
    }

    @Test("a malformed token gets an error ticket; the other recipients go on")
    func invalidTokenTicket() throws {
        let entries = try parseExpo(#"{"to":["ExponentPushToken[RZBS31.Q2-143-27-25]","\#(sampleToken)","abc"]}"#).get().entries
        #expect(entries.map { $0.ticketError?.code } == [.deviceNotRegistered, nil, .deviceNotRegistered])
        #expect(entries[0].ticketError?.message == #""ExponentPushToken[RZBS31.Q2-143-27-25]" is not a valid Expo push token"#)
        #expect(entries[2].ticketError?.expoPushToken == "abc")
    }

    @Test("a malformed token refuses the request when configured so")
    func invalidTokenRequest() {
        var options = ExpoValidationOptions()
        options.invalidTokenAnswer = .requestError
        #expect(
            expoRequestError(#"[{"to":"\#(sampleToken)"},{"to":["\#(sampleToken)","abc"]}]"#, options: options)?.message
                == "[1].to[1] must be a valid Expo push token.")
        #expect(expoRequestError(#"{"to":"abc"}"#, options: options)?.message == "to must be a valid Expo push token.")
        options.tokenSyntax = .sdk
        #expect(expoRequestError(#"{"to":"ExpoPushToken[a.b]"}"#, options: options) == nil)
    }

    /// `{"body":"…"}` is 11 bytes plus the text: 4085 characters make exactly 4096.
    @Test("4096 payload bytes pass, 4097 get MessageTooBig", arguments: [(4085, false), (4086, true)])
    func payloadLimit(length: Int, tooBig: Bool) throws {
        let json = #"{"to":["\#(sampleToken)","ExpoPushToken[b]"],"body":"\#(String(repeating: "x", count: length))"}"#
        let entries = try parseExpo(json).get().entries
        #expect(entries.map(\.payloadSize) == [length + 11, length + 11])
        #expect(entries.allSatisfy { ($0.ticketError?.code == .messageTooBig) == tooBig })
        if tooBig {
            #expect(
                entries[0].ticketError?.message
                    == "Message too big: the notification payload is 4097 bytes; the total payload sent to Apple and Google must be at most 4096 bytes."
            )
            #expect(entries[1].ticketError?.expoPushToken == "ExpoPushToken[b]")
        }
    }

    @Test("payload rules and the receipt-stage option")
    func payloadOptions() throws {
        var options = ExpoValidationOptions()
        options.payloadSizeRule = .dataOnly
        options.maximumPayloadBytes = 10
        let json = #"{"to":"\#(sampleToken)","body":"a long body that is not counted","data":{"k":"123"}}"#
        #expect(try parseExpo(json, options: options).get().entries[0].payloadSize == 11)
        options.messageTooBigAnswer = .receiptError
        let entry = try parseExpo(json, options: options).get().entries[0]
        #expect(entry.ticketError == nil)
        #expect(entry.receiptError?.code == .messageTooBig)
    }

    @Test("tokens of two projects refuse the request with the grouping in details")
    func projects() throws {
        let projects = ["ExponentPushToken[a]": "@acme/app", "ExponentPushToken[b]": "@acme/old", "ExponentPushToken[c]": "@acme/app"]
        let lookup: (ExpoPushToken) -> String? = { projects[$0.rawValue] }
        let mixed =
            #"[{"to":["ExponentPushToken[a]","ExponentPushToken[b]"]},{"to":["ExponentPushToken[unknown]","ExponentPushToken[c]"]}]"#
        guard case .failure(let error) = parseExpo(mixed, projectOf: lookup) else {
            Issue.record("mixed projects were accepted")
            return
        }
        #expect(error.code == .pushTooManyExperienceIDs)
        #expect(
            text(error.body())
                == #"{"errors":[{"code":"PUSH_TOO_MANY_EXPERIENCE_IDS","message":"All push notification messages in the same request must be for the same project.","isTransient":false,"details":{"@acme/app":["ExponentPushToken[a]","ExponentPushToken[c]"],"@acme/old":["ExponentPushToken[b]"]}}]}"#
        )
        let same = #"{"to":["ExponentPushToken[a]","ExponentPushToken[unknown]","ExponentPushToken[c]"]}"#
        #expect(try parseExpo(same, projectOf: lookup).get().project == "@acme/app")
    }

    @Test("deep nesting and garbage never crash")
    func hostileInput() {
        let deep = "{\"to\":\"\(sampleToken)\",\"data\":" + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}"
        #expect(expoRequestError(deep)?.message == "The request body must be valid JSON.")
        var random = FastRandom(seed: 7)
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? ExpoPushRequestParser.parse(body: bytes)
        }
    }
}
