import Foundation
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockSimulation
import PushMockTesting
import PushMockTransport
import Testing

/// Registry caps and device simulation's memory bounds set by name, without Swift: the
/// configuration file's `"limits"` and `pushmock serve --limit NAME=COUNT` (``CapacityLimit``).
/// Every registry's cap set this way is exercised in `RegistryLimitTests.cap`.
@Suite("Capacity limits by name")
struct CapacityLimitTests {
    static func loadConfiguration(_ text: String) throws -> ConfigurationFile {
        let path = NSTemporaryDirectory() + "pushmock-limits-\(UUID().uuidString).json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ConfigurationFile.load(path: path)
    }

    @Test(
        "NAME=COUNT is read",
        arguments: [("users=5", CapacityLimit.users, 5), ("simulatedDevices=1000000000", .simulatedDevices, 1_000_000_000)])
    func parsing(_ text: String, _ limit: CapacityLimit, _ count: Int) throws {
        var limits = CapacityLimits()
        try limits.set(parsing: text)
        #expect(limits.counts == [limit: count])
    }

    @Test(
        "a malformed --limit says what is wrong",
        arguments: [
            ("users", #"a limit is NAME=COUNT (e.g. users=500000), not "users""#),
            ("usres=5", #"no limit is called "usres"; the limits are \#(CapacityLimit.names)"#),
            ("users=many", #"limit users: "many" is not a whole number"#),
            ("users=", #"limit users: "" is not a whole number"#),
            ("users=0", "limit users must be 1 to 1000000000, not 0"),
            ("users=-3", "limit users must be 1 to 1000000000, not -3"),
            ("users=1000000001", "limit users must be 1 to 1000000000, not 1000000001"),
        ])
    func malformed(_ text: String, _ message: String) {
        var limits = CapacityLimits()
        #expect(throws: DefinitionError.self) { try limits.set(parsing: text) }
        do {
            try limits.set(parsing: text)
        } catch {
            #expect(error.description == message)
        }
        #expect(limits.counts.isEmpty)
    }

    @Test(
        "a configuration file's \"limits\" refuses what --limit refuses",
        arguments: [
            (#"{"limits": {"users": 0}}"#, ".limits.users: must be 1 to 1000000000"),
            (#"{"limits": {"faultRules": 1000000001}}"#, ".limits.faultRules: must be 1 to 1000000000"),
            (#"{"limits": {"users": "5"}}"#, ".limits.users: expected a number, found a string"),
            (#"{"limits": {"users": 5, "usres": 5}}"#, #"unknown key "usres" at "limits""#),
            (#"{"limits": [5]}"#, ".limits: expected an object, found an array"),
        ])
    func fileRefuses(_ text: String, _ message: String) throws {
        do {
            _ = try Self.loadConfiguration(text)
            Issue.record("\(text) loaded")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }

    @Test("every limit is named in the file's known keys, and a file sets only the limits it names")
    func fileSetsNamedLimits() throws {
        let entries = CapacityLimit.allCases.enumerated().map { #""\#($1.rawValue)": \#(10 + $0)"# }
        let file = try Self.loadConfiguration(#"{"limits": {\#(entries.joined(separator: ", "))}}"#)
        var configuration = GatewayConfiguration()
        file.apply(to: &configuration)
        for (offset, limit) in CapacityLimit.allCases.enumerated() {
            #expect(configuration.capacityLimits[limit.rawValue] == 10 + offset, "\(limit)")
        }
        var untouched = GatewayConfiguration()
        try Self.loadConfiguration(#"{"limits": {"webhooks": 7}}"#).apply(to: &untouched)
        #expect(untouched.registryLimits == RegistryLimits(webhooks: 7))
        #expect(untouched.simulation.limits == .defaults)
    }

    @Test("each limit a 507 names is one that raises it")
    func registriesNameLimits() {
        for registry in RegistryName.all {
            #expect(CapacityLimit(rawValue: registry.limitName) != nil, "\(registry.words): \(registry.limitName)")
        }
        #expect(Set(RegistryName.all.map(\.limitName)).count == RegistryName.all.count)
    }

    @Test("simulated devices, notifications and timeline events per device are bounded by name")
    func deviceBounds() async throws {
        let file = try Self.loadConfiguration(
            #"{"limits": {"simulatedDevices": 3, "notificationsPerDevice": 2, "timelineEventsPerDevice": 3}}"#)
        try await withPushMock(configure: { file.apply(to: &$0) }) { mock in
            let connection = try await mock.connect()
            let tokens = (1...4).map { String(format: "%064x", $0) }
            for token in tokens {
                let response = try await connection.send(mock.apnsRequest(token: token))
                #expect(response.status == 200)
            }
            for _ in 0..<3 {
                #expect(try await connection.send(mock.apnsRequest(token: tokens[3])).status == 200)
            }
            await connection.close()
            // The fourth device took the count past 3: the least recently active went first.
            #expect(mock.state.simulatedDevices.count <= 3)
            #expect(mock.device(tokens[0]) == nil)
            let busy = try #require(mock.device(tokens[3]))
            #expect(busy.notifications.count == 2)
            #expect(busy.timeline.count == 3)
        }
    }

    @Test("the access-token store's bound is set by name: the older of two tokens is forgotten")
    func accessTokensByName() async throws {
        let file = try Self.loadConfiguration(#"{"limits": {"accessTokens": 1}}"#)
        try await withPushMock(configure: { file.apply(to: &$0) }) { mock in
            let connection = try await mock.connect()
            let older = try await mock.fetchAccessToken(over: connection)
            let newer = try await mock.fetchAccessToken(over: connection)
            let message = #"{"message":{"token":"limit-test:APA91b","notification":{"title":"Hi"}}}"#
            #expect(try await connection.send(mock.fcmSend(message, accessToken: newer)).status == 200)
            #expect(try await connection.send(mock.fcmSend(message, accessToken: older)).status == 401)
            await connection.close()
        }
    }
}
