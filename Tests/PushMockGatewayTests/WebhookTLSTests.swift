import Foundation
import PushMockControl
import PushMockGateway
import PushMockJSON
import PushMockTesting
import PushMockTransport
import Testing

/// A certificate authority and a receiver certificate it signed (`subjectAltName` IP 127.0.0.1),
/// made with the openssl command line when the test runs; nothing is committed.
private struct TestCertificates {
    let directory: String
    var caCertificate: String { directory + "/ca.pem" }
    var otherCACertificate: String { directory + "/other-ca.pem" }
    var receiverCertificate: String { directory + "/receiver.pem" }
    var receiverKey: String { directory + "/receiver.key" }

    static func make() async throws -> TestCertificates {
        let directory = NSTemporaryDirectory() + "pushmock-webhook-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        func openssl(_ arguments: [String]) async throws {
            let result = try await run("/usr/bin/openssl", arguments)
            try #require(result.status == 0, "openssl \(arguments.joined(separator: " ")): \(result.error)")
        }
        for (name, subject) in [("ca", "PushMock test webhook CA"), ("other-ca", "Some other CA")] {
            try await openssl(
                ["req", "-x509"] + ec + [
                    "-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).pem", "-days", "2", "-subj", "/CN=\(subject)",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                ])
        }
        try await openssl(
            ["req"] + ec + ["-keyout", certificates.receiverKey, "-out", "\(directory)/receiver.csr", "-subj", "/CN=127.0.0.1"])
        let extensions = "\(directory)/receiver.ext"
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        try await openssl([
            "x509", "-req", "-in", "\(directory)/receiver.csr", "-CA", certificates.caCertificate, "-CAkey", "\(directory)/ca.key",
            "-CAcreateserial", "-out", certificates.receiverCertificate, "-days", "2", "-extfile", extensions,
        ])
        return certificates
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite("Webhooks over TLS, to a Python receiver with a certificate made at test time", .serialized)
struct WebhookTLSTests {
    @Test("trusted through caCertificate: signed events arrive over TLS; untrusted or another CA: every attempt fails, recorded as errors")
    func trustedAndUntrusted() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let receiver = try await WebhookReceiver(
            secret: "s3cret", tls: (certificate: certificates.receiverCertificate, key: certificates.receiverKey))
        defer { receiver.stop() }
        #expect(receiver.url.hasPrefix("https://127.0.0.1:"))
        let quickFailure = (maxAttempts: 2, backoff: FlexibleDuration(.milliseconds(50)))
        try await withPushMock(configure: {
            $0.webhooks.webhooks = [
                WebhookDefinition(
                    id: "trusted", url: receiver.url, secret: "s3cret", timeout: FlexibleDuration(.seconds(60)),
                    caCertificate: certificates.caCertificate),
                WebhookDefinition(
                    id: "untrusted", url: receiver.url, secret: "s3cret", timeout: FlexibleDuration(.seconds(60)),
                    maxAttempts: quickFailure.maxAttempts, initialBackoff: quickFailure.backoff),
                WebhookDefinition(
                    id: "other-ca", url: receiver.url, secret: "s3cret", timeout: FlexibleDuration(.seconds(60)),
                    maxAttempts: quickFailure.maxAttempts, initialBackoff: quickFailure.backoff,
                    caCertificate: certificates.otherCACertificate),
            ]
        }) { mock in
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: #"{"aps":{"alert":"Dose due"}}"#)))
            await connection.close()

            // Only the trusted webhook's request gets through the handshake.
            let requests = try await receiver.waitForRequests(1)
            try #require(requests.count == 1)
            let request = requests[0]
            #expect(request["signatureValid"] as? Bool == true)
            #expect((request["tls"] as? String)?.hasPrefix("TLSv1.") == true, "\(request["tls"] ?? "none")")
            #expect((request["headers"] as? [String: String])?["x-pushmock-event"] == "recording")
            let body = request["body"] as? [String: Any] ?? [:]
            #expect(body["webhook"] as? String == "trusted")
            #expect((body["data"] as? [String: Any])?["seq"] as? Int == 1)

            let control = try mock.controlClient()
            func report(_ id: String) async throws -> JSONValue {
                try JSONValue(parsing: try await control.call("GET", "webhooks/\(id)").body)
            }
            var reports: [String: JSONValue] = [:]
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                for id in ["trusted", "untrusted", "other-ca"] { reports[id] = try await report(id) }
                let final = reports.values.allSatisfy { ($0["counts"]?["pending"]?.intValue ?? 1) == 0 }
                if final { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(reports["trusted"]?["counts"]?["delivered"]?.intValue == 1)
            #expect(reports["trusted"]?["deliveries"]?.arrayValue?.first?["state"]?.stringValue == "delivered")
            for id in ["untrusted", "other-ca"] {
                let hook = try #require(reports[id])
                #expect(hook["counts"]?["failed"]?.intValue == 1, "\(id): \(hook)")
                #expect(hook["counts"]?["delivered"]?.intValue == 0, "\(id)")
                #expect(hook["counts"]?["attempts"]?.intValue == 2, "\(id)")
                let delivery = try #require(hook["deliveries"]?.arrayValue?.first)
                #expect(delivery["state"]?.stringValue == "failed")
                let attempts = delivery["attempts"]?.arrayValue ?? []
                #expect(attempts.map { $0["outcome"]?.stringValue ?? "" } == ["error", "error"], "\(id)")
                for attempt in attempts {
                    #expect(attempt["status"] == nil, "no HTTP answer without a handshake")
                    let error = attempt["error"]?.stringValue ?? ""
                    #expect(error.localizedCaseInsensitiveContains("certificate") || error.contains("handshake"), "\(id): \(error)")
                }
            }
            await control.close()

            let metrics = try await scrapeMetrics(port: mock.cleartextPort)
            #expect(metrics[#"pushmock_webhook_deliveries_total{result="delivered",webhook="trusted"}"#] == 1)
            #expect(metrics[#"pushmock_webhook_deliveries_total{result="failed",webhook="untrusted"}"#] == 1)
            #expect(metrics[#"pushmock_webhook_attempts_total{outcome="error",webhook="other-ca"}"#] == 2)
        }
    }

    @Test("a caCertificate that is missing or holds no certificate is refused when the webhook is added")
    func badCAFile() async throws {
        let directory = NSTemporaryDirectory() + "pushmock-webhook-ca-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "not a certificate\n".write(toFile: directory + "/junk.pem", atomically: true, encoding: .utf8)
        try await withPushMock { mock in
            let control = try mock.controlClient()
            for path in [directory + "/missing.pem", directory + "/junk.pem"] {
                let answer = try await control.request(
                    "POST", "webhooks", json: Array(#"{"url":"https://127.0.0.1:9/h","caCertificate":"\#(path)"}"#.utf8))
                #expect(answer.status == 400, "\(path)")
                #expect(String(decoding: answer.body, as: UTF8.self).contains("caCertificate"), "\(path)")
            }
            #expect(try JSONValue(parsing: try await control.call("GET", "webhooks").body)["webhooks"]?.arrayValue?.isEmpty == true)
            await control.close()
        }
    }
}
