import Foundation
import PushMockCore
import Testing

@Suite("Typed identifiers")
struct IdentifierTests {
    @Test("An APNs device token is keyed in canonical lower-case form")
    func apnsTokenCanonical() {
        let upper = APNsDeviceToken("00FC13ADFF785122")
        #expect(upper == APNsDeviceToken("00fc13adff785122"))
        #expect(upper.rawValue == "00fc13adff785122")
        #expect(Set([upper, "00fc13adff785122"]).count == 1)
    }

    @Test("Identifiers encode as the plain string the JSON always had")
    func plainJSON() throws {
        struct Record: Codable, Equatable {
            var token: FCMRegistrationToken
            var project: FCMProjectID
            var expo: ExpoTokenID
            var app: ExpoProjectName
            var device: APNsDeviceToken
        }
        let record = Record(
            token: "abc:APA91bXYZ", project: "pushmock-sample", expo: "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]",
            app: "@acme/app", device: "AABB")
        let encoded = try JSONEncoder().encode(record)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: String])
        #expect(
            object == [
                "token": "abc:APA91bXYZ", "project": "pushmock-sample", "expo": "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]",
                "app": "@acme/app", "device": "aabb",
            ])
        #expect(try JSONDecoder().decode(Record.self, from: encoded) == record)
    }

    @Test("Identifiers sort by their spelling")
    func ordering() {
        let projects: [FCMProjectID] = ["b", "a", "c"]
        #expect(projects.sorted().map(\.rawValue) == ["a", "b", "c"])
        #expect(FCMRegistrationToken("t1").description == "t1")
    }
}
