import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockSimulation
import PushMockTesting
import PushMockTransport
import Testing

private let token = PushMockHarness.sampleRegistrationToken
private let deadToken = "deadInstance:APA91b" + String(repeating: "d", count: 120)
private let foreignToken = "foreignInstance:APA91b" + String(repeating: "f", count: 120)
/// 2026-11-21T10:00:00Z.
private let tenOClock = Timestamp(millisecondsSince1970: 1_795_255_200_000)

/// One answer of FCM's topic-subscription API: the calls before it, the call, what comes back.
struct TopicSubscriptionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var before: [(method: String, path: String)] = []
    var method: String
    var path: String
    var body: String = ""
    var accessToken = true
    var status: Int
    var canonical: String? = nil
    var errorCode: String? = nil
    var message: String? = nil
    var json: String? = nil
    var configure: @Sendable (inout GatewayConfiguration) -> Void = { _ in }

    var testDescription: String { "\(name) → \(status)\(errorCode.map { " \($0)" } ?? canonical.map { " \($0)" } ?? "")" }

    static func base(_ registration: String = token, project: String = "pushmock-sample") -> String {
        "/v1/projects/\(project)/registrations/\(registration.replacingOccurrences(of: ":", with: "%3A"))/topicSubscriptions"
    }
}

private let base = TopicSubscriptionCase.base()
private let news =
    #"{"name":"projects/pushmock-sample/registrations/\#(token)/topicSubscriptions/news","topicName":"news","createTime":"2026-11-21T10:00:00.000Z"}"#

