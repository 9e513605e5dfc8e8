import Foundation
public import PushMockCore
import PushMockJSON
public import PushMockRecording

/// A notification as the policy sees it: its facts and, once classified, its type.
struct PolicySubject {
    let facts: NotificationPayloadFacts
    var type: String?
}

/// Checks a recording against a ``PolicyFile``: quiet hours in each recipient's time zone,
/// frequency caps and minimum spacing per recipient, and priority rules.
///
/// Send times are the records' `timeMilliseconds` (the gateway's, possibly virtual, clock).
/// Notifications are taken in time order (ties by sequence number); every notification that
/// reached a device counts towards caps, including ones that themselves broke a rule.
///
/// ```swift
/// let checker = PolicyChecker(policy: try PolicyFile(contentsOfFile: "policy.json"))
/// let report = checker.check(store.records())
/// #expect(report.violations(.quietHours).map(\.notification.sequence) == [7])
/// ```
public struct PolicyChecker: Sendable {
    public var policy: PolicyFile
    /// Count rejected and validate-only sends too (defaults to the policy's `countRejected`).
    public var countRejected: Bool
    /// The users behind the tokens and their app events: each push is judged against its
    /// recipient's own time zone and preferences, and the event rules read the events.
    public var users: UserDirectory

    public init(policy: PolicyFile, countRejected: Bool? = nil, users: UserDirectory = UserDirectory()) {
        self.policy = policy
        self.countRejected = countRejected ?? policy.countRejected
        self.users = users
    }

    /// The record's type under the policy; `nil` for untyped notifications and other records.
    /// An Expo request of several messages: its first message's type (``check(_:)`` types each
    /// message).
    public func type(of record: ExchangeRecord) -> String? {
        guard let platform = record.platform.pushService else { return nil }
        return policy.type(of: PolicySubject(facts: NotificationPayloadFacts(record: record, platform: platform)))
    }

    /// Every violation in `records` (other records than APNs/FCM sends are ignored).
    public func check(_ records: some Sequence<ExchangeRecord>) -> PolicyReport {
        var notifications: [CheckedNotification] = []
        for record in records {
            guard let platform = record.platform.pushService, !NotificationPayloadFacts.isExpoReceiptsRequest(record) else { continue }
            if !countRejected && (record.response.status != 200 || NotificationPayloadFacts.isValidateOnly(record)) { continue }
            // An Expo request of several messages is judged message by message.
            for notification in RecordedNotification.all(in: record, platform: platform) {
                var subject = PolicySubject(facts: notification.facts)
                subject.type = policy.type(of: subject)
                notifications.append(
                    CheckedNotification(
                        // The order given breaks ties: the messages of one request share its time
                        // and sequence number, and `sort` is not stable.
                        order: notifications.count,
                        time: record.timeMilliseconds,
                        sequence: record.sequence,
                        subject: subject,
                        reference: notification.reference,
                        recipients: notification.recipients
                    )
                )
            }
        }
        notifications.sort { ($0.time, $0.sequence, $0.order) < ($1.time, $1.sequence, $1.order) }

        var evaluation = Evaluation(policy: policy, users: users)
        for notification in notifications {
            evaluation.evaluate(notification)
        }
        let ordered = evaluation.violations.enumerated().sorted { left, right in
            (left.element.position, left.element.violation.kind, left.offset) < (
                right.element.position, right.element.violation.kind, right.offset
            )
        }
        return PolicyReport(policy: policy.name, notificationCount: notifications.count, violations: ordered.map(\.element.violation))
    }

    struct CheckedNotification {
        let order: Int
        let time: Int64
        let sequence: UInt64
        let subject: PolicySubject
        let reference: NotificationReference
        let recipients: [String]
    }
}

/// The running state of one check: earlier notifications per cap and recipient, and the
/// violations found so far.
private struct Evaluation {
    struct Sent {
        let time: Int64
        let reference: NotificationReference
    }

