import Foundation
import PushMockCore
import PushMockGateway
import PushMockRecording
import Testing

/// The official Python SDK (`exponent_server_sdk` from PyPI, installed by `scripts/test` into a
/// virtual environment) against `pushmock serve` started as a process: only `PushClient(host=…)`
/// is changed, exactly as a backend would point it at the mock.
@Suite("exponent_server_sdk against pushmock serve (process)", .serialized)
struct ExpoPythonSDKTests {
    /// The interpreter of the virtual environment `scripts/test` prepares
    /// (`PUSHMOCK_EXPO_PYTHON` overrides it).
    static var python: String { virtualEnvironmentPython(override: "PUSHMOCK_EXPO_PYTHON") }

    static let flowScript = #"""
        import json, sys
        import requests
        from exponent_server_sdk import (
            DeviceNotRegisteredError, InvalidCredentialsError, PushClient, PushMessage, PushServerError)

        host, control, a, b, uninstalled, dead, broken, other = sys.argv[1:9]
        client = PushClient(host=host)
        results = {}

        tickets = client.publish_multiple([
            PushMessage(to=a, title="Time for your dose", body="10:00", data={"url": "app://dose/1"}),
            PushMessage(to=b, body="Hydrate", priority="high", channel_id="reminders"),
            PushMessage(to=uninstalled, body="Still there?"),
            PushMessage(to=dead, body="Gone"),
            PushMessage(to=broken, body="No credentials"),
        ])
        results["tickets"] = [t.status for t in tickets]
        try:
            tickets[3].validate_response()
            results["deadTicket"] = "no error"
        except DeviceNotRegisteredError as error:
            results["deadTicket"] = error.push_response.details["error"]

        results["receiptsBefore"] = len(client.check_receipts_multiple([t for t in tickets if t.is_success()]))

        requests.patch(control + "/expo/tokens/" + requests.utils.quote(uninstalled, safe=""), json={"state": "uninstalled"})
        requests.post(control + "/clock/advance", json={"by": "5s"})

        receipts = client.check_receipts_multiple([t for t in tickets if t.is_success()])
        by_id = {r.id: r for r in receipts}
        outcome = []
        for ticket in tickets[:3] + tickets[4:]:
            receipt = by_id.get(ticket.id)
            try:
                receipt.validate_response()
                outcome.append("ok")
            except DeviceNotRegisteredError:
                outcome.append("DeviceNotRegistered")
            except InvalidCredentialsError:
                outcome.append("InvalidCredentials")
        results["receiptsAfter"] = outcome

        try:
            client.publish_multiple([PushMessage(to=a, body="x"), PushMessage(to=other, body="y")])
            results["twoProjects"] = "no error"
        except PushServerError as error:
            results["twoProjects"] = [error.response.status_code, error.errors[0]["code"]]
        print(json.dumps(results))
        """#

    static let bulkScript = #"""
        import json, sys, time
        import requests
        from exponent_server_sdk import PushClient, PushMessage

        host, control, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
        client = PushClient(host=host)
        tokens = ["ExponentPushToken[bulk%018d]" % i for i in range(100)]
        messages = [PushMessage(to=tokens[i % 100], title="Reminder %d" % i, body="Bulk", data={"n": i})
                    for i in range(count)]
        started = time.monotonic()
        tickets = client.publish_multiple(messages)
        sent = time.monotonic() - started
        requests.post(control + "/clock/advance", json={"by": "5s"})
        started = time.monotonic()
        receipts = client.check_receipts_multiple(tickets)
        fetched = time.monotonic() - started
        print(json.dumps({
            "messages": count,
            "sendRequests": (count + 99) // 100,
            "ticketsOk": sum(1 for t in tickets if t.is_success()),
            "ticketErrors": sum(1 for t in tickets if not t.is_success()),
            "sendSeconds": round(sent, 3),
            "receiptRequests": (len(tickets) + 999) // 1000,
            "receiptsOk": sum(1 for r in receipts if r.is_success()),
            "receiptErrors": sum(1 for r in receipts if not r.is_success()),
            "receiptSeconds": round(fetched, 3),
        }))
        """#

    static let faultScript = #"""
        import json, sys
        from exponent_server_sdk import (
            DeviceNotRegisteredError, MessageRateExceededError, PushClient, PushMessage)

