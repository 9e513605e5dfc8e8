import Foundation
public import PushMockCore
package import PushMockJSON
public import PushMockRecording

/// Which recorded exchanges you mean. Every given condition must hold; an empty query matches
/// everything. The same query is written three ways:
///
/// | Swift | REST query item | CLI flag |
/// |---|---|---|
/// | `platform` | `platform=apns` | `--platform apns` |
/// | `token` (glob) | `token=00fc13ad*` | `--token …` |
/// | `topic` (glob; APNs topic or FCM topic) | `topic=com.example.*` | `--topic …` |
/// | `project` (glob; FCM) | `project=…` | `--project …` |
/// | `namespace` | `namespace=ci-7` | `--namespace …` |
/// | `status` (`200`, `4xx`) | `status=410` | `--status …` |
/// | `reason` | `reason=Unregistered` | `--reason …` |
/// | `pushType` | `pushType=alert` | `--push-type …` |
/// | `priority` | `priority=10` | `--priority …` |
/// | `environment` | `environment=sandbox` | `--environment …` |
/// | `collapseID` | `collapseId=…` | `--collapse-id …` |
/// | `messageID` (apns-id or FCM message name) | `messageId=…` | `--message-id …` |
/// | `since`, `until` (gateway clock; `until` exclusive) | `since=2026-11-21T10:00:00Z`, `since=-2h` | `--since 10:00`, `--since -2h` |
/// | `payload` (``PayloadPredicate``s) | `where=$.aps.alert.title=Hi` (repeatable) | `--json-path '$.aps.alert.title=Hi'` (repeatable) |
/// | `text` (free text, ``TextSearch``) | `text=lab results` | `--text 'lab results'` |
///
/// `docs/queries.md` has the full description.
public struct RecordingQuery: Sendable, Hashable, Codable {
    public var platform: Platform?
    public var token: Glob?
    public var topic: Glob?
    public var project: Glob?
    public var namespace: String?
    public var status: StatusFilter?
    public var reason: String?
    public var pushType: String?
    public var priority: Int?
    public var environment: String?
    public var collapseID: String?
    public var messageID: String?
    public var since: Timestamp?
    public var until: Timestamp?
    public var payload: [PayloadPredicate]
    /// Free text found, case-insensitively, in the titles, bodies and other strings of the
    /// payload, the token, topic or project, the reason or the path (``TextSearch``).
    public var text: TextSearch?

    public init(
        platform: Platform? = nil,
        token: Glob? = nil,
        topic: Glob? = nil,
        project: Glob? = nil,
        namespace: String? = nil,
        status: StatusFilter? = nil,
        reason: String? = nil,
        pushType: String? = nil,
        priority: Int? = nil,
        environment: String? = nil,
        collapseID: String? = nil,
        messageID: String? = nil,
        since: Timestamp? = nil,
        until: Timestamp? = nil,
        payload: [PayloadPredicate] = [],
        text: TextSearch? = nil
    ) {
        self.platform = platform
        self.token = token
        self.topic = topic
        self.project = project
        self.namespace = namespace
        self.status = status
        self.reason = reason
        self.pushType = pushType
        self.priority = priority
        self.environment = environment
        self.collapseID = collapseID
        self.messageID = messageID
        self.since = since
        self.until = until
        self.payload = payload
        self.text = text
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case platform, token, topic, project, namespace, status, reason, pushType, priority, environment, since, until, payload, text
        case collapseID = "collapseId"
        case messageID = "messageId"
    }

    /// Unknown members are refused: `{"platfrm": "apns"}` was a query for every exchange, and
    /// an expectation or check on it passed.
    public init(from decoder: any Decoder) throws {
        try UnknownMembers.reject(in: decoder, known: CodingKeys.allCases.map(\.rawValue), what: "a query")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        platform = try container.decodeIfPresent(Platform.self, forKey: .platform)
        token = try container.decodeIfPresent(Glob.self, forKey: .token)
        topic = try container.decodeIfPresent(Glob.self, forKey: .topic)
        project = try container.decodeIfPresent(Glob.self, forKey: .project)
        namespace = try container.decodeIfPresent(String.self, forKey: .namespace)
        status = try container.decodeIfPresent(StatusFilter.self, forKey: .status)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        pushType = try container.decodeIfPresent(String.self, forKey: .pushType)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
        collapseID = try container.decodeIfPresent(String.self, forKey: .collapseID)
        messageID = try container.decodeIfPresent(String.self, forKey: .messageID)
        since = try container.decodeIfPresent(FlexibleTimestamp.self, forKey: .since)?.timestamp
        until = try container.decodeIfPresent(FlexibleTimestamp.self, forKey: .until)?.timestamp
        payload = try container.decodeIfPresent([PayloadPredicate].self, forKey: .payload) ?? []
        text = try container.decodeIfPresent(String.self, forKey: .text).flatMap(TextSearch.init)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(platform, forKey: .platform)
        try container.encodeIfPresent(token, forKey: .token)
        try container.encodeIfPresent(topic, forKey: .topic)
        try container.encodeIfPresent(project, forKey: .project)
        try container.encodeIfPresent(namespace, forKey: .namespace)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(pushType, forKey: .pushType)
        try container.encodeIfPresent(priority, forKey: .priority)
        try container.encodeIfPresent(environment, forKey: .environment)
        try container.encodeIfPresent(collapseID, forKey: .collapseID)
        try container.encodeIfPresent(messageID, forKey: .messageID)
        try container.encodeIfPresent(since.map(FlexibleTimestamp.init), forKey: .since)
        try container.encodeIfPresent(until.map(FlexibleTimestamp.init), forKey: .until)
        if !payload.isEmpty { try container.encode(payload, forKey: .payload) }
        try container.encodeIfPresent(text?.text, forKey: .text)
    }

