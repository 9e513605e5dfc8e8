import Foundation
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import Testing

/// Google's own auth library (Debian's python3-google-auth with requests) against
/// `pushmock serve` started as a process: only the CA and the base URL are changed, exactly as
/// a backend would point firebase-admin or google-auth at the mock.
@Suite("google-auth against pushmock serve (process)", .serialized)
struct GoogleAuthClientTests {
    static let script = #"""
        import json, sys
        import requests
        from google.oauth2 import service_account
        from google.auth.transport.requests import AuthorizedSession

        account_path, base, control, good, dead = sys.argv[1:6]
        credentials = service_account.Credentials.from_service_account_file(
            account_path, scopes=["https://www.googleapis.com/auth/cloud-platform"])
        session = AuthorizedSession(credentials)
        url = "%s/v1/projects/%s/messages:send" % (base, credentials.project_id)
        results = {}
        first = session.post(url, json={"message": {"token": good, "notification": {"title": "Time for your BPC-157"}}})
        results["good"] = [first.status_code, first.json()]
        second = session.post(url, json={"message": {"token": dead}})
        results["dead"] = [second.status_code, second.json()]
        # Revoke every issued token: the next send gets 401 and google-auth refreshes, then retries.
        requests.post(control + "/fcm/access-tokens/revoke")
        third = session.post(url, json={"message": {"token": good}})
        results["after_revoke"] = [third.status_code, third.json()]
        print(json.dumps(results))
        """#

    /// Registers `token` as unregistered through the control API, as a test's setup would.
    static func registerUnregistered(_ token: String, project: String, control: String) async throws {
        let registered = try await run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(control)/fcm/tokens", "-d",
                #"[{"token":"\#(token)","project":"\#(project)","state":"unregistered"}]"#,
            ])
        #expect(registered.output == "201")
    }

    @Test("assertion → token → send → UNREGISTERED → 401 → refresh → send")
    func firebaseAdminStyleFlow() async throws {
        let python = "/usr/bin/python3"
        let probe = try await run(python, ["-c", "import google.oauth2.service_account, google.auth.transport.requests"])
        try #require(
            probe.status == 0, "python3-google-auth and python3-requests are required (scripts/test installs them): \(probe.error)")
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let account = try #require(server.info.fcmSampleServiceAccount)
        let accountPath = try #require(account.path)
        #expect(account.tokenUri == "https://localhost:\(server.tlsPort)/token")

        let good = "goodInstance:APA91b" + String(repeating: "g", count: 120)
        let dead = "deadInstance:APA91b" + String(repeating: "d", count: 120)
        let control = "http://127.0.0.1:\(server.cleartextPort)/_pushmock"
        try await GoogleAuthClientTests.registerUnregistered(dead, project: account.projectId, control: control)

        let scriptPath = server.directory + "/flow.py"
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let flow = try await run(
            python,
            [scriptPath, accountPath, "https://localhost:\(server.tlsPort)", control, good, dead],
            environment: ["REQUESTS_CA_BUNDLE": server.caPath]
        )
        let errorText = flow.error
        #expect(flow.status == 0, "\(errorText)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(flow.output.utf8)) as? [String: [Any]], "\(errorText)")

        #expect(results["good"]?.first as? Int == 200)
        #expect(
            ((results["good"]?.last as? [String: Any])?["name"] as? String)?.hasPrefix("projects/\(account.projectId)/messages/0:") == true)
        #expect(results["dead"]?.first as? Int == 404)
        let deadError = (results["dead"]?.last as? [String: Any])?["error"] as? [String: Any]
        #expect(deadError?["status"] as? String == "NOT_FOUND")
        let details = deadError?["details"] as? [[String: Any]]
        #expect(details?.first?["errorCode"] as? String == "UNREGISTERED")
        #expect(results["after_revoke"]?.first as? Int == 200)

        #expect(await server.stop().status == 0)
        let records = try String(contentsOfFile: server.journalPath, encoding: .utf8).split(separator: "\n")
            .map { try ExchangeRecord.decode(jsonLine: Array($0.utf8)) }
        #expect(records.map(\.platform) == [.oauth, .fcm, .fcm, .fcm, .oauth, .fcm])
        #expect(records.map(\.response.status) == [200, 200, 404, 401, 200, 200])
        #expect(records.first?.auth?.subject == account.clientEmail)
        #expect(records[1].request.body.jsonValue?["message"]?["notification"]?["title"]?.stringValue == "Time for your BPC-157")
    }
}

/// firebase-admin for Python (7.x, from PyPI) against `pushmock serve`: since 7.x its
/// `subscribe_to_topic` calls FCM's topic-subscription API, one request per token, instead of
/// IID's `batchAdd`. Only the CA, the token endpoint (the service account's `token_uri`) and the
/// FCM base URL are changed.
@Suite("firebase-admin (Python) against pushmock serve (process)", .serialized)
struct FirebaseAdminClientTests {
    static let script = #"""
        import asyncio, json, sys
        import firebase_admin
        from firebase_admin import credentials, messaging

        account_path, base, good, other, dead = sys.argv[1:6]
        app = firebase_admin.initialize_app(credentials.Certificate(account_path))
        service = messaging._get_messaging_service(app)
        # No official option moves the SDK's hosts; these are the attributes it reads.
        service._fcm_url = "%s/v1/projects/%s/messages:send" % (base, app.project_id)
        service._fcm_topic_url = "%s/v1/projects/%s/registrations" % (base, app.project_id)
        messaging._MessagingService.IID_URL = base

