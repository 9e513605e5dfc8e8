import Foundation
public import PushMockCore
import PushMockJSON
public import PushMockRecording

/// One recorded exchange, briefly: enough to recognise it in a failure message.
public struct RecordSummary: Sendable, Hashable, Codable, CustomStringConvertible {
    public var sequence: UInt64
    public var time: String
    public var platform: Platform
    public var token: String?
    public var topic: String?
    public var status: Int
    public var reason: String?
    public var messageID: String?
    public var title: String?
    public var body: String?
    /// How many recipients one request reached, when more than one (an Expo request of many
    /// messages, an FCM topic send).
    public var recipientCount: Int?
    /// Expo: the tickets the answer carried, counted (`ok 2, DeviceNotRegistered 1`).
    public var tickets: String?

    public init(_ record: ExchangeRecord) {
        sequence = record.sequence
        time = Timestamp(millisecondsSince1970: record.timeMilliseconds).description
        platform = record.platform
        let recipients = record.notification?.resolvedTokens ?? []
        token = record.notification?.token ?? (recipients.count == 1 ? recipients.first : nil)
        recipientCount = recipients.count > 1 ? recipients.count : nil
        topic = record.notification?.topic ?? record.notification?.project
        status = record.response.status
        reason = record.response.reason
        messageID = record.notification?.messageID
        tickets = record.annotations["tickets"]
        let alert = AlertFields(record)
        title = alert.title
        body = alert.body
    }

    public var description: String {
        var parts = ["#\(sequence)", time, platform.rawValue]
        if let token { parts.append(TokenText.short(token, keep: 12, limit: 16)) }
        if let recipientCount { parts.append("\(recipientCount) recipients") }
        if let topic { parts.append(topic) }
        parts.append(String(status) + (reason.map { " \($0)" } ?? "") + (tickets.map { " (tickets: \($0))" } ?? ""))
        let text = [title, body].compactMap { $0 }.map { "\"\($0)\"" }.joined(separator: " / ")
        if !text.isEmpty { parts.append(text) }
        return parts.joined(separator: "  ")
    }
}

/// A condition a near miss failed.
public struct ConditionMismatch: Sendable, Hashable, Codable {
    public var condition: String
    public var expected: String
    public var actual: String
}

/// An exchange that satisfied most, but not all, of a query.
public struct NearMiss: Sendable, Hashable, Codable {
    public var record: RecordSummary
    public var mismatches: [ConditionMismatch]
}

/// The verdict on one expectation: passed or not, what matched, and — when it failed — the
/// nearest misses with the conditions each one failed.
public struct ExpectationResult: Sendable, Hashable, Codable {
    public var name: String?
    public var passed: Bool
    /// What was asked, in words.
    public var expected: String
    public var matchedCount: Int
    /// The matching exchanges (at most 20, oldest first).
    public var matched: [RecordSummary]
    /// When failing because too few matched: the closest other exchanges (at most 3).
    public var nearestMisses: [NearMiss]
    /// How many exchanges were considered.
    public var consideredCount: Int
    /// The whole verdict as readable text.
    public var message: String
}

/// Evaluates expectations against records.
public enum ExpectationEvaluator {
    /// Judges `expectation` against `records` (any order).
    public static func evaluate(_ expectation: Expectation, records: [ExchangeRecord]) -> ExpectationResult {
        let ordered = records.sorted { $0.sequence < $1.sequence }
        let conditions = expectation.conditions
        var matched: [ExchangeRecord] = []
        var misses: [(record: ExchangeRecord, mismatches: [ConditionMismatch], passed: Int)] = []
        for record in ordered {
            var mismatches: [ConditionMismatch] = []
            for condition in conditions {
                let (passed, actual) = condition.evaluate(record)
                if !passed { mismatches.append(ConditionMismatch(condition: condition.name, expected: condition.expected, actual: actual)) }
            }
            if mismatches.isEmpty {
                matched.append(record)
            } else {
                misses.append((record, mismatches, conditions.count - mismatches.count))
            }
        }
        let passed = expectation.count.accepts(matched.count)
        var nearest: [NearMiss] = []
        if !passed, matched.count < expectation.count.minimum {
            // Closest first: fewest failed conditions, then the newest. A record that shares
            // nothing with the query is no "near" miss.
            nearest =
                misses
                .filter { $0.passed > 0 || conditions.count == 1 }
                .sorted { ($0.mismatches.count, $1.record.sequence) < ($1.mismatches.count, $0.record.sequence) }
                .prefix(3)
                .map { NearMiss(record: RecordSummary($0.record), mismatches: $0.mismatches) }
        }
        var result = ExpectationResult(
            name: expectation.name,
            passed: passed,
            expected: expectation.summary,
            matchedCount: matched.count,
            matched: matched.prefix(20).map(RecordSummary.init),
            nearestMisses: nearest,
            consideredCount: ordered.count,
            message: ""
        )
        result.message = render(result)
        return result
    }

