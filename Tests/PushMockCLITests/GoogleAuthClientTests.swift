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
        let registered = try await run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(control)/fcm/tokens", "-d",
                #"[{"token":"\#(dead)","project":"\#(account.projectId)","state":"unregistered"}]"#,
            ])
        #expect(registered.output == "201")

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
