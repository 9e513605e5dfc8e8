import PushMockCheckAPI
public import PushMockToolkit

extension PushMockHarness {
    /// The funnel sent → accepted → delivered → displayed → opened/acted of everything this
    /// gateway has seen (its simulated devices and refused recordings), at the gateway's now,
    /// with delivery latency per priority judged against `targets` — e.g.
    /// `[LatencyTarget(name: "critical", priority: "high", withinMilliseconds: 5000)]`.
    /// `report.passed`, `report.text`, `report.junit`; it is `Codable` for JSON.
    public func funnelReport(targets: [LatencyTarget] = []) -> FunnelReport {
        FunnelReport(entries: CheckControlAPI.funnelEntries(state), targets: targets)
    }
}
