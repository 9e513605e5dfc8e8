import Foundation
import PushMockCore
public import PushMockQuery
public import PushMockRecording

/// "Exactly one alert to token X whose title is …", as data: a query, how many matches, and
/// how long to wait for them. Evaluated the same way in Swift (`PushMockTesting`), by the REST
/// API (`POST /_pushmock/expectations`) and by `pushmock expect`.
///
/// JSON: `{"name": "dose reminder", "query": {"token": "00fc…", "payload": [...]},
/// "count": {"exactly": 1}, "within": "5s"}`, optionally with `"deepLink": {"routes": …,
/// "screen": "/protocols/{id}/log", "parameters": {"id": "p1"}}` (see ``DeepLinkRequirement``).
public struct Expectation: Sendable, Hashable, Codable {
    public var name: String?
    public var query: RecordingQuery
    public var count: CountRule
    /// Wait up to this long for the count to be reached (for `exactly 0` / `atMost`: watch this
    /// long, then judge). `nil`: judge what is recorded now.
    public var within: Duration?
    /// What the notification's deep link must open; `nil`: links are not looked at.
    public var deepLink: DeepLinkRequirement?

    public init(
        name: String? = nil,
        query: RecordingQuery,
        count: CountRule = .exactly(1),
        within: Duration? = nil,
        deepLink: DeepLinkRequirement? = nil
    ) {
        self.name = name
        self.query = query
        self.count = count
        self.within = within
        self.deepLink = deepLink
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, query, count, within, deepLink }

    /// Unknown members are refused: with `"cont"` for `"count"` the default (exactly 1) was
    /// judged without a word.
    public init(from decoder: any Decoder) throws {
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "an expectation")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        query = try container.decode(RecordingQuery.self, forKey: .query)
        count = try container.decodeIfPresent(CountRule.self, forKey: .count) ?? .exactly(1)
        within = try container.decodeIfPresent(FlexibleDuration.self, forKey: .within)?.duration
        if let within, within < .zero {
            throw DecodingError.dataCorruptedError(forKey: .within, in: container, debugDescription: "within must not be negative")
        }
        deepLink = try container.decodeIfPresent(DeepLinkRequirement.self, forKey: .deepLink)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(query, forKey: .query)
        try container.encode(count, forKey: .count)
        try container.encodeIfPresent(within.map(FlexibleDuration.init), forKey: .within)
        try container.encodeIfPresent(deepLink, forKey: .deepLink)
    }

    /// The query's conditions, then the deep-link requirement as one more condition (named
    /// `deepLink`), so near misses show where a candidate's link actually leads.
    public var conditions: [QueryCondition] {
        var conditions = query.conditions
        if let deepLink {
            conditions.append(QueryCondition(name: "deepLink", expected: deepLink.summary) { deepLink.evaluate($0) })
        }
        return conditions
    }

    /// Whether `record` counts towards the expectation.
    public func matches(_ record: ExchangeRecord) -> Bool {
        query.matches(record) && (deepLink.map { $0.evaluate(record).passed } ?? true)
    }

    /// Whether waiting can end early: the count can only be settled by watching the whole
    /// window when it bounds the count from above.
    public var waitsForWholeWindow: Bool { count.maximum != nil && count.minimum == 0 }

    /// `exactly 1 exchange where token=… $.aps.alert.title=…`.
    public var summary: String {
        "\(count) \(count.maximum == 1 && count.minimum == 1 ? "exchange" : "exchanges") where \(query.summary)"
            + (deepLink.map { " whose deep link \($0.summary)" } ?? "")
            + (within.map { " within \(DurationText.format($0))" } ?? "")
    }
}

/// How many matches an expectation wants.
public struct CountRule: Sendable, Hashable, Codable, CustomStringConvertible {
    public var minimum: Int
    /// `nil`: no upper bound.
    public var maximum: Int?

    public static func exactly(_ count: Int) -> CountRule { CountRule(minimum: count, maximum: count) }
    public static func atLeast(_ count: Int) -> CountRule { CountRule(minimum: count, maximum: nil) }
    public static func atMost(_ count: Int) -> CountRule { CountRule(minimum: 0, maximum: count) }
    /// Absence: "nothing was sent to token Y".
    public static let none = CountRule.exactly(0)

    public init(minimum: Int, maximum: Int?) {
        self.minimum = minimum
        self.maximum = maximum
    }

    public func accepts(_ count: Int) -> Bool {
        count >= minimum && (maximum.map { count <= $0 } ?? true)
    }

    public var description: String {
        switch (minimum, maximum) {
        case (let low, let high?) where low == high: return "exactly \(low)"
        case (0, let high?): return "at most \(high)"
        case (let low, nil): return "at least \(low)"
        case (let low, let high?): return "between \(low) and \(high)"
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case exactly, atLeast, atMost }

    public init(from decoder: any Decoder) throws {
        // A negative count can never be met: a mistake to report, not an expectation that
        // quietly always fails (the CLI's --count refuses it too).
        func exact(_ count: Int) throws -> CountRule {
            guard count >= 0 else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "count needs 0 ≤ exactly"))
            }
            return .exactly(count)
        }
        if let single = try? decoder.singleValueContainer().decode(Int.self) {
            self = try exact(single)
            return
        }
        // `{"none": true}` was at least 0: always met.
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "a count")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // One reading only: `{}` was "at least 0" (always met), and `exactly` beside bounds
        // left the bounds unread.
        guard !container.allKeys.isEmpty else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "count needs exactly, or atLeast and/or atMost"))
        }
        if let exactly = try container.decodeIfPresent(Int.self, forKey: .exactly) {
            guard container.allKeys.count == 1 else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "count takes exactly, or atLeast and/or atMost, not both"))
            }
            self = try exact(exactly)
            return
        }
        let low = try container.decodeIfPresent(Int.self, forKey: .atLeast) ?? 0
        let high = try container.decodeIfPresent(Int.self, forKey: .atMost)
        guard low >= 0, (high ?? low) >= low else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "count needs 0 ≤ atLeast ≤ atMost"))
        }
        self = CountRule(minimum: low, maximum: high)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let maximum, maximum == minimum {
            try container.encode(minimum, forKey: .exactly)
        } else {
            if minimum > 0 { try container.encode(minimum, forKey: .atLeast) }
            try container.encodeIfPresent(maximum, forKey: .atMost)
        }
    }
}

/// Notifications expected in this order (each step a query; other exchanges may come between).
public struct OrderExpectation: Sendable, Hashable, Codable {
    public var name: String?
    public var steps: [RecordingQuery]

    public init(name: String? = nil, steps: [RecordingQuery]) {
        self.name = name
        self.steps = steps
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, steps }

    public init(from decoder: any Decoder) throws {
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "an order expectation")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        steps = try container.decode([RecordingQuery].self, forKey: .steps)
        // No steps is always "in order": a check that cannot fail.
        guard !steps.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .steps, in: container, debugDescription: "an order needs at least one step")
        }
    }
}