    /// Whether `record` satisfies every condition.
    public func matches(_ record: ExchangeRecord) -> Bool {
        conditions.allSatisfy { $0.evaluate(record).passed }
    }

    /// Whether the cheap, summary-level conditions allow `summary` (a prefilter before records
    /// are decoded; payload and the other conditions are checked on the record).
    public func mayMatch(_ summary: ExchangeSummary) -> Bool {
        if let platform, summary.platform != platform { return false }
        if let namespace, summary.namespace != namespace { return false }
        if let status, !status.contains(summary.status) { return false }
        if let reason, summary.reason != reason { return false }
        if let since, summary.timeMilliseconds < since.millisecondsSince1970 { return false }
        if let until, summary.timeMilliseconds >= until.millisecondsSince1970 { return false }
        return true
    }

    /// Whether no condition is given.
    public var isEmpty: Bool { conditions.isEmpty }

    /// Each condition on its own, in a fixed order, for explaining near misses.
    public var conditions: [QueryCondition] {
        var conditions: [QueryCondition] = []
        // Token patterns compare APNs tokens (hex) in any case; FCM tokens are case-sensitive
        // but never differ only by case in practice.
        let tokenMatches: (@Sendable (String) -> Bool)? = token.map { token in
            let folded = Glob(token.pattern.lowercased())
            return { token.matches($0) || folded.matches($0.lowercased()) }
        }
        func add(
            _ name: String, _ expected: String, _ actual: @escaping @Sendable (ExchangeRecord) -> String?,
            _ test: @escaping @Sendable (String?) -> Bool
        ) {
            conditions.append(
                QueryCondition(name: name, expected: expected) { record in
                    let value = actual(record)
                    return (test(value), value ?? "(none)")
                })
        }
        if let platform { add("platform", platform.rawValue, { $0.platform.rawValue }, { $0 == platform.rawValue }) }
        if let namespace { add("namespace", namespace, { $0.namespace }, { $0 == namespace }) }
        if let token, let matches = tokenMatches {
            // An Expo request carries up to 100 recipients: any of them (relayed, in
            // `resolvedTokens`) matches.
            add(
                "token", token.pattern,
                { record in
                    guard let notification = record.notification else { return nil }
                    if let single = notification.token { return single }
                    guard record.platform == .expo else { return nil }
                    return notification.resolvedTokens.first(where: matches) ?? notification.resolvedTokens.first
                }, { $0.map(matches) ?? false })
        }
        if let topic { add("topic", topic.pattern, { $0.notification?.topic }, { $0.map(topic.matches) ?? false }) }
        if let project { add("project", project.pattern, { $0.notification?.project }, { $0.map(project.matches) ?? false }) }
        if let status {
            add("status", status.description, { String($0.response.status) }, { $0.flatMap(Int.init).map(status.contains) ?? false })
        }
        if let reason { add("reason", reason, { $0.response.reason }, { $0 == reason }) }
        if let pushType { add("pushType", pushType, { $0.notification?.pushType }, { $0 == pushType }) }
        if let priority {
            let expected = String(priority)
            add(
                "priority", expected,
                { record in
                    // The messages of an Expo batch (a token's, with a token condition), each
                    // with its own priority.
                    guard let messages = Self.expoMessages(of: record, forTokens: tokenMatches) else {
                        return record.notification?.priority.map(String.init)
                    }
                    let values = messages.map {
                        $0["priority"]?.stringValue.flatMap(ExpoPriority.init(rawValue:)).map { String($0.apnsPriority) }
                    }
                    return values.first { $0 == expected } ?? values.first ?? nil
                }, { $0 == expected })
        }
        if let environment { add("environment", environment, { $0.environment }, { $0 == environment }) }
        if let collapseID {
            add(
                "collapseId", collapseID,
                { record in
                    guard let messages = Self.expoMessages(of: record, forTokens: tokenMatches) else {
                        return record.notification?.collapseID
                    }
                    let values = messages.map { $0["collapseId"]?.stringValue }
                    return values.first { $0 == collapseID } ?? values.first ?? nil
                }, { $0 == collapseID })
        }
        if let messageID { add("messageId", messageID, { $0.notification?.messageID }, { $0 == messageID }) }
        if let since {
            add("since", since.description, { Timestamp(millisecondsSince1970: $0.timeMilliseconds).description }) { value in
                value.flatMap(ISO8601Milliseconds.parse).map { $0 >= since.millisecondsSince1970 } ?? false
            }
        }
        if let until {
            add("until", until.description, { Timestamp(millisecondsSince1970: $0.timeMilliseconds).description }) { value in
                value.flatMap(ISO8601Milliseconds.parse).map { $0 < until.millisecondsSince1970 } ?? false
            }
        }
        for predicate in payload {
            conditions.append(
                QueryCondition(name: predicate.path, expected: predicate.expectationText) { record in
                    let result = predicate.evaluate(Self.payload(of: record, forTokens: tokenMatches))
                    let actual = result.found.isEmpty ? "(absent)" : result.found.map(PayloadPredicate.render).joined(separator: ", ")
                    return (result.passed, actual)
                })
        }
        if let text {
            conditions.append(
                QueryCondition(name: "text", expected: "contains \"\(text.text)\"") { record in
                    let found = text.firstMatch(in: record)
                    return (found != nil, found ?? "(nowhere)")
                })
        }
        return conditions
    }