        host, tokens = sys.argv[1], sys.argv[2:]
        client = PushClient(host=host)
        outcomes = []
        for round in range(2):
            tickets = client.publish_multiple([PushMessage(to=t, body="Round %d" % round) for t in tokens])
            for ticket in tickets:
                try:
                    ticket.validate_response()
                    outcomes.append("ok")
                except DeviceNotRegisteredError:
                    outcomes.append("DeviceNotRegistered")
                except MessageRateExceededError:
                    outcomes.append("MessageRateExceeded")
        print(json.dumps(outcomes))
        """#

    private func requireSDK() async throws {
        let probe = try await run(Self.python, ["-c", "import exponent_server_sdk"])
        try #require(probe.status == 0, "exponent_server_sdk is required in \(Self.python) (scripts/test installs it): \(probe.error)")
    }

    @Test("tickets, receipts before and after the delay, uninstall → DeviceNotRegistered, request error")
    func flow() async throws {
        try await requireSDK()
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let control = "http://127.0.0.1:\(server.cleartextPort)/_pushmock"
        let a = "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]"
        let b = "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]"
        let uninstalled = "ExponentPushToken[uuuuuuuuuuuuuuuuuuuuuu]"
        let dead = "ExponentPushToken[dddddddddddddddddddddd]"
        let broken = "ExponentPushToken[cccccccccccccccccccccc]"
        let other = "ExponentPushToken[oooooooooooooooooooooo]"
        let tokens = #"""
            [{"token":"\#(a)","project":"@acme/reminders"},
             {"token":"\#(b)","project":"@acme/reminders","platform":"android"},
             {"token":"\#(uninstalled)","project":"@acme/reminders"},
             {"token":"\#(dead)","project":"@acme/reminders","state":"uninstalled"},
             {"token":"\#(broken)","project":"@acme/reminders","failure":{"error":"InvalidCredentials"}},
             {"token":"\#(other)","project":"@acme/other"}]
            """#
        let registered = try await run(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(control)/expo/tokens", "-d", tokens])
        #expect(registered.output == "201")
        let frozen = try await run(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(control)/clock/freeze"])
        #expect(frozen.output == "200")

        let scriptPath = server.directory + "/flow.py"
        try Self.flowScript.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        // The SDK gets the base URL the gateway advertises (banner, ready file), as a user would.
        let expoBaseURL = try #require(server.info.expoBaseURL)
        let flow = try await run(Self.python, [scriptPath, expoBaseURL, control, a, b, uninstalled, dead, broken, other])
        #expect(flow.status == 0, "\(flow.error)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(flow.output.utf8)) as? [String: Any], "\(flow.error)")
        #expect(results["tickets"] as? [String] == ["ok", "ok", "ok", "error", "ok"])
        #expect(results["deadTicket"] as? String == "DeviceNotRegistered")
        #expect(results["receiptsBefore"] as? Int == 0)
        #expect(results["receiptsAfter"] as? [String] == ["ok", "ok", "DeviceNotRegistered", "InvalidCredentials"])
        let twoProjects = results["twoProjects"] as? [Any]
        #expect(twoProjects?.first as? Int == 400)
        #expect(twoProjects?.last as? String == "PUSH_TOO_MANY_EXPERIENCE_IDS")

        #expect(await server.stop().status == 0)
        let records = try String(contentsOfFile: server.journalPath, encoding: .utf8).split(separator: "\n")
            .map { try ExchangeRecord.decode(jsonLine: Array($0.utf8)) }
        let expo = records.filter { $0.platform == .expo }
        // send, receipts (early), receipts (late), rejected send
        #expect(
            expo.map(\.request.path) == [
                "/--/api/v2/push/send", "/--/api/v2/push/getReceipts", "/--/api/v2/push/getReceipts", "/--/api/v2/push/send",
            ])
        #expect(expo.map(\.response.status) == [200, 200, 200, 400])
        #expect(
            expo.first?.annotations["tickets"] == "DeviceNotRegistered 1, ok 4"
                || expo.first?.annotations["tickets"] == "ok 4, DeviceNotRegistered 1")
    }

    /// QA's stories for an Expo backend, set up with the CLI: some devices are gone, one is
    /// pushed too often. Expo fails those tokens' tickets, not the batch, and the SDK raises
    /// its per-ticket errors for exactly them.
    @Test("fault rules from the CLI fail single tickets of a batch, as the SDK sees them")
    func faultsOnABatch() async throws {
        try await requireSDK()
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let address = "http://127.0.0.1:\(server.cleartextPort)"
        let gone = "ExponentPushToken[gonegonegonegonegonego]"
        let busy = "ExponentPushToken[busybusybusybusybusybu]"
        let fine = "ExponentPushToken[finefinefinefinefinefi]"
        for arguments in [
            ["fault", "preset", "device-token-expiry", "--platform", "expo", "--token", "*[gone*"],
            ["fault", "add", "--platform", "expo", "--token", "*[busy*", "--rate", "2/1m", "--expo-ticket-error", "MessageRateExceeded"],
        ] {
            let added = try await run(ServeProcess.binary, arguments + ["--server", address])
            #expect(added.status == 0, "\(arguments): \(added.error)")
        }
        let listed = try await run(ServeProcess.binary, ["fault", "list", "--server", address])
        #expect(
            listed.output.contains(
                "expo-error ticket MessageRateExceeded when platform expo, token *[busy*, beyond 2 per 60.0s per token, per recipient"),
            "\(listed.output)")

        let scriptPath = server.directory + "/faults.py"
        try Self.faultScript.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let expoBaseURL = try #require(server.info.expoBaseURL)
        let sent = try await run(Self.python, [scriptPath, expoBaseURL, fine, gone, busy, busy, fine])
        #expect(sent.status == 0, "\(sent.error)")
        let outcomes = try JSONSerialization.jsonObject(with: Data(sent.output.utf8)) as? [String]
        // Round one: busy's first two pass the rate; round two: busy is over it.
        #expect(
            outcomes == [
                "ok", "DeviceNotRegistered", "ok", "ok", "ok",
                "ok", "DeviceNotRegistered", "MessageRateExceeded", "MessageRateExceeded", "ok",
            ], "\(sent.output) \(sent.error)")
        let rules = try await run(ServeProcess.binary, ["fault", "list", "--json", "--server", address])
        let fired = (try JSONSerialization.jsonObject(with: Data(rules.output.utf8)) as? [[String: Any]])?.map { $0["fired"] as? Int }
        #expect(fired == [2, 2], "\(rules.output)")
        #expect(await server.stop().status == 0)
    }

    @Test("10,000 messages: 100 requests of 100, tickets and receipts")
    func bulk() async throws {
        try await requireSDK()
        let directory = NSTemporaryDirectory() + "pushmock-expo-bulk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The SDK does not retry 429, and 10,000 notifications take longer than 16 s only on a
        // very slow machine: lift the 600/s project rate for the bulk run.
        let config = directory + "/config.json"
        try #"{"expo":{"options":{"notificationsPerSecondPerProject":1000000}}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let server = try await ServeProcess(arguments: ["--config", config], directory: directory)
        defer { server.removeDirectory() }
        let control = "http://127.0.0.1:\(server.cleartextPort)/_pushmock"
        let scriptPath = server.directory + "/bulk.py"
        try Self.bulkScript.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let bulk = try await run(Self.python, [scriptPath, "http://127.0.0.1:\(server.cleartextPort)", control, "10000"])
        #expect(bulk.status == 0, "\(bulk.error)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(bulk.output.utf8)) as? [String: Any], "\(bulk.error)")
        print("Expo bulk summary: \(bulk.output)")
        #expect(summary["ticketsOk"] as? Int == 10_000)
        #expect(summary["ticketErrors"] as? Int == 0)
        #expect(summary["receiptsOk"] as? Int == 10_000)
        #expect(await server.stop().status == 0)
        let lines = try String(contentsOfFile: server.journalPath, encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try ExchangeRecord.decode(jsonLine: Array($0.utf8)) }.filter { $0.platform == .expo }
        #expect(records.filter { $0.request.path == "/--/api/v2/push/send" }.count == 100)
        #expect(records.filter { $0.request.path == "/--/api/v2/push/getReceipts" }.count == 10)
    }

    @Test("pushmock token add / unregister / list for Expo tokens; tokens and projects from the config file")
    func tokenCommandAndConfig() async throws {
        let directory = NSTemporaryDirectory() + "pushmock-expo-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = directory + "/config.json"
        let configured = "ExponentPushToken[cfgcfgcfgcfgcfgcfgcfgc]"
        try #"""
        {"expo": {"options": {"receiptDelayMilliseconds": 0},
                  "projects": [{"name": "@acme/reminders", "accessTokens": ["s3cret-access-token"]}],
                  "tokens": [{"token": "\#(configured)", "project": "@acme/reminders", "platform": "android"}]}}
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let server = try await ServeProcess(arguments: ["--config", config], directory: directory)
        defer { server.removeDirectory() }
        let address = "http://127.0.0.1:\(server.cleartextPort)"
        let token = "ExponentPushToken[clicliclicliclicliclicl]"

