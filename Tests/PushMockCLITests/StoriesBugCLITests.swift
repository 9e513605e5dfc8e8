import Foundation
import PushMockGateway
import Testing

/// Issue #14's bugs as a user meets them: through the built `pushmock` binary against
/// `pushmock serve` processes.
@Suite("Issue #14 bugs through the CLI")
struct StoriesBugCLITests {
    static let token = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"
    static let fcmToken =
        "dQw4w9WgXcQ:APA91bHqL2f0pM7v8Jk3nR5sT9uW1xY4zA6bC8dE0fG2hI4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hI6jK8lM0nO2"

    @discardableResult
    func pushmock(_ arguments: [String], in directory: String) async throws -> (status: Int32, output: String, error: String) {
        try await run(ServeProcess.binary, arguments, directory: directory)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test("after `pushmock clock advance 6h` and `+61m`, `pushmock send apns` and `send fcm` are still accepted")
    func sendAfterClockAdvance() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        let control = ["--server", "http://127.0.0.1:\(serve.cleartextPort)"]
        for step in ["6h", "61m"] {
            let advanced = try await pushmock(["clock", "advance", step] + control, in: serve.directory)
            #expect(advanced.status == 0, "\(advanced.error)")
            let apns = try await pushmock(
                ["send", "apns", "--ready-file", serve.directory + "/ready.json", "--token", Self.token, "--alert", "Hi", "--json"],
                in: serve.directory)
            #expect(apns.status == 0, "\(apns.output) \(apns.error)")
            #expect(try json(apns.output)["accepted"] as? Int == 1, "\(apns.output)")
            let fcm = try await pushmock(
                ["send", "fcm", "--ready-file", serve.directory + "/ready.json", "--token", Self.fcmToken, "--title", "Hi", "--json"],
                in: serve.directory)
            #expect(fcm.status == 0, "\(fcm.output) \(fcm.error)")
            #expect(try json(fcm.output)["accepted"] as? Int == 1, "\(fcm.output)")
        }
    }