        def summary(response):
            return {"success": response.success_count, "failure": response.failure_count,
                    "errors": [[e.index, e.reason] for e in response.errors]}

        results = {}
        results["subscribe"] = summary(messaging.subscribe_to_topic([good, other, dead, "not a token"], "/topics/news"))
        results["again"] = summary(messaging.subscribe_to_topic([good], "news"))
        results["send"] = messaging.send(messaging.Message(topic="news", notification=messaging.Notification(title="Morning news")))
        results["unsubscribe"] = summary(messaging.unsubscribe_from_topic([other, good], "news"))
        results["unsubscribe_again"] = summary(messaging.unsubscribe_from_topic([good], "news"))
        results["legacy"] = summary(messaging.subscribe_to_topic_legacy([good], "weather"))

        # The async API goes through httpx over HTTP/2.
        async def concurrently():
            subscribed = await messaging.subscribe_to_topic_async([good, other], "sports")
            sent = await messaging.send_each_async([
                messaging.Message(token=good, notification=messaging.Notification(title="Match starts")),
                messaging.Message(token=dead, notification=messaging.Notification(title="Match starts"))])
            return summary(subscribed), [r.success for r in sent.responses]
        results["async_subscribe"], results["async_send"] = asyncio.run(concurrently())
        print(json.dumps(results))
        """#

    @Test("subscribe_to_topic and unsubscribe_from_topic through FCM's topic-subscription API, a topic send, IID's legacy call")
    func topicSubscriptions() async throws {
        let python = ExpoPythonSDKTests.python
        let probe = try await run(python, ["-c", "import firebase_admin, firebase_admin.messaging"])
        try #require(probe.status == 0, "firebase-admin is required in the tests' venv (scripts/test installs it): \(probe.error)")
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let account = try #require(server.info.fcmSampleServiceAccount)
        let accountPath = try #require(account.path)
        let good = "goodInstance:APA91b" + String(repeating: "g", count: 120)
        let other = "otherInstance:APA91b" + String(repeating: "o", count: 120)
        let dead = "deadInstance:APA91b" + String(repeating: "d", count: 120)
        let control = "http://127.0.0.1:\(server.cleartextPort)/_pushmock"
        try await GoogleAuthClientTests.registerUnregistered(dead, project: account.projectId, control: control)

        let scriptPath = server.directory + "/topics.py"
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let flow = try await run(
            python, [scriptPath, accountPath, "https://localhost:\(server.tlsPort)", good, other, dead],
            environment: ["REQUESTS_CA_BUNDLE": server.caPath, "SSL_CERT_FILE": server.caPath])
        #expect(flow.status == 0, "\(flow.error)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(flow.output.utf8)) as? [String: Any], "\(flow.error)")
        func summary(_ key: String) -> [String: Any]? { results[key] as? [String: Any] }
        // The dead token is UNREGISTERED; the malformed one INVALID_ARGUMENT (the SDK reads the
        // FcmError detail first, then the status).
        #expect(summary("subscribe")?["success"] as? Int == 2)
        #expect(summary("subscribe")?["failure"] as? Int == 2)
        let errors = (summary("subscribe")?["errors"] as? [[Any]])?.map { "\($0[0]) \($0[1])" }
        #expect(errors == ["2 UNREGISTERED", "3 INVALID_ARGUMENT"], "\(String(describing: errors))")
        // A second subscription is 409 ALREADY_EXISTS, which the SDK counts as a success.
        #expect(summary("again")?["success"] as? Int == 1)
        #expect((results["send"] as? String)?.hasPrefix("projects/\(account.projectId)/messages/") == true)
        #expect(summary("unsubscribe")?["success"] as? Int == 2)
        // The SDK deletes with allow_missing=true: unsubscribing twice is no error.
        #expect(summary("unsubscribe_again")?["success"] as? Int == 1)
        #expect(summary("legacy")?["success"] as? Int == 1)
        #expect(summary("async_subscribe")?["success"] as? Int == 2)
        #expect(results["async_send"] as? [Bool] == [true, false], "the dead token's send fails")

        let topics = try await run("/usr/bin/curl", ["-s", "\(control)/fcm/topics"])
        #expect(topics.output.contains("weather") && !topics.output.contains("news"), "\(topics.output)")
        #expect(await server.stop().status == 0)
        let records = try String(contentsOfFile: server.journalPath, encoding: .utf8).split(separator: "\n")
            .map { try ExchangeRecord.decode(jsonLine: Array($0.utf8)) }
        let subscriptions = records.filter { $0.request.path.contains("/topicSubscriptions") }
        #expect(subscriptions.count == 10, "4 + 1 + 2 creates, 2 + 1 deletes")
        #expect(subscriptions.suffix(2).allSatisfy { $0.connection.transport == "h2" }, "httpx's HTTP/2")
        #expect(subscriptions.allSatisfy { $0.platform == .iid })
        #expect(subscriptions.filter { $0.request.method == "DELETE" }.allSatisfy { $0.request.path.hasSuffix("?allow_missing=true") })
        #expect(records.filter { $0.platform == .fcm }.map(\.response.status).sorted() == [200, 200, 404], "concurrent: any order")
        let send = try #require(records.first { $0.platform == .fcm })
        #expect(send.notification?.resolvedTokens == [good, other].sorted(), "the topic reached both subscribed tokens")
    }
}
