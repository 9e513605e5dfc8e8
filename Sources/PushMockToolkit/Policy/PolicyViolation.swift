public import PushMockCore

/// The kind of rule a violation broke. JSON form: the kebab-case name.
public struct PolicyRuleKind: Hashable, Sendable, Comparable, CustomStringConvertible, StringCodedValue {
    enum Value: String, Hashable, Sendable, CaseIterable {
        case timeZone = "time-zone"
        case quietHours = "quiet-hours"
        case frequencyCap = "frequency-cap"
        case minimumSpacing = "minimum-spacing"
        case priority = "priority"
        case deliveryWindow = "delivery-window"
        case optedOut = "opted-out"
        case eventTiming = "event-timing"
        case eventInstance = "event-instance"
        case canceled = "canceled"
    }

    let value: Value

    /// The payload named a time zone that does not exist; the next source was used instead.
    public static let timeZone = Self(value: .timeZone)
    /// Sent inside a quiet period in the recipient's local time.
    public static let quietHours = Self(value: .quietHours)
    /// More notifications in a window than the cap allows.
    public static let frequencyCap = Self(value: .frequencyCap)
    /// Sent too soon after the previous notification the cap counts.
    public static let minimumSpacing = Self(value: .minimumSpacing)
    /// The wrong APNs or Android priority.
    public static let priority = Self(value: .priority)
    /// Sent outside a delivery window (time of day, days of the week) in local time.
    public static let deliveryWindow = Self(value: .deliveryWindow)
    /// Sent to a user who opted out of its type, category or channel, or of push altogether.
    public static let optedOut = Self(value: .optedOut)
    /// Sent without the anchoring app event before it, or sooner after it than the offset.
    public static let eventTiming = Self(value: .eventTiming)
    /// Sent again when the rule's event instance allows one delivery (`latest-once`, `first`,
    /// or once per instance for `latest`).
    public static let eventInstance = Self(value: .eventInstance)
    /// Sent after one of the rule's cancelation events.
    public static let canceled = Self(value: .canceled)

    /// Every kind, in the order a notification's violations are listed.
    public static let all: [Self] = Value.allCases.map(Self.init(value:))

    private init(value: Value) { self.value = value }

    public init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue) else { return nil }
        self.value = value
    }

    public var rawValue: String { value.rawValue }
    public var description: String { value.rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        Value.allCases.firstIndex(of: lhs.value)! < Value.allCases.firstIndex(of: rhs.value)!
    }

    public static var expectedValues: String { "one of " + all.map(\.rawValue).joined(separator: ", ") }
}

/// One broken rule: which notification, which rule, and the facts that decided it.
///
/// JSON form (absent members omitted):
/// ```json
/// {"kind":"frequency-cap","rule":"dose-reminders-per-day","notification":{"sequence":9,…},
///  "notificationType":"dose-reminder","recipient":"740f…","timeZone":"Europe/Berlin",
///  "localTime":"2026-03-28 21:00:00 +01:00","limit":2,"window":"calendar day",
///  "related":[{"sequence":3,…},{"sequence":5,…}],
///  "message":"3rd dose-reminder notification in the calendar day 2026-03-28 (limit 2)"}
/// ```
public struct PolicyViolation: Sendable, Hashable, Codable, CustomStringConvertible {
    public var kind: PolicyRuleKind
    /// The rule's name from the policy file.
    public var rule: String
    public var notification: NotificationReference
    /// The notification's type under the policy, if it has one.
    public var notificationType: String?
    /// The recipient concerned (a token; `topic:<name>` for unresolved topic sends).
    public var recipient: String?
    /// The recipient's time zone used for the decision.
    public var timeZone: String?
    /// The send time in that zone: `2026-03-28 23:00:00 +01:00`.
    public var localTime: String?
    /// Quiet hours: `22:00–08:00`.
    public var quietPeriod: String?
    /// Frequency caps: the limit and its window (`7d`, `calendar day`).
    public var limit: Int?
    public var window: String?
    /// Minimum spacing: the required gap (`1h`) and the actual one (`45m`).
    public var minimumSpacing: String?
    public var actualSpacing: String?
    /// Priority rules: what was sent and what the rule allows.
    public var actualPriority: String?
    public var allowedPriorities: [String]?
    /// The user the recipient token belongs to, for rules judged per user.
    public var user: String?
    /// The delivery window broken: `09:00–21:00 Monday/Tuesday/…`.
    public var deliveryWindow: String?
    /// Event rules: the app event that decided (the anchor sent too soon after, the cancelation).
    public var event: AppEvent?
    /// The other notifications involved: those that used up the cap, or the previous one.
    public var related: [NotificationReference]
    /// The violation in words.
    public var message: String

    public init(
        kind: PolicyRuleKind,
        rule: String,
        notification: NotificationReference,
        notificationType: String? = nil,
        recipient: String? = nil,
        timeZone: String? = nil,
        localTime: String? = nil,
        quietPeriod: String? = nil,
        limit: Int? = nil,
        window: String? = nil,
        minimumSpacing: String? = nil,
        actualSpacing: String? = nil,
        actualPriority: String? = nil,
        allowedPriorities: [String]? = nil,
        user: String? = nil,
        deliveryWindow: String? = nil,
        event: AppEvent? = nil,
        related: [NotificationReference] = [],
        message: String
    ) {
        self.user = user
        self.deliveryWindow = deliveryWindow
        self.event = event
        self.kind = kind
        self.rule = rule
        self.notification = notification
        self.notificationType = notificationType
        self.recipient = recipient
        self.timeZone = timeZone
        self.localTime = localTime
        self.quietPeriod = quietPeriod
        self.limit = limit
        self.window = window
        self.minimumSpacing = minimumSpacing
        self.actualSpacing = actualSpacing
        self.actualPriority = actualPriority
        self.allowedPriorities = allowedPriorities
        self.related = related
        self.message = message
    }

    /// `quiet-hours "night": sent at 23:00 … (#7 2026-03-28T22:00:00.000Z apns 740f4707… "…")`.
    public var description: String {
        var text = "\(kind) \"\(rule)\": \(message)"
        if !related.isEmpty {
            text += "; related: " + related.map { "#\($0.sequence) \($0.time)" }.joined(separator: ", ")
        }
        return text
    }
}
