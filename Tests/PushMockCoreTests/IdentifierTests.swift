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

    /// The word-at-a-time scan must find an upper-case letter at any offset, in the tail, and
    /// next to non-ASCII bytes, and must not take `@`, `[`, `` ` `` or `{` (the neighbours of
    /// `A`–`Z` and `a`–`z`) for letters.
    @Test("Canonical tokens are lowered wherever the upper-case letter is", arguments: [0, 1, 7, 8, 15, 63, 64, 70])
    func canonicalAtEveryOffset(position: Int) {
        for letter in ["A", "Z", "@", "[", "`", "{", "é"] {
            var characters = Array(repeating: "0", count: 71)
            characters[position] = letter
            let token = characters.joined()
            let expected = token.contains(where: { $0 == "A" || $0 == "Z" }) ? token.lowercased() : token
            #expect(APNsDeviceTokenFormat.canonical(token) == expected, "\(letter) at \(position)")
        }
        let mixed = "é" + String(repeating: "0", count: 10) + "B" + "ü"
        #expect(APNsDeviceTokenFormat.canonical(mixed) == "é" + String(repeating: "0", count: 10) + "b" + "ü")
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
