import Foundation
import PushMockAuth
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockTesting
import PushMockTransport
import Testing

private let token = PushMockHarness.sampleRegistrationToken
private let otherToken = "fGh7jK8lM9n:APA91bE" + String(repeating: "x", count: 130)

/// One row of table C3 (FCM `messages:send`): setup, request, and the expected answer.
struct C3Case: Sendable, CustomTestStringConvertible {
    var name: String
    var status: Int
    var canonical: String?
    var errorCode: String?
    var message: String?
    var prepare: @Sendable (PushMockHarness) throws -> Void = { _ in }
    var body: @Sendable (PushMockHarness) -> String = { _ in #"{"message":{"token":"\#(token)","notification":{"title":"Hi"}}}"# }
    var useAccessToken: Bool = true
    var path: (@Sendable (PushMockHarness) -> String)? = nil
    var checkHeaders: @Sendable (HTTPResponseMessage) -> Void = { _ in }

    var testDescription: String { "\(name) → \(status)\(errorCode.map { " \($0)" } ?? canonical.map { " \($0)" } ?? "")" }
}

let c3Cases: [C3Case] = [
    C3Case(
        name: "accepted", status: 200, canonical: nil, errorCode: nil, message: nil,
        checkHeaders: { response in
            #expect(response.header("retry-after") == nil)
            let name = response.jsonObject?["name"] as? String ?? ""
            #expect(name.hasPrefix("projects/pushmock-sample/messages/0:"), "\(name)")
            #expect(name.contains("%"))
        }),
    C3Case(
        name: "validate_only", status: 200, canonical: nil, errorCode: nil, message: nil,
        body: { _ in
            #"{"validate_only":true,"message":{"token":"\#(token)"}}"#
        }, checkHeaders: { #expect($0.jsonObject?["name"] as? String == "projects/pushmock-sample/messages/fake_message_id") }),
    C3Case(
        name: "validateOnly (camelCase)", status: 200, canonical: nil, errorCode: nil, message: nil,
        body: { _ in
            #"{"validateOnly":true,"message":{"token":"\#(token)"}}"#
        }, checkHeaders: { #expect($0.jsonObject?["name"] as? String == "projects/pushmock-sample/messages/fake_message_id") }),
    C3Case(
        name: "path without /v1", status: 200, canonical: nil, errorCode: nil, message: nil,
        path: { "/projects/\($0.project)/messages:send" }),
    C3Case(
        name: "ignored standard query parameters", status: 200, canonical: nil, errorCode: nil, message: nil,
        path: {
            "/v1/projects/\($0.project)/messages:send?alt=json&prettyPrint=false&%24.xgafv=2"
        }),
    C3Case(
        name: "no Authorization",
        status: 401,
        canonical: "UNAUTHENTICATED",
        errorCode: nil,
        message:
            "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        useAccessToken: false,
        checkHeaders: { #expect($0.header("www-authenticate") == #"Bearer realm="https://accounts.google.com/""#) }
    ),
    C3Case(
        name: "unknown bearer",
        status: 401,
        canonical: "UNAUTHENTICATED",
        errorCode: nil,
        message:
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        prepare: { $0.state.accessTokens.revokeAll() },
        checkHeaders: { #expect($0.header("www-authenticate") == #"Bearer realm="https://accounts.google.com/", error="invalid_token""#) }
    ),
    C3Case(
        name: "another project in the path", status: 403, canonical: "PERMISSION_DENIED", errorCode: nil, message: nil,
        path: { _ in
            "/v1/projects/someone-else/messages:send"
        }),
    C3Case(
        name: "token registered to another project",
        status: 403,
        canonical: "PERMISSION_DENIED",
        errorCode: "SENDER_ID_MISMATCH",
        message: "SenderId mismatch",
        prepare: { $0.state.fcmTokens.register(FCMTokenRecord(token: FCMRegistrationToken(token), project: "other-project")) }
    ),
    C3Case(
        name: "malformed registration token",
        status: 400,
        canonical: "INVALID_ARGUMENT",
        errorCode: "INVALID_ARGUMENT",
        message: "The registration token is not a valid FCM registration token",
        body: { _ in #"{"message":{"token":"not a token!"}}"# }
    ),
    C3Case(
        name: "token marked invalid",
        status: 400,
        canonical: "INVALID_ARGUMENT",
        errorCode: "INVALID_ARGUMENT",
        message: "The registration token is not a valid FCM registration token",
        prepare: {
            $0.state.fcmTokens.register(
                FCMTokenRecord(token: FCMRegistrationToken(token), project: FCMProjectID($0.project), state: .invalid))
        }
    ),
    C3Case(
        name: "unregistered token",
        status: 404,
        canonical: "NOT_FOUND",
        errorCode: "UNREGISTERED",
        message: "Requested entity was not found.",
        prepare: {
            $0.state.fcmTokens.register(
                FCMTokenRecord(
                    token: FCMRegistrationToken(token), project: FCMProjectID($0.project),
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 0))))
        }
    ),
    C3Case(
        name: "unregistered token under validate_only",
        status: 404,
        canonical: "NOT_FOUND",
        errorCode: "UNREGISTERED",
        message: "Requested entity was not found.",
        prepare: {
            $0.state.fcmTokens.register(
                FCMTokenRecord(
                    token: FCMRegistrationToken(token), project: FCMProjectID($0.project),
                    state: .unregistered(at: Timestamp(millisecondsSince1970: 0))))
        },
        body: { _ in #"{"validate_only":true,"message":{"token":"\#(token)"}}"# }
    ),
    C3Case(
        name: "unknown JSON field",
        status: 400,
        canonical: "INVALID_ARGUMENT",
        errorCode: nil,
        message: #"Invalid JSON payload received. Unknown name "tokens" at 'message': Cannot find field."#,
        body: { _ in #"{"message":{"tokens":["\#(token)"]}}"# }
    ),
    C3Case(
        name: "non-string data value",
        status: 400,
        canonical: "INVALID_ARGUMENT",
        errorCode: nil,
        message: "Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
        body: { _ in #"{"message":{"token":"\#(token)","data":{"count":12}}}"# }
    ),
    C3Case(
        name: "no target", status: 400, canonical: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT",
        message: "Recipient of the message is not set.",
        body: { _ in
            #"{"message":{"notification":{"title":"Hi"}}}"#
        }),
    C3Case(
        name: "two targets", status: 400, canonical: "INVALID_ARGUMENT", errorCode: nil, message: nil,
        body: { _ in
            #"{"message":{"token":"\#(token)","topic":"news"}}"#
        }),
    C3Case(
        name: "reserved data key", status: 400, canonical: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", message: nil,
        body: { _ in
            #"{"message":{"token":"\#(token)","data":{"from":"me"}}}"#
        }),
    C3Case(
        name: "bad TTL", status: 400, canonical: "INVALID_ARGUMENT", errorCode: nil, message: nil,
        body: { _ in
            #"{"message":{"token":"\#(token)","android":{"ttl":"3"}}}"#
        }),
    C3Case(
        name: "six topics in a condition", status: 400, canonical: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", message: nil,
        body: { _ in
            #"{"message":{"condition":"'a' in topics && 'b' in topics && 'c' in topics && 'd' in topics && 'e' in topics && 'f' in topics"}}"#
        }),
    C3Case(
        name: "topic with the /topics/ prefix", status: 400, canonical: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", message: nil,
        body: { _ in
            #"{"message":{"topic":"/topics/news"}}"#
        }),
    C3Case(
        name: "payload over 4096 bytes", status: 400, canonical: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", message: nil,
        body: { _ in
            #"{"message":{"token":"\#(token)","data":{"big":"\#(String(repeating: "x", count: 4100))"}}}"#
        }),
    C3Case(
        name: "topic payload over 2048 bytes", status: 400, canonical: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", message: nil,
        body: { _ in
            #"{"message":{"topic":"news","data":{"big":"\#(String(repeating: "x", count: 2100))"}}}"#
        }),
    C3Case(
        name: "topic payload of 2000 bytes", status: 200, canonical: nil, errorCode: nil, message: nil,
        body: { _ in
            #"{"message":{"topic":"news","data":{"big":"\#(String(repeating: "x", count: 1990))"}}}"#
        }),
    C3Case(
        name: "iOS token whose APNs key is rejected",
        status: 401,
        canonical: "UNAUTHENTICATED",
        errorCode: "THIRD_PARTY_AUTH_ERROR",
        message: "Auth error from APNS or Web Push Service",
        prepare: {
            $0.state.fcmTokens.register(
                FCMTokenRecord(
                    token: FCMRegistrationToken(token), project: FCMProjectID($0.project), platform: .ios,
                    apnsFailure: .init(status: 403, reason: "BadEnvironmentKeyInToken"))
            )
        }
    ),
    C3Case(
        name: "iOS token that APNs reports unregistered",
        status: 404,
        canonical: "NOT_FOUND",
        errorCode: "UNREGISTERED",
        message: nil,
        prepare: {
            $0.state.fcmTokens.register(
                FCMTokenRecord(
                    token: FCMRegistrationToken(token), project: FCMProjectID($0.project), platform: .ios,
                    apnsFailure: .init(status: 410, reason: "Unregistered"))
            )
        }
    ),
]

@Suite("FCM messages:send (table C3)")
struct FCMSendTests {
    @Test(arguments: c3Cases)
    func row(_ row: C3Case) async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let accessToken = row.useAccessToken ? try await mock.fetchAccessToken(over: connection) : nil
            try row.prepare(mock)
            var request = mock.fcmSend(row.body(mock), accessToken: accessToken)
            if let path = row.path {
                request.path = path(mock)
            }
            let response = try await connection.send(request)
            #expect(response.status == row.status, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(response.header("content-type") == "application/json; charset=UTF-8")
            if row.status != 200 {
                let error = try #require(response.googleError)
                #expect(error.code == row.status)
                #expect(error.status == row.canonical)
                #expect(error.errorCode == row.errorCode)
                if let message = row.message {
                    #expect(error.message == message)
                }
                #expect(response.header("retry-after") == nil)
            }
            row.checkHeaders(response)
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.platform == .fcm)
            #expect(record.response.status == row.status)
            await connection.close()
        }
    }

    @Test("THIRD_PARTY_AUTH_ERROR relays the APNs answer as an ApnsError detail")
    func apnsErrorDetail() async throws {
        try await withPushMock { mock in
            mock.state.fcmTokens.register(
                FCMTokenRecord(
                    token: FCMRegistrationToken(token), project: FCMProjectID(mock.project), platform: .ios,
                    apnsFailure: .init(status: 403, reason: "InvalidProviderToken"))
            )
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let response = try await connection.send(mock.fcmSend(#"{"message":{"token":"\#(token)"}}"#, accessToken: accessToken))
            let error = try #require(response.jsonObject?["error"] as? [String: Any])
            let details = try #require(error["details"] as? [[String: Any]])
            let apns = try #require(details.first { ($0["@type"] as? String) == "type.googleapis.com/google.firebase.fcm.v1.ApnsError" })
            #expect(apns["statusCode"] as? Int == 403)
            #expect(apns["reason"] as? String == "InvalidProviderToken")
            // A dry run never reaches APNs.
            let dryRun = try await connection.send(
                mock.fcmSend(#"{"validate_only":true,"message":{"token":"\#(token)"}}"#, accessToken: accessToken))
            #expect(dryRun.status == 200)
            await connection.close()
        }
    }

    @Test("both field casings are accepted, enums in any case")
    func casings() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            for body in [
                #"{"message":{"token":"\#(token)","android":{"collapse_key":"c","priority":"high","ttl":"3.5s","notification":{"click_action":"OPEN","notification_priority":"priority_high"}},"fcm_options":{"analytics_label":"x"}}}"#,
                #"{"message":{"token":"\#(token)","android":{"collapseKey":"c","priority":"HIGH","ttl":"3.5s","notification":{"clickAction":"OPEN","notificationPriority":"PRIORITY_HIGH"}},"fcmOptions":{"analyticsLabel":"x"}}}"#,
            ] {
                let response = try await connection.send(mock.fcmSend(body, accessToken: accessToken))
                #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            }
            await connection.close()
        }
    }

    @Test("topic and condition sends record the registered tokens they reach")
    func fanOut() async throws {
        try await withPushMock { mock in
            mock.state.fcmTokens.register(
                FCMTokenRecord(token: FCMRegistrationToken(token), project: FCMProjectID(mock.project), topics: ["news", "sport"]))
            mock.state.fcmTokens.register(
                FCMTokenRecord(token: FCMRegistrationToken(otherToken), project: FCMProjectID(mock.project), topics: ["news"]))
            mock.state.fcmTokens.register(
                FCMTokenRecord(token: FCMRegistrationToken("zz" + otherToken), project: "other", topics: ["news"]))
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            #expect(try await connection.send(mock.fcmSend(#"{"message":{"topic":"news"}}"#, accessToken: accessToken)).status == 200)
            #expect(mock.recordings.records(limit: 1).first?.notification?.resolvedTokens == [token, otherToken].sorted())
            let condition = #"'news' in topics && !('sport' in topics)"#
            #expect(
                try await connection.send(mock.fcmSend(#"{"message":{"condition":"\#(condition)"}}"#, accessToken: accessToken)).status
                    == 200)
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.notification?.resolvedTokens == [otherToken])
            #expect(record.notification?.condition == condition)
            #expect(record.notification?.project == mock.project)
            await connection.close()
        }
    }

    @Test("the recording keeps the decoded credential and the message, never the token")
    func recording() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            _ = try await connection.send(
                mock.fcmSend(#"{"message":{"token":"\#(token)","data":{"deep_link":"loop://labs/7"}}}"#, accessToken: accessToken))
            let records = mock.recordings.records(newestFirst: false)
            #expect(records.map(\.platform) == [.oauth, .fcm])
            let oauth = records[0]
            #expect(oauth.auth?.scheme == "jwt-bearer-assertion")
            #expect(oauth.auth?.subject == mock.serviceAccount.json.clientEmail)
            #expect(
                oauth.auth?.jwtClaims.flatMap { try? JSONValue(parsing: $0) }?["iss"]?.stringValue == mock.serviceAccount.json.clientEmail)
            let fcm = records[1]
            #expect(fcm.auth?.subject == mock.serviceAccount.json.clientEmail)
            #expect(fcm.notification?.token == token)
            #expect(fcm.request.body.jsonValue?["message"]?["data"]?["deep_link"]?.stringValue == "loop://labs/7")
            for record in records {
                let line = String(decoding: record.jsonLine, as: UTF8.self)
                #expect(!line.contains(accessToken), "access token leaked into the \(record.platform) record")
            }
            #expect(String(decoding: oauth.jsonLine, as: UTF8.self).contains("signature withheld"))
            await connection.close()
        }
    }

    @Test("end to end: assertion, token, send, 401 after expiry, refresh, send again")
    func expiryAndRefresh() async throws {
        let clock = VirtualClock(frozenAt: Timestamp(secondsSince1970: 1_800_000_000))
        try await withPushMock(clock: clock) { mock in
            let connection = try await mock.connect()
            let first = try await mock.fetchAccessToken(over: connection)
            #expect(try await connection.send(mock.fcmSend(#"{"message":{"token":"\#(token)"}}"#, accessToken: first)).status == 200)
            clock.advance(by: .seconds(3599))
            #expect(try await connection.send(mock.fcmSend(#"{"message":{"token":"\#(token)"}}"#, accessToken: first)).status == 200)
            clock.advance(by: .seconds(1))
            let expired = try await connection.send(mock.fcmSend(#"{"message":{"token":"\#(token)"}}"#, accessToken: first))
            #expect(expired.status == 401)
            #expect(expired.header("www-authenticate")?.contains("invalid_token") == true)
            let second = try await mock.fetchAccessToken(over: connection)
            #expect(second != first)
            #expect(try await connection.send(mock.fcmSend(#"{"message":{"token":"\#(token)"}}"#, accessToken: second)).status == 200)
            await connection.close()
        }
    }

    /// Google's .NET client libraries gzip every request body; the body was parsed as JSON
    /// as it came ("Invalid JSON payload received. Unexpected token.\n\u{1F}…"), and a plain
    /// body labelled gzip was accepted.
    @Test(
        "a Content-Encoding: gzip body is decoded (and recorded decoded); one that is not gzip, or an unknown coding, is INVALID_ARGUMENT",
        arguments: [
            ("gzip", true, 200, ""),
            ("deflate", false, 400, "could not be decoded as deflate"),
            ("gzip", false, 400, "could not be decoded as gzip"),
            ("br", false, 400, "Unsupported Content-Encoding: br"),
        ])
    func contentEncoding(coding: String, compress: Bool, status: Int, message: String) async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            let json = #"{"message":{"token":"\#(token)","notification":{"title":"Zipped"}}}"#
            var request = mock.fcmSend(json, accessToken: accessToken, headers: [("content-encoding", coding)])
            if compress {
                request.body = HTTPContentCoding.gzipCompress(Array(json.utf8))
                request.bodyByteCount = request.body.count
            }
            let response = try await connection.send(request)
            #expect(response.status == status, "\(String(decoding: response.body, as: UTF8.self))")
            let fcm = mock.recordings.records { $0.platform == .fcm }
            #expect(fcm.count == 1)
            if status == 200 {
                #expect(fcm.first?.request.body.jsonValue?["message"]?["notification"]?["title"]?.stringValue == "Zipped")
            } else {
                let error = try JSONValue(parsing: response.body)["error"]
                #expect(error?["status"]?.stringValue == "INVALID_ARGUMENT")
                #expect(error?["message"]?.stringValue?.contains(message) == true, "\(String(decoding: response.body, as: UTF8.self))")
            }
            await connection.close()
        }
    }

    @Test("HTTP/1.1 and h2 over TLS with curl")
    func curl() async throws {
        try await withPushMock { mock in
            let directory = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let caPath = directory + "/ca.pem"
            try (mock.credentials.certificateAuthorityPEM ?? "").write(toFile: caPath, atomically: true, encoding: .utf8)
            let assertion = try mock.assertion()
            for version in ["--http1.1", "--http2"] {
                let tokenResult = try await run(
                    "/usr/bin/curl",
                    [
                        "-s", version, "--cacert", caPath,
                        "--data-urlencode", "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer",
                        "--data-urlencode", "assertion=\(assertion)",
                        "https://localhost:\(mock.tlsPort)/token",
                    ])
                let tokenJSON = try #require(try JSONSerialization.jsonObject(with: Data(tokenResult.output.utf8)) as? [String: Any])
                #expect(tokenJSON["expires_in"] as? Int == 3599)
                #expect(tokenJSON["token_type"] as? String == "Bearer")
                let accessToken = try #require(tokenJSON["access_token"] as? String)
                #expect(accessToken.hasPrefix("ya29."))
                let send = try await run(
                    "/usr/bin/curl",
                    [
                        "-s", "-i", version, "--cacert", caPath,
                        "-H", "authorization: Bearer \(accessToken)", "-H", "content-type: application/json",
                        "-d", #"{"message":{"token":"\#(token)","notification":{"title":"Hi"}}}"#,
                        "https://localhost:\(mock.tlsPort)/v1/projects/\(mock.project)/messages:send",
                    ])
                #expect(send.output.hasPrefix(version == "--http2" ? "HTTP/2 200" : "HTTP/1.1 200"), "\(send.output)")
                #expect(
                    send.output.contains(#""name":"projects/pushmock-sample/messages/0:"#)
                        || send.output.contains(#""name": "projects/pushmock-sample/messages/0:"#))
            }
            #expect(mock.recordings.records().map(\.connection.transport).contains("http/1.1"))
        }
    }
}

/// Table C4: the OAuth2 token endpoint.
@Suite("OAuth2 token endpoint (table C4)")
struct OAuthTokenTests {
    static func tokenCall(_ mock: PushMockHarness, _ request: HTTPRequestMessage) async throws -> (Int, [String: Any]) {
        let connection = try await mock.connect()
        defer { Task { await connection.close() } }
        let response = try await connection.send(request)
        return (response.status, response.jsonObject ?? [:])
    }

    @Test("a valid assertion gets a ya29 token for 3599 s", arguments: ["/token", "/oauth2/v4/token"])
    func valid(path: String) async throws {
        try await withPushMock { mock in
            let (status, body) = try await Self.tokenCall(mock, mock.tokenRequest(assertion: try mock.assertion(), path: path))
            #expect(status == 200)
            #expect((body["access_token"] as? String)?.hasPrefix("ya29.c.") == true)
            #expect(body["expires_in"] as? Int == 3599)
            #expect(body["token_type"] as? String == "Bearer")
        }
    }

    /// `aud` values as templates: `TLS` and `CLEAR` stand for the mock's listener ports, `OTHER`
    /// for a port it does not listen on.
    static func audience(_ template: String, _ mock: PushMockHarness) -> String {
        template
            .replacingOccurrences(of: "TLS", with: String(mock.tlsPort))
            .replacingOccurrences(of: "CLEAR", with: String(mock.cleartextPort))
            .replacingOccurrences(of: "OTHER", with: String(mock.tlsPort == 1 ? 2 : 1))
    }

    @Test(
        "aud may be Google's token URL or the gateway's own",
        arguments: [
            "https://oauth2.googleapis.com/token", "https://www.googleapis.com/oauth2/v4/token",
            "https://accounts.google.com/o/oauth2/token", "https://localhost:TLS/token", "https://LOCALHOST:TLS/token",
            "https://127.0.0.1:TLS/oauth2/v4/token", "http://127.0.0.1:CLEAR/token", "http://localhost:CLEAR/oauth2/v4/token",
        ])
    func audiences(template: String) async throws {
        try await withPushMock { mock in
            let audience = Self.audience(template, mock)
            let (status, body) = try await Self.tokenCall(mock, mock.tokenRequest(assertion: try mock.assertion(audience: audience)))
            #expect(status == 200, "\(audience): \(body)")
        }
    }

    @Test("the sample service account's token_uri is an accepted aud")
    func sampleTokenURI() async throws {
        try await withPushMock { mock in
            let audience = mock.serviceAccount.json.tokenURI
            #expect(audience == "https://localhost:\(mock.tlsPort)/token")
            let (status, _) = try await Self.tokenCall(mock, mock.tokenRequest(assertion: try mock.assertion(audience: audience)))
            #expect(status == 200)
        }
    }

    @Test("aud naming the authority the request was sent to is accepted (Go puts token_uri there)")
    func requestAuthority() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect(authority: "oauth2.googleapis.com")
            defer { Task { await connection.close() } }
            let request = mock.tokenRequest(assertion: try mock.assertion(audience: "https://oauth2.googleapis.com/oauth2/v4/token"))
            #expect(try await connection.send(request).status == 200)
        }
    }

    @Test(
        "any other aud fails the audience check with Google's error",
        arguments: [
            "https://example.com/token", "https://example.com/oauth2/v4/token", "https://evil.example/oauth",
            "https://localhost:OTHER/token",
            "http://127.0.0.1:OTHER/token", "https://localhost:TLS/token/", "https://localhost:TLS/oauth2/token",
            "https://localhost:TLS/token?x=1", "https://user@localhost:TLS/token", "https://oauth2.googleapis.com/token/",
            "https://oauth2.googleapis.com.evil.example/token", "http://oauth2.googleapis.com/token", "ftp://localhost:TLS/token",
            "oauth2.googleapis.com/token",
        ])
    func wrongAudience(template: String) async throws {
        try await withPushMock { mock in
            let audience = Self.audience(template, mock)
            let (status, body) = try await Self.tokenCall(mock, mock.tokenRequest(assertion: try mock.assertion(audience: audience)))
            #expect(status == 400, "\(audience)")
            #expect(body["error"] as? String == "invalid_grant")
            #expect(
                body["error_description"] as? String
                    == "Invalid JWT: Failed audience check. The expected audience is https://oauth2.googleapis.com/token."
            )
        }
    }

    static let timeframe =
        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."

    static let rejections: [(String, String, String)] = [
        ("other grant type", "unsupported_grant_type", "Invalid grant_type: client_credentials"),
        ("unknown service account", "invalid_grant", "Invalid JWT Signature."),
        ("signed by another key", "invalid_grant", "Invalid JWT Signature."),
        ("not a JWT", "invalid_grant", "Invalid JWT Signature."),
        (
            "lifetime over an hour", "invalid_grant",
            "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
        ),
        (
            "issued in the future", "invalid_grant",
            "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
        ),
        (
            "expired", "invalid_grant",
            "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
        ),
        (
            "wrong audience", "invalid_grant",
            "Invalid JWT: Failed audience check. The expected audience is https://oauth2.googleapis.com/token."
        ),
        ("missing assertion", "invalid_request", "Missing required parameter: assertion"),
        // Correctly signed, so "Signature" would point at the wrong part (it did).
        ("no iat", "invalid_grant", timeframe),
        ("no exp", "invalid_grant", timeframe),
        ("iat in year 10000", "invalid_grant", timeframe),
        // exp − iat overflowed and took the gateway down.
        ("iat -2^63, exp 1", "invalid_grant", timeframe),
        ("iat 10^18, exp -9×10^18", "invalid_grant", timeframe),
    ]

    /// An assertion signed with the sample account's key with exactly these time claims.
    static func assertion(_ mock: PushMockHarness, timeClaims: [JWTClaim]) throws -> String {
        try mock.serviceAccount.key.makeSignedJWT(
            claims: [
                JWTClaim("iss", .string(mock.serviceAccount.json.clientEmail)),
                JWTClaim("scope", .string("https://www.googleapis.com/auth/cloud-platform")),
                JWTClaim("aud", .string("https://oauth2.googleapis.com/token")),
            ] + timeClaims)
    }

    @Test("rejections", arguments: rejections.map(\.0))
    func rejection(name: String) async throws {
        let (_, error, description) = try #require(Self.rejections.first { $0.0 == name })
        try await withPushMock { mock in
            let now = mock.state.clock.now()
            let request: HTTPRequestMessage
            switch name {
            case "other grant type":
                request = mock.tokenRequest(assertion: try mock.assertion(), grantType: "client_credentials")
            case "unknown service account":
                request = mock.tokenRequest(assertion: try mock.assertion(clientEmail: "stranger@example.iam.gserviceaccount.com"))
            case "signed by another key":
                let key = try ServiceAccountKey.generate(privateKeyID: mock.serviceAccount.json.privateKeyID)
                request = mock.tokenRequest(assertion: try mock.assertion(key: key))
            case "not a JWT":
                request = mock.tokenRequest(assertion: "abc.def")
            case "lifetime over an hour":
                request = mock.tokenRequest(assertion: try mock.assertion(lifetime: 3601))
            case "issued in the future":
                request = mock.tokenRequest(assertion: try mock.assertion(issuedAt: now + .seconds(3600)))
            case "expired":
                request = mock.tokenRequest(assertion: try mock.assertion(issuedAt: now - .seconds(7200)))
            case "wrong audience":
                request = mock.tokenRequest(assertion: try mock.assertion(audience: "https://example.com/oauth"))
            case "no iat":
                request = mock.tokenRequest(
                    assertion: try Self.assertion(mock, timeClaims: [JWTClaim("exp", .integer(now.secondsSince1970))]))
            case "no exp":
                request = mock.tokenRequest(
                    assertion: try Self.assertion(mock, timeClaims: [JWTClaim("iat", .integer(now.secondsSince1970))]))
            case "iat in year 10000":
                request = mock.tokenRequest(
                    assertion: try Self.assertion(
                        mock, timeClaims: [JWTClaim("iat", .integer(253_402_300_800)), JWTClaim("exp", .integer(253_402_301_000))]))
            case "iat -2^63, exp 1":
                request = mock.tokenRequest(
                    assertion: try Self.assertion(mock, timeClaims: [JWTClaim("iat", .integer(.min)), JWTClaim("exp", .integer(1))]))
            case "iat 10^18, exp -9×10^18":
                request = mock.tokenRequest(
                    assertion: try Self.assertion(
                        mock,
                        timeClaims: [
                            JWTClaim("iat", .integer(1_000_000_000_000_000_000)), JWTClaim("exp", .integer(-9_000_000_000_000_000_000)),
                        ]))
            default:
                var bare = mock.tokenRequest(assertion: "x")
                bare.body = Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer".utf8)
                request = bare
            }
            let (status, body) = try await Self.tokenCall(mock, request)
            #expect(status == 400)
            #expect(body["error"] as? String == error)
            #expect(body["error_description"] as? String == description)
            let record = try #require(mock.recordings.records(limit: 1).first)
            #expect(record.platform == .oauth)
            #expect(record.response.reason == error)
            // And the gateway is still there for the next sender.
            #expect(try await Self.tokenCall(mock, mock.tokenRequest(assertion: try mock.assertion())).0 == 200)
        }
    }

    @Test("a token without an FCM scope cannot send")
    func scopes() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let response = try await connection.send(
                mock.tokenRequest(assertion: try mock.assertion(scopes: ["https://www.googleapis.com/auth/userinfo.email"])))
            let accessToken = try #require(response.jsonObject?["access_token"] as? String)
            let send = try await connection.send(mock.fcmSend(#"{"message":{"token":"\#(token)"}}"#, accessToken: accessToken))
            #expect(send.status == 403)
            #expect(send.googleError?.status == "PERMISSION_DENIED")
            await connection.close()
        }
    }
}

/// Table C5: IID topic management.
@Suite("IID topic management (table C5)")
struct IIDTests {
    static func call(_ mock: PushMockHarness, path: String = "/iid/v1:batchAdd", body: String, accessToken: String?, flag: Bool = true)
        async throws -> (Int, [String: Any])
    {
        let connection = try await mock.connect()
        defer { Task { await connection.close() } }
        var request = mock.fcmSend(body, accessToken: accessToken, path: path)
        if flag {
            request.headers.append(name: "access_token_auth", value: "true")
        }
        let response = try await connection.send(request)
        return (response.status, response.jsonObject ?? [:])
    }

    @Test("per-token results: ok, invalid, not found, too many topics")
    func results() async throws {
        try await withPushMock(configure: { $0.fcm.rejectUnknownTokens = true }) { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            await connection.close()
            mock.state.fcmTokens.register(FCMTokenRecord(token: FCMRegistrationToken(token), project: FCMProjectID(mock.project)))
            var full = FCMTokenRecord(token: FCMRegistrationToken(otherToken), project: FCMProjectID(mock.project))
            full.topics = Set((0..<FCMRegistry.maximumTopicsPerToken).map { "t\($0)" })
            mock.state.fcmTokens.register(full)
            let body = #"{"to":"/topics/news","registration_tokens":["\#(token)","bad token!","zz\#(token)","\#(otherToken)"]}"#
            let (status, json) = try await Self.call(mock, body: body, accessToken: accessToken)
            #expect(status == 200)
            let results = try #require(json["results"] as? [[String: Any]])
            #expect(results.count == 4)
            #expect(results[0].isEmpty)
            #expect(results[1]["error"] as? String == "INVALID_ARGUMENT")
            #expect(results[2]["error"] as? String == "NOT_FOUND")
            #expect(results[3]["error"] as? String == "TOO_MANY_TOPICS")
            #expect(mock.state.fcmTokens.lookup(FCMRegistrationToken(token))?.topics == ["news"])
            let (_, removed) = try await Self.call(
                mock, path: "/iid/v1:batchRemove", body: #"{"to":"news","registration_tokens":["\#(token)"]}"#, accessToken: accessToken)
            #expect((removed["results"] as? [[String: Any]])?.first?.isEmpty == true)
            #expect(mock.state.fcmTokens.lookup(FCMRegistrationToken(token))?.topics == [])
            #expect(mock.recordings.records(limit: 1).first?.platform == .iid)
        }
    }

    @Test("unknown tokens are subscribed (and created) by default, so topic sends reach them")
    func zeroConfig() async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            await connection.close()
            let (status, _) = try await Self.call(
                mock, body: #"{"to":"/topics/news","registration_tokens":["\#(token)"]}"#, accessToken: accessToken)
            #expect(status == 200)
            #expect(mock.state.fcmTokens.lookup(FCMRegistrationToken(token))?.project == FCMProjectID(mock.project))
        }
    }

    @Test(
        "bad requests and missing credentials",
        arguments: ["no to", "no tokens", "1001 tokens", "bad topic", "901-character topic", "no bearer", "no access_token_auth"])
    func badRequests(name: String) async throws {
        try await withPushMock { mock in
            let connection = try await mock.connect()
            let accessToken = try await mock.fetchAccessToken(over: connection)
            await connection.close()
            let many = (0..<1001).map { "\"t\($0):APA91b\(String(repeating: "x", count: 40))\"" }.joined(separator: ",")
            let (status, json): (Int, [String: Any])
            switch name {
            case "no to":
                (status, json) = try await Self.call(mock, body: #"{"registration_tokens":["\#(token)"]}"#, accessToken: accessToken)
            case "no tokens":
                (status, json) = try await Self.call(mock, body: #"{"to":"/topics/a","registration_tokens":[]}"#, accessToken: accessToken)
            case "1001 tokens":
                (status, json) = try await Self.call(
                    mock, body: #"{"to":"/topics/a","registration_tokens":[\#(many)]}"#, accessToken: accessToken)
            case "bad topic":
                (status, json) = try await Self.call(
                    mock, body: #"{"to":"/topics/a b","registration_tokens":["\#(token)"]}"#, accessToken: accessToken)
            case "901-character topic":
                // The topic-subscription API's limit; IID kept 900 KB names without end.
                let long = String(repeating: "a", count: 901)
                (status, json) = try await Self.call(
                    mock, body: #"{"to":"/topics/\#(long)","registration_tokens":["\#(token)"]}"#, accessToken: accessToken)
                let longest = String(repeating: "a", count: 900)
                let (accepted, _) = try await Self.call(
                    mock, body: #"{"to":"/topics/private/\#(longest)","registration_tokens":["\#(token)"]}"#, accessToken: accessToken)
                #expect(accepted == 200)
            case "no bearer":
                (status, json) = try await Self.call(
                    mock, body: #"{"to":"/topics/a","registration_tokens":["\#(token)"]}"#, accessToken: nil)
            default:
                (status, json) = try await Self.call(
                    mock, body: #"{"to":"/topics/a","registration_tokens":["\#(token)"]}"#, accessToken: accessToken, flag: false)
            }
            if name.hasPrefix("no bearer") || name.hasPrefix("no access") {
                #expect(status == 401)
                #expect(json["error"] as? String == "UNAUTHENTICATED")
            } else {
                #expect(status == 400)
                #expect(json["error"] as? String == "INVALID_ARGUMENT")
            }
        }
    }
}