    /// Related notifications listed per violation, at most (the earliest in the window: those that
    /// used up the cap).
    static let maximumRelated = 50

    let policy: PolicyFile
    var position = 0
    var violations: [(position: Int, violation: PolicyViolation)] = []
    /// `[cap index][recipient]`: the notifications the cap counted, in time order.
    var history: [[String: [Sent]]]
    var calendars = LocalCalendars()
    /// Users by token key.
    let owners: [String: PushUser]
    /// Each user's zone, when it names a valid one.
    let userZones: [String: TimeZone]
    /// Each user's events in time order.
    let events: [String: [AppEvent]]
    /// `[user id][cap index]`: the notifications a user's own cap counted.
    var userHistory: [String: [Int: [Sent]]] = [:]
    /// `[event rule index][user id]`: deliveries so far and the anchor each followed.
    var deliveries: [[String: [(reference: NotificationReference, anchor: UInt64?)]]]

    init(policy: PolicyFile, users: UserDirectory) {
        self.policy = policy
        self.history = Array(repeating: [:], count: policy.frequencyCaps.count)
        self.owners = users.usersByToken()
        self.userZones = Dictionary(
            users.users.compactMap { user in user.timeZone.flatMap(TimeZoneText.zone(named:)).map { (user.id, $0) } }
        ) { first, _ in first }
        self.events = Dictionary(grouping: users.events, by: \.user).mapValues { events in
            events.sorted { ($0.timeMilliseconds, $0.sequence) < ($1.timeMilliseconds, $1.sequence) }
        }
        self.deliveries = Array(repeating: [:], count: policy.eventRules.count)
    }