    /// The body payload conditions read. With a token condition, an Expo request of several
    /// messages is narrowed to the messages for the matching relayed recipients (still an
    /// array, so `$[*].data.type` reads them): "Ana got a marketing push" must not pass
    /// because the batch that brought Ana her dose reminder also brought Ben a sale.
    static func payload(of record: ExchangeRecord, forTokens matches: (@Sendable (String) -> Bool)?) -> JSONValue? {
        expoMessages(of: record, forTokens: matches).map(JSONValue.array) ?? record.request.body.jsonValue
    }

    /// The messages of an Expo request of several, which the payload, priority and collapse-id
    /// conditions read: with a token condition those for the matching relayed recipients,
    /// without one all of them (the record's own priority and collapse id are the first
    /// message's). `nil` for every other record (those conditions read the record as a whole).
    static func expoMessages(of record: ExchangeRecord, forTokens matches: (@Sendable (String) -> Bool)?) -> [JSONValue]? {
        guard record.platform == .expo, case .array(let messages)? = record.request.body.jsonValue, messages.count > 1 else {
            return nil
        }
        guard let matches else { return messages }
        let relayed = Set(record.notification?.resolvedTokens ?? [])
        return messages.filter { message in
            Self.expoRecipients(of: message).contains { relayed.contains($0) && matches($0) }
        }
    }

    /// An Expo message's recipients as sent: `to` is a token or a list of them.
    package static func expoRecipients(of message: JSONValue) -> [String] {
        if let token = message["to"]?.stringValue { return [token] }
        return message["to"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// A one-line description: `platform=apns token=00fc… $.aps.alert.title=Hi`.
    public var summary: String {
        isEmpty ? "(every exchange)" : queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
    }
}

/// One condition of a query, evaluable on its own.
public struct QueryCondition: Sendable {
    public var name: String
    /// What the query asks for, in words (`= "Hi"`, `~ Time for *`, `200`).
    public var expected: String
    /// Whether the record passes, and what it had.
    public let evaluate: @Sendable (ExchangeRecord) -> (passed: Bool, actual: String)

    package init(name: String, expected: String, evaluate: @escaping @Sendable (ExchangeRecord) -> (passed: Bool, actual: String)) {
        self.name = name
        self.expected = expected
        self.evaluate = evaluate
    }
}

extension PayloadPredicate {
    var expectationText: String {
        switch op {
        case .exists: return "present"
        case .absent: return "absent"
        case .matches: return "~ \(value?.stringValue ?? "")"
        case .notMatches: return "!~ \(value?.stringValue ?? "")"
        case .notEquals: return "≠ \(value.map(PayloadPredicate.render) ?? "")"
        default: return value.map(PayloadPredicate.render) ?? ""
        }
    }
}

/// `200`, or a class such as `4xx`.
public struct StatusFilter: Sendable, Hashable, Codable, CustomStringConvertible {
    public let low: Int
    public let high: Int

    public init?(_ text: String) {
        let lowered = text.lowercased()
        if lowered.count == 3, lowered.hasSuffix("xx"), let first = Int(lowered.prefix(1)), (1...5).contains(first) {
            low = first * 100
            high = first * 100 + 99
        } else if let exact = Int(text), (0...999).contains(exact) {
            low = exact
            high = exact
        } else {
            return nil
        }
    }

    public static func exactly(_ status: Int) -> StatusFilter { StatusFilter(String(status))! }

    public func contains(_ status: Int) -> Bool { (low...high).contains(status) }

    public var description: String { low == high ? String(low) : "\(low / 100)xx" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text: String
        if let number = try? container.decode(Int.self) {
            text = String(number)
        } else {
            text = try container.decode(String.self)
        }
        guard let filter = StatusFilter(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "status must be a number or a class such as 4xx")
        }
        self = filter
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if low == high { try container.encode(low) } else { try container.encode(description) }
    }
}
