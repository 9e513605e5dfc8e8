/// The funnel sent → accepted → delivered → displayed → opened/acted, in total and per type,
/// category, priority and platform, with delivery-latency percentiles per priority judged
/// against the team's targets. Pure computation over ``FunnelEntry`` values; render it as
/// ``text``, JSON (`Codable`) or ``junit``.
public struct FunnelReport: Sendable, Hashable, Codable {
    /// How many reached each stage.
    public struct Stages: Sendable, Hashable, Codable {
        public var sent = 0
        public var accepted = 0
        public var delivered = 0
        public var displayed = 0
        public var opened = 0
        public var acted = 0
        public var dismissed = 0

        public init() {}

        mutating func add(_ entry: FunnelEntry) {
            sent += 1
            guard entry.accepted else { return }
            accepted += 1
            guard entry.delivered else { return }
            delivered += 1
            if entry.displayed { displayed += 1 }
            if entry.opened { opened += 1 }
            if entry.acted { acted += 1 }
            if entry.dismissed { dismissed += 1 }
        }

        /// Opened or acted on, as a share of displayed (0 when nothing was displayed).
        public var engagementRate: Double {
            displayed == 0 ? 0 : Double(opened + acted) / Double(displayed)
        }
    }

    /// The funnel of the entries sharing one value of one dimension.
    public struct Group: Sendable, Hashable, Codable {
        /// `platform`, `type`, `category` or `priority`.
        public var dimension: String
        /// The value; `(none)` when entries do not have one.
        public var value: String
        public var stages: Stages
    }

    /// Delivery latency of one priority, in milliseconds (nearest-rank percentiles over the
    /// delivered ones).
    public struct Latency: Sendable, Hashable, Codable {
        public var priority: String
        public var delivered: Int
        /// Accepted but not delivered (stored, expired, dropped).
        public var undelivered: Int
        public var p50: Int64?
        public var p90: Int64?
        public var p95: Int64?
        public var p99: Int64?
        public var max: Int64?
    }

    /// A target, what was observed and whether it holds.
    public struct TargetResult: Sendable, Hashable, Codable {
        public var target: LatencyTarget
        /// The latency at the target's percentile over every accepted notification of the
        /// priority (undelivered ones count as infinitely late); `nil`: not delivered, or none.
        public var observedMilliseconds: Int64?
        public var count: Int
        public var passed: Bool
        public var message: String
    }

    public var total: Stages
    public var groups: [Group]
    public var latency: [Latency]
    public var targets: [TargetResult]
    /// Every target holds.
    public var passed: Bool

    public init(entries: [FunnelEntry], targets: [LatencyTarget] = []) {
        var total = Stages()
        var grouped: [String: [String: Stages]] = [:]
        for entry in entries {
            total.add(entry)
            let values: [(String, String?)] = [
                ("platform", entry.platform), ("type", entry.type), ("category", entry.category), ("priority", entry.priority),
            ]
            for (dimension, value) in values {
                grouped[dimension, default: [:]][value ?? "(none)", default: Stages()].add(entry)
            }
        }
        self.total = total
        self.groups = ["platform", "type", "category", "priority"].flatMap { dimension in
            (grouped[dimension] ?? [:]).sorted { $0.key < $1.key }.map { Group(dimension: dimension, value: $0.key, stages: $0.value) }
        }
        let accepted = entries.filter(\.accepted)
        let priorities = Set(accepted.map { $0.priority ?? "(none)" })
        self.latency = Self.priorityOrder(priorities).map { priority in
            let mine = accepted.filter { ($0.priority ?? "(none)") == priority }
            let sorted = mine.compactMap(\.deliveryLatencyMilliseconds).sorted()
            return Latency(
                priority: priority,
                delivered: sorted.count,
                undelivered: mine.count - sorted.count,
                p50: Self.percentile(50, of: sorted),
                p90: Self.percentile(90, of: sorted),
                p95: Self.percentile(95, of: sorted),
                p99: Self.percentile(99, of: sorted),
                max: sorted.last
            )
        }
        self.targets = targets.map { target in
            let mine = accepted.filter { $0.priority == target.priority }
            // Undelivered ones sort last, as infinitely late.
            let latencies = mine.map { $0.deliveryLatencyMilliseconds ?? Int64.max }.sorted()
            guard !latencies.isEmpty else {
                return TargetResult(
                    target: target, observedMilliseconds: nil, count: 0, passed: false,
                    message: "\(target): no \(target.priority)-priority notification was accepted, nothing to measure")
            }
            let observed = Self.percentile(target.percentile, of: latencies) ?? Int64.max
            let passed = observed <= target.withinMilliseconds
            let seen = observed == Int64.max ? "not delivered" : "\(observed) ms"
            let percentile = target.percentile == 100 ? "slowest" : "p\(LatencyTarget.number(target.percentile))"
            return TargetResult(
                target: target,
                observedMilliseconds: observed == Int64.max ? nil : observed,
                count: latencies.count,
                passed: passed,
                message: "\(target): \(percentile) of \(latencies.count) was \(seen)" + (passed ? "" : " — missed")
            )
        }
        self.passed = self.targets.allSatisfy(\.passed)
    }

