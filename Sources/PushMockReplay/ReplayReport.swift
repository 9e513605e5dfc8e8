import PushMockCore
import PushMockJSON
import PushMockSender
import PushMockToolkit

/// The comparisons of a replay and their summary, with text, JSON and JUnit renderings.
public struct ReplayReport: Sendable, Hashable {
    /// One per replayed exchange, in journal order.
    public var comparisons: [ReplayComparison]

    public init(comparisons: [ReplayComparison]) {
        self.comparisons = comparisons
    }

    public var sameCount: Int { comparisons.count(where: { $0.verdict == .same }) }
    public var differentCount: Int { comparisons.count(where: { $0.verdict == .different }) }
    public var skippedCount: Int { comparisons.count(where: { $0.verdict == .skipped }) }

    /// The comparisons whose outcome changed.
    public var differences: [ReplayComparison] { comparisons.filter { $0.verdict == .different } }

    /// True when no replayed outcome differs from its recording.
    public var allMatch: Bool { differentCount == 0 }

    /// One line per exchange and a summary line, for people.
    public func renderText() -> String {
        var text = ""
        for comparison in comparisons {
            let replayed = comparison.replayed.map(\.description) ?? "not sent (no \(comparison.platform) credentials)"
            let mark =
                switch comparison.verdict {
                case .same: "same     "
                case .different: "DIFFERENT"
                case .skipped: "skipped  "
                }
            text +=
                "\(mark) #\(comparison.sequence) \(comparison.platform) \(comparison.recipient): recorded \(comparison.recorded), replayed \(replayed)\n"
        }
        text += "\(comparisons.count) replayed: \(sameCount) same, \(differentCount) different"
        if skippedCount > 0 { text += ", \(skippedCount) skipped" }
        text += "\n"
        return text
    }

    /// One JSON object: `summary` (`total`, `same`, `different`, `skipped`, `allMatch`) and
    /// `exchanges` (each with `seq`, `platform`, `recipient`, `path`, `verdict`, `recorded`,
    /// `replayed`, `attempts`, `replayedId`).
    public func renderJSON() -> String {
        func outcome(_ outcome: ReplayOutcome?) -> JSONValue {
            guard let outcome else { return .null }
            var object: JSONObject = ["kind": .string(outcome.kind.rawValue)]
            object.members.append((key: "status", value: outcome.status.map { JSONValue($0) } ?? .null))
            object.members.append((key: "reason", value: outcome.reason.map { JSONValue($0) } ?? .null))
            return .object(object)
        }
        let exchanges = comparisons.map { comparison -> JSONValue in
            var object = JSONObject()
            object.members.append((key: "seq", value: JSONValue(comparison.sequence)))
            object.members.append((key: "platform", value: .string(comparison.platform.rawValue)))
            object.members.append((key: "recipient", value: .string(comparison.recipient)))
            object.members.append((key: "path", value: .string(comparison.path)))
            object.members.append((key: "verdict", value: .string(comparison.verdict.rawValue)))
            object.members.append((key: "recorded", value: outcome(comparison.recorded)))
            object.members.append((key: "replayed", value: outcome(comparison.replayed)))
            object.members.append((key: "attempts", value: JSONValue(comparison.attempts)))
            if let id = comparison.replayedID { object.members.append((key: "replayedId", value: .string(id))) }
            return .object(object)
        }
        let summary: JSONObject = [
            "total": JSONValue(comparisons.count),
            "same": JSONValue(sameCount),
            "different": JSONValue(differentCount),
            "skipped": JSONValue(skippedCount),
            "allMatch": .bool(allMatch),
        ]
        let document: JSONObject = ["summary": .object(summary), "exchanges": .array(exchanges)]
        return JSONValue.object(document).compactString
    }

    /// A JUnit document: one test case per exchange, failed when its outcome differs.
    public func renderJUnit(suite: String = "pushmock.replay") -> String {
        let cases = comparisons.map { comparison in
            JUnitReport.TestCase(
                name: "#\(comparison.sequence) \(comparison.platform) \(comparison.recipient)",
                className: suite,
                failure: comparison.verdict == .different
                    ? "recorded \(comparison.recorded), replayed \(comparison.replayed.map(\.description) ?? "nothing")"
                    : nil
            )
        }
        return JUnitReport.render(cases, suite: suite)
    }
}