    @Test("serve --auth none: FCM without an access token is accepted")
    func authNoneFCM() async throws {
        let serve = try await ServeProcess(arguments: ["--auth", "none"])
        defer { serve.kill(); serve.removeDirectory() }
        let curl = try #require(tool("curl"))
        let result = try await run(
            curl,
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge", "-X", "POST", "-H",
                "content-type: application/json", "--data-binary", #"{"message":{"token":"\#(Self.fcmToken)"}}"#,
                "http://127.0.0.1:\(serve.cleartextPort)/v1/projects/any-project/messages:send",
            ])
        #expect(result.output == "200")
    }

    @Test("recordings --json-path 'PATH!~GLOB' lists what does not match; a stray ! is an error")
    func notGlobMatch() async throws {
        let serve = try await ServeProcess()
        defer { serve.kill(); serve.removeDirectory() }
        for title in ["Time for your dose", "Weekly summary"] {
            let sent = try await pushmock(
                ["send", "apns", "--ready-file", serve.directory + "/ready.json", "--token", Self.token, "--title", title, "--quiet"],
                in: serve.directory)
            #expect(sent.status == 0, "\(sent.error)")
        }
        let control = ["--server", "http://127.0.0.1:\(serve.cleartextPort)"]
        let listed = try await pushmock(
            ["recordings", "--json-path", "$.aps.alert.title!~Time*", "--platform", "apns", "--json"] + control, in: serve.directory)
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.contains("Weekly summary"))
        #expect(!listed.output.contains("Time for your dose"))
        let stray = try await pushmock(["recordings", "--json-path", "$.aps.alert!title=x"] + control, in: serve.directory)
        #expect(stray.status != 0)
        #expect((stray.error + stray.output).contains("unknown operator"))
    }

    @Test(
        "token unregister --project binds an unknown FCM token to that project; without it the token is UNREGISTERED for every sender (config fcm.serviceAccounts)"
    )
    func unregisterWithProject() async throws {
        let directory = NSTemporaryDirectory() + "pushmock-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A service account of project "acme" with a key made by openssl, trusted through the
        // config file.
        let openssl = try #require(tool("openssl"))
        let key = try await run(openssl, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        try #require(key.status == 0, "\(key.error)")
        var account: [String: Any] = [
            "type": "service_account", "project_id": "acme", "private_key_id": "0123456789abcdef",
            "private_key": key.output, "client_email": "ci@acme.iam.gserviceaccount.com", "client_id": "100000000000000000001",
            "token_uri": "https://localhost:2197/token",
        ]
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: directory + "/acme.json"))
        try Data(#"{"fcm":{"serviceAccounts":[{"path":"acme.json"}]}}"#.utf8).write(
            to: URL(fileURLWithPath: directory + "/pushmock.json"))
        let serve = try await ServeProcess(arguments: ["--config", directory + "/pushmock.json"], directory: directory)
        defer { serve.kill(); serve.removeDirectory() }
        // The client's copy names this gateway's token endpoint.
        account["token_uri"] = "https://localhost:\(serve.tlsPort)/token"
        try JSONSerialization.data(withJSONObject: account).write(to: URL(fileURLWithPath: directory + "/acme.json"))

        let control = ["--server", "http://127.0.0.1:\(serve.cleartextPort)"]
        let bound = try await pushmock(["token", "unregister", Self.fcmToken, "--project", "acme", "--json"] + control, in: directory)
        #expect(bound.status == 0, "\(bound.error)")
        #expect(try json(bound.output)["project"] as? String == "acme")
        let apnsProject = try await pushmock(["token", "unregister", Self.token, "--project", "acme"] + control, in: directory)
        #expect(apnsProject.status != 0)

        let other = "e" + Self.fcmToken.dropFirst()
        let unbound = try await pushmock(["token", "unregister", other] + control, in: directory)
        #expect(unbound.status == 0, "\(unbound.error)")
        for registration in [Self.fcmToken, other] {
            let sent = try await pushmock(
                [
                    "send", "fcm", "--ready-file", directory + "/ready.json", "--service-account", directory + "/acme.json", "--token",
                    registration, "--title", "Hi", "--max-attempts", "1", "--json",
                ],
                in: directory)
            #expect(sent.output.contains("UNREGISTERED"), "\(sent.output) \(sent.error)")
            #expect(!sent.output.contains("SENDER_ID_MISMATCH"), "\(sent.output)")
        }
    }

    @Test("two gateways sharing one certs/ each name their own sample service account, and FCM works against both")
    func sharedCertsDirectory() async throws {
        let shared = NSTemporaryDirectory() + "pushmock-cli-\(UUID().uuidString)"
        let first = try await ServeProcess(directory: shared + "/first", certsDirectory: shared + "/certs")
        defer { first.kill(); first.removeDirectory() }
        let second = try await ServeProcess(directory: shared + "/second", certsDirectory: shared + "/certs")
        defer { second.kill(); second.removeDirectory(); try? FileManager.default.removeItem(atPath: shared) }
        let base = try Data(contentsOf: URL(fileURLWithPath: shared + "/certs/fcm-sample-service-account.json"))
        let baseJSON = try #require(try JSONSerialization.jsonObject(with: base) as? [String: Any])
        #expect(baseJSON["token_uri"] as? String == SampleServiceAccount.defaultTokenURI)
        for serve in [first, second] {
            let account = try #require(serve.info.fcmSampleServiceAccount)
            #expect(account.tokenUri == "https://localhost:\(serve.tlsPort)/token")
            let path = try #require(account.path)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(file["token_uri"] as? String == account.tokenUri)
            let sent = try await pushmock(
                ["send", "fcm", "--ready-file", serve.directory + "/ready.json", "--token", Self.fcmToken, "--title", "Hi", "--json"],
                in: serve.directory)
            #expect(sent.status == 0, "\(sent.output) \(sent.error)")
            #expect(try json(sent.output)["accepted"] as? Int == 1, "\(sent.output)")
        }
    }

    @Test("serve --cert/--key still has the sample APNs key and service account (in --certs-dir), and says so")
    func ownCertificateKeepsSamples() async throws {
        let managed = try await ServeProcess()
        let certs = managed.directory + "/certs"
        _ = await managed.stop()
        defer { managed.removeDirectory() }
        let serve = try await ServeProcess(arguments: [
            "--cert", certs + "/server.pem", "--key", certs + "/server-key.pem", "--ca", certs + "/ca.pem",
        ])
        // Stopped below to read the banner; the process ends with `serve` if a check throws first.
        defer { serve.removeDirectory() }
        #expect(serve.info.apnsSampleKey != nil)
        #expect(serve.info.fcmSampleServiceAccount != nil)
        #expect(FileManager.default.fileExists(atPath: serve.directory + "/certs/apns-sample-key.p8"))
        let apns = try await pushmock(
            ["send", "apns", "--ready-file", serve.directory + "/ready.json", "--token", Self.token, "--alert", "Hi", "--json"],
            in: serve.directory)
        #expect(apns.status == 0, "\(apns.output) \(apns.error)")
        let banner = await serve.stop().output
        #expect(banner.contains("Sample APNs key:"), "\(banner)")
        #expect(banner.contains("Sample FCM service account:"), "\(banner)")
    }
}