    mutating func evaluate(_ notification: PolicyChecker.CheckedNotification) {
        defer { position += 1 }
        let subject = notification.subject
        let time = notification.time
        func violation(_ kind: PolicyRuleKind, _ rule: String, recipient: String?, _ message: String) -> PolicyViolation {
            PolicyViolation(
                kind: kind,
                rule: rule,
                notification: notification.reference,
                notificationType: subject.type,
                recipient: recipient,
                message: message
            )
        }

        // The users behind the recipients, each once (a push to two of a user's devices is one
        // notification to that user), with the first of its tokens that was sent to.
        var recipientUsers: [(user: PushUser, recipient: String)] = []
        for recipient in notification.recipients {
            guard let user = owners[UserDirectory.tokenKey(recipient)] else { continue }
            if !recipientUsers.contains(where: { $0.user.id == user.id }) { recipientUsers.append((user, recipient)) }
        }
        func zoneOfUser(_ recipient: String) -> TimeZone? {
            owners[UserDirectory.tokenKey(recipient)].flatMap { userZones[$0.id] }
        }

        // Time zones: the recipient's user, else the per-recipient map, else the payload, else
        // the default.
        let payloadZone = payloadTimeZone(subject)
        var zones: [String: TimeZone] = [:]
        for recipient in notification.recipients {
            zones[recipient] =
                zoneOfUser(recipient) ?? policy.timeZones.zone(ofRecipient: recipient) ?? payloadZone.zone ?? policy.timeZones.defaultZone
        }
        if !payloadZone.unknown.isEmpty,
            notification.recipients.contains(where: { policy.timeZones.zone(ofRecipient: $0) == nil && zoneOfUser($0) == nil })
        {
            let used = payloadZone.zone ?? policy.timeZones.defaultZone
            for unknown in payloadZone.unknown {
                var found = violation(
                    .timeZone,
                    "timeZones",
                    recipient: nil,
                    "\(unknown.path) names the unknown time zone \"\(unknown.text)\"; \(used.identifier) was used instead"
                )
                found.timeZone = used.identifier
                record(found)
            }
        }

        for rule in policy.quietHours {
            guard rule.types.map({ types in subject.type.map(types.contains) ?? false }) ?? true else { continue }
            if rule.exemptSilent && subject.facts.isSilent { continue }
            if rule.exemptInterruptionLevels.contains(subject.facts.interruptionLevel) { continue }
            if let type = subject.type, rule.exemptTypes.contains(type) { continue }
            if let exempt = rule.exempt, exempt.matches(subject) { continue }
            if PolicyFile.Exemptions(interruptionLevels: [], priorities: rule.exemptPriorities, silent: false).exempts(subject) { continue }
            for recipient in notification.recipients {
                let zone = zones[recipient] ?? policy.timeZones.defaultZone
                let local = calendars.local(time, in: zone)
                guard rule.contains(secondsOfDay: local.secondsOfDay) else { continue }
                let period = "\(rule.start)–\(rule.end)"
                var found = violation(
                    .quietHours,
                    rule.name,
                    recipient: recipient,
                    "sent at \(local.clock) local time (\(zone.identifier)), inside quiet hours \(period)"
                )
                found.timeZone = zone.identifier
                found.localTime = local.text
                found.quietPeriod = period
                record(found)
            }
        }

        for (index, cap) in policy.frequencyCaps.enumerated() {
            guard cap.types.map({ types in subject.type.map(types.contains) ?? false }) ?? true else { continue }
            let noun = cap.types == nil ? "notification" : "\(cap.types!.joined(separator: "/")) notification"
            for recipient in notification.recipients {
                let zone = zones[recipient] ?? policy.timeZones.defaultZone
                let earlier = history[index][recipient] ?? []
                if let limit = cap.limit, let window = cap.window {
                    let (counted, during) = countedInWindow(earlier, at: time, window: window, zone: zone)
                    if counted.count >= limit {
                        var found = violation(
                            .frequencyCap,
                            cap.name,
                            recipient: recipient,
                            "\(Self.ordinal(counted.count + 1)) \(noun) \(during) (limit \(limit))"
                        )
                        found.limit = limit
                        found.window = window.description
                        found.timeZone = zone.identifier
                        found.localTime = calendars.local(time, in: zone).text
                        found.related = counted.prefix(Self.maximumRelated).map(\.reference)
                        record(found)
                    }
                }
                if let spacing = cap.minimumSpacing, let previous = earlier.last, time - previous.time < spacing.wholeMilliseconds {
                    let gap = DurationText.format(.milliseconds(time - previous.time))
                    let required = DurationText.format(spacing)
                    var found = violation(
                        .minimumSpacing,
                        cap.name,
                        recipient: recipient,
                        "sent \(gap) after #\(previous.reference.sequence) (minimum spacing \(required))"
                    )
                    found.minimumSpacing = required
                    found.actualSpacing = gap
                    found.related = [previous.reference]
                    record(found)
                }
                history[index][recipient, default: []].append(Sent(time: time, reference: notification.reference))
            }
        }

        evaluateSchedules(notification, zones: zones, recipientUsers: recipientUsers) { kind, rule, recipient, message in
            violation(kind, rule, recipient: recipient, message)
        }

        for rule in policy.priorityRules {
            guard rule.types.map({ types in subject.type.map(types.contains) ?? false }) ?? true else { continue }
            if let match = rule.match, !match.matches(subject) { continue }
            if let allowed = rule.priorities, let actual = subject.facts.apnsPriority, !allowed.contains(actual) {
                var found = violation(
                    .priority,
                    rule.name,
                    recipient: nil,
                    "apns-priority \(actual); the rule allows \(allowed.map(String.init).joined(separator: " or "))"
                )
                found.actualPriority = String(actual)
                found.allowedPriorities = allowed.map(String.init)
                record(found)
            }
            if let allowed = rule.androidPriorities, subject.facts.platform == .fcm, let actual = subject.facts.androidPriority,
                !allowed.contains(actual)
            {
                var found = violation(
                    .priority,
                    rule.name,
                    recipient: nil,
                    "android.priority \(actual); the rule allows \(allowed.joined(separator: " or "))"
                )
                found.actualPriority = actual
                found.allowedPriorities = allowed
                record(found)
            }
        }
    }

