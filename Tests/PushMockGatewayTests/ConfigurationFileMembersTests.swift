import Foundation
import PushMockGateway
import Testing

/// The configuration file's definitions take only their own members, as the control API's do:
/// a misspelt `expireAfterSend` in `apns.tokens[]` once left the default lifecycle in force.
@Suite("Configuration file: members of definitions")
struct ConfigurationFileMembersTests {
    static let token = String(repeating: "ab", count: 32)

    @Test(
        "a misspelt member in a section's array is refused at its place",
        arguments: [
            (
                #"{"apns": {"tokens": [{"token": "\#(token)", "bundleId": "a.b", "expireAfterSend": 2}]}}"#,
                #"unknown key "expireAfterSend" at "apns.tokens[0]" (expected one of token, bundleId"#
            ),
            (#"{"apns": {"teams": [{"teamId": "TEAM000001", "bundleIds": ["a.b"], "bundleID": "c"}]}}"#, #"at "apns.teams[0]""#),
            (
                #"{"expo": {"projects": [{"name": "@a/b"}, {"name": "@a/c", "requireAccesToken": true}]}}"#,
                #"unknown key "requireAccesToken" at "expo.projects[1]""#
            ),
            (#"{"expo": {"tokens": [{"token": "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]", "projet": "@a/b"}]}}"#, #"at "expo.tokens[0]""#),
            (
                #"{"categories": [{"id": "c1", "actions": [], "ap": "a.b"}]}"#,
                #"unknown key "ap" at "categories[0]" (expected one of id, app, actions"#
            ),
            (
                #"{"categories": [{"id": "c1", "actions": [{"id": "a", "title": "A", "foregroud": true}]}]}"#,
                #"unknown key "foregroud" at "categories[0].actions[0]" (expected one of id, title"#
            ),
            (#"{"apns": {"options": {"maxConcurrentStreams": 0}}}"#, "must be at least 1: with 0 no request could be sent"),
            (
                #"{"apns": {"options": {"maxConcurrentStreams": 99999999999999999999}}}"#,
                ".apns.options.maxConcurrentStreams: the number 99999999999999999999 is out of range"
            ),
            (#"{"simulation": {"apnsDefaultStorage": "-5s"}}"#, "simulation.apnsDefaultStorage must not be negative"),
            (#"{"faults": [{"action": {"type": "close"}, "trigger": {"probablity": 0.5}}]}"#, #"unknown member "probablity" in trigger"#),
            (#"{"webhooks": [{"url": "http://127.0.0.1:9/", "timeoutSeconds": 5}]}"#, #"unknown member "timeoutSeconds" in a webhook"#),
        ])
    func refused(text: String, message: String) throws {
        let path = NSTemporaryDirectory() + "pushmock-members-\(UUID().uuidString).json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try ConfigurationFile.load(path: path)
            Issue.record("\(text) loaded")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    @Test("every member a definition has is taken")
    func everyMemberTaken() throws {
        let path = NSTemporaryDirectory() + "pushmock-members-\(UUID().uuidString).json"
        let text = #"""
            {"apns": {"tokens": [{"token": "\#(Self.token)", "bundleId": "a.b", "environment": "sandbox", "expireAfterSends": 2, "sends": 0}]},
             "expo": {"projects": [{"name": "@a/b", "requireAccessToken": false, "accessTokens": []}],
                      "tokens": [{"token": "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]", "project": "@a/b", "expireAfterSends": 3}]},
             "categories": [{"id": "c1", "app": "a.b", "actions": [
                 {"id": "a", "title": "A", "destructive": true, "foreground": false, "authenticationRequired": true, "textInput": false}]}]}
            """#
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try ConfigurationFile.load(path: path)
        #expect(file.apns?.tokens?.first?.expireAfterSends == 2)
        #expect(file.expo?.tokens?.first?.expireAfterSends == 3)
        #expect(file.categories?.first?.actions.first?.authenticationRequired == true)
    }
}
