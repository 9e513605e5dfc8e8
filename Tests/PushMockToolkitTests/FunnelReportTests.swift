import PushMockToolkit
import Testing

@Suite("Funnel and latency report")
struct FunnelReportTests {
    static func entries() -> [FunnelEntry] {
        var entries: [FunnelEntry] = []
        // Ten high-priority alerts delivered after 100…1000 ms; three displayed and opened, one acted.
        for index in 1...10 {
            entries.append(
                FunnelEntry(
                    platform: "apns", type: "alert", category: "DOSE", priority: "high", accepted: true,
                    deliveryLatencyMilliseconds: Int64(index * 100), displayed: index <= 5, opened: index <= 3, acted: index == 4))
        }
        // Two normal-priority data messages: one delivered late, one still stored.
        entries.append(FunnelEntry(platform: "fcm", type: "data", priority: "normal", accepted: true, deliveryLatencyMilliseconds: 60_000))
        entries.append(FunnelEntry(platform: "fcm", type: "data", priority: "normal", accepted: true))
        entries.append(FunnelEntry(platform: "apns", type: "alert", priority: "high", accepted: false))
        return entries
    }

    @Test("stages in total and per dimension; nearest-rank percentiles per priority")
    func stages() {
        let report = FunnelReport(entries: Self.entries())
        #expect(report.total.sent == 13)
        #expect(report.total.accepted == 12)
        #expect(report.total.delivered == 11)
        #expect(report.total.displayed == 5)
        #expect(report.total.opened == 3)
        #expect(report.total.acted == 1)
        #expect(report.total.engagementRate == 0.8)
        let fcm = report.groups.first { $0.dimension == "platform" && $0.value == "fcm" }
        #expect(fcm?.stages.delivered == 1)
        #expect(report.groups.contains { $0.dimension == "category" && $0.value == "(none)" && $0.stages.sent == 3 })
        let high = report.latency.first { $0.priority == "high" }
        #expect(high?.p50 == 500)
        #expect(high?.p90 == 900)
        #expect(high?.p95 == 1000)
        #expect(high?.max == 1000)
        #expect(report.latency.map(\.priority) == ["high", "normal"])
        #expect(report.latency.last?.undelivered == 1)
        #expect(report.passed, "no targets: nothing to miss")
        #expect(report.text.contains("total"))
    }

    @Test(
        "targets: met, missed, undelivered counts as late, nothing to measure",
        arguments: [
            ("critical=high:1s", true, "critical (high priority) delivered within 1 s, every one: slowest of 10 was 1000 ms"),
            ("high:900ms:p90", true, "high (high priority) delivered within 900 ms, p90: p90 of 10 was 900 ms"),
            ("high:500ms:p90", false, "p90 of 10 was 900 ms — missed"),
            ("normal:2m", false, "slowest of 2 was not delivered — missed"),
            ("normal:2m:p50", true, "p50 of 2 was 60000 ms"),
            ("low:5s", false, "no low-priority notification was accepted"),
        ])
    func targets(text: String, passes: Bool, message: String) throws {
        let target = try LatencyTarget(parsing: text)
        let report = FunnelReport(entries: Self.entries(), targets: [target])
        #expect(report.passed == passes)
        #expect(report.targets.first?.message.contains(message) == true, "\(report.targets.first?.message ?? "")")
        let junit = report.junit
        #expect(junit.contains(#"tests="2""#))
        #expect(junit.contains("<failure") == !passes)
        #expect(report.text.contains(passes ? "PASS" : "FAIL"))
    }

    @Test(
        "bad targets are refused with the form expected",
        arguments: ["urgent:5s", "high", "high:soon", "high:5s:95", "high:5s:p0", "high:1e300s", "high:1e300", "high:-5s"])
    func badTargets(text: String) {
        #expect(throws: FunnelError.self) { try LatencyTarget(parsing: text) }
    }
}
