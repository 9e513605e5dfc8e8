import PushMockCore
import Testing

@Suite("FCM identifiers, topics, labels and maps")
struct FCMIdentifierTests {
    static let realToken =
        "eU2zIkuCiss:APA91bE8KUg54SOhwfkuU9xFPqIuOXLaAbXJAx2YPq6U2oW8GqdfXwhtSnD1dCRcrp3ylIlQU3HqNqDCiN94HjqrQz7Ty0ANe0IJo4Oea95WIy5gFrWJUin0jmscwdfnVjMRxmkjbTtC"

    @Test(
        "registration tokens",
        arguments: [
            (realToken, true, true),
            ("dXJ4a2V5aW5zdGFuY2VpZA:APA91b" + String(repeating: "x", count: 134), true, true),
            ("fake-token-0001", true, false),
            ("0123456789", true, false),
            ("012345678", false, false),
            ("with.dots:and-dashes_ok", true, false),
            ("has space 123", false, false),
            ("slash/slash/slash", false, false),
            ("", false, false),
            (String(repeating: "a", count: 4096), true, false),
            (String(repeating: "a", count: 4097), false, false),
            ("abc:APA91b" + String(repeating: "x", count: 99), true, false),
            ("abc:APA91c" + String(repeating: "x", count: 140), true, false),
            (":APA91b" + String(repeating: "x", count: 140), true, false),
            ("abc:APA91b" + String(repeating: "x", count: 99) + ".", true, false),
        ]
    )
    func tokens(token: String, lenient: Bool, realistic: Bool) {
        #expect(FCMRegistrationToken.isWellFormed(token) == lenient)
        #expect(FCMRegistrationToken.isWellFormed(token, rule: .lenient) == lenient)
        #expect(FCMRegistrationToken.isWellFormed(token, rule: .realistic) == realistic)
    }

    @Test("identifier rules parse from configuration")
    func rules() {
        #expect(FCMRegistrationToken.Rule(rawValue: "realistic") == .realistic)
        #expect(FCMRegistrationToken.Rule(rawValue: "strict") == nil)
        #expect(FCMRegistrationToken.Rule.all == [.lenient, .realistic])
    }

    @Test(
        "installation IDs",
        arguments: [
            ("cAbCdEfGhIjKlMnOpQrStU", true, true),
            ("f-_0123456789abcdefghi", true, true),
            ("aAbCdEfGhIjKlMnOpQrStU", true, false),
            ("cAbCdEfGhIjKlMnOpQrSt", true, false),
            ("cAbCdEfGhIjKlMnOpQrStUV", true, false),
            ("cAbCdEfGhIjKlMnOpQr:tU", true, false),
            ("short", false, false),
        ]
    )
    func installationIDs(fid: String, lenient: Bool, realistic: Bool) {
        #expect(FCMInstallationID.isWellFormed(fid) == lenient)
        #expect(FCMInstallationID.isWellFormed(fid, rule: .realistic) == realistic)
    }

    @Test(
        "bare topic names",
        arguments: [
            ("news", nil as FCMTopicNameError?),
            ("A-z_0.9~%", nil),
            ("/topics/news", .hasTopicsPrefix),
            ("", .empty),
            ("a b", .invalidCharacter(" ")),
            ("private/news", .invalidCharacter("/")),
            ("topics/news", .invalidCharacter("/")),
        ]
    )
    func bareTopics(text: String, error: FCMTopicNameError?) {
        switch FCMTopicName.validate(text) {
        case .success(let topic):
            #expect(error == nil)
            #expect(topic.name == text)
            #expect(!topic.isPrivate)
            #expect(topic.iidForm == "/topics/" + text)
        case .failure(let problem):
            #expect(problem == error)
        }
        #expect(FCMTopicName.isValid(text) == (error == nil))
    }

    @Test(
        "Instance ID topic form",
        arguments: [
            ("/topics/news", "news" as String?, false),
            ("news", "news", false),
            ("/topics/private/news", "news", true),
            ("private/news", "news", true),
            ("/topics/", nil, false),
            ("/topics/private/", nil, false),
            ("/topics/a/b", nil, false),
            ("/topics//news", nil, false),
            ("/Topics/news", nil, false),
        ]
    )
    func iidTopics(text: String, name: String?, isPrivate: Bool) {
        switch FCMTopicName.validate(iidForm: text) {
        case .success(let topic):
            #expect(topic.name == name)
            #expect(topic.isPrivate == isPrivate)
            #expect(topic.iidForm == "/topics/" + (isPrivate ? "private/" : "") + (name ?? ""))
        case .failure:
            #expect(name == nil)
        }
    }

    @Test("topic name error texts")
    func topicErrors() {
        #expect(FCMTopicNameError.empty.description == "a topic name must not be empty")
        #expect(FCMTopicNameError.hasTopicsPrefix.description == #"the "/topics/" prefix must not be provided"#)
        #expect(
            FCMTopicNameError.invalidCharacter("#").description
                == "'#' is not allowed; topic names must match [a-zA-Z0-9-_.~%]+"
        )
    }

    @Test(
        "analytics labels",
        arguments: [
            ("a", true), (String(repeating: "x", count: 50), true), ("A-z_0.9~%", true),
            ("", false), (String(repeating: "x", count: 51), false), ("a b", false), ("a/b", false), ("\u{E9}", false),
        ]
    )
    func analyticsLabels(label: String, valid: Bool) {
        #expect(FCMAnalyticsLabel.isValid(label) == valid)
    }

    @Test("string maps: first position, last value, merging, byte count")
    func stringMaps() {
        let map = FCMStringMap([("a", "1"), ("b", "2"), ("a", "3")])
        #expect(map.keys == ["a", "b"])
        #expect(map["a"] == "3")
        #expect(map["A"] == nil)
        #expect(map.byteCount == 4)
        #expect(map.merging(["b": "x", "c": "y"]).pairs.map { "\($0.key)=\($0.value)" } == ["a=3", "b=x", "c=y"])
        #expect(FCMStringMap().isEmpty)
        #expect(map.entries.map(\.description) == ["a=3", "b=2"])
    }

    @Test("targets describe themselves")
    func targets() throws {
        #expect(FCMTarget.token("t").description == "token t")
        #expect(!FCMTarget.fid("f").isFanOut)
        let condition = try FCMCondition(parsing: "'a' in topics")
        #expect(FCMTarget.condition(condition).value == "'a' in topics")
        #expect(FCMTarget.topic("news").isFanOut)
    }
}