    /// Delivery windows, the recipients' own preferences and the event rules.
    mutating func evaluateSchedules(
        _ notification: PolicyChecker.CheckedNotification, zones: [String: TimeZone], recipientUsers: [(user: PushUser, recipient: String)],
        violation: (PolicyRuleKind, String, String?, String) -> PolicyViolation
    ) {
        let subject = notification.subject
        let time = notification.time
        func applies(_ types: [String]?) -> Bool { types.map { types in subject.type.map(types.contains) ?? false } ?? true }
        func zone(_ recipient: String) -> TimeZone { zones[recipient] ?? policy.timeZones.defaultZone }

        func checkWindow(_ window: PolicyFile.DeliveryWindow, rule: String, recipient: String, user: String?) {
            let zone = zone(recipient)
            let local = calendars.local(time, in: zone)
            guard !window.contains(secondsOfDay: local.secondsOfDay, weekday: local.weekday) else { return }
            let day = PolicyFile.Weekday(number: local.weekday)
            var found = violation(
                .deliveryWindow, rule, recipient,
                "sent \(day) \(local.clock) local time (\(zone.identifier)), outside the delivery window \(window.description)")
            found.timeZone = zone.identifier
            found.localTime = local.text
            found.deliveryWindow = window.description
            found.user = user
            record(found)
        }

        for window in policy.deliveryWindows where applies(window.types) && !window.exemptions.exempts(subject) {
            for recipient in notification.recipients {
                checkWindow(window, rule: window.name, recipient: recipient, user: owners[UserDirectory.tokenKey(recipient)]?.id)
            }
        }

        let userExempt = policy.userRules.exemptions.exempts(subject)
        for (user, recipient) in recipientUsers {
            let preferences = user.preferences
            if !userExempt {
                var reasons: [String] = []
                if !preferences.pushEnabled { reasons.append("turned push notifications off") }
                if let type = subject.type, preferences.optedOut.types.contains(type) { reasons.append("opted out of type \(type)") }
                if let category = subject.facts.category, preferences.optedOut.categories.contains(category) {
                    reasons.append("opted out of category \(category)")
                }
                if let channel = subject.facts.channel, preferences.optedOut.channels.contains(channel) {
                    reasons.append("opted out of channel \(channel)")
                }
                if !reasons.isEmpty {
                    var found = violation(
                        .optedOut, "users.\(user.id).preferences", recipient, "user \(user.id) " + reasons.joined(separator: " and "))
                    found.user = user.id
                    record(found)
                }
                for (index, quiet) in preferences.quietHours.enumerated() where applies(quiet.types) {
                    guard let start = PolicyFile.TimeOfDay(quiet.start), let end = PolicyFile.TimeOfDay(quiet.end),
                        let rule = try? PolicyFile.QuietHours(name: "users.\(user.id).quietHours[\(index)]", start: start, end: end)
                    else { continue }
                    let zone = zone(recipient)
                    let local = calendars.local(time, in: zone)
                    guard rule.contains(secondsOfDay: local.secondsOfDay) else { continue }
                    let period = "\(start)–\(end)"
                    var found = violation(
                        .quietHours, rule.name, recipient,
                        "sent at \(local.clock) local time (\(zone.identifier)), inside user \(user.id)'s quiet hours \(period)")
                    found.timeZone = zone.identifier
                    found.localTime = local.text
                    found.quietPeriod = period
                    found.user = user.id
                    record(found)
                }
            }
            for (index, cap) in preferences.caps.enumerated() where applies(cap.types) {
                let window: PolicyFile.CapWindow
                switch (cap.rollingWindow, cap.calendar) {
                case (let duration?, _): window = .rolling(duration)
                case (nil, "week"): window = .calendarWeek
                case (nil, "month"): window = .calendarMonth
                default: window = .calendarDay
                }
                let zone = zone(recipient)
                let earlier = userHistory[user.id, default: [:]][index] ?? []
                let (counted, during) = countedInWindow(earlier, at: time, window: window, zone: zone)
                if counted.count >= cap.limit {
                    let noun = cap.types.map { "\($0.joined(separator: "/")) notification" } ?? "notification"
                    var found = violation(
                        .frequencyCap, "users.\(user.id).caps[\(index)]", recipient,
                        "\(Self.ordinal(counted.count + 1)) \(noun) to user \(user.id) \(during) (the user's limit \(cap.limit))")
                    found.limit = cap.limit
                    found.window = window.description
                    found.timeZone = zone.identifier
                    found.localTime = calendars.local(time, in: zone).text
                    found.related = counted.prefix(Self.maximumRelated).map(\.reference)
                    found.user = user.id
                    record(found)
                }
                userHistory[user.id, default: [:]][index, default: []].append(Sent(time: time, reference: notification.reference))
            }
        }

        for (index, rule) in policy.eventRules.enumerated() {
            guard applies(rule.types), rule.match.map({ $0.matches(subject) }) ?? true else { continue }
            for recipient in notification.recipients where owners[UserDirectory.tokenKey(recipient)] == nil {
                record(violation(.eventTiming, rule.name, recipient, "no user owns this token, so the rule's app events cannot be judged"))
            }
            for (user, recipient) in recipientUsers {
                let before = (events[user.id] ?? []).filter { $0.timeMilliseconds <= time }
                func found(_ kind: PolicyRuleKind, _ message: String, event: AppEvent?) -> PolicyViolation {
                    var found = violation(kind, rule.name, recipient, message)
                    found.user = user.id
                    found.event = event
                    return found
                }
                if let cancel = before.first(where: { rule.cancelationEvents.contains($0.name) }) {
                    record(found(.canceled, "sent to user \(user.id) after the cancelation event \(cancel)", event: cancel))
                }
                var anchor: AppEvent?
                if let name = rule.event {
                    let instances = before.filter { $0.name == name }
                    anchor = rule.instance == .first ? instances.first : instances.last
                    if let anchor {
                        let gap = time - anchor.timeMilliseconds
                        if gap < rule.offset.wholeMilliseconds {
                            record(
                                found(
                                    .eventTiming,
                                    "sent \(DurationText.format(.milliseconds(gap))) after \(anchor); the rule needs at least "
                                        + DurationText.format(rule.offset),
                                    event: anchor))
                        }
                    } else {
                        record(found(.eventTiming, "sent to user \(user.id) before any \(name) event", event: nil))
                    }
                    let earlier = deliveries[index][user.id] ?? []
                    let repeated: (reference: NotificationReference, anchor: UInt64?)?
                    switch rule.instance {
                    case .first, .latestOnce: repeated = earlier.first
                    case .latest: repeated = anchor.flatMap { anchor in earlier.first { $0.anchor == anchor.sequence } }
                    }
                    if let repeated {
                        let what =
                            rule.instance == .latest
                            ? "a second notification after the same \(name) event (latest: once per instance)"
                            : "delivered again; \(rule.instance.rawValue) delivers once"
                        var violation = found(.eventInstance, what + ", first #\(repeated.reference.sequence)", event: anchor)
                        violation.related = [repeated.reference]
                        record(violation)
                    }
                    deliveries[index][user.id, default: []].append((notification.reference, anchor?.sequence))
                }
                if let window = rule.window, !window.exemptions.exempts(subject) {
                    checkWindow(window, rule: rule.name, recipient: recipient, user: user.id)
                }
            }
        }
    }

