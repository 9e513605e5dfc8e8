import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

@Suite("Deep links: extraction")
struct DeepLinkExtractorTests {
    let extractor = DeepLinkExtractor()

    func links(apns payload: String) throws -> [String] {
        try extractor.links(inPayload: JSONValue(parsing: payload), platform: .apns).map(\.description)
    }

    func links(fcm body: String) throws -> [String] {
        try extractor.links(inPayload: JSONValue(parsing: body), platform: .fcm).map(\.description)
    }

    @Test("Expo: data link keys of a single message and of every message of an array")
    func expo() throws {
        let single = try extractor.links(
            inPayload: JSONValue(parsing: #"{"to":"ExponentPushToken[a]","data":{"url":"loop://doses/1"}}"#), platform: .expo)
        #expect(single.map(\.description) == ["$.data.url: loop://doses/1"])
        let array = try extractor.links(
            inPayload: JSONValue(
                parsing:
                    #"[{"to":"a","data":{"deep_link":"loop://doses/1"}},{"to":"b"},{"to":"c","data":{"url":"loop://labs/2","link":"not a url"}}]"#
            ),
            platform: .expo
        )
        #expect(array.map(\.description) == ["$[0].data.deep_link: loop://doses/1", "$[2].data.url: loop://labs/2"])
        // APNs and FCM locations do not apply to Expo bodies, and the other way round.
        #expect(try links(apns: #"{"aps":{},"data":{"url":"loop://x"}}"#).isEmpty)
    }

    @Test("APNs: custom keys beside aps", arguments: ["deep_link", "deeplink", "deepLink", "url", "link"])
    func apnsTopLevel(key: String) throws {
        #expect(try links(apns: #"{"aps":{"alert":"Hi"},"\#(key)":"loop://checkin"}"#) == ["$.\(key): loop://checkin"])
    }

    @Test("APNs: action links as objects or as a map; plain action ids are not links")
    func apnsActions() throws {
        let objects =
            #"{"aps":{},"actions":[{"id":"LOG","link":"loop://protocols/p1/log"},{"id":"SNOOZE"},{"id":"WEB","url":"https://loop.example/x"}]}"#
        #expect(try links(apns: objects) == ["$.actions[0].link: loop://protocols/p1/log", "$.actions[2].url: https://loop.example/x"])
        let map = #"{"aps":{},"actions":{"VIEW_RESULTS":"loop://labs/l1","ASK_LUNA":"loop://chat?context=lab_l1","SNOOZE":"SNOOZE_15M"}}"#
        #expect(try links(apns: map) == ["$.actions.VIEW_RESULTS: loop://labs/l1", "$.actions.ASK_LUNA: loop://chat?context=lab_l1"])
        #expect(try links(apns: #"{"aps":{},"actions":["LOG_DOSE","SNOOZE_15M"]}"#).isEmpty)
    }

    @Test("APNs: url-args, aps keys and unrelated URLs are not deep links")
    func apnsNotLinks() throws {
        let payload = #"""
            {"aps":{"alert":{"title":"Boarding","action":"View"},"url-args":["boarding","A998"],"category":"X","target-content-id":"w1"},
             "reorder_url":"https://pharmacy.example/reorder","image_url":"https://cdn.example/a.png"}
            """#
        #expect(try links(apns: payload).isEmpty)
    }

    @Test("APNs: a non-string value at a fixed location is reported, null is ignored")
    func apnsNonString() throws {
        let found = extractor.links(inPayload: try JSONValue(parsing: #"{"aps":{},"deep_link":{"path":"/x"},"url":null}"#), platform: .apns)
        #expect(found == [FoundDeepLink(link: #"{"path":"/x"}"#, location: "$.deep_link", isString: false)])
    }

    @Test(
        "FCM: every default location",
        arguments: [
            (#"{"data":{"deep_link":"loop://labs/l1"}}"#, "$.message.data.deep_link: loop://labs/l1"),
            (#"{"data":{"link":"loop://labs/l1"}}"#, "$.message.data.link: loop://labs/l1"),
            (#"{"android":{"data":{"url":"loop://labs/l1"}}}"#, "$.message.android.data.url: loop://labs/l1"),
            (#"{"webpush":{"data":{"link":"https://loop.example/labs/l1"}}}"#, "$.message.webpush.data.link: https://loop.example/labs/l1"),
            (
                #"{"webpush":{"fcm_options":{"link":"https://loop.example/labs/l1"}}}"#,
                "$.message.webpush.fcm_options.link: https://loop.example/labs/l1"
            ),
            (
                #"{"webpush":{"fcmOptions":{"link":"https://loop.example/labs/l1"}}}"#,
                "$.message.webpush.fcmOptions.link: https://loop.example/labs/l1"
            ),
            (
                #"{"android":{"notification":{"click_action":"loop://labs/l1"}}}"#,
                "$.message.android.notification.click_action: loop://labs/l1"
            ),
            (
                #"{"android":{"notification":{"clickAction":"loop://labs/l1"}}}"#,
                "$.message.android.notification.clickAction: loop://labs/l1"
            ),
            (#"{"apns":{"payload":{"aps":{},"deep_link":"loop://labs/l1"}}}"#, "$.message.apns.payload.deep_link: loop://labs/l1"),
            (
                #"{"apns":{"payload":{"aps":{},"actions":{"VIEW":"loop://labs/l1"}}}}"#,
                "$.message.apns.payload.actions.VIEW: loop://labs/l1"
            ),
        ])
    func fcmLocations(message: String, expected: String) throws {
        #expect(try links(fcm: #"{"message":\#(message)}"#) == [expected])
    }

    @Test("FCM: an intent action in click_action is not a link")
    func clickActionIntent() throws {
        #expect(try links(fcm: #"{"message":{"android":{"notification":{"click_action":"FLUTTER_NOTIFICATION_CLICK"}}}}"#).isEmpty)
    }

    @Test("FCM: fcm_options at message level holds no link")
    func fcmOptionsMessageLevel() throws {
        #expect(try links(fcm: #"{"message":{"fcm_options":{"analytics_label":"dose"},"data":{"type":"x"}}}"#).isEmpty)
    }

    @Test("locations apply to their platform only")
    func platforms() throws {
        let payload = try JSONValue(parsing: #"{"deep_link":"loop://a","message":{"data":{"deep_link":"loop://b"}}}"#)
        #expect(extractor.links(inPayload: payload, platform: .apns).map(\.link) == ["loop://a"])
        #expect(extractor.links(inPayload: payload, platform: .fcm).map(\.link) == ["loop://b"])
    }

    @Test("records: the platform picks the locations; other records and non-JSON bodies have none")
    func records() {
        let apns = LinkPolicyFixtures.apns(#"{"aps":{"alert":"x"},"link":"loop://checkin"}"#)
        #expect(extractor.links(in: apns).map(\.link) == ["loop://checkin"])
        var oauth = apns
        oauth.platform = .oauth
        #expect(extractor.links(in: oauth).isEmpty)
        var text = apns
        text.request.body = .text("deep_link=loop://checkin")
        #expect(extractor.links(in: text).isEmpty)
    }

    @Test("custom locations, each place reported once")
    func customLocations() throws {
        let custom = DeepLinkExtractor(locations: [
            try DeepLinkLocation("$.open", platform: .apns),
            try DeepLinkLocation("$.open", platform: .apns),
            try DeepLinkLocation("$['odd key'].target", platform: .apns),
            try DeepLinkLocation("$.buttons[*]", platform: .apns, urlsOnly: true),
        ])
        let payload = try JSONValue(
            parsing: #"{"aps":{},"open":"loop://a","odd key":{"target":"loop://b"},"buttons":["loop://c","NOT_A_LINK"]}"#)
        #expect(
            custom.links(inPayload: payload, platform: .apns).map(\.description) == [
                "$.open: loop://a", "$['odd key'].target: loop://b", "$.buttons[0]: loop://c",
            ])
        #expect(throws: DeepLinkError.self) { try DeepLinkLocation("open", platform: .apns) }
    }

    @Test("default locations are described readably")
    func defaultDescriptions() {
        let descriptions = DeepLinkLocation.defaults.map(\.description)
        #expect(descriptions.contains("apns $.deep_link"))
        #expect(descriptions.contains("apns $.actions[*] (URLs only)"))
        #expect(descriptions.contains("fcm $.message.webpush.fcm_options.link"))
        #expect(descriptions.contains("fcm $.message.android.notification.click_action (URLs only)"))
        #expect(Set(descriptions).count == descriptions.count)
    }
}
