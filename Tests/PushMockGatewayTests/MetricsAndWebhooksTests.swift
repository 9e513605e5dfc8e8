import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockQuery
import PushMockTesting
import PushMockTransport
import PushMockWebhooks
import Testing

private func alert(_ title: String) -> String {
    #"{"aps":{"alert":{"title":"\#(title)","body":"Take it now"}}}"#
}

private let apnsAccepted = #"pushmock_requests_total{endpoint="apns_device",platform="apns",reason="",status="200"}"#
private let apnsBadPayload = #"pushmock_requests_total{endpoint="apns_device",platform="apns",reason="PayloadEmpty",status="400"}"#
private let apnsThrottled = #"pushmock_requests_total{endpoint="apns_device",platform="apns",reason="TooManyRequests",status="429"}"#
private let apnsLatencyCount = #"pushmock_request_duration_seconds_count{endpoint="apns_device",platform="apns"}"#

@Suite("GET /metrics, scraped and parsed by prometheus_client", .serialized)
struct MetricsEndpointTests {
    @Test("counters, histograms, faults and connections move after sends; the text parses as Prometheus")
    func countersMove() async throws {
        try await withPushMock { mock in
            let before = try await scrapeMetrics(port: mock.cleartextPort)
            #expect(before[apnsAccepted] == nil)
            #expect(before["pushmock_connections_open{}"] != nil)

            let control = try mock.controlClient()
            _ = try await control.call(
                "POST",
                "faults",
                json: Array(
                    #"{"match":{"platform":"apns"},"trigger":{"count":1},"action":{"type":"apns-error","reason":"TooManyRequests"}}"#.utf8)
            )
            let connection = try await mock.connect()
            _ = try await connection.send(try mock.apnsRequest(payload: alert("throttled")))
            for title in ["one", "two", "three"] {
                expectAccepted(try await connection.send(try mock.apnsRequest(payload: alert(title))))
            }
            _ = try await connection.send(try mock.apnsRequest(payload: ""))
            await connection.close()
            await control.close()

            let after = try await scrapeMetrics(port: mock.cleartextPort)
            #expect(after[apnsAccepted] == 3)
            #expect(after[apnsBadPayload] == 1)
            #expect(after[apnsThrottled] == 1)
            #expect(after[apnsLatencyCount] == 5)
            #expect(after[#"pushmock_faults_fired_total{action="apns-error",platform="apns"}"#] == 1)
            #expect((after[#"pushmock_connections_accepted_total{listener="tls"}"#] ?? 0) >= 1)
            #expect((after[#"pushmock_connections_accepted_total{listener="cleartext"}"#] ?? 0) >= 2)
            #expect(after["pushmock_recordings{}"] == 5)
            #expect(after["pushmock_fault_rules{}"] == 1)
            #expect((after["pushmock_simulated_devices{}"] ?? 0) >= 1)
            // The first scrape is counted by the second one.
            #expect(after[#"pushmock_requests_total{endpoint="metrics",platform="none",reason="",status="200"}"#] == 1)
            let bucket = #"pushmock_request_duration_seconds_bucket{endpoint="apns_device",le="+Inf",platform="apns"}"#
            #expect(after[bucket] == 5)
        }
    }

    @Test("each gateway of a process counts into its own registry")
    func perGatewayRegistry() async throws {
        try await withPushMock { first in
            let connection = try await first.connect()
            expectAccepted(try await connection.send(try first.apnsRequest(payload: alert("first"))))
            await connection.close()
            try await withPushMock { second in
                let metrics = try await scrapeMetrics(port: second.cleartextPort)
                #expect(metrics[apnsAccepted] == nil)
            }
            #expect(try await scrapeMetrics(port: first.cleartextPort)[apnsAccepted] == 1)
        }
    }

    @Test("once quiet after traffic, free heap memory goes back to the system: once per burst, never while idle")
    func idleMemoryReturn() async throws {
        let returns = "pushmock_memory_returns_total{}"
        try await withPushMock(configure: { $0.idleMemoryReturn = .milliseconds(200) }) { mock in
            /// Scrapes until `returns` reaches `count` (a loaded machine may take many periods).
            func waitForReturns(_ count: Double) async throws -> [String: Double] {
                let deadline = ContinuousClock.now + .seconds(60)
                while true {
                    let metrics = try await scrapeMetrics(port: mock.cleartextPort)
                    if metrics[returns] == count || ContinuousClock.now > deadline { return metrics }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            // Five quiet periods without a request since start: nothing to give back. (Scrapes
            // are not recorded exchanges, so they do not count as traffic.)
            try await Task.sleep(for: .seconds(1))
            #expect(try await scrapeMetrics(port: mock.cleartextPort)[returns] == 0)

            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: alert("burst one"))))
            let first = try await waitForReturns(1)
            #expect(first[returns] == 1)
            #expect(first["pushmock_memory_returned_bytes_total{}"] != nil)
            // Quiet since: no second return for the same burst.
            try await Task.sleep(for: .seconds(1))
            #expect(try await scrapeMetrics(port: mock.cleartextPort)[returns] == 1)

            expectAccepted(try await connection.send(try mock.apnsRequest(payload: alert("burst two"))))
            await connection.close()
            #expect(try await waitForReturns(2)[returns] == 2)
        }
    }