    mutating func record(_ violation: PolicyViolation) {
        violations.append((position, violation))
    }

    /// The earlier notifications that share the window of a notification sent at `time`, and
    /// the window in words.
    mutating func countedInWindow(_ earlier: [Sent], at time: Int64, window: PolicyFile.CapWindow, zone: TimeZone) -> ([Sent], String) {
        switch window.value {
        case .rolling(let milliseconds):
            // Time-ordered: the window's start is found from the end.
            let start = earlier.lastIndex { $0.time <= time - milliseconds }.map { $0 + 1 } ?? 0
            return (Array(earlier[start...]), "within \(window)")
        case .calendarDay, .calendarWeek, .calendarMonth:
            let key = calendars.key(time, window: window, in: zone)
            var start = earlier.endIndex
            while start > earlier.startIndex, calendars.key(earlier[start - 1].time, window: window, in: zone) == key { start -= 1 }
            return (Array(earlier[start...]), "in the \(window) \(key) (\(zone.identifier))")
        }
    }

    /// The first valid zone at the policy's payload paths, and the unknown ones met before it.
    func payloadTimeZone(_ subject: PolicySubject) -> (zone: TimeZone?, unknown: [(path: String, text: String)]) {
        guard let payload = subject.facts.payload else { return (nil, []) }
        var unknown: [(path: String, text: String)] = []
        for path in policy.timeZones.paths {
            for value in path.evaluate(payload) {
                guard let text = value.stringValue else { continue }
                if let zone = TimeZoneText.zone(named: text) { return (zone, unknown) }
                unknown.append((DeepLinkLocation.format(path.components), text))
            }
        }
        return (nil, unknown)
    }

