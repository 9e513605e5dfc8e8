import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockTesting
import PushMockTransport
import Testing

/// Every registry the control API grows stops at its cap (`RegistryLimits`, docs/SECURITY.md):
/// the request past it gets 507 with the registry and the limit, nothing of it is kept, entries
/// that exist can still be replaced, and the gateway keeps answering.
@Suite("Hardening: registry caps")
struct RegistryLimitTests {
    static let limit = 3

    /// One registry: the request that adds entry `index`.
    struct Registry: CustomTestStringConvertible, Sendable {
        var name: String
        /// The `registry` word of the 507 answer.
        var word: String
        /// The limit that raises it (`serve --limit NAME=COUNT`, the configuration's `"limits"`).
        var limitName: String
        var method = "POST"
        var path: @Sendable (Int) -> String
        var body: @Sendable (Int) throws -> String
        /// Whether posting entry 0 again replaces it (and so passes at the cap).
        var replaces = true
        /// Requests run before the first entry.
        var setup: [(path: String, body: String)] = []
        var testDescription: String { name }
    }

    static func hex(_ index: Int) -> String { String(format: "%064x", index + 1) }
    static func fcmToken(_ index: Int) -> String { String(format: "cap%08d:APA91b", index) + String(repeating: "x", count: 134) }