    /// Judges an order: each step must match an exchange after the previous step's.
    public static func evaluate(_ order: OrderExpectation, records: [ExchangeRecord]) -> ExpectationResult {
        let ordered = records.sorted { $0.sequence < $1.sequence }
        var position = 0
        var found: [ExchangeRecord] = []
        var failedStep: Int?
        for (index, step) in order.steps.enumerated() {
            guard let next = ordered[position...].firstIndex(where: step.matches) else {
                failedStep = index
                break
            }
            found.append(ordered[next])
            position = next + 1
        }
        let expected = "in order: " + order.steps.enumerated().map { "\($0.offset + 1). \($0.element.summary)" }.joined(separator: "; ")
        var result = ExpectationResult(
            name: order.name,
            passed: failedStep == nil,
            expected: expected,
            matchedCount: found.count,
            matched: found.map(RecordSummary.init),
            nearestMisses: [],
            consideredCount: ordered.count,
            message: ""
        )
        if let failedStep {
            let rest = Array(ordered[position...])
            let stepResult = evaluate(Expectation(query: order.steps[failedStep], count: .atLeast(1)), records: rest)
            result.nearestMisses = stepResult.nearestMisses
            let earlier = ordered[..<position].contains(where: order.steps[failedStep].matches)
            var message = "✗ expected \(expected)\n  step \(failedStep + 1) (\(order.steps[failedStep].summary)) has no match"
            message += found.isEmpty ? "" : " after #\(found.last!.sequence)"
            if earlier { message += "; a match exists earlier — the order is wrong" }
            message += "\n" + renderMisses(result.nearestMisses)
            result.message = message
        } else {
            result.message = "✓ " + expected + "\n  matched " + found.map { "#\($0.sequence)" }.joined(separator: ", ")
        }
        return result
    }

    static func render(_ result: ExpectationResult) -> String {
        var lines: [String] = []
        let label = result.name.map { "\($0): " } ?? ""
        lines.append("\(result.passed ? "✓" : "✗") \(label)expected \(result.expected)")
        lines.append("  found \(result.matchedCount) matching (of \(result.consideredCount) recorded)")
        if !result.passed {
            for summary in result.matched.prefix(10) {
                lines.append("    \(summary)")
            }
            if !result.nearestMisses.isEmpty {
                lines.append(renderMisses(result.nearestMisses))
            } else if result.matchedCount == 0 {
                lines.append("  no exchange came close")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func renderMisses(_ misses: [NearMiss]) -> String {
        guard !misses.isEmpty else { return "" }
        var lines = ["  nearest misses:"]
        for miss in misses {
            lines.append("    \(miss.record)")
            for mismatch in miss.mismatches {
                lines.append("      \(mismatch.condition): expected \(mismatch.expected), got \(mismatch.actual)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// The title and body a notification shows (APNs `aps.alert`, FCM notification fields).
struct AlertFields {
    var title: String?
    var body: String?

    init(_ record: ExchangeRecord) {
        guard let body = record.request.body.jsonValue else { return }
        if record.platform == .fcm {
            let message = body["message"]
            for candidate in [
                message?["notification"], message?["android"]?["notification"], message?["webpush"]?["notification"],
                message?["apns"]?["payload"]?["aps"]?["alert"],
            ] {
                guard let candidate else { continue }
                if let text = candidate.stringValue {
                    self.body = text
                    return
                }
                if candidate["title"] != nil || candidate["body"] != nil {
                    self.title = candidate["title"]?.stringValue
                    self.body = candidate["body"]?.stringValue
                    return
                }
            }
        } else if record.platform == .expo {
            // One request may carry many messages; the first speaks for it in this one-line
            // summary (which says how many recipients there were). The checks and token
            // queries look at each message.
            let message = body.arrayValue?.first ?? body
            self.title = message["title"]?.stringValue
            self.body = message["body"]?.stringValue
        } else if let alert = body["aps"]?["alert"] {
            if let text = alert.stringValue {
                self.body = text
            } else {
                self.title = alert["title"]?.stringValue
                self.body = alert["body"]?.stringValue
            }
        }
    }
}