    /// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`.
    static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(number)\(suffix)"
    }
}

/// Local wall-clock facts of an instant in a time zone, with one calendar per zone.
private struct LocalCalendars {
    struct Local {
        let secondsOfDay: Int
        /// 1 = Sunday … 7 = Saturday.
        let weekday: Int
        /// `23:00`.
        let clock: String
        /// `2026-03-28 23:00:00 +01:00`.
        let text: String
    }

    var gregorian: [TimeZone: Calendar] = [:]
    var iso: [TimeZone: Calendar] = [:]

    mutating func calendar(_ zone: TimeZone) -> Calendar {
        if let calendar = gregorian[zone] { return calendar }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        gregorian[zone] = calendar
        return calendar
    }

    mutating func local(_ milliseconds: Int64, in zone: TimeZone) -> Local {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let parts = calendar(zone).dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let hour = parts.hour ?? 0
        let minute = parts.minute ?? 0
        let second = parts.second ?? 0
        let offset = zone.secondsFromGMT(for: date)
        let offsetText = (offset < 0 ? "-" : "+") + Self.two(abs(offset) / 3600) + ":" + Self.two(abs(offset) % 3600 / 60)
        let day = "\(parts.year ?? 0)-\(Self.two(parts.month ?? 0))-\(Self.two(parts.day ?? 0))"
        return Local(
            secondsOfDay: hour * 3600 + minute * 60 + second,
            weekday: parts.weekday ?? 1,
            clock: "\(Self.two(hour)):\(Self.two(minute))",
            text: "\(day) \(Self.two(hour)):\(Self.two(minute)):\(Self.two(second)) \(offsetText)"
        )
    }

    /// `2026-03-28` (day), `2026-W13` (ISO week), `2026-03` (month), in `zone`.
    mutating func key(_ milliseconds: Int64, window: PolicyFile.CapWindow, in zone: TimeZone) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        switch window.value {
        case .calendarWeek:
            var calendar = iso[zone] ?? Calendar(identifier: .iso8601)
            if iso[zone] == nil {
                calendar.timeZone = zone
                iso[zone] = calendar
            }
            let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
            return "\(parts.yearForWeekOfYear ?? 0)-W\(Self.two(parts.weekOfYear ?? 0))"
        case .calendarMonth:
            let parts = calendar(zone).dateComponents([.year, .month], from: date)
            return "\(parts.year ?? 0)-\(Self.two(parts.month ?? 0))"
        default:
            let parts = calendar(zone).dateComponents([.year, .month, .day], from: date)
            return "\(parts.year ?? 0)-\(Self.two(parts.month ?? 0))-\(Self.two(parts.day ?? 0))"
        }
    }

    static func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
}