    static let registries: [Registry] = [
        Registry(
            name: "APNs device tokens", word: "APNs device tokens", limitName: "apnsDeviceTokens", path: { _ in "/_pushmock/apns/tokens" },
            body: { #"{"token":"\#(hex($0))","bundleId":"com.example.app"}"# }),
        Registry(
            name: "APNs device tokens created by a patch", word: "APNs device tokens", limitName: "apnsDeviceTokens",
            path: { "/_pushmock/apns/tokens/\(hex($0))" }, body: { _ in "{}" }),
        Registry(
            name: "APNs device tokens created by a rotation", word: "APNs device tokens", limitName: "apnsDeviceTokens",
            path: { "/_pushmock/apns/tokens/\(hex(100 + $0))/rotate" }, body: { #"{"newToken":"\#(hex(200 + $0))"}"# },
            replaces: false),
        Registry(
            name: "APNs signing keys", word: "APNs signing keys", limitName: "apnsKeys", path: { _ in "/_pushmock/apns/keys" },
            body: { index in
                let keyID = String(format: "CAPKEY%04d", index)
                let key = APNsSigningKey.generate(keyID: keyID, teamID: "CAPTEAM001")
                return #"{"keyId":"\#(keyID)","teamId":"CAPTEAM001","privateKeyPem":\#(ControlAPITests.jsonString(key.pkcs8PEM))}"#
            }),
        Registry(
            name: "APNs teams", word: "APNs teams", limitName: "apnsTeams", path: { _ in "/_pushmock/apns/teams" },
            body: { String(format: #"{"teamId":"TEAM%06d","bundleIds":["com.example.app"]}"#, $0) }),
        Registry(
            name: "FCM registration tokens", word: "FCM registration tokens", limitName: "fcmTokens",
            path: { _ in "/_pushmock/fcm/tokens" },
            body: { #"{"token":"\#(fcmToken($0))"}"# }),
        Registry(
            name: "FCM service accounts", word: "service accounts", limitName: "serviceAccounts",
            path: { _ in "/_pushmock/fcm/service-accounts" },
            body: { index in
                let account = try ServiceAccountJSON.makeSample(
                    projectID: "cap-\(index)", clientEmail: "cap\(index)@cap-\(index).iam.gserviceaccount.com",
                    tokenURI: "https://oauth2.googleapis.com/token")
                return String(decoding: try account.encodedJSON(), as: UTF8.self)
            }),
        Registry(
            name: "Expo push tokens", word: "Expo push tokens", limitName: "expoTokens", path: { _ in "/_pushmock/expo/tokens" },
            body: { String(format: #"{"token":"ExponentPushToken[capcapcapcapcapcap%04d]"}"#, $0) }),
        Registry(
            name: "Expo projects", word: "Expo projects", limitName: "expoProjects", path: { _ in "/_pushmock/expo/projects" },
            body: { #"{"name":"@cap/project-\#($0)"}"# }),
        Registry(name: "users", word: "users", limitName: "users", path: { _ in "/_pushmock/users" }, body: { #"{"id":"user-\#($0)"}"# }),
        Registry(
            name: "app events", word: "app events", limitName: "appEvents", path: { _ in "/_pushmock/users/someone/events" },
            body: { #"{"name":"opened-\#($0)"}"# }, replaces: false, setup: [("/_pushmock/users", #"{"id":"someone"}"#)]),
        Registry(
            name: "notification categories", word: "notification categories", limitName: "notificationCategories",
            path: { _ in "/_pushmock/categories" },
            body: { #"{"id":"CATEGORY_\#($0)","actions":[]}"# }),
        Registry(
            name: "webhooks", word: "webhooks", limitName: "webhooks", path: { _ in "/_pushmock/webhooks" },
            // A webhook id that exists is refused (400), never replaced.
            body: { #"{"id":"hook-\#($0)","url":"http://127.0.0.1:9/hook"}"# }, replaces: false),
        Registry(
            name: "fault rules", word: "fault rules", limitName: "faultRules", path: { _ in "/_pushmock/faults" },
            body: { #"{"id":"rule-\#($0)","action":{"type":"apns-error","reason":"BadDeviceToken"},"match":{"token":"nobody"}}"# }),
    ]

    static func limited(_ configuration: inout GatewayConfiguration) {
        let limit = Self.limit
        configuration.registryLimits = RegistryLimits(
            apnsDeviceTokens: limit, apnsKeys: limit, apnsTeams: limit, clientCertificateAuthorities: limit, fcmTokens: limit,
            serviceAccounts: limit, accessTokens: limit, expoTokens: limit, expoProjects: limit, users: limit, appEvents: limit,
            notificationCategories: limit, webhooks: limit, faultRules: limit, engagementRules: limit)
    }

    /// Only this registry's limit, set by name in a configuration file's `"limits"` (the others
    /// keep their defaults, hundreds or more): a wrong name-to-cap mapping misses the 507.
    static func limitedByName(_ registry: Registry) throws -> @Sendable (inout GatewayConfiguration) -> Void {
        let path = NSTemporaryDirectory() + "pushmock-limits-\(UUID().uuidString).json"
        try Data(#"{"limits": {"\#(registry.limitName)": \#(Self.limit)}}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try ConfigurationFile.load(path: path)
        return { file.apply(to: &$0) }
    }

    @Test("past the cap set by name: 507 with registry, limit and its name, nothing kept, replacing still allowed", arguments: registries)
    func cap(_ registry: Registry) async throws {
        try await withPushMock(configure: try Self.limitedByName(registry)) { mock in
            for step in registry.setup {
                let done = try await ControlAPITests.curl(mock, "POST", step.path, body: step.body)
                #expect((200..<300).contains(done.status), "setup \(step.path): \(done.status)")
            }
            // Some registries start with an entry (the sample key, the sample service account).
            var refused: (status: Int, json: JSONValue?)?
            var accepted = 0
            for index in 0...Self.limit {
                let answer = try await ControlAPITests.curl(mock, registry.method, registry.path(index), body: try registry.body(index))
                if answer.status == 507 {
                    refused = answer
                    break
                }
                #expect(
                    (200..<300).contains(answer.status), "\(registry.name) #\(index): \(answer.status) \(String(describing: answer.json))")
                accepted += 1
            }
            let full = try #require(refused, "\(registry.name): no 507 after \(Self.limit + 1) entries")
            #expect(accepted >= 1)
            #expect(full.json?["registry"]?.stringValue == registry.word)
            #expect(full.json?["limit"]?.intValue == Self.limit)
            #expect(full.json?["error"]?.stringValue?.contains("at most \(Self.limit) \(registry.word);") == true)
            #expect(full.json?["limitName"]?.stringValue == registry.limitName)
            #expect(full.json?["error"]?.stringValue?.contains("pushmock serve --limit \(registry.limitName)=COUNT") == true)
            if registry.replaces {
                let again = try await ControlAPITests.curl(mock, registry.method, registry.path(0), body: try registry.body(0))
                #expect((200..<300).contains(again.status), "\(registry.name): replacing got \(again.status)")
            }
            #expect(try await ControlAPITests.curl(mock, "GET", "/_pushmock/health").status == 200)
        }
    }

    @Test("a batch that would pass the cap is refused whole")
    func batchAllOrNothing() async throws {
        try await withPushMock(configure: Self.limited) { mock in
            let batch = "[" + (0...Self.limit).map { #"{"token":"\#(Self.hex($0))"}"# }.joined(separator: ",") + "]"
            let answer = try await ControlAPITests.curl(mock, "POST", "/_pushmock/apns/tokens", body: batch)
            #expect(answer.status == 507)
            #expect(mock.state.devices.all.isEmpty)
        }
    }

    @Test("client-certificate CAs added at run time are capped")
    func certificateAuthorities() async throws {
        try await withPushMock(configure: {
            Self.limited(&$0); $0.clientCertificateAuthorityPEMs = []
        }) { mock in
            let ca = try LocalPKI.makeCertificateAuthority(commonName: "Cap CA")
            let body = #"{"pem":\#(ControlAPITests.jsonString(ca.certificatePEM))}"#
            for _ in 0..<Self.limit {
                #expect(try await ControlAPITests.curl(mock, "POST", "/_pushmock/apns/certificate-authorities", body: body).status == 201)
            }
            let over = try await ControlAPITests.curl(mock, "POST", "/_pushmock/apns/certificate-authorities", body: body)
            #expect(over.status == 507)
            #expect(over.json?["registry"]?.stringValue == "added client-certificate CAs")
            #expect(over.json?["limitName"]?.stringValue == "clientCertificateAuthorities")
        }
    }

    @Test("a behaviour model with more rules than the cap is refused")
    func engagementRules() async throws {
        try await withPushMock(configure: Self.limited) { mock in
            func model(_ count: Int) -> String {
                #"{"seed":1,"rules":["# + (0..<count).map { #"{"category":"C\#($0)","open":0.5}"# }.joined(separator: ",") + "]}"
            }
            #expect(try await ControlAPITests.curl(mock, "PUT", "/_pushmock/engagement/model", body: model(Self.limit)).status == 200)
            let over = try await ControlAPITests.curl(mock, "PUT", "/_pushmock/engagement/model", body: model(Self.limit + 1))
            #expect(over.status == 507)
            #expect(over.json?["registry"]?.stringValue == "engagement rules")
            #expect(over.json?["limitName"]?.stringValue == "engagementRules")
        }
    }

    @Test("IID subscriptions that would create tokens past the cap answer RESOURCE_EXHAUSTED for those tokens")
    func iidZeroConfigurationTokens() async throws {
        try await withPushMock(configure: Self.limited) { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            await connection.close()
            let tokens = (0...Self.limit).map { "\"\(Self.fcmToken($0))\"" }.joined(separator: ",")
            let (status, json) = try await IIDTests.call(
                mock, body: #"{"to":"/topics/news","registration_tokens":[\#(tokens)]}"#, accessToken: accessToken)
            #expect(status == 200)
            let results = try #require(json["results"] as? [[String: Any]])
            #expect(results.count == Self.limit + 1)
            let withinCap = results.prefix(Self.limit).allSatisfy { $0.isEmpty }
            #expect(withinCap)
            #expect(results.last?["error"] as? String == "RESOURCE_EXHAUSTED")
            #expect(mock.state.fcmTokens.all.count == Self.limit)
        }
    }

    @Test("the access-token store forgets the oldest tokens beyond its capacity")
    func accessTokens() {
        let store = AccessTokenStore(capacity: 10)
        let now = Timestamp(millisecondsSince1970: 1_700_000_000_000)
        let grants = (0..<35).map { _ in
            store.issue(clientEmail: "a@b", projectID: "p", projectNumber: nil, scopes: [], now: now, lifetime: .seconds(3600))
        }
        #expect(store.count <= 10)
        #expect(store.validGrant(grants[34].token, now: now) != nil)
        #expect(store.grant(grants[0].token) == nil)
    }
}
