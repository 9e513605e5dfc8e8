import PushMockCore
import Testing

@Suite("Expo push tokens")
struct ExpoPushTokenTests {
    @Test(
        "the service syntax accepts bracketed tokens with a URL-safe identifier",
        arguments: [
            ("ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]", ExpoPushToken.Form.exponentPushToken, "xxxxxxxxxxxxxxxxxxxxxx"),
            ("ExpoPushToken[AbC-12_z]", .expoPushToken, "AbC-12_z"),
            ("ExponentPushToken[a]", .exponentPushToken, "a"),
        ]
    )
    func accepted(token: String, form: ExpoPushToken.Form, identifier: String) throws {
        let parsed = try #require(ExpoPushToken(token))
        #expect(parsed.rawValue == token)
        #expect(parsed.form == form)
        #expect(parsed.identifier == identifier)
    }

    @Test(
        "the service syntax refuses everything else",
        arguments: [
            "", "ExponentPushToken[]", "ExponentPushToken[", "ExponentPushToken", "ExponentPushToken[abc",
            "ExponentPushToken[RZBS31.Q2-143-27-25]", "exponentpushtoken[abc]", "ExpoPushToken[a b]",
            "ExponentPushToken[abc]x", "[abc]", "abc", "ExponentPushToken[é]",
            "0d44e896-1a04-4409-a56e-a7383641cdb7", "ExponentPushToken[" + String(repeating: "a", count: 257) + "]",
        ]
    )
    func refused(token: String) {
        #expect(ExpoPushToken(token) == nil)
    }

    @Test(
        "the SDK syntax is Node's isExpoPushToken",
        arguments: [
            ("ExponentPushToken[RZBS31.Q2-143-27-25]", true), ("ExpoPushToken[]", true), ("ExponentPushToken[a b]", true),
            ("0d44e896-1a04-4409-a56e-a7383641cdb7", true), ("0D44E896-1A04-4409-A56E-A7383641CDB7", true),
            ("0d44e896-1a04-4409-a56e-a7383641cdb", false), ("ExponentPushToken", false), ("abc", false),
            ("ExponentPushToken[abc", false),
        ]
    )
    func sdkSyntax(token: String, accepted: Bool) {
        let parsed = ExpoPushToken(token, syntax: .sdk)
        #expect((parsed != nil) == accepted)
        if token.contains("-"), !token.contains("["), accepted {
            #expect(parsed?.form == .uuid)
        }
    }

    @Test("priorities and interruption levels are exactly the documented values")
    func enumerations() {
        #expect(ExpoPriority.allCases.map(\.rawValue) == ["default", "normal", "high"])
        #expect(ExpoPriority.allCases.map(\.apnsPriority) == [10, 5, 10])
        #expect(ExpoPriority(rawValue: "HIGH") == nil)
        #expect(ExpoInterruptionLevel.allCases.map(\.rawValue) == ["active", "critical", "passive", "time-sensitive"])
        #expect(ExpoInterruptionLevel(rawValue: "timeSensitive") == nil)
    }
}