    @Test("--no-metrics: /metrics answers 404 and nothing is counted")
    func disabled() async throws {
        try await withPushMock(configure: { $0.metricsEnabled = false }) { mock in
            let fetched = try await run(
                "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(mock.cleartextPort)/metrics"])
            #expect(fetched.output == "404")
            #expect(mock.server.state.metrics == nil)
        }
    }
}

@Suite("Webhooks on receipt, delivered to a Python http.server", .serialized)
struct WebhookTests {
    @Test("a receiver that fails twice then succeeds: retries with backoff, signature checked by Python's hmac, filter respected")
    func retriesSignatureFilter() async throws {
        let receiver = try await WebhookReceiver(secret: "s3cret", failFirst: 2)
        defer { receiver.stop() }
        try await withPushMock(configure: {
            $0.webhooks.webhooks = [
                WebhookDefinition(
                    id: "backend",
                    url: receiver.url,
                    secret: "s3cret",
                    filter: "platform=apns&where=$.aps.alert.title=Dose due",
                    // Generous: on a loaded machine the Python receiver can take seconds to
                    // answer, and a timed-out attempt would read "error", not the 500 it sent.
                    timeout: FlexibleDuration(.seconds(60)),
                    maxAttempts: 4,
                    initialBackoff: FlexibleDuration(.milliseconds(100))
                )
            ]
        }) { mock in
            let connection = try await mock.connect()
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: alert("Weekly check-in"))))
            expectAccepted(try await connection.send(try mock.apnsRequest(payload: alert("Dose due"))))
            await connection.close()

            let requests = try await receiver.waitForRequests(3)
            try #require(requests.count == 3)
            for request in requests {
                #expect(request["signatureValid"] as? Bool == true)
                #expect(request["path"] as? String == "/hooks/push")
                let headers = request["headers"] as? [String: String] ?? [:]
                #expect(headers["x-pushmock-event"] == "recording")
                #expect(headers["x-pushmock-delivery"] == "recording-2")
                #expect(headers["content-type"] == "application/json")
                let body = request["body"] as? [String: Any] ?? [:]
                #expect(body["type"] as? String == "recording")
                #expect(body["webhook"] as? String == "backend")
                let data = body["data"] as? [String: Any] ?? [:]
                #expect(data["seq"] as? Int == 2)
                #expect(data["platform"] as? String == "apns")
            }
            #expect(requests.compactMap { ($0["headers"] as? [String: String])?["x-pushmock-attempt"] } == ["1", "2", "3"])

            // The attempt history through the control API.
            let control = try mock.controlClient()
            var hook: JSONValue?
            for _ in 0..<600 {
                let listing = try JSONValue(parsing: try await control.call("GET", "webhooks").body)
                hook = listing["webhooks"]?.arrayValue?.first
                if hook?["counts"]?["delivered"]?.intValue == 1 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let report = try #require(hook)
            #expect(report["id"]?.stringValue == "backend")
            #expect(report["signed"]?.boolValue == true)
            #expect(report["secret"] == nil)
            #expect(report["filter"]?.stringValue == "platform=apns&where=$.aps.alert.title=Dose due")
            #expect(report["counts"]?["enqueued"]?.intValue == 1, "the filter let only the second recording through")
            #expect(report["counts"]?["attempts"]?.intValue == 3)
            let delivery = try #require(report["deliveries"]?.arrayValue?.first)
            #expect(delivery["state"]?.stringValue == "delivered")
            #expect(delivery["attempts"]?.arrayValue?.map { $0["outcome"]?.stringValue ?? "" } == ["rejected", "rejected", "delivered"])
            #expect(delivery["attempts"]?.arrayValue?.map { $0["status"]?.intValue ?? 0 } == [500, 500, 200])
            let one = try JSONValue(parsing: try await control.call("GET", "webhooks/backend").body)
            #expect(one["id"]?.stringValue == "backend")
            await control.close()

            let metrics = try await scrapeMetrics(port: mock.cleartextPort)
            #expect(metrics[#"pushmock_webhook_attempts_total{outcome="rejected",webhook="backend"}"#] == 2)
            #expect(metrics[#"pushmock_webhook_attempts_total{outcome="delivered",webhook="backend"}"#] == 1)
            #expect(metrics[#"pushmock_webhook_deliveries_total{result="delivered",webhook="backend"}"#] == 1)
        }
    }

    @Test("a full queue drops events, counts them and never holds up the request path")
    func queueOverflow() async throws {
        // Each delivery ends with the webhook's 5-second timeout: the queue of 2 stays full for
        // 15 s, however slowly a loaded machine sends the 20 requests.
        let receiver = try await WebhookReceiver(delaySeconds: 10)
        defer { receiver.stop() }
        try await withPushMock(configure: {
            $0.webhooks = WebhookOptions(
                webhooks: [WebhookDefinition(id: "slow", url: receiver.url, maxAttempts: 1)],
                queueCapacity: 2,
                concurrency: 1
            )
        }) { mock in
            let connection = try await mock.connect()
            let requests = try (0..<20).map { try mock.apnsRequest(payload: alert("burst \($0)")) }
            try await withThrowingTaskGroup(of: HTTPResponseMessage.self) { group in
                for request in requests {
                    group.addTask { try await connection.send(request) }
                }
                for try await response in group {
                    expectAccepted(response)
                }
            }
            await connection.close()
            let control = try mock.controlClient()
            let report = try JSONValue(parsing: try await control.call("GET", "webhooks/slow").body)
            let dropped = report["counts"]?["dropped"]?.intValue ?? 0
            let enqueued = report["counts"]?["enqueued"]?.intValue ?? 0
            #expect(dropped > 0)
            #expect(dropped + enqueued == 20)
            await control.close()
            let metrics = try await scrapeMetrics(port: mock.cleartextPort)
            #expect(metrics[#"pushmock_webhook_dropped_total{webhook="slow"}"#] == Double(dropped))
        }
    }

    @Test("the control API adds, lists and removes webhooks and refuses bad definitions")
    func controlAPI() async throws {
        try await withPushMock { mock in
            let control = try mock.controlClient()
            let added = try await control.request(
                "POST",
                "webhooks",
                json: Array(
                    #"[{"url":"http://127.0.0.1:9/a","filter":"status=4xx"},{"id":"b","url":"https://example.invalid/b","secret":"k"}]"#
                        .utf8)
            )
            #expect(added.status == 201)
            let listing = try JSONValue(parsing: try await control.call("GET", "webhooks").body)
            #expect(listing["webhooks"]?.arrayValue?.map { $0["id"]?.stringValue ?? "" } == ["webhook-1", "b"])
            #expect(try await control.request("POST", "webhooks", json: Array(#"{"url":"ftp://x"}"#.utf8)).status == 400)
            #expect(
                try await control.request("POST", "webhooks", json: Array(#"{"url":"http://x/","filter":"colour=red"}"#.utf8)).status == 400
            )
            #expect(try await control.request("POST", "webhooks", json: Array(#"{"id":"b","url":"http://x/"}"#.utf8)).status == 400)
            // A misspelt member would leave its default in force without a word.
            let misspelt = try await control.request("POST", "webhooks", json: Array(#"{"url":"http://x/","timeoutSeconds":30}"#.utf8))
            #expect(misspelt.status == 400)
            #expect(
                misspelt.errorMessage?.contains(#"unknown member "timeoutSeconds" in a webhook (expected: id, url, secret"#) == true,
                "\(misspelt.text)")
            #expect(try await control.request("DELETE", "webhooks/b").status == 200)
            #expect(try await control.request("DELETE", "webhooks/b").status == 404)
            #expect(try await control.request("GET", "webhooks/b").status == 404)
            await control.close()
        }
    }
}

@Suite("Webhook building blocks")
struct WebhookUnitTests {
    @Test(
        "URLs",
        arguments: [
            ("http://127.0.0.1:9000/hook?x=1", false, "127.0.0.1", 9000, "/hook?x=1"),
            ("https://example.com", true, "example.com", 443, "/"),
            ("http://[::1]:8080/a", false, "::1", 8080, "/a"),
        ]
    )
    func urls(url: String, tls: Bool, host: String, port: Int, path: String) throws {
        let target = try WebhookTarget(url: url)
        #expect(target.isTLS == tls)
        #expect(target.host == host)
        #expect(target.port == port)
        #expect(target.pathAndQuery == path)
    }

    @Test("a filter's relative times are resolved once, when the webhook is added, against the gateway's clock")
    func relativeFilterTimes() throws {
        let now = Timestamp(millisecondsSince1970: 1_800_000_000_000)
        let query = try RecordingWebhooks.query("?since=-1h&until=now", now: now)
        #expect(query.since == Timestamp(millisecondsSince1970: 1_800_000_000_000 - 3_600_000))
        #expect(query.until == now)
        #expect(throws: (any Error).self) { try RecordingWebhooks.query("since=yesterday", now: now) }
    }

    @Test("backoff doubles up to the cap")
    func backoff() {
        let policy = WebhookRetryPolicy(maximumAttempts: 6, initialBackoff: .milliseconds(500), multiplier: 2, maximumBackoff: .seconds(3))
        #expect((1...5).map { policy.backoff(after: $0) } == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3)])
    }
}
