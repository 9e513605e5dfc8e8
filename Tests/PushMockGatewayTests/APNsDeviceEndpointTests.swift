import Foundation
import PushMockCore
import PushMockGateway
import PushMockRecording
import PushMockTesting
import PushMockTransport
import Testing

/// One row of table C1 (`../shared/reference/push-wire-spec.md`): a request, what the gateway
/// must answer, and any setup the row needs.
struct C1Case: Sendable, CustomTestStringConvertible {
    var name: String
    var status: Int
    var reason: String?
    var configure: @Sendable (inout GatewayConfiguration) -> Void = { _ in }
    var prepare: @Sendable (PushMockHarness) throws -> Void = { _ in }
    var request: @Sendable (PushMockHarness) throws -> HTTPRequestMessage
    var authority: String? = nil

    var testDescription: String { "\(name) → \(status)\(reason.map { " \($0)" } ?? "")" }
}

private let token = PushMockHarness.sampleDeviceToken
private let otherToken = "11fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f1"

/// Every stateless and registry row of C1 (authentication rows are in APNsAuthenticationTests).
let c1Cases: [C1Case] = [
    C1Case(name: "accepted", status: 200, reason: nil) { try $0.apnsRequest() },
    C1Case(name: "accepted with Bearer spelled in capitals", status: 200, reason: nil) { mock in
        var request = try mock.apnsRequest(providerToken: .none)
        request.headers.append(name: "authorization", value: "Bearer \(try mock.providerToken())")
        return request
    },
    C1Case(name: "method GET", status: 405, reason: "MethodNotAllowed") { try $0.apnsRequest(method: "GET") },
    C1Case(name: "method PUT", status: 405, reason: "MethodNotAllowed") { try $0.apnsRequest(method: "PUT") },
    C1Case(name: "path /3/devices/…", status: 404, reason: "BadPath") { try $0.apnsRequest(path: "/3/devices/\(token)") },
    C1Case(name: "path /2/device/…", status: 404, reason: "BadPath") { try $0.apnsRequest(path: "/2/device/\(token)") },
    C1Case(name: "path /", status: 404, reason: "BadPath") { try $0.apnsRequest(path: "/") },
    C1Case(name: "path /3/device without slash", status: 404, reason: "BadPath") { try $0.apnsRequest(path: "/3/device") },
    C1Case(name: "empty token", status: 400, reason: "MissingDeviceToken") { try $0.apnsRequest(path: "/3/device/") },
    C1Case(name: "token not hex", status: 400, reason: "BadDeviceToken") { try $0.apnsRequest(token: "xyz" + token.dropFirst(3)) },
    C1Case(name: "token odd length", status: 400, reason: "BadDeviceToken") { try $0.apnsRequest(token: token + "a") },
    C1Case(name: "token too short", status: 400, reason: "BadDeviceToken") { try $0.apnsRequest(token: "abcd") },
    C1Case(name: "token with a path segment", status: 400, reason: "BadDeviceToken") { try $0.apnsRequest(token: token + "/x") },
    C1Case(name: "100-byte token accepted by default", status: 200, reason: nil) {
        try $0.apnsRequest(token: String(repeating: "ab", count: 100))
    },
    C1Case(
        name: "100-byte token with strict length",
        status: 400,
        reason: "BadDeviceToken",
        configure: { $0.apns.tokenFormat = .strict64 }
    ) { try $0.apnsRequest(token: String(repeating: "ab", count: 100)) },
    C1Case(
        name: "token of the other environment",
        status: 400,
        reason: "BadDeviceToken",
        prepare: {
            $0.state.devices.register(APNsDeviceRecord(token: APNsDeviceToken(token), bundleID: $0.topic, environment: .production))
        }
    ) { try $0.apnsRequest() },
    C1Case(
        name: "token for another app",
        status: 400,
        reason: "DeviceTokenNotForTopic",
        prepare: { $0.state.devices.register(APNsDeviceRecord(token: APNsDeviceToken(token), bundleID: "com.example.other")) }
    ) { try $0.apnsRequest() },
    C1Case(
        name: "unknown token in strict registry mode",
        status: 400,
        reason: "BadDeviceToken",
        configure: { $0.apns.rejectUnknownTokens = true }
    ) { try $0.apnsRequest(token: otherToken) },
    C1Case(
        name: "registered token in strict registry mode",
        status: 200,
        reason: nil,
        configure: { $0.apns.rejectUnknownTokens = true },
        prepare: { $0.state.devices.register(APNsDeviceRecord(token: APNsDeviceToken(token), bundleID: $0.topic)) }
    ) { try $0.apnsRequest() },
    C1Case(
        name: "token uninstalled",
        status: 410,
        reason: "Unregistered",
        prepare: { mock in
            mock.state.devices.register(
                APNsDeviceRecord(
                    token: APNsDeviceToken(token), bundleID: mock.topic,
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 1_700_000_000_123)))
            )
        }
    ) { try $0.apnsRequest() },
    C1Case(
        name: "token expired",
        status: 410,
        reason: "ExpiredToken",
        prepare: { mock in
            mock.state.devices.register(
                APNsDeviceRecord(
                    token: APNsDeviceToken(token), bundleID: mock.topic,
                    state: .expired(at: Timestamp(millisecondsSince1970: 1_700_000_000_123)))
            )
        }
    ) { try $0.apnsRequest() },
    C1Case(
        name: "token unregistered in the future is still active",
        status: 200,
        reason: nil,
        prepare: { mock in
            let later = mock.state.clock.now() + .seconds(3600)
            mock.state.devices.register(
                APNsDeviceRecord(token: APNsDeviceToken(token), bundleID: mock.topic, state: .unregistered(at: later)))
        }
    ) { try $0.apnsRequest() },
    C1Case(name: "apns-id not a UUID", status: 400, reason: "BadMessageId") {
        try $0.apnsRequest(headers: [("apns-id", "not-a-uuid")])
    },
    C1Case(name: "apns-id without hyphens", status: 400, reason: "BadMessageId") {
        try $0.apnsRequest(headers: [("apns-id", "123e4567e89b12d3a4564266554400a0")])
    },
    C1Case(name: "apns-expiration not an integer", status: 400, reason: "BadExpirationDate") {
        try $0.apnsRequest(headers: [("apns-expiration", "tomorrow")])
    },
    C1Case(name: "apns-expiration negative", status: 400, reason: "BadExpirationDate") {
        try $0.apnsRequest(headers: [("apns-expiration", "-1")])
    },
    C1Case(name: "apns-expiration 0", status: 200, reason: nil) { try $0.apnsRequest(headers: [("apns-expiration", "0")]) },
    // Any 64-bit date is a date; the largest once overflowed the simulation's milliseconds.
    C1Case(name: "apns-expiration Int64.max", status: 200, reason: nil) {
        try $0.apnsRequest(headers: [("apns-expiration", "9223372036854775807")])
    },
    C1Case(name: "apns-expiration beyond Int64", status: 400, reason: "BadExpirationDate") {
        try $0.apnsRequest(headers: [("apns-expiration", "9223372036854775808")])
    },
    C1Case(name: "apns-priority 7", status: 400, reason: "BadPriority") { try $0.apnsRequest(headers: [("apns-priority", "7")]) },
    C1Case(name: "apns-priority 05", status: 400, reason: "BadPriority") { try $0.apnsRequest(headers: [("apns-priority", "05")]) },
    C1Case(name: "apns-priority 10", status: 200, reason: nil) { try $0.apnsRequest(headers: [("apns-priority", "10")]) },
    C1Case(name: "apns-priority 5", status: 200, reason: nil) { try $0.apnsRequest(headers: [("apns-priority", "5")]) },
    C1Case(name: "apns-priority 1", status: 200, reason: nil) { try $0.apnsRequest(headers: [("apns-priority", "1")]) },
    C1Case(name: "apns-push-type unknown", status: 400, reason: "InvalidPushType") { try $0.apnsRequest(pushType: "notification") },
    C1Case(name: "apns-push-type in capitals", status: 400, reason: "InvalidPushType") { try $0.apnsRequest(pushType: "Alert") },
    C1Case(name: "apns-push-type omitted", status: 200, reason: nil) { try $0.apnsRequest(pushType: nil) },
    C1Case(name: "apns-collapse-id of 64 bytes", status: 200, reason: nil) {
        try $0.apnsRequest(headers: [("apns-collapse-id", String(repeating: "c", count: 64))])
    },
    C1Case(name: "apns-collapse-id of 65 bytes", status: 400, reason: "BadCollapseId") {
        try $0.apnsRequest(headers: [("apns-collapse-id", String(repeating: "c", count: 65))])
    },
    C1Case(name: "apns-collapse-id of 22 two-byte characters (44 bytes)", status: 200, reason: nil) {
        try $0.apnsRequest(headers: [("apns-collapse-id", String(repeating: "é", count: 22))])
    },
    C1Case(name: "apns-collapse-id of 33 two-byte characters (66 bytes)", status: 400, reason: "BadCollapseId") {
        try $0.apnsRequest(headers: [("apns-collapse-id", String(repeating: "é", count: 33))])
    },
    C1Case(name: "apns-priority sent twice", status: 400, reason: "DuplicateHeaders") {
        try $0.apnsRequest(headers: [("apns-priority", "10"), ("apns-priority", "10")])
    },
    C1Case(name: "apns-topic sent twice", status: 400, reason: "DuplicateHeaders") { mock in
        try mock.apnsRequest(headers: [("apns-topic", mock.topic)])
    },
    C1Case(name: "authorization sent twice", status: 400, reason: "DuplicateHeaders") { mock in
        try mock.apnsRequest(headers: [("authorization", "bearer \(try mock.providerToken())")])
    },
    C1Case(name: "apns-topic missing with token auth", status: 400, reason: "MissingTopic") { mock in
        var request = try mock.apnsRequest()
        var headers = HTTPHeaderList()
        for index in 0..<request.headers.count where !request.headers.nameEquals(index, .apnsTopic) {
            headers.append(name: request.headers.name(at: index), value: request.headers.value(at: index))
        }
        request.headers = headers
        return request
    },
    C1Case(name: "voip push to the bare bundle ID", status: 400, reason: "TopicDisallowed") { try $0.apnsRequest(pushType: "voip") },
    C1Case(name: "liveactivity push to the bare bundle ID", status: 400, reason: "TopicDisallowed") {
        try $0.apnsRequest(pushType: "liveactivity")
    },
    C1Case(name: "empty payload", status: 400, reason: "PayloadEmpty") { try $0.apnsRequest(payload: "") },
    C1Case(name: "payload of 4096 bytes", status: 200, reason: nil) { try $0.apnsRequest(payload: payload(ofSize: 4096)) },
    C1Case(name: "payload of 4097 bytes", status: 413, reason: "PayloadTooLarge") { try $0.apnsRequest(payload: payload(ofSize: 4097)) },
    C1Case(name: "voip payload of 5120 bytes", status: 200, reason: nil) { mock in
        try mock.apnsRequest(topic: mock.topic + ".voip", pushType: "voip", payload: payload(ofSize: 5120))
    },
    C1Case(name: "voip payload of 5121 bytes", status: 413, reason: "PayloadTooLarge") { mock in
        try mock.apnsRequest(topic: mock.topic + ".voip", pushType: "voip", payload: payload(ofSize: 5121))
    },
    C1Case(name: "payload far above the storage cap", status: 413, reason: "PayloadTooLarge") {
        try $0.apnsRequest(payload: payload(ofSize: 3 << 20))
    },
    C1Case(name: "payload that is not JSON (APNs does not check)", status: 200, reason: nil) { try $0.apnsRequest(payload: "hello") },
    C1Case(name: "no authorization", status: 403, reason: "MissingProviderToken") { try $0.apnsRequest(providerToken: .none) },
    C1Case(name: "bearer without a token", status: 403, reason: "MissingProviderToken") { mock in
        // "bearer " with a trailing space is a protocol error in HTTP/2 (RFC 9113 §8.2.1).
        var request = try mock.apnsRequest(providerToken: .none)
        request.headers.append(name: "authorization", value: "bearer")
        return request
    },
    C1Case(name: "empty authorization", status: 403, reason: "MissingProviderToken") { mock in
        var request = try mock.apnsRequest(providerToken: .none)
        request.headers.append(name: "authorization", value: "")
        return request
    },
    C1Case(name: "basic instead of bearer", status: 403, reason: "MissingProviderToken") { mock in
        var request = try mock.apnsRequest(providerToken: .none)
        request.headers.append(name: "authorization", value: "Basic dXNlcjpwYXNz")
        return request
    },
    C1Case(
        name: "production authority with a sandbox token", status: 400, reason: "BadDeviceToken",
        prepare: {
            $0.state.devices.register(APNsDeviceRecord(token: APNsDeviceToken(token), bundleID: $0.topic, environment: .sandbox))
        }, request: { try $0.apnsRequest() }, authority: "api.push.apple.com"),
    C1Case(
        name: "production authority with a production token", status: 200, reason: nil,
        prepare: {
            $0.state.devices.register(APNsDeviceRecord(token: APNsDeviceToken(token), bundleID: $0.topic, environment: .production))
        }, request: { try $0.apnsRequest() }, authority: "api.push.apple.com:443"),
]

