import Prometheus
import Testing

@testable import PushMockGateway

/// The tally counts a read batch in memory its connection owns and hands it to the shared
/// series at ``RequestTally/flush()``: the counters and the latency histograms must then hold
/// every request of the batch, whatever mix of endpoints and outcomes it had.
@Suite("RequestTally: a batch's counts and latencies reach the shared series at flush")
struct RequestTallyTests {
    /// The series of `metrics` as `name{labels} → value`, the labels sorted by name (none of
    /// these label values holds a comma).
    private func series(_ metrics: GatewayMetrics) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in String(decoding: metrics.registry.emitToBuffer(), as: UTF8.self).split(separator: "\n")
        where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            var name = String(line[..<space])
            if let open = name.firstIndex(of: "{"), name.hasSuffix("}") {
                let labels = name[name.index(after: open)..<name.index(before: name.endIndex)].split(separator: ",").sorted()
                name = name[..<open] + "{" + labels.joined(separator: ",") + "}"
            }
            result[name] = value
        }
        return result
    }

    private func latencyCount(_ endpoint: String, _ platform: String) -> String {
        #"pushmock_request_duration_seconds_count{endpoint="\#(endpoint)",platform="\#(platform)"}"#
    }

    private func latencyBucket(_ endpoint: String, _ platform: String, le: String) -> String {
        #"pushmock_request_duration_seconds_bucket{endpoint="\#(endpoint)",le="\#(le)",platform="\#(platform)"}"#
    }

    @Test("mixed endpoints and outcomes: nothing before flush, every request after, again for the next batch")
    func batchReachesSeriesAtFlush() {
        let metrics = GatewayMetrics()
        var tally = RequestTally(metrics: metrics)
        // Interleaved, so the remembered label set changes back and forth.
        let batch: [(EndpointID, Int, String?, Duration)] = [
            (.apnsDevice, 200, nil, .microseconds(40)),
            (.apnsDevice, 200, nil, .microseconds(40)),
            (.fcmSend, 200, nil, .microseconds(300)),
            (.apnsDevice, 400, "BadDeviceToken", .milliseconds(2)),
            (.apnsDevice, 200, nil, .seconds(2)),
            (.fcmSend, 404, "NOT_FOUND", .microseconds(10)),
        ]
        for (endpoint, status, reason, latency) in batch {
            tally.count(endpoint, status: status, reason: reason, latency: latency)
        }
        let before = series(metrics)
        #expect(before[latencyCount("apns_device", "apns")] ?? 0 == 0)
        #expect(before[latencyCount("fcm_send", "fcm")] ?? 0 == 0)

        tally.flush()
        let after = series(metrics)
        #expect(after[latencyCount("apns_device", "apns")] == 4)
        #expect(after[latencyCount("fcm_send", "fcm")] == 2)
        #expect(after[latencyBucket("apns_device", "apns", le: "0.00005")] == 2)
        #expect(after[latencyBucket("apns_device", "apns", le: "0.0025")] == 3)
        #expect(after[latencyBucket("apns_device", "apns", le: "+Inf")] == 4)
        #expect(after[latencyBucket("fcm_send", "fcm", le: "0.000025")] == 1)
        #expect(after[#"pushmock_request_duration_seconds_sum{endpoint="apns_device",platform="apns"}"#] == 2.00208)
        #expect(after[#"pushmock_requests_total{endpoint="apns_device",platform="apns",reason="",status="200"}"#] == 3)
        #expect(after[#"pushmock_requests_total{endpoint="apns_device",platform="apns",reason="BadDeviceToken",status="400"}"#] == 1)
        #expect(after[#"pushmock_requests_total{endpoint="fcm_send",platform="fcm",reason="NOT_FOUND",status="404"}"#] == 1)

        // A flush with nothing new changes nothing; the next batch adds to the same series.
        tally.flush()
        #expect(series(metrics)[latencyCount("apns_device", "apns")] == 4)
        tally.count(.apnsDevice, status: 200, reason: nil, latency: .microseconds(40))
        tally.flush()
        let next = series(metrics)
        #expect(next[latencyCount("apns_device", "apns")] == 5)
        #expect(next[latencyCount("fcm_send", "fcm")] == 2)
        #expect(next[#"pushmock_requests_total{endpoint="apns_device",platform="apns",reason="",status="200"}"#] == 4)
    }
}