let topicSubscriptionCases: [TopicSubscriptionCase] = [
    .init(name: "create", method: "POST", path: base + "?topic_name=news", body: "{}", status: 200, json: news),
    .init(name: "create (topicName, no body)", method: "POST", path: base + "?topicName=news", status: 200, json: news),
    .init(name: "create (without /v1)", method: "POST", path: String(base.dropFirst(3)) + "?topic_name=news", status: 200, json: news),
    .init(
        name: "create (snake_case fields)", method: "POST", path: base + "?topic_name=news", status: 200,
        json:
            #"{"name":"projects/pushmock-sample/registrations/\#(token)/topicSubscriptions/news","topic_name":"news","create_time":"2026-11-21T10:00:00.000Z"}"#,
        configure: { $0.fcm.topicSubscriptionFieldNames = .snakeCase }),
    .init(
        name: "create twice", before: [("POST", base + "?topic_name=news")], method: "POST", path: base + "?topic_name=news",
        status: 409, canonical: "ALREADY_EXISTS", message: "Requested entity already exists"),
    .init(name: "get", before: [("POST", base + "?topic_name=news")], method: "GET", path: base + "/news", status: 200, json: news),
    .init(
        name: "get a missing subscription", method: "GET", path: base + "/news", status: 404, canonical: "NOT_FOUND",
        message: "Requested entity was not found."),
    .init(
        name: "list", before: [("POST", base + "?topic_name=sports"), ("POST", base + "?topic_name=news")], method: "GET", path: base,
        status: 200,
        json:
            #"{"topicSubscriptions":[\#(news),\#(news.replacingOccurrences(of: "news", with: "sports"))]}"#),
    .init(
        name: "list, first page", before: [("POST", base + "?topic_name=sports"), ("POST", base + "?topic_name=news")], method: "GET",
        path: base + "?pageSize=1", status: 200, json: #"{"topicSubscriptions":[\#(news)],"nextPageToken":"bmV3cw=="}"#),
    .init(
        name: "list, second page", before: [("POST", base + "?topic_name=sports"), ("POST", base + "?topic_name=news")], method: "GET",
        path: base + "?page_size=1&page_token=bmV3cw%3D%3D", status: 200,
        json: #"{"topicSubscriptions":[\#(news.replacingOccurrences(of: "news", with: "sports"))]}"#),
    .init(name: "list of an unknown token", method: "GET", path: base, status: 200, json: "{}"),
    .init(
        name: "list with a bad page token", method: "GET", path: base + "?pageToken=%21%21", status: 400, canonical: "INVALID_ARGUMENT",
        message: "Invalid page token."),
    .init(
        name: "list with a negative page size", method: "GET", path: base + "?pageSize=-1", status: 400, canonical: "INVALID_ARGUMENT"),
    .init(name: "patch", before: [("POST", base + "?topic_name=news")], method: "PATCH", path: base + "/news", status: 200, json: news),
    .init(
        name: "patch a missing subscription", method: "PATCH", path: base + "/news", status: 404, canonical: "NOT_FOUND",
        message: "Requested entity was not found."),
    .init(name: "patch with allowMissing", method: "PATCH", path: base + "/news?allowMissing=true", body: "{}", status: 200, json: news),
    .init(name: "delete", before: [("POST", base + "?topic_name=news")], method: "DELETE", path: base + "/news", status: 200, json: "{}"),
    .init(
        name: "delete a missing subscription", method: "DELETE", path: base + "/news", status: 404, canonical: "NOT_FOUND",
        message: "Requested entity was not found."),
    .init(name: "delete with allow_missing", method: "DELETE", path: base + "/news?allow_missing=true", status: 200, json: "{}"),
    .init(
        name: "no topic_name", method: "POST", path: base, status: 400, canonical: "INVALID_ARGUMENT",
        message: "Required. The topic name to subscribe to."),
    .init(
        name: "an invalid topic name", method: "POST", path: base + "?topic_name=a%21b", status: 400, canonical: "INVALID_ARGUMENT",
        message: #"Invalid topic name "a!b": topic names match [a-zA-Z0-9-_.~%]{1,900}."#),
    .init(
        name: "a topic name of 901 characters", method: "POST", path: base + "?topic_name=" + String(repeating: "t", count: 901),
        status: 400, canonical: "INVALID_ARGUMENT"),
    .init(
        name: "not a registration token", method: "POST", path: TopicSubscriptionCase.base("not%20a%20token") + "?topic_name=news",
        status: 400, canonical: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
        message: "The registration token is not a valid FCM registration token"),
    .init(
        name: "an unknown field in the body", method: "POST", path: base + "?topic_name=news", body: #"{"topic":"news"}"#, status: 400,
        canonical: "INVALID_ARGUMENT", message: #"Invalid JSON payload received. Unknown name "topic": Cannot find field."#),
    .init(
        name: "a body that is not JSON", method: "POST", path: base + "?topic_name=news", body: "{", status: 400,
        canonical: "INVALID_ARGUMENT"),
    .init(
        name: "an unregistered token", method: "POST", path: TopicSubscriptionCase.base(deadToken) + "?topic_name=news", status: 404,
        canonical: "NOT_FOUND", errorCode: "UNREGISTERED"),
    .init(
        name: "another project's token", method: "POST", path: TopicSubscriptionCase.base(foreignToken) + "?topic_name=news",
        status: 403, canonical: "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH", message: "SenderId mismatch"),
    .init(
        name: "an unknown token, unknown tokens refused", method: "POST", path: base + "?topic_name=news", status: 404,
        canonical: "NOT_FOUND", errorCode: "UNREGISTERED", configure: { $0.fcm.rejectUnknownTokens = true }),
    .init(
        name: "no Authorization", method: "POST", path: base + "?topic_name=news", accessToken: false, status: 401,
        canonical: "UNAUTHENTICATED"),
    .init(
        name: "another project in the path", method: "POST",
        path: TopicSubscriptionCase.base(project: "someone-else") + "?topic_name=news", status: 403, canonical: "PERMISSION_DENIED",
        message:
            "Permission 'cloudmessaging.topicSubscriptions.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/someone-else' (or it may not exist)."
    ),
    .init(
        name: "a method the path does not take", method: "PUT", path: base + "/news", status: 404, canonical: "NOT_FOUND"),
    .init(
        name: "a path below a subscription", method: "GET", path: base + "/news/more", status: 404, canonical: "NOT_FOUND"),
]

/// FCM's topic-subscription API (`projects.registrations.topicSubscriptions`), which the Admin
/// SDKs call instead of IID since 2026: every answer, and the subscriptions it shares with IID
/// and topic sends.
@Suite("FCM topic subscriptions")
struct FCMTopicSubscriptionTests {
    static func prepare(_ mock: PushMockHarness) throws {
        mock.clock.freeze(at: tenOClock)
        mock.state.fcmTokens.register(
            FCMTokenRecord(
                token: FCMRegistrationToken(deadToken), project: FCMProjectID("pushmock-sample"), state: .unregistered(at: tenOClock)))
        mock.state.fcmTokens.register(FCMTokenRecord(token: FCMRegistrationToken(foreignToken), project: FCMProjectID("other-project")))
    }

    static func request(_ method: String, _ path: String, body: String = "", accessToken: String?) -> HTTPRequestMessage {
        var headers = HTTPHeaderList()
        if let accessToken { headers.append(.authorization, value: "Bearer \(accessToken)") }
        headers.append(.contentType, value: "application/json")
        return HTTPRequestMessage(method: method, path: path, headers: headers, body: Array(body.utf8))
    }

    @Test(arguments: topicSubscriptionCases)
    func answer(_ row: TopicSubscriptionCase) async throws {
        try await withPushMock(configure: row.configure) { mock in
            try Self.prepare(mock)
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            for (method, path) in row.before {
                let done = try await connection.send(Self.request(method, path, accessToken: accessToken))
                #expect(done.status == 200, "\(method) \(path): \(String(decoding: done.body, as: UTF8.self))")
            }
            let response = try await connection.send(
                Self.request(row.method, row.path, body: row.body, accessToken: row.accessToken ? accessToken : nil))
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(response.status == row.status, "\(text)")
            #expect(response.header("content-type") == "application/json; charset=UTF-8")
            if let json = row.json {
                #expect(try JSONValue(parsing: response.body) == JSONValue(parsing: Array(json.utf8)), "\(text)")
            }
            if row.status != 200 {
                let error = try #require(response.googleError, "\(text)")
                #expect(error.code == row.status)
                #expect(error.status == row.canonical)
                #expect(error.errorCode == row.errorCode)
                if let message = row.message { #expect(error.message == message) }
            }
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.platform == .iid)
            #expect(record.response.status == row.status)
            await connection.close()
        }
    }

    @Test("subscriptions made here and through IID are one: a topic send reaches both, either API removes them")
    func sharedWithIID() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let other = "otherInstance:APA91b" + String(repeating: "o", count: 120)
            #expect(try await connection.send(Self.request("POST", base + "?topic_name=news", accessToken: accessToken)).status == 200)
            let (status, _) = try await IIDTests.call(
                mock, body: #"{"to":"/topics/news","registration_tokens":["\#(other)"]}"#, accessToken: accessToken)
            #expect(status == 200)
            // IID's subscription shows in this API's list too.
            let listed = try await connection.send(
                Self.request("GET", TopicSubscriptionCase.base(other), accessToken: accessToken))
            #expect(try JSONValue(parsing: listed.body)["topicSubscriptions"]?[0]?["topicName"]?.stringValue == "news")
            let sent = try await connection.send(
                mock.fcmSend(#"{"message":{"topic":"news","notification":{"title":"Hi"}}}"#, accessToken: accessToken))
            #expect(sent.status == 200)
            let send = try #require(mock.recordings.records(limit: 1).first)
            #expect(send.notification?.resolvedTokens == [other, token].sorted())
            // Removed through this API, the IID subscription is gone for IID's next send too.
            let deleted = try await connection.send(
                Self.request("DELETE", TopicSubscriptionCase.base(other) + "/news", accessToken: accessToken))
            #expect(deleted.status == 200)
            #expect(mock.state.fcmTokens.topics()["news"] == [FCMRegistrationToken(token)])
            await connection.close()
        }
    }

    @Test("an iid-error fault is answered in Google's error format, with Retry-After")
    func injectedFault() async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let rule = #"{"action":{"type":"iid-error","error":"UNAVAILABLE","status":503,"retryAfter":30},"match":{"platform":"iid"}}"#
            #expect(try await control.request("POST", "faults", json: Array(rule.utf8)).status == 201)
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let response = try await connection.send(Self.request("POST", base + "?topic_name=news", accessToken: accessToken))
            #expect(response.status == 503)
            #expect(response.googleError?.status == "UNAVAILABLE")
            #expect(response.header("retry-after") == "30")
            #expect(mock.state.fcmTokens.topics().isEmpty, "a fault changes nothing")
            await connection.close()
            await control.close()
        }
    }
}
