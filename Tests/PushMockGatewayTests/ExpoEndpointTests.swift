import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockSimulation
import PushMockTestSupport
import PushMockTesting
import PushMockTransport
import Testing

private let tokenA = "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]"
private let tokenB = "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]"
private let tokenC = "ExponentPushToken[cccccccccccccccccccccc]"
private let project = "@acme/reminders"

/// One answer of the Expo API as curl saw it over HTTP/1.1.
struct ExpoCurlAnswer {
    var status: Int
    var json: JSONValue?
    var headers: [String: String]
    var text: String
}

/// curl over HTTP/1.1 on the cleartext listener, as the SDKs talk to Expo.
enum ExpoCurl {
    static func post(
        _ mock: PushMockHarness,
        _ path: String = "/--/api/v2/push/send",
        body: [UInt8],
        headers: [String] = ["content-type: application/json"],
        compressed: Bool = false
    ) async throws -> ExpoCurlAnswer {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bodyPath = directory + "/body"
        let headerPath = directory + "/headers"
        try Data(body).write(to: URL(fileURLWithPath: bodyPath))
        var arguments = [
            "-s", "--http1.1", "-X", "POST", "-D", headerPath, "-o", "-", "-w", "\n%{http_code}", "--data-binary", "@" + bodyPath,
        ]
        for header in headers { arguments += ["-H", header] }
        if compressed { arguments.append("--compressed") }
        arguments.append("http://127.0.0.1:\(mock.cleartextPort)\(path)")
        let result = try await run("/usr/bin/curl", arguments)
        let parts = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(parts.last ?? "") ?? 0
        let text = parts.dropLast().joined(separator: "\n")
        var headerMap: [String: String] = [:]
        let headerText = (try? String(contentsOfFile: headerPath, encoding: .utf8)) ?? ""
        for line in headerText.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headerMap[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return ExpoCurlAnswer(status: status, json: try? JSONValue(parsing: Array(text.utf8)), headers: headerMap, text: text)
    }

    static func post(
        _ mock: PushMockHarness, _ path: String = "/--/api/v2/push/send", json: String,
        headers: [String] = ["content-type: application/json"]
    ) async throws -> ExpoCurlAnswer {
        try await post(mock, path, body: Array(json.utf8), headers: headers)
    }
}

/// A ticket error case: setup, message, expected `details.error` and message prefix.
struct ExpoTicketErrorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var code: String
    var messagePrefix: String
    var to: String = tokenA
    var extra: String = ""
    var configure: @Sendable (inout GatewayConfiguration) -> Void = { _ in }
    var prepare: @Sendable (PushMockHarness) -> Void = { _ in }

    var testDescription: String { "\(name) → \(code)" }
}

let expoTicketErrorCases: [ExpoTicketErrorCase] = [
    ExpoTicketErrorCase(
        name: "uninstalled token",
        code: "DeviceNotRegistered",
        messagePrefix: "\"\(tokenA)\" is not a registered push notification recipient",
        prepare: {
            $0.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(tokenA), project: ExpoProjectName(project),
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 0))))
        }
    ),
    ExpoTicketErrorCase(
        name: "unknown token when tokens must be registered",
        code: "DeviceNotRegistered",
        messagePrefix: "\"\(tokenC)\" is not a registered push notification recipient",
        to: tokenC,
        configure: { $0.expo.rejectUnknownTokens = true }
    ),
    ExpoTicketErrorCase(
        name: "malformed token",
        code: "DeviceNotRegistered",
        messagePrefix: "\"ExponentPushToken[not.valid]\" is not a valid Expo push token",
        to: "ExponentPushToken[not.valid]"
    ),
    ExpoTicketErrorCase(
        name: "payload over 4096 bytes",
        code: "MessageTooBig",
        messagePrefix: "Message too big: the notification payload is ",
        extra: #","data":{"blob":"\#(String(repeating: "x", count: 4100))"}"#
    ),
    ExpoTicketErrorCase(
        name: "relay rate (ticket stage)",
        code: "MessageRateExceeded",
        messagePrefix: "\"\(tokenA)\" is receiving messages too frequently.",
        prepare: {
            $0.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(tokenA), project: ExpoProjectName(project),
                    relayFailure: .init(error: "MessageRateExceeded", stage: .ticket)))
        }
    ),
    ExpoTicketErrorCase(
        name: "FCM sender mismatch (ticket stage)",
        code: "MismatchSenderId",
        messagePrefix: "The FCM sender ID of \"\(tokenA)\"",
        prepare: {
            $0.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(tokenA), project: ExpoProjectName(project), platform: .android,
                    relayFailure: .init(error: "MismatchSenderId", stage: .ticket)))
        }
    ),
    ExpoTicketErrorCase(
        name: "missing APNs credentials (ticket stage)",
        code: "InvalidCredentials",
        messagePrefix: "Could not find APNs credentials for com.acme.reminders (@acme/reminders).",
        prepare: {
            $0.state.expoTokens.register(project: ExpoProjectRecord(name: ExpoProjectName(project), bundleIdentifier: "com.acme.reminders"))
            $0.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(tokenA), project: ExpoProjectName(project),
                    relayFailure: .init(error: "InvalidCredentials", stage: .ticket)))
        }
    ),
]

/// A request error case.
struct ExpoRequestErrorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var status: Int
    var code: String
    var message: String?
    var path: String = "/--/api/v2/push/send"
    var body: String
    var headers: [String] = ["content-type: application/json"]
    var configure: @Sendable (inout GatewayConfiguration) -> Void = { _ in }
    var prepare: @Sendable (PushMockHarness) throws -> Void = { _ in }
    /// Requests sent first (their answers are not checked).
    var before: [String] = []

    var testDescription: String { "\(name) → \(status) \(code)" }
}