/// A JSON payload of exactly `size` bytes.
func payload(ofSize size: Int) -> String {
    let prefix = #"{"aps":{"alert":""#
    let suffix = #""}}"#
    return prefix + String(repeating: "x", count: max(0, size - prefix.utf8.count - suffix.utf8.count)) + suffix
}

@Suite("APNs device endpoint (table C1)")
struct APNsDeviceEndpointTests {
    @Test(arguments: c1Cases)
    func row(_ row: C1Case) async throws {
        try await withPushMock(configure: row.configure) { mock in
            try row.prepare(mock)
            let response = try await mock.sendOnNewConnection(try row.request(mock), authority: row.authority)
            if let reason = row.reason {
                expectAPNsError(response, status: row.status, reason: reason)
            } else {
                expectAccepted(response)
            }
            // Every exchange is recorded, with the answer it got.
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.response.status == row.status)
            #expect(record.response.reason == row.reason)
            #expect(record.platform == .apns)
        }
    }

    @Test("410 carries the registered timestamp in milliseconds", arguments: ["Unregistered", "ExpiredToken"])
    func goneTimestamp(reason: String) async throws {
        try await withPushMock { mock in
            let at = Timestamp(millisecondsSince1970: 1_700_000_000_123)
            let state: APNsDeviceRecord.State = reason == "Unregistered" ? .unregistered(at: at) : .expired(at: at)
            mock.state.devices.register(APNsDeviceRecord(token: APNsDeviceToken(token), bundleID: mock.topic, state: state))
            let response = try await mock.sendOnNewConnection(try mock.apnsRequest())
            #expect(response.status == 410)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"\#(reason)","timestamp":1700000000123}"#)
            #expect(mock.recordings.records(limit: 1).first?.response.timestampMilliseconds == 1_700_000_000_123)
        }
    }

    @Test("all eleven push types are accepted with their topic suffix", arguments: APNsPushType.all)
    func pushTypes(_ pushType: APNsPushType) async throws {
        try await withPushMock { mock in
            let topic = mock.topic + (pushType.topicSuffix ?? "")
            let size = pushType.maximumPayloadSize
            let response = try await mock.sendOnNewConnection(
                try mock.apnsRequest(topic: topic, pushType: pushType.rawValue, payload: payload(ofSize: size))
            )
            expectAccepted(response)
            let tooLarge = try await mock.sendOnNewConnection(
                try mock.apnsRequest(topic: topic, pushType: pushType.rawValue, payload: payload(ofSize: size + 1))
            )
            expectAPNsError(tooLarge, status: 413, reason: "PayloadTooLarge")
            #expect(mock.recordings.records(newestFirst: false).first?.notification?.pushType == pushType.rawValue)
        }
    }

    @Test("apns-id is echoed when valid and generated otherwise")
    func apnsIDEcho() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let id = "123e4567-e89b-12d3-a456-4266554400a0"
            let echoed = try await connection.send(try mock.apnsRequest(headers: [("apns-id", id)]))
            #expect(echoed.header("apns-id") == id)
            let echoedOnError = try await connection.send(try mock.apnsRequest(payload: "", headers: [("apns-id", id)]))
            #expect(echoedOnError.header("apns-id") == id)
            let generatedOnBadID = try await connection.send(try mock.apnsRequest(headers: [("apns-id", "nope")]))
            #expect(generatedOnBadID.header("apns-id") != "nope")
            #expect(APNsMessageID.isValid((generatedOnBadID.header("apns-id") ?? "").utf8))
            let first = try await connection.send(try mock.apnsRequest())
            let second = try await connection.send(try mock.apnsRequest())
            #expect(first.header("apns-id") != second.header("apns-id"))
            await connection.close()
        }
    }

    @Test("apns-unique-id only in the sandbox environment")
    func uniqueID() async throws {
        try await withPushMock { mock in
            let sandbox = try await mock.sendOnNewConnection(try mock.apnsRequest(), authority: "api.sandbox.push.apple.com")
            #expect(APNsMessageID.isValid((sandbox.header("apns-unique-id") ?? "").utf8))
            let again = try await mock.sendOnNewConnection(try mock.apnsRequest(), authority: "api.sandbox.push.apple.com")
            let unique = try #require(again.header("apns-unique-id"))
            #expect(unique != sandbox.header("apns-unique-id") && unique == unique.lowercased())
            #expect(Array(unique)[14] == "4" && "89ab".contains(Array(unique)[19]))
            let development = try await mock.sendOnNewConnection(try mock.apnsRequest(), authority: "api.development.push.apple.com")
            #expect(development.header("apns-unique-id") != nil)
            let production = try await mock.sendOnNewConnection(try mock.apnsRequest(), authority: "api.push.apple.com")
            #expect(production.status == 200)
            #expect(production.header("apns-unique-id") == nil)
            let productionError = try await mock.sendOnNewConnection(try mock.apnsRequest(payload: ""), authority: "api.push.apple.com")
            #expect(productionError.header("apns-unique-id") == nil)
            #expect(
                mock.recordings.records(newestFirst: false).map(\.environment) == [
                    "sandbox", "sandbox", "sandbox", "production", "production",
                ])
        }
    }

    @Test("the default environment can be production")
    func productionDefault() async throws {
        try await withPushMock(configure: { $0.apns.defaultEnvironment = .production }) { mock in
            let response = try await mock.sendOnNewConnection(try mock.apnsRequest())
            #expect(response.header("apns-unique-id") == nil)
            #expect(mock.recordings.records(limit: 1).first?.environment == "production")
        }
    }

    @Test(
        "each request on a connection is recorded with its own apns-topic (the connection's last topic is shared, never reused for another)"
    )
    func topicsOnOneConnection() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let other = mock.topic + ".other"
            var statuses: [Int] = []
            for topic in [mock.topic, mock.topic, other, mock.topic, other] {
                statuses.append(try await connection.send(try mock.apnsRequest(topic: topic)).status)
            }
            await connection.close()
            #expect(statuses.first == 200)
            let topics = mock.recordings.records(newestFirst: false).map { $0.notification?.topic }
            #expect(topics == [mock.topic, mock.topic, other, mock.topic, other])
        }
    }

    @Test("a production TLS listener serves production unless the authority says otherwise")
    func productionListener() async throws {
        try await withPushMock(configure: { $0.productionTLSPort = 0 }) { mock in
            let port = try #require(mock.info.productionTLS?.port)
            let connection = try await HTTP2ClientConnection.connect(
                to: .init(
                    host: "127.0.0.1", port: port, tls: try mock.clientTLSConfiguration(), serverHostname: "localhost",
                    connectTimeout: mock.clientConnectTimeout)
            )
            let response = try await connection.send(try mock.apnsRequest())
            #expect(response.status == 200)
            #expect(response.header("apns-unique-id") == nil)
            var sandboxRequest = try mock.apnsRequest()
            sandboxRequest.authority = "api.sandbox.push.apple.com"
            let sandbox = try await connection.send(sandboxRequest)
            #expect(sandbox.header("apns-unique-id") != nil)
            await connection.close()
        }
    }

    @Test("requests without a push type get one inferred from the topic, and the record says so")
    func inferredPushType() async throws {
        try await withPushMock { mock in
            let response = try await mock.sendOnNewConnection(try mock.apnsRequest(topic: mock.topic + ".voip", pushType: nil))
            expectAccepted(response)
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.notification?.pushType == "voip")
            #expect(record.annotations["pushTypeInferred"] == "true")
        }
    }

    @Test("optional: priority 10 on a background push is rejected only when asked")
    func backgroundPriority() async throws {
        try await withPushMock { mock in
            let accepted = try await mock.sendOnNewConnection(
                try mock.apnsRequest(
                    pushType: "background", payload: #"{"aps":{"content-available":1}}"#, headers: [("apns-priority", "10")])
            )
            expectAccepted(accepted)
        }
        try await withPushMock(configure: { $0.apns.rejectHighPriorityBackground = true }) { mock in
            let rejected = try await mock.sendOnNewConnection(
                try mock.apnsRequest(
                    pushType: "background", payload: #"{"aps":{"content-available":1}}"#, headers: [("apns-priority", "10")])
            )
            expectAPNsError(rejected, status: 400, reason: "BadPriority")
        }
    }
}