        let added = try await run(
            ServeProcess.binary, ["token", "add", token, "--project", "@acme/other", "--platform", "android", "--server", address])
        #expect(added.status == 0, "\(added.error)")
        #expect(added.output.contains("registered expo \(token)"), "\(added.output)")
        let removedState = try await run(ServeProcess.binary, ["token", "unregister", token, "--server", address])
        #expect(removedState.status == 0, "\(removedState.error)")
        #expect(removedState.output.contains("unregistered"), "\(removedState.output)")
        let listed = try await run(ServeProcess.binary, ["token", "list", "--service", "expo", "--server", address])
        #expect(listed.output.contains("expo \(configured)"), "\(listed.output)")
        #expect(listed.output.contains("expo \(token)  unregistered"), "\(listed.output)")

        // The configured project enforces its access token.
        let send = address + "/--/api/v2/push/send"
        let denied = try await run("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", send, "-d", #"{"to":"\#(configured)","body":"x"}"#])
        #expect(denied.output.hasSuffix("401"), "\(denied.output)")
        let allowed = try await run(
            "/usr/bin/curl",
            [
                "-s", "-H", "authorization: Bearer s3cret-access-token", send, "-d", #"{"to":"\#(configured)","body":"x"}"#,
            ])
        #expect(allowed.output.contains(#""status":"ok""#), "\(allowed.output)")
        let dead = try await run("/usr/bin/curl", ["-s", send, "-d", #"{"to":"\#(token)","body":"x"}"#])
        #expect(dead.output.contains("DeviceNotRegistered"), "\(dead.output)")
        #expect(await server.stop().status == 0)
    }

    @Test("pushmock send expo: 251 tokens from a file, receipts, tokens to delete")
    func sendCommand() async throws {
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let address = "http://127.0.0.1:\(server.cleartextPort)"
        let dead = "ExponentPushToken[deaddeaddeaddeaddeadde]"
        let registered = try await run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "\(address)/_pushmock/expo/tokens",
                "-d", #"{"token":"\#(dead)","state":"uninstalled"}"#,
            ])
        #expect(registered.output == "201")
        let tokens = (0..<250).map { "ExponentPushToken[" + String(format: "cli%019d", $0) + "]" } + [dead]
        let file = server.directory + "/tokens.txt"
        try tokens.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let sent = try await run(
            ServeProcess.binary,
            [
                "send", "expo", "--server", address, "--tokens-file", file, "--title", "Hi", "--data", "url=app://x",
                "--receipts", "--receipt-interval", "0.2", "--json",
            ])
        // Exit 2: not every message was accepted (the dead token).
        #expect(sent.status == 2, "\(sent.error)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(sent.output.utf8)) as? [String: Any], "\(sent.output) \(sent.error)")
        #expect(report["messages"] as? Int == 251)
        #expect(report["requests"] as? Int == 3)
        #expect(report["ok"] as? Int == 250)
        #expect(report["receiptsOk"] as? Int == 250)
        #expect(report["tokensToDelete"] as? [String] == [dead])

        // CI asserts on what was sent, as for APNs/FCM.
        let expected = try await run(
            ServeProcess.binary, ["expect", "--platform", "expo", "--token", tokens[5], "--status", "200", "--server", address])
        #expect(expected.status == 0, "\(expected.output) \(expected.error)")
        let none = try await run(ServeProcess.binary, ["expect", "--platform", "expo", "--token", dead, "--server", address])
        #expect(none.status == 1, "\(none.output) \(none.error)")
        #expect(await server.stop().status == 0)
    }

    @Test("over the TLS listener (HTTP/1.1 through requests, the mock's CA)")
    func overTLS() async throws {
        try await requireSDK()
        let server = try await ServeProcess()
        defer { server.removeDirectory() }
        let script = #"""
            import json, sys
            from exponent_server_sdk import PushClient, PushMessage
            client = PushClient(host=sys.argv[1])
            tickets = client.publish_multiple([PushMessage(to="ExponentPushToken[tlstlstlstlstlstlstlstl]", title="Over TLS")])
            print(json.dumps([t.status for t in tickets]))
            """#
        let scriptPath = server.directory + "/tls.py"
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let result = try await run(
            Self.python,
            [scriptPath, "https://localhost:\(server.tlsPort)"],
            environment: ["REQUESTS_CA_BUNDLE": server.caPath]
        )
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == #"["ok"]"#)
        #expect(await server.stop().status == 0)
        let records = try String(contentsOfFile: server.journalPath, encoding: .utf8).split(separator: "\n")
            .map { try ExchangeRecord.decode(jsonLine: Array($0.utf8)) }
        #expect(records.first?.connection.tls == true)
        #expect(records.first?.connection.transport == "http/1.1")
    }
}