private func manyMessages(_ count: Int) -> String {
    "[" + (0..<count).map { _ in #"{"to":"\#(tokenA)","body":"x"}"# }.joined(separator: ",") + "]"
}

let expoRequestErrorCases: [ExpoRequestErrorCase] = [
    ExpoRequestErrorCase(
        name: "not JSON", status: 400, code: "VALIDATION_ERROR", message: "The request body must be valid JSON.", body: "{nope"),
    ExpoRequestErrorCase(
        name: "data not an object", status: 400, code: "VALIDATION_ERROR", message: "[0].data must be of type object.",
        body: #"[{"to":"\#(tokenA)","data":"x"}]"#),
    ExpoRequestErrorCase(
        name: "bad priority", status: 400, code: "VALIDATION_ERROR", message: "priority must be one of [default, normal, high].",
        body: #"{"to":"\#(tokenA)","priority":"urgent"}"#),
    ExpoRequestErrorCase(name: "missing to", status: 400, code: "VALIDATION_ERROR", message: "to is required.", body: #"{"title":"x"}"#),
    ExpoRequestErrorCase(
        name: "101 notifications",
        status: 400,
        code: "PUSH_TOO_MANY_NOTIFICATIONS",
        message: "You can send a maximum of 100 notifications per request (received 101); divide your requests.",
        body: manyMessages(101)
    ),
    ExpoRequestErrorCase(
        name: "tokens of two projects",
        status: 400,
        code: "PUSH_TOO_MANY_EXPERIENCE_IDS",
        message: "All push notification messages in the same request must be for the same project.",
        body: #"{"to":["\#(tokenA)","\#(tokenB)"],"body":"x"}"#,
        prepare: {
            $0.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(tokenA), project: ExpoProjectName(project)))
            $0.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(tokenB), project: "@acme/other"))
        }
    ),
    ExpoRequestErrorCase(
        name: "over the project's rate",
        status: 429,
        code: "TOO_MANY_REQUESTS",
        message: nil,
        body: manyMessages(3),
        configure: { $0.expo.notificationsPerSecondPerProject = 5 },
        prepare: { mock in mock.state.virtualClock?.freeze() },
        before: [manyMessages(3)]
    ),
    ExpoRequestErrorCase(
        name: "enhanced push security without a token",
        status: 401,
        code: "UNAUTHORIZED",
        message: nil,
        body: #"{"to":"\#(tokenA)","body":"x"}"#,
        prepare: {
            $0.state.expoTokens.register(
                project: ExpoProjectRecord(name: ExpoProjectName(project), accessTokens: ["secret-token"], requiresAccessToken: true))
            $0.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(tokenA), project: ExpoProjectName(project)))
        }
    ),
    ExpoRequestErrorCase(
        name: "enhanced push security with a wrong token",
        status: 401,
        code: "UNAUTHORIZED",
        message: nil,
        body: #"{"to":"\#(tokenA)","body":"x"}"#,
        headers: ["content-type: application/json", "authorization: Bearer wrong"],
        prepare: {
            $0.state.expoTokens.register(
                project: ExpoProjectRecord(name: ExpoProjectName(project), accessTokens: ["secret-token"], requiresAccessToken: true))
            $0.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(tokenA), project: ExpoProjectName(project)))
        }
    ),
    ExpoRequestErrorCase(
        name: "1001 receipt ids",
        status: 400,
        code: "PUSH_TOO_MANY_RECEIPTS",
        message: "You can request a maximum of 1000 push receipts per request (received 1001); divide your requests.",
        path: "/--/api/v2/push/getReceipts",
        body: #"{"ids":[\#((0..<1001).map { "\"id\($0)\"" }.joined(separator: ","))]}"#
    ),
    ExpoRequestErrorCase(
        name: "receipts without ids", status: 400, code: "VALIDATION_ERROR", message: "ids is required.",
        path: "/--/api/v2/push/getReceipts", body: "{}"),
    ExpoRequestErrorCase(
        name: "corrupt gzip body",
        status: 400,
        code: "VALIDATION_ERROR",
        message: "The request body could not be decoded as gzip content.",
        body: "not gzip",
        headers: ["content-type: application/json", "content-encoding: gzip"]
    ),
    ExpoRequestErrorCase(
        name: "injected INTERNAL_SERVER_ERROR",
        status: 500,
        code: "INTERNAL_SERVER_ERROR",
        message: "An unexpected error occurred on the Expo push notification service. Please try again.",
        body: #"{"to":"\#(tokenA)","body":"x"}"#,
        prepare: {
            _ = try $0.addFault(
                try FaultRule.decode(#"{"match":{"platform":"expo"},"action":{"type":"expo-error","code":"INTERNAL_SERVER_ERROR"}}"#))
        }
    ),
]

extension FaultRule {
    static func decode(_ json: String) throws -> FaultRule {
        try JSONDecoder().decode(FaultRule.self, from: Data(json.utf8))
    }
}

@Suite("Expo push API (curl over HTTP/1.1, our HTTP/2 client)")
struct ExpoEndpointTests {
    @Test("array body, single object, to list: one ok ticket per recipient, devices and records")
    func success() async throws {
        try await withPushMock { mock in
            mock.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(tokenA), project: ExpoProjectName(project), platform: .ios))
            mock.state.expoTokens.register(
                ExpoTokenRecord(token: ExpoTokenID(tokenB), project: ExpoProjectName(project), platform: .android))
            let array = try await ExpoCurl.post(
                mock, json: #"[{"to":"\#(tokenA)","title":"Hi","priority":"high"},{"to":"\#(tokenB)","body":"There","ttl":60}]"#)
            #expect(array.status == 200)
            #expect(array.headers["content-type"] == "application/json; charset=utf-8")
            let tickets = try #require(array.json?["data"]?.arrayValue)
            #expect(tickets.count == 2)
            for ticket in tickets {
                #expect(ticket["status"]?.stringValue == "ok")
                let id = ticket["id"]?.stringValue ?? ""
                #expect(UUID(uuidString: id) != nil && id == id.lowercased(), "\(id)")
            }

            let single = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenA)","title":"One"}"#)
            #expect(single.json?["data"]?["status"]?.stringValue == "ok")
            let list = try await ExpoCurl.post(mock, json: #"{"to":["\#(tokenA)","\#(tokenB)"],"title":"Both"}"#)
            #expect(list.json?["data"]?.arrayValue?.count == 2)

            let now = mock.state.clock.now()
            let iosDevice = try #require(mock.state.simulatedDevices.device(DeviceAddress(service: .expo, token: tokenA), now: now))
            #expect(iosDevice.policy == .apns)
            #expect(iosDevice.displayed.count == 3)
            let androidDevice = try #require(mock.state.simulatedDevices.device(DeviceAddress(service: .expo, token: tokenB), now: now))
            #expect(androidDevice.policy == .fcm)
            #expect(mock.state.expoTokens.lookup(ExpoTokenID(tokenA))?.acceptedSends == 3)

            let records = mock.recordings.records { $0.platform == .expo }
            #expect(records.count == 3)
            #expect(records.allSatisfy { $0.response.status == 200 })
            let first = try #require(records.last)
            #expect(first.annotations["tickets"] == "ok 2")
            #expect(first.notification?.resolvedTokens == [tokenA, tokenB])
        }
    }

    @Test("ticket errors", arguments: expoTicketErrorCases)
    func ticketError(_ testCase: ExpoTicketErrorCase) async throws {
        try await withPushMock(configure: testCase.configure) { mock in
            testCase.prepare(mock)
            let answer = try await ExpoCurl.post(mock, json: #"[{"to":"\#(testCase.to)","title":"Hi"\#(testCase.extra)}]"#)
            #expect(answer.status == 200, "\(answer.text)")
            let ticket = try #require(answer.json?["data"]?[0], "\(answer.text)")
            #expect(ticket["status"]?.stringValue == "error")
            #expect(ticket["id"] == nil)
            #expect(ticket["details"]?["error"]?.stringValue == testCase.code, "\(answer.text)")
            #expect(ticket["message"]?.stringValue?.hasPrefix(testCase.messagePrefix) == true, "\(answer.text)")
            // Nothing reaches a device for an error ticket.
            #expect(
                mock.state.simulatedDevices.device(DeviceAddress(service: .expo, token: testCase.to), now: mock.state.clock.now()) == nil)
        }
    }

    @Test("request errors", arguments: expoRequestErrorCases)
    func requestError(_ testCase: ExpoRequestErrorCase) async throws {
        try await withPushMock(configure: testCase.configure) { mock in
            try testCase.prepare(mock)
            for body in testCase.before {
                _ = try await ExpoCurl.post(mock, testCase.path, json: body)
            }
            let answer = try await ExpoCurl.post(mock, testCase.path, json: testCase.body, headers: testCase.headers)
            #expect(answer.status == testCase.status, "\(answer.text)")
            let error = try #require(answer.json?["errors"]?[0], "\(answer.text)")
            #expect(error["code"]?.stringValue == testCase.code)
            if let message = testCase.message {
                #expect(error["message"]?.stringValue == message)
            }
            #expect(error["isTransient"]?.boolValue != nil)
            #expect(answer.json?["data"] == nil)
            let record = try #require(mock.recordings.records { $0.platform == .expo }.first)
            #expect(record.response.reason == testCase.code)
        }
    }

    @Test("enhanced push security: the right access token is accepted")
    func accessTokenAccepted() async throws {
        try await withPushMock { mock in
            mock.state.expoTokens.register(
                project: ExpoProjectRecord(name: ExpoProjectName(project), accessTokens: ["secret-token"], requiresAccessToken: true))
            mock.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(tokenA), project: ExpoProjectName(project)))
            let answer = try await ExpoCurl.post(
                mock,
                json: #"{"to":"\#(tokenA)","body":"x"}"#,
                headers: ["content-type: application/json", "authorization: Bearer secret-token"]
            )
            #expect(answer.status == 200)
            #expect(answer.json?["data"]?["status"]?.stringValue == "ok")
            let record = try #require(mock.recordings.records { $0.platform == .expo }.first)
            #expect(record.request.headers.first(named: "authorization")?.contains("secret-token") == false)
        }
    }

    @Test("gzip and deflate request bodies; gzip answers when asked")
    func compression() async throws {
        try await withPushMock { mock in
            let json = Array(#"[{"to":"\#(tokenA)","title":"zipped"},{"to":"\#(tokenB)","title":"zipped"}]"#.utf8)
            let gzipped = try await ExpoCurl.post(
                mock,
                body: HTTPContentCoding.gzipCompress(json),
                headers: ["content-type: application/json", "content-encoding: gzip"],
                compressed: true
            )
            #expect(gzipped.status == 200)
            #expect(gzipped.headers["content-encoding"] == "gzip")
            #expect(gzipped.json?["data"]?.arrayValue?.count == 2)

            // Compressed with the system's gzip too, so our codec is not checked against itself.
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try Data(json).write(to: URL(fileURLWithPath: directory + "/body.json"))
            let zipped = try await run("/bin/gzip", ["-k", directory + "/body.json"])
            #expect(zipped.status == 0)
            let systemGzip = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/body.json.gz")))
            let plain = try await ExpoCurl.post(
                mock, body: systemGzip, headers: ["content-type: application/json", "content-encoding: gzip"])
            #expect(plain.status == 200)
            #expect(plain.headers["content-encoding"] == nil)
            #expect(plain.json?["data"]?.arrayValue?.count == 2)

            let deflated = try await ExpoCurl.post(
                mock,
                body: try await zlibCompress(json),
                headers: ["content-type: application/json", "content-encoding: deflate"]
            )
            #expect(deflated.status == 200, "\(deflated.text)")

            let records = mock.recordings.records { $0.platform == .expo }
            #expect(records.count == 3)
            #expect(records.last?.annotations["requestContentEncoding"] == "gzip")
            #expect(records.last?.annotations["responseContentEncoding"] == "gzip")
            // Recorded decoded: the JSON, not the compressed bytes.
            #expect(records.last?.notification?.resolvedTokens == [tokenA, tokenB])
        }
    }

    /// RFC 1952: a gzip body may be several members one after another (`cat a.gz b.gz`), which
    /// `gzip -d`, Python and Node decode whole. Only the first member was read, and whatever
    /// followed it was dropped: half a body was "not valid JSON", and a whole message followed
    /// by garbage was sent.
    @Test("gzip bodies of several members are decoded whole; data after a stream is refused")
    func compressedStreams() async throws {
        try await withPushMock { mock in
            let first = Array(#"[{"to":"\#(tokenA)","title":"two "#.utf8)
            let second = Array(#"members"}]"#.utf8)
            let twoMembers = HTTPContentCoding.gzipCompress(first) + HTTPContentCoding.gzipCompress(second) + [0, 0, 0, 0]
            let joined = try await ExpoCurl.post(
                mock, body: twoMembers, headers: ["content-type: application/json", "content-encoding: gzip"])
            #expect(joined.status == 200, "\(joined.text)")
            #expect(
                mock.recordings.records { $0.platform == .expo }.last?.request.body.textValue
                    == String(decoding: first + second, as: UTF8.self))

            let whole = Array(#"{"to":"\#(tokenA)","title":"one"}"#.utf8)
            for (name, body, coding) in [
                ("gzip + garbage", HTTPContentCoding.gzipCompress(whole) + Array(#" , {"to":"x"} garbage"#.utf8), "gzip"),
                ("gzip + a torn member", HTTPContentCoding.gzipCompress(whole) + HTTPContentCoding.gzipCompress(whole).dropLast(9), "gzip"),
                ("zlib + data", try await zlibCompress(whole) + Array("trailing".utf8), "deflate"),
            ] {
                let answer = try await ExpoCurl.post(
                    mock, body: body, headers: ["content-type: application/json", "content-encoding: \(coding)"])
                #expect(answer.status == 400, "\(name): \(answer.text)")
                #expect(answer.text.contains("The request body could not be decoded as \(coding) content."), "\(name): \(answer.text)")
            }
        }
    }

    @Test("receipts: absent before the delay, then ok / DeviceNotRegistered after an uninstall / relay failures; gone after 24 h")
    func receipts() async throws {
        try await withPushMock { mock in
            let clock = try #require(mock.state.virtualClock)
            clock.freeze()
            mock.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(tokenA), project: ExpoProjectName(project)))
            mock.state.expoTokens.register(ExpoTokenRecord(token: ExpoTokenID(tokenB), project: ExpoProjectName(project)))
            mock.state.expoTokens.register(
                project: ExpoProjectRecord(name: ExpoProjectName(project), bundleIdentifier: "com.acme.reminders"))
            mock.state.expoTokens.register(
                ExpoTokenRecord(
                    token: ExpoTokenID(tokenC), project: ExpoProjectName(project), relayFailure: .init(error: "InvalidCredentials")))
            let sent = try await ExpoCurl.post(
                mock, json: #"[{"to":"\#(tokenA)","body":"1"},{"to":"\#(tokenB)","body":"2"},{"to":"\#(tokenC)","body":"3"}]"#)
            let ids = try #require(sent.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue })
            #expect(ids.count == 3)
            let request = #"{"ids":[\#(ids.map { "\"\($0)\"" }.joined(separator: ",")),"unknown-id"]}"#

            let early = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: request)
            #expect(early.status == 200)
            #expect(early.text == #"{"data":{}}"#)

            // QA uninstalls the app behind tokenA after the ticket, before the relay.
            _ = mock.state.expoTokens.update(ExpoTokenID(tokenA), project: ExpoProjectName(project)) {
                $0.state = .unregistered(at: clock.now())
            }
            clock.advance(by: .seconds(3))
            let later = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: request)
            let data = try #require(later.json?["data"])
            #expect(data[ids[0]]?["status"]?.stringValue == "error")
            #expect(data[ids[0]]?["details"]?["error"]?.stringValue == "DeviceNotRegistered")
            #expect(data[ids[0]]?["details"]?["expoPushToken"]?.stringValue == tokenA)
            #expect(data[ids[1]]?["status"]?.stringValue == "ok")
            #expect(data[ids[2]]?["details"]?["error"]?.stringValue == "InvalidCredentials")
            #expect(data[ids[2]]?["message"]?.stringValue?.contains("com.acme.reminders") == true)
            #expect(data["unknown-id"] == nil)

            clock.advance(by: .seconds(24 * 3600))
            let expired = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: request)
            #expect(expired.text == #"{"data":{}}"#)
            #expect(mock.recordings.records { $0.platform == .expo }.count == 4)
        }
    }

    @Test("token lifecycle: expire after N sends, rotate")
    func lifecycle() async throws {
        try await withPushMock { mock in
            mock.state.expoTokens.register(
                ExpoTokenRecord(token: ExpoTokenID(tokenA), project: ExpoProjectName(project), expireAfterSends: 2))
            let body = #"{"to":"\#(tokenA)","body":"x"}"#
            for _ in 0..<2 {
                let answer = try await ExpoCurl.post(mock, json: body)
                #expect(answer.json?["data"]?["status"]?.stringValue == "ok")
            }
            let third = try await ExpoCurl.post(mock, json: body)
            #expect(third.json?["data"]?["details"]?["error"]?.stringValue == "DeviceNotRegistered")

            let rotated = mock.state.expoTokens.rotate(
                ExpoTokenID(tokenB), to: ExpoTokenID(tokenC), project: ExpoProjectName(project), at: mock.state.clock.now())
            #expect(rotated.new.isActive(at: mock.state.clock.now()))
            let old = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenB)","body":"x"}"#)
            #expect(old.json?["data"]?["details"]?["error"]?.stringValue == "DeviceNotRegistered")
            let new = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenC)","body":"x"}"#)
            #expect(new.json?["data"]?["status"]?.stringValue == "ok")
        }
    }

    @Test("injected error tickets (expo-error ticketError): a rule with no condition answers every recipient")
    func injectedTickets() async throws {
        try await withPushMock { mock in
            _ = try mock.addFault(
                try FaultRule.decode(#"{"match":{"platform":"expo"},"action":{"type":"expo-error","ticketError":"MessageRateExceeded"}}"#))
            let answer = try await ExpoCurl.post(mock, json: #"[{"to":"\#(tokenA)","body":"x"},{"to":"\#(tokenB)","body":"y"}]"#)
            #expect(answer.status == 200)
            let tickets = try #require(answer.json?["data"]?.arrayValue)
            #expect(tickets.map { $0["details"]?["error"]?.stringValue } == ["MessageRateExceeded", "MessageRateExceeded"])
            #expect(mock.state.simulatedDevices.device(DeviceAddress(service: .expo, token: tokenA), now: mock.state.clock.now()) == nil)
            let record = try #require(mock.recordings.records { $0.platform == .expo }.first)
            #expect(record.annotations["fault"] == "fault-1: expo-error ticket MessageRateExceeded, 2 recipients")
        }
    }

    /// What each ticket of one send says: its error code, or `ok`.
    private static func ticketOutcomes(_ answer: ExpoCurlAnswer) -> [String] {
        let data = answer.json?["data"]
        let tickets = data?.arrayValue ?? (data.map { [$0] } ?? [])
        return tickets.map { $0["details"]?["error"]?.stringValue ?? $0["status"]?.stringValue ?? "?" }
    }

    private static func displayedCount(_ mock: PushMockHarness, _ token: String) -> Int {
        mock.state.simulatedDevices.device(DeviceAddress(service: .expo, token: token), now: mock.state.clock.now())?.displayed.count ?? 0
    }

    /// Expo fails one push token of a batch, not the batch: an error-ticket rule is matched on
    /// each recipient (its token, its message) and counts recipients; the others are delivered.
    @Test("error-ticket rules answer the recipients they match; the rest of the batch is delivered")
    func ticketRulesPerRecipient() async throws {
        try await withPushMock { mock in
            // A token condition: the second message's first recipient only (`to` is a list there).
            _ = try mock.addFault(
                try FaultRule.decode(
                    #"{"match":{"platform":"expo","token":"*[bbbb*"},"action":{"type":"expo-error","ticketError":"DeviceNotRegistered"}}"#))
            let batch = #"[{"to":"\#(tokenA)","body":"x"},{"to":["\#(tokenB)","\#(tokenC)"],"body":"y"}]"#
            let answer = try await ExpoCurl.post(mock, json: batch)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(Self.ticketOutcomes(answer) == ["ok", "DeviceNotRegistered", "ok"], "\(answer.text)")
            #expect(answer.json?["data"]?[1]?["details"]?["expoPushToken"]?.stringValue == tokenB)
            #expect([tokenA, tokenB, tokenC].map { Self.displayedCount(mock, $0) } == [1, 0, 1])
            let record = try #require(mock.recordings.records { $0.platform == .expo }.last)
            #expect(record.annotations["fault"] == "fault-1: expo-error ticket DeviceNotRegistered, 1 recipient")
            #expect(mock.state.faults.rules.map(\.fired) == [1])
            mock.state.faults.removeAll()

            // A payload condition reads the recipient's own message.
            _ = try mock.addFault(
                try FaultRule.decode(
                    #"{"match":{"platform":"expo","payload":{"path":"$.data.kind","equals":"promo"}},"action":{"type":"expo-error","ticketError":"MessageRateExceeded"}}"#
                ))
            let mixed = try await ExpoCurl.post(
                mock,
                json: #"[{"to":"\#(tokenA)","data":{"kind":"order"}},{"to":"\#(tokenB)","data":{"kind":"promo"}},{"to":"\#(tokenC)"}]"#)
            #expect(Self.ticketOutcomes(mixed) == ["ok", "MessageRateExceeded", "ok"], "\(mixed.text)")
            // A single message object is its own payload.
            let single = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenA)","data":{"kind":"promo"}}"#)
            #expect(Self.ticketOutcomes(single) == ["MessageRateExceeded"], "\(single.text)")
            mock.state.faults.removeAll()

            // Triggers count recipients: `count` 2 answers the first two, `after` 1 spares the first.
            _ = try mock.addFault(
                try FaultRule.decode(
                    #"{"match":{"platform":"expo"},"trigger":{"after":1,"count":2},"action":{"type":"expo-error","ticketError":"MessageRateExceeded","retryAfter":7}}"#
                ))
            let counted = try await ExpoCurl.post(
                mock, json: #"[{"to":"\#(tokenA)"},{"to":"\#(tokenB)"},{"to":"\#(tokenC)"},{"to":"\#(tokenA)"}]"#)
            #expect(Self.ticketOutcomes(counted) == ["ok", "MessageRateExceeded", "MessageRateExceeded", "ok"], "\(counted.text)")
            #expect(counted.headers["retry-after"] == "7")
            let after = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenB)"}"#)
            #expect(Self.ticketOutcomes(after) == ["ok"])
            #expect(after.headers["retry-after"] == nil)
            // Fired once per recipient in the metrics too.
            let metrics = try await run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(mock.cleartextPort)/metrics"]).output
            #expect(metrics.contains(#"pushmock_faults_fired_total{platform="expo",action="expo-error"} 5"#), "\(metrics)")
        }
    }

    /// A rule decided per request (a reset, a request error) with a token condition holds for a
    /// batch when any of its recipients matches, not just the first.
    @Test("request-level rules match a batch when any recipient's token does")
    func requestRulesMatchAnyRecipient() async throws {
        try await withPushMock { mock in
            _ = try mock.addFault(
                try FaultRule.decode(
                    #"{"match":{"platform":"expo","token":"*[cccc*"},"action":{"type":"expo-error","code":"TOO_MANY_REQUESTS"}}"#))
            let hit = try await ExpoCurl.post(mock, json: #"[{"to":"\#(tokenA)"},{"to":"\#(tokenC)"}]"#)
            #expect(hit.status == 429, "\(hit.text)")
            #expect(hit.json?["errors"]?[0]?["code"]?.stringValue == "TOO_MANY_REQUESTS")
            let miss = try await ExpoCurl.post(mock, json: #"[{"to":"\#(tokenA)"},{"to":"\#(tokenB)"}]"#)
            #expect(miss.status == 200, "\(miss.text)")
        }
    }

    @Test(
        "connection faults on Expo over HTTP/1.1: the connection ends without an answer, then normal answers",
        arguments: ["reset", "close", "goaway"])
    func connectionFault(kind: String) async throws {
        try await withPushMock { mock in
            _ = try mock.addFault(
                try FaultRule.decode(#"{"match":{"platform":"expo"},"trigger":{"count":1},"action":{"type":"\#(kind)"}}"#))
            let broken = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenA)","body":"x"}"#)
            #expect(broken.status == 0, "\(broken.text)")
            let next = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenA)","body":"x"}"#)
            #expect(next.status == 200)
            let records = mock.recordings.records { $0.platform == .expo }
            #expect(records.count == 2)
            #expect(records.last?.annotations["fault"] != nil)
            #expect(records.last?.response.status == 0)
            // Nothing reached the device for the reset request.
            let device = mock.state.simulatedDevices.device(DeviceAddress(service: .expo, token: tokenA), now: mock.state.clock.now())
            #expect(device?.displayed.count == 1)
        }
    }

    @Test(
        "connection faults on Expo over HTTP/2 (TLS): the request fails, nothing is delivered, the next request is answered",
        arguments: ["reset", "close", "goaway"])
    func http2ConnectionFault(kind: String) async throws {
        try await withPushMock { mock in
            _ = try mock.addFault(
                try FaultRule.decode(#"{"match":{"platform":"expo"},"trigger":{"count":1},"action":{"type":"\#(kind)"}}"#))
            var headers = HTTPHeaderList()
            headers.append(name: "content-type", value: "application/json")
            let request = HTTPRequestMessage(
                method: "POST", path: "/--/api/v2/push/send", authority: "exp.host", headers: headers,
                body: Array(#"{"to":"\#(tokenA)","body":"x"}"#.utf8))
            let faulty = try await mock.connect(tls: true)
            await #expect(throws: (any Error).self) { _ = try await faulty.send(request) }
            await faulty.close()
            let healthy = try await mock.connect(tls: true)
            let answer = try await healthy.send(request)
            await healthy.close()
            #expect(answer.status == 200)
            let records = mock.recordings.records { $0.platform == .expo }.sorted { $0.sequence < $1.sequence }
            #expect(records.count == 2)
            #expect(records.first?.annotations["fault"] != nil)
            #expect(records.first?.response.status == 0)
            let device = mock.state.simulatedDevices.device(DeviceAddress(service: .expo, token: tokenA), now: mock.state.clock.now())
            #expect(device?.displayed.count == 1)
        }
    }

    /// Expo-based teams run the same QA stories as APNs and FCM ones: the presets cover Expo.
    @Test("presets on Expo: outage fails sends and receipts, device-token-expiry and throttling answer error tickets")
    func presets() async throws {
        try await withPushMock { mock in
            let clock = try #require(mock.state.virtualClock)
            clock.freeze()
            let control = try mock.controlClient()
            let sent = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenA)","body":"x"}"#)
            let receiptID = try #require(sent.json?["data"]?["id"]?.stringValue)
            clock.advance(by: .seconds(3))

            // Outage: a request error on sends and on receipts, for the window.
            _ = try await control.call("POST", "faults/presets/outage", json: Array(#"{"forSeconds":60}"#.utf8))
            for (path, body) in [
                ("/--/api/v2/push/send", #"{"to":"\#(tokenA)","body":"x"}"#),
                ("/--/api/v2/push/getReceipts", #"{"ids":["\#(receiptID)"]}"#),
            ] {
                let down = try await ExpoCurl.post(mock, path, json: body)
                #expect(down.status == 500, "\(path): \(down.text)")
                #expect(down.json?["errors"]?[0]?["code"]?.stringValue == "INTERNAL_SERVER_ERROR", "\(down.text)")
            }
            clock.advance(by: .seconds(61))
            #expect(try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenA)","body":"x"}"#).status == 200)
            _ = try await control.call("DELETE", "faults")

            // Device-token expiry for the matching tokens only, in a batch too.
            _ = try await control.call("POST", "faults/presets/device-token-expiry", json: Array(#"{"token":"*[aaaa*"}"#.utf8))
            let gone = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenA)","body":"x"}"#)
            #expect(gone.json?["data"]?["details"]?["error"]?.stringValue == "DeviceNotRegistered", "\(gone.text)")
            let other = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenB)","body":"x"}"#)
            #expect(other.json?["data"]?["status"]?.stringValue == "ok", "\(other.text)")
            let batch = try await ExpoCurl.post(mock, json: #"{"to":["\#(tokenB)","\#(tokenA)","\#(tokenC)"],"body":"x"}"#)
            #expect(Self.ticketOutcomes(batch) == ["ok", "DeviceNotRegistered", "ok"], "\(batch.text)")
            let receipts = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: #"{"ids":["\#(receiptID)"]}"#)
            #expect(receipts.json?["data"]?[receiptID]?["status"]?.stringValue == "ok", "receipts are left alone: \(receipts.text)")
            _ = try await control.call("DELETE", "faults")

            // Throttling: beyond 2 per second per token, MessageRateExceeded tickets.
            _ = try await control.call("POST", "faults/presets/throttling", json: Array(#"{"limit":2,"perSeconds":1}"#.utf8))
            var statuses: [String] = []
            for _ in 0..<3 {
                let answer = try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenC)","body":"x"}"#)
                statuses.append(
                    answer.json?["data"]?["details"]?["error"]?.stringValue ?? answer.json?["data"]?["status"]?.stringValue ?? answer.text)
            }
            #expect(statuses == ["ok", "ok", "MessageRateExceeded"])
            // The rate is per token, counted per recipient: in one batch, tokenC is over its
            // limit and tokenB's first two pass.
            let burst = try await ExpoCurl.post(mock, json: #"{"to":["\#(tokenB)","\#(tokenC)","\#(tokenB)","\#(tokenB)"],"body":"x"}"#)
            #expect(Self.ticketOutcomes(burst) == ["ok", "MessageRateExceeded", "ok", "MessageRateExceeded"], "\(burst.text)")
            _ = try await control.call("DELETE", "faults")

            // A stable share of tokens: exactly the recipients the hash picks, batch or not.
            let tokens = (0..<40).map { "ExponentPushToken[share\(String(format: "%017d", $0))]" }
            let picked = tokens.map { FaultMatch.tokenIsSampled($0, fraction: 0.25) ? "DeviceNotRegistered" : "ok" }
            #expect(picked.contains("ok") && picked.contains("DeviceNotRegistered"))
            _ = try await control.call("POST", "faults/presets/device-token-expiry", json: Array(#"{"fraction":0.25}"#.utf8))
            let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
            let shared = try await ExpoCurl.post(mock, json: #"{"to":[\#(list)],"body":"x"}"#)
            #expect(Self.ticketOutcomes(shared) == picked, "\(shared.text)")
            _ = try await control.call("DELETE", "faults")

            // `platform` narrows a preset to one service: an APNs outage leaves Expo up.
            _ = try await control.call("POST", "faults/presets/outage", json: Array(#"{"platform":"apns"}"#.utf8))
            #expect(try await ExpoCurl.post(mock, json: #"{"to":"\#(tokenB)","body":"x"}"#).status == 200)
            await control.close()
        }
    }

    @Test("injected receipt errors (expo-error ticketError on getReceipts): per receipt, for that read only")
    func injectedReceipts() async throws {
        try await withPushMock { mock in
            let clock = try #require(mock.state.virtualClock)
            clock.freeze()
            let sent = try await ExpoCurl.post(
                mock, json: #"[{"to":"\#(tokenA)","body":"x"},{"to":"\#(tokenB)","body":"y"},{"to":"\#(tokenC)","body":"z"}]"#)
            let ids = try #require(sent.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue })
            try #require(ids.count == 3)
            clock.advance(by: .seconds(3))
            let request = #"{"ids":["\#(ids[0])","\#(ids[1])","\#(ids[2])"]}"#
            func outcomes(_ answer: ExpoCurlAnswer) -> [String] {
                ids.map {
                    answer.json?["data"]?[$0]?["details"]?["error"]?.stringValue ?? answer.json?["data"]?[$0]?["status"]?.stringValue ?? "-"
                }
            }

            // Every ready receipt, once: a rule with no token condition, counting receipts.
            _ = try mock.addFault(
                try FaultRule.decode(
                    #"{"match":{"platform":"expo","path":"/--/api/v2/push/getReceipts"},"trigger":{"count":2},"action":{"type":"expo-error","ticketError":"InvalidCredentials"}}"#
                ))
            let faulty = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: request)
            #expect(outcomes(faulty) == ["InvalidCredentials", "InvalidCredentials", "ok"], "\(faulty.text)")
            // The fault fired twice; the real receipts are still ok.
            let normal = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: request)
            #expect(outcomes(normal) == ["ok", "ok", "ok"], "\(normal.text)")
            mock.state.faults.removeAll()

            // A token condition picks the receipt of that token.
            _ = try mock.addFault(
                try FaultRule.decode(
                    #"{"match":{"platform":"expo","path":"/--/api/v2/push/getReceipts","token":"*[cccc*"},"action":{"type":"expo-error","ticketError":"MessageRateExceeded"}}"#
                ))
            let picked = try await ExpoCurl.post(mock, "/--/api/v2/push/getReceipts", json: request)
            #expect(outcomes(picked) == ["ok", "ok", "MessageRateExceeded"], "\(picked.text)")
            let record = try #require(
                mock.recordings.records { $0.request.path == "/--/api/v2/push/getReceipts" }.max { $0.sequence < $1.sequence })
            #expect(record.annotations["fault"] == "fault-2: expo-error ticket MessageRateExceeded, 1 recipient")
        }
    }

    @Test("lint: what Expo would relay to APNs, reported against the Expo fields")
    func lint() async throws {
        try await withPushMock { mock in
            mock.state.expoTokens.register(
                ExpoTokenRecord(token: ExpoTokenID(tokenB), project: ExpoProjectName(project), platform: .android))
            let body = #"""
                [{"to":"\#(tokenA)","_contentAvailable":true,"data":{"sync":true}},
                 {"to":"\#(tokenA)","_contentAvailable":true,"priority":"normal","data":{"sync":true}},
                 {"to":"\#(tokenA)","mutableContent":true,"data":{"x":1},"collapseId":"c"},
                 {"to":"\#(tokenB)","_contentAvailable":true}]
                """#
            let answer = try await ExpoCurl.post(mock, json: body)
            #expect(answer.status == 200)
            let record = try #require(mock.recordings.records { $0.platform == .expo }.first)
            let notes = record.notification?.lint ?? []
            // [1] asks for normal priority, [3] goes to an Android token: neither is linted as APNs.
            #expect(
                notes.map(\.code).sorted() == [
                    "apns.background-high-priority", "apns.background-high-priority", "apns.collapse-id-on-background",
                    "apns.mutable-content-without-alert",
                ], "\(notes)")
            #expect(notes.filter { $0.code == "apns.background-high-priority" }.map(\.field) == ["[0].priority", "[2].priority"])
            #expect(notes.first { $0.code == "apns.mutable-content-without-alert" }?.field == "[2].mutableContent")
            #expect(notes.first { $0.code == "apns.collapse-id-on-background" }?.field == "[2].collapseId")
            #expect(notes.allSatisfy { $0.message.hasPrefix("As relayed to APNs: ") })
        }
    }

    @Test("lint: what Expo would relay to FCM for an Android token, reported against the Expo fields")
    func lintAndroid() async throws {
        try await withPushMock { mock in
            mock.state.expoTokens.register(
                ExpoTokenRecord(token: ExpoTokenID(tokenB), project: ExpoProjectName(project), platform: .android))
            let body = #"""
                [{"to":"\#(tokenB)","priority":"high","data":{"sync":true}},
                 {"to":"\#(tokenB)","ttl":0,"title":"Now or never"},
                 {"to":"\#(tokenB)","priority":"high","title":"Dose due","ttl":0},
                 {"to":"\#(tokenB)","expiration":1,"body":"expired"},
                 {"to":"\#(tokenA)","priority":"high","data":{"sync":true}}]
                """#
            let answer = try await ExpoCurl.post(mock, json: body)
            #expect(answer.status == 200)
            let record = try #require(mock.recordings.records { $0.platform == .expo }.first)
            let notes = record.notification?.lint ?? []
            // [0] high priority with nothing to show; [1] TTL 0 at Android's default (normal)
            // priority; [2] is high priority and visible: fine; [3] already expired → TTL 0;
            // [4] goes to an iOS token (background at high priority there, an APNs rule).
            let android = notes.filter { $0.code.hasPrefix("fcm.") }
            #expect(
                android.map { "\($0.field) \($0.code)" } == [
                    "[0].priority fcm.android-high-priority-without-notification",
                    "[1].ttl fcm.android-zero-ttl-normal-priority",
                    "[3].expiration fcm.android-zero-ttl-normal-priority",
                ], "\(notes)")
            #expect(android.allSatisfy { $0.message.hasPrefix("As relayed to FCM: ") })
            #expect(notes.filter { $0.code.hasPrefix("apns.") }.map(\.field) == ["[4].priority"])
        }
    }

    @Test("golden files: tokens and receipt ids become placeholders, so two runs normalise alike")
    func golden() async throws {
        /// One run: a batch with an uninstalled token, then its receipts once they are ready.
        func run() async throws -> [JSONValue] {
            try await withPushMock { mock in
                let clock = try #require(mock.state.virtualClock)
                clock.freeze()
                mock.state.expoTokens.register(
                    ExpoTokenRecord(
                        token: ExpoTokenID(tokenC), project: ExpoProjectName(project),
                        state: .unregistered(at: Timestamp(millisecondsSince1970: 0))))
                let sent = try await ExpoCurl.post(
                    mock,
                    json:
                        #"[{"to":["\#(tokenA)","\#(tokenB)"],"title":"Dose due","data":{"for":"\#(tokenB)"}},{"to":"\#(tokenC)","body":"x"}]"#
                )
                #expect(sent.status == 200)
                let ids = try #require(sent.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue })
                clock.advance(by: .seconds(3))
                let receipts = try await ExpoCurl.post(
                    mock, "/--/api/v2/push/getReceipts", json: #"{"ids":["\#(ids[1])","\#(ids[0])"]}"#)
                #expect(receipts.status == 200)
                var configuration = GoldenConfiguration()
                configuration.includesResponseBody = true
                return GoldenNormalizer(configuration: configuration).entries(
                    for: mock.recordings.records { _ in true }.sorted { $0.sequence < $1.sequence })
            }
        }
        let first = try await run()
        let second = try await run()
        #expect(first == second)
        try #require(first.count == 2)
        let send = first[0]
        #expect(send["platform"]?.stringValue == "expo")
        #expect(send["payload"]?[0]?["to"] == .array([.string("<token-1>"), .string("<token-2>")]))
        #expect(send["payload"]?[0]?["data"]?["for"]?.stringValue == "<token-2>")
        #expect(send["payload"]?[1]?["to"]?.stringValue == "<token-3>")
        #expect(
            send["response"]?["tickets"]
                == .array([.string("ok <receipt-1>"), .string("ok <receipt-2>"), .string("DeviceNotRegistered")]),
            "\(send.compactString)")
        #expect(send["response"]?["body"]?["data"]?[2]?["details"]?["expoPushToken"]?.stringValue == "<token-3>")
        let receipts = first[1]
        #expect(receipts["payload"]?["ids"] == .array([.string("<receipt-2>"), .string("<receipt-1>")]))
        #expect(
            receipts["response"]?["receipts"] == .object(["<receipt-1>": .string("ok"), "<receipt-2>": .string("ok")]),
            "\(receipts.compactString)")
        #expect(receipts["response"]?["body"]?["data"]?.objectValue?.members.map(\.key) == ["<receipt-1>", "<receipt-2>"])
        #expect(!receipts.compactString.contains("ExponentPushToken"))
    }

    @Test("over HTTP/2 (h2c and TLS)", arguments: [false, true])
    func http2(tls: Bool) async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect(tls: tls)
            var headers = HTTPHeaderList()
            headers.append(name: "content-type", value: "application/json")
            headers.append(name: "accept-encoding", value: "gzip, deflate")
            let response = try await connection.send(
                HTTPRequestMessage(
                    method: "POST",
                    path: "/--/api/v2/push/send",
                    authority: "exp.host",
                    headers: headers,
                    body: Array(#"[{"to":"\#(tokenA)","title":"h2"}]"#.utf8)
                )
            )
            await connection.close()
            #expect(response.status == 200)
            #expect(response.headers.first(named: "content-encoding") == "gzip")
            let body = try HTTPContentCoding.gzip.decode(response.body, limit: 1 << 20)
            let json = try JSONValue(parsing: body)
            #expect(json["data"]?[0]?["status"]?.stringValue == "ok")
        }
    }

    @Test("control API: projects and tokens, uninstall through PATCH")
    func controlAPI() async throws {
        try await withPushMock { mock in
            let created = try await ControlAPITests.curl(
                mock,
                "POST",
                "/_pushmock/expo/tokens",
                body: #"[{"token":"\#(tokenA)","project":"\#(project)","platform":"android"}]"#
            )
            #expect(created.status == 201)
            #expect(mock.state.expoTokens.lookup(ExpoTokenID(tokenA))?.platform == .android)
            let projects = try await ControlAPITests.curl(
                mock,
                "POST",
                "/_pushmock/expo/projects",
                body: #"{"name":"\#(project)","accessTokens":["abcdefghijkl"]}"#
            )
            #expect(projects.status == 201)
            #expect(mock.state.expoTokens.project(named: ExpoProjectName(project))?.requiresAccessToken == true)
            let encoded = tokenA.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? tokenA
            let patched = try await ControlAPITests.curl(
                mock, "PATCH", "/_pushmock/expo/tokens/\(encoded)", body: #"{"state":"uninstalled"}"#)
            #expect(patched.status == 200)
            #expect(patched.json?["state"]?.stringValue == "unregistered")
            let bad = try await ControlAPITests.curl(mock, "POST", "/_pushmock/expo/tokens", body: #"{"token":"nope"}"#)
            #expect(bad.status == 400)
            let listed = try await ControlAPITests.curl(mock, "GET", "/_pushmock/expo/tokens")
            #expect(listed.json?.arrayValue?.count == 1)
        }
    }
}

/// zlib-wrapped deflate (RFC 1950) made by Python's zlib, an independent encoder.
private func zlibCompress(_ bytes: [UInt8]) async throws -> [UInt8] {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let input = directory + "/in"
    let output = directory + "/out"
    try Data(bytes).write(to: URL(fileURLWithPath: input))
    let script = "import zlib,sys; open(sys.argv[2],'wb').write(zlib.compress(open(sys.argv[1],'rb').read()))"
    let result = try await ChildProcess.run("/usr/bin/python3", ["-c", script, input, output])
    guard result.status == 0 else { throw ExpoTestError("python3 zlib failed") }
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
}

struct ExpoTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite("Expo receipt store")
struct ExpoReceiptStoreTests {
    @Test("bounded: the oldest receipts go first; expired ones are swept")
    func bounded() {
        let store = ExpoReceiptStore(capacity: 3)
        let now = Timestamp(millisecondsSince1970: 1_000_000)
        func entry(_ token: String) -> ExpoReceiptStore.Entry {
            ExpoReceiptStore.Entry(token: ExpoTokenID(token), issuedAt: now, availableAt: now, expiresAt: now + .seconds(60))
        }
        let ids = (0..<5).map { ExpoReceiptID("id-\($0)") }
        store.issue(ids.map { ($0, entry("t")) }, now: now)
        #expect(store.count == 3)
        let found = store.receipts(for: ids, now: now) { _ in .ok }.map(\.id.rawValue)
        #expect(found == ["id-2", "id-3", "id-4"])
        #expect(store.receipts(for: ids, now: now + .seconds(61)) { _ in .ok }.isEmpty)
        #expect(store.count == 0)
    }

    @Test(
        "a long run holds at most `capacity` receipts and ids, whatever expires on the way",
        arguments: [1, 7, 2_000])
    func longRunStaysBounded(capacity: Int) {
        let store = ExpoReceiptStore(capacity: capacity)
        var now = Timestamp(millisecondsSince1970: 1_000_000)
        var issued: [ExpoReceiptID] = []
        for round in 0..<(10 * capacity + 3) {
            let id = ExpoReceiptID("id-\(round)")
            // Every fifth receipt expires at once and is dropped when read.
            let lifetime: Duration = round % 5 == 0 ? .zero : .seconds(3600)
            let entry = ExpoReceiptStore.Entry(
                token: ExpoTokenID("t"), issuedAt: now, availableAt: now, expiresAt: now + lifetime)
            store.issue([(id, entry)], now: now)
            issued.append(id)
            if round % 5 == 0 { #expect(store.receipts(for: [id], now: now) { _ in .ok }.isEmpty) }
            #expect(store.count <= capacity)
            #expect(store.trackedIDCount <= capacity)
            now = now + .milliseconds(1)
        }
        // The newest `capacity` are the ones kept (less the expired ones among them).
        let newest = issued.suffix(capacity)
        let kept = store.receipts(for: Array(newest), now: now) { _ in .ok }.map(\.id)
        #expect(kept == newest.filter { Int($0.rawValue.dropFirst(3))! % 5 != 0 })
        #expect(store.receipts(for: Array(issued.dropLast(capacity)), now: now) { _ in .ok }.isEmpty)
    }

    @Test("an entry stays small: the preset error and the decided receipt are boxed, and read back whole")
    func compactEntries() {
        // A full store holds 100,000 entries in 262,144 buckets: every byte here is 256 KiB.
        #expect(MemoryLayout<ExpoReceiptStore.Entry>.stride <= 96, "\(MemoryLayout<ExpoReceiptStore.Entry>.stride)")
        #expect(MemoryLayout<ExpoReceipt?>.stride <= 8)

        let now = Timestamp(millisecondsSince1970: 1_000_000)
        let preset = ExpoDeliveryError(code: .messageTooBig, message: "too big", expoPushToken: "ExponentPushToken[x]", sentAt: 42)
        var entry = ExpoReceiptStore.Entry(
            token: ExpoTokenID("ExponentPushToken[x]"), issuedAt: now, availableAt: now, expiresAt: now + .seconds(60),
            presetError: preset)
        #expect(entry.presetError == preset)
        entry.presetError = nil
        #expect(entry.presetError == nil)
        entry.presetError = preset
        let store = ExpoReceiptStore(capacity: 4)
        store.issue([(ExpoReceiptID("a"), entry)], now: now)
        #expect(store.entry("a")?.presetError == preset)
        let decided = store.receipts(for: [ExpoReceiptID("a")], now: now) { entry in .error(entry.presetError!) }
        #expect(decided.map(\.receipt) == [.error(preset)])
        // Decided once: a second read returns the stored receipt, not a new decision.
        #expect(store.receipts(for: [ExpoReceiptID("a")], now: now) { _ in .ok }.map(\.receipt) == [.error(preset)])
    }
}