    /// Nearest rank: the smallest value with at least `percentile`% of the values at or below it.
    static func percentile(_ percentile: Double, of sorted: [Int64]) -> Int64? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((percentile / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    private static func priorityOrder(_ priorities: Set<String>) -> [String] {
        let known = ["high", "normal", "low"]
        return known.filter(priorities.contains) + priorities.subtracting(known).sorted()
    }

    // MARK: Rendering

    /// A plain-text report for a terminal or a CI log.
    public var text: String {
        var lines: [String] = []
        func row(_ label: String, _ stages: Stages) -> String {
            let cells = [stages.sent, stages.accepted, stages.delivered, stages.displayed, stages.opened, stages.acted, stages.dismissed]
            return label.rightPadded(28) + cells.map { String($0).leftPadded(9) }.joined()
        }
        lines.append(
            "".rightPadded(28)
                + ["sent", "accepted", "delivered", "displayed", "opened", "acted", "dismissed"].map { $0.leftPadded(9) }.joined())
        lines.append(row("total", total))
        for group in groups {
            lines.append(row("\(group.dimension) \(group.value)", group.stages))
        }
        if !latency.isEmpty {
            lines.append("")
            lines.append(
                "delivery latency (ms)".rightPadded(28)
                    + ["delivered", "pending", "p50", "p90", "p95", "p99", "max"].map { $0.leftPadded(9) }.joined())
            for entry in latency {
                let cells =
                    [String(entry.delivered), String(entry.undelivered)]
                    + [entry.p50, entry.p90, entry.p95, entry.p99, entry.max].map { $0.map(String.init) ?? "-" }
                lines.append("priority \(entry.priority)".rightPadded(28) + cells.map { $0.leftPadded(9) }.joined())
            }
        }
        if !targets.isEmpty {
            lines.append("")
            for result in targets {
                lines.append((result.passed ? "PASS  " : "FAIL  ") + result.message)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// JUnit XML: one test case per target (and one for the funnel itself, which always passes).
    public var junit: String {
        var cases = [
            JUnitReport.TestCase(
                name:
                    "funnel: \(total.sent) sent, \(total.accepted) accepted, \(total.delivered) delivered, \(total.displayed) displayed, \(total.opened) opened, \(total.acted) acted",
                className: "pushmock.report")
        ]
        cases += targets.map {
            JUnitReport.TestCase(name: $0.target.description, className: "pushmock.report.latency", failure: $0.passed ? nil : $0.message)
        }
        return JUnitReport.render(cases, suite: "pushmock report")
    }
}

extension String {
    fileprivate func rightPadded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }

    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? " " + self : String(repeating: " ", count: width - count) + self
    }
}
