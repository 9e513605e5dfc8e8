/// The deep links of one notification, how they resolved, and what is wrong.
public struct DeepLinkNotificationReport: Sendable, Hashable, Codable, CustomStringConvertible {
    public var notification: NotificationReference
    public var links: [CheckedDeepLink]
    public var problems: [DeepLinkProblem]

    public init(notification: NotificationReference, links: [CheckedDeepLink], problems: [DeepLinkProblem]) {
        self.notification = notification
        self.links = links
        self.problems = problems
    }

    public var isClean: Bool { problems.isEmpty }

    /// The screens the links open (routes and fallbacks), in link order.
    public var screens: [String] { links.compactMap(\.match.screen) }

    /// The resolution of the link at `location` (`$.deep_link`), if that link matched a route.
    public func resolution(at location: String) -> DeepLinkResolution? {
        links.first { $0.location == location }?.match.resolution
    }

    /// The notification, its links and its problems, one per line.
    public var description: String {
        var lines = [notification.description]
        lines += links.map { "  \($0)" }
        lines += problems.map { "  PROBLEM \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// The result of ``DeepLinkChecker/check(_:)-(Sequence<ExchangeRecord>)``: every checked
/// notification with its links and problems.
///
/// ``description`` (``text``) lists only the notifications with problems; ``detailedText`` lists
/// every notification and link. The `Codable` form is `{"notifications": [...]}` plus counts.
public struct DeepLinkReport: Sendable, Hashable, Codable, CustomStringConvertible {
    /// One problem together with the notification it belongs to.
    public struct Finding: Sendable, Hashable, Codable, CustomStringConvertible {
        public var notification: NotificationReference
        public var problem: DeepLinkProblem

        public var description: String { "\(notification): \(problem)" }
    }

    public var notifications: [DeepLinkNotificationReport]

    public init(notifications: [DeepLinkNotificationReport]) {
        self.notifications = notifications
    }

    enum CodingKeys: String, CodingKey {
        case notificationCount, linkCount, problemCount, notifications
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        notifications = try container.decode([DeepLinkNotificationReport].self, forKey: .notifications)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(notifications.count, forKey: .notificationCount)
        try container.encode(linkCount, forKey: .linkCount)
        try container.encode(findings.count, forKey: .problemCount)
        try container.encode(notifications, forKey: .notifications)
    }

    public var isClean: Bool { notifications.allSatisfy(\.isClean) }

    public var linkCount: Int { notifications.reduce(0) { $0 + $1.links.count } }

    /// Every problem, in notification order.
    public var findings: [Finding] {
        notifications.flatMap { report in report.problems.map { Finding(notification: report.notification, problem: $0) } }
    }

    /// The problems of one kind.
    public func findings(_ kind: DeepLinkProblemKind) -> [Finding] {
        findings.filter { $0.problem.kind == kind }
    }

    /// The report for the record with sequence number `sequence`.
    public func notification(sequence: UInt64) -> DeepLinkNotificationReport? {
        notifications.first { $0.notification.sequence == sequence }
    }

    /// `Deep links: 7 notifications, 9 links, 2 problems (1 no-route, 1 fallback)`.
    public var summary: String {
        let problems = findings
        var text = "Deep links: \(Self.count(notifications.count, "notification")), \(Self.count(linkCount, "link")), "
        text += Self.count(problems.count, "problem")
        if !problems.isEmpty {
            let byKind = Dictionary(grouping: problems, by: \.problem.kind).sorted { $0.key < $1.key }
            text += " (" + byKind.map { "\($0.value.count) \($0.key)" }.joined(separator: ", ") + ")"
        }
        return text
    }

    /// The summary, then each notification with problems.
    public var text: String {
        ([summary] + notifications.filter { !$0.isClean }.map(\.description)).joined(separator: "\n")
    }

    /// The summary, then every notification with its links.
    public var detailedText: String {
        ([summary] + notifications.map(\.description)).joined(separator: "\n")
    }

    public var description: String { text }

    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
