public import Foundation
internal import PushMockCore
public import PushMockJSON

/// A notification policy: how notifications are classified into types, the recipients' time
/// zones, and the rules a recording must keep — quiet hours, frequency caps, minimum spacing and
/// priorities. Read from a small JSON file (format in `docs/policy-checks.md`):
///
/// ```json
/// {"version": 1,
///  "name": "Loop",
///  "types": [{"name": "marketing", "match": {"path": ["$.type", "$.message.data.type"], "equals": "marketing"}}],
///  "timeZones": {"default": "Europe/Berlin", "paths": ["$.tz"]},
///  "quietHours": [{"name": "night", "start": "22:00", "end": "08:00"}],
///  "frequencyCaps": [{"name": "marketing-weekly", "types": ["marketing"], "limit": 2, "window": "7d"}],
///  "priorityRules": [{"name": "silent-priority-5", "match": {"silent": true}, "priority": 5}]}
/// ```
public struct PolicyFile: Sendable, Hashable, DefinitionDocument {
    /// A named class of notifications; a notification has the first type whose match holds.
    public struct NotificationType: Sendable, Hashable {
        public let name: String
        public let match: PolicyMatch

        public init(name: String, match: PolicyMatch) {
            self.name = name
            self.match = match
        }
    }

    /// Where a recipient's time zone comes from, in this order: ``byRecipient``, the first valid
    /// zone at one of ``paths`` in the payload, ``defaultZone``.
    public struct TimeZones: Sendable, Hashable {
        /// Used when nothing else names a zone; GMT (UTC) unless the file says otherwise.
        public let defaultZone: TimeZone
        /// Zones of known recipients, by token (APNs tokens compared lower-case).
        public let byRecipient: [String: TimeZone]
        /// ``byRecipient`` with lower-cased keys, for APNs tokens written in upper case.
        let byCanonicalToken: [String: TimeZone]
        /// Payload paths carrying the recipient's zone (`$.tz`, `$.message.data.tz`): an IANA
        /// identifier such as `Europe/Berlin`, or a fixed offset such as `+02:00`.
        public let paths: [JSONPath]

        /// The configured zone of `recipient`, if any.
        public func zone(ofRecipient recipient: String) -> TimeZone? {
            byRecipient[recipient] ?? byCanonicalToken[APNsDeviceTokenFormat.canonical(recipient)]
        }

        public init(defaultZone: TimeZone = .gmt, byRecipient: [String: TimeZone] = [:], paths: [JSONPath] = []) {
            self.defaultZone = defaultZone
            self.byRecipient = byRecipient
            self.byCanonicalToken = Dictionary(byRecipient.map { (APNsDeviceTokenFormat.canonical($0.key), $0.value) }) { first, _ in first
            }
            self.paths = paths
        }
    }

    /// A wall-clock time, `HH:MM`.
    public struct TimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
        public let hour: Int
        public let minute: Int

        public init?(hour: Int, minute: Int) {
            guard (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
            self.hour = hour
            self.minute = minute
        }

        /// Parses `22:00`, `7:30`.
        public init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
                parts.allSatisfy({ $0.allSatisfy(\.isASCII) }),
                let hour = Int(parts[0]), let minute = Int(parts[1])
            else { return nil }
            self.init(hour: hour, minute: minute)
        }

        public var secondsOfDay: Int { hour * 3600 + minute * 60 }

        public var description: String {
            (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
        }

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsOfDay < rhs.secondsOfDay }
    }

    /// No notifications between ``start`` (inclusive) and ``end`` (exclusive) in the recipient's
    /// local time; when `start > end` the quiet period crosses midnight.
    public struct QuietHours: Sendable, Hashable {
        public let name: String
        public let start: TimeOfDay
        public let end: TimeOfDay
        /// The types the rule applies to; `nil` for every notification.
        public let types: [String]?
        /// Interruption levels that may break through (default: `critical`, `time-sensitive`).
        public let exemptInterruptionLevels: [String]
        /// Types that may break through.
        public let exemptTypes: [String]
        /// Silent notifications disturb no one (default `true`: exempt).
        public let exemptSilent: Bool
        /// Anything else that may break through.
        public let exempt: PolicyMatch?
        /// Priorities that may break through: APNs `"1"`/`"5"`/`"10"`, Android and Expo
        /// `"normal"`/`"high"`.
        public let exemptPriorities: [String]

        public init(
            name: String,
            start: TimeOfDay,
            end: TimeOfDay,
            types: [String]? = nil,
            exemptInterruptionLevels: [String] = ["critical", "time-sensitive"],
            exemptTypes: [String] = [],
            exemptSilent: Bool = true,
            exempt: PolicyMatch? = nil,
            exemptPriorities: [String] = []
        ) throws(PolicyError) {
            guard start != end else {
                throw PolicyError(.invalidDefinition, "start and end are both \(start); a quiet period needs two different times")
            }
            do {
                try InterruptionLevels.check(exemptInterruptionLevels, at: "exemptInterruptionLevels")
            } catch {
                throw PolicyError(error)
            }
            self.name = name
            self.start = start
            self.end = end
            self.types = types
            self.exemptInterruptionLevels = exemptInterruptionLevels
            self.exemptTypes = exemptTypes
            self.exemptSilent = exemptSilent
            self.exempt = exempt
            self.exemptPriorities = exemptPriorities
        }

        /// Whether `secondsOfDay` (local) lies in the quiet period.
        public func contains(secondsOfDay: Int) -> Bool {
            start < end
                ? (start.secondsOfDay..<end.secondsOfDay).contains(secondsOfDay)
                : secondsOfDay >= start.secondsOfDay || secondsOfDay < end.secondsOfDay
        }
    }

    /// The window a frequency cap counts in.
    public struct CapWindow: Sendable, Hashable, CustomStringConvertible {
        enum Value: Sendable, Hashable {
            case rolling(milliseconds: Int64)
            case calendarDay
            case calendarWeek
            case calendarMonth
        }

        let value: Value

        /// A sliding window ending at each notification: the notifications sent in the
        /// `duration` before it (a notification exactly `duration` earlier no longer counts).
        public static func rolling(_ duration: Duration) -> Self { Self(value: .rolling(milliseconds: duration.wholeMilliseconds)) }
        /// The recipient's local calendar day (23 or 25 hours long on DST changes).
        public static let calendarDay = Self(value: .calendarDay)
        /// The recipient's local ISO week, Monday to Sunday.
        public static let calendarWeek = Self(value: .calendarWeek)
        /// The recipient's local calendar month.
        public static let calendarMonth = Self(value: .calendarMonth)

        /// `7d`, `calendar day`.
        public var description: String {
            switch value {
            case .rolling(let milliseconds): DurationText.format(.milliseconds(milliseconds))
            case .calendarDay: "calendar day"
            case .calendarWeek: "calendar week"
            case .calendarMonth: "calendar month"
            }
        }
    }

    /// At most ``limit`` notifications per ``window``, and/or at least ``minimumSpacing`` between
    /// two, per recipient, counting the notifications of ``types``.
    public struct FrequencyCap: Sendable, Hashable {
        public let name: String
        /// The types counted together; `nil` for every notification.
        public let types: [String]?
        public let limit: Int?
        public let window: CapWindow?
        public let minimumSpacing: Duration?

        public init(name: String, types: [String]? = nil, limit: Int? = nil, window: CapWindow? = nil, minimumSpacing: Duration? = nil)
            throws(PolicyError)
        {
            guard (limit == nil) == (window == nil) else {
                throw PolicyError(.invalidDefinition, "\"limit\" and a window (\"window\" or \"calendar\") go together")
            }
            guard limit != nil || minimumSpacing != nil else {
                throw PolicyError(.invalidDefinition, "a frequency cap needs \"limit\" with a window, \"minimumSpacing\", or both")
            }
            if let limit, limit < 0 { throw PolicyError(.invalidDefinition, "\"limit\" cannot be negative (was \(limit))") }
            if case .rolling(let milliseconds) = window?.value, milliseconds <= 0 {
                throw PolicyError(.invalidDefinition, "\"window\" must be longer than zero")
            }
            if let minimumSpacing, minimumSpacing <= .zero {
                throw PolicyError(.invalidDefinition, "\"minimumSpacing\" must be longer than zero")
            }
            self.name = name
            self.types = types
            self.limit = limit
            self.window = window
            self.minimumSpacing = minimumSpacing
        }
    }

    /// Notifications of ``types`` that satisfy ``match`` must use one of ``priorities``
    /// (`apns-priority`) and/or one of ``androidPriorities`` (FCM `android.priority`).
    public struct PriorityRule: Sendable, Hashable {
        public let name: String
        public let types: [String]?
        public let match: PolicyMatch?
        /// Allowed APNs priorities (1, 5, 10).
        public let priorities: [Int]?
        /// Allowed FCM Android priorities (`normal`, `high`).
        public let androidPriorities: [String]?

        public init(
            name: String, types: [String]? = nil, match: PolicyMatch? = nil, priorities: [Int]? = nil, androidPriorities: [String]? = nil
        ) throws(PolicyError) {
            guard priorities != nil || androidPriorities != nil else {
                throw PolicyError(.invalidDefinition, "a priority rule needs \"priority\", \"androidPriority\" or both")
            }
            for priority in priorities ?? [] where ![1, 5, 10].contains(priority) {
                throw PolicyError(.invalidDefinition, "\(priority) is not an APNs priority (expected 1, 5 or 10)")
            }
            let android = androidPriorities?.map { $0.lowercased() }
            for priority in android ?? [] where !["normal", "high"].contains(priority) {
                throw PolicyError(.invalidDefinition, "\"\(priority)\" is not an Android priority (expected normal or high)")
            }
            self.name = name
            self.types = types
            self.match = match
            self.priorities = priorities
            self.androidPriorities = android
        }
    }

    public let name: String?
    public let types: [NotificationType]
    public let timeZones: TimeZones
    public let quietHours: [QuietHours]
    public let frequencyCaps: [FrequencyCap]
    public let priorityRules: [PriorityRule]
    /// When notifications of a type may be delivered (local time and days of the week).
    public let deliveryWindows: [DeliveryWindow]
    /// Event-relative delivery and cancelation (`docs/policy-checks.md`).
    public let eventRules: [EventRule]
    /// How each recipient's own preferences (``PushUser``) are applied.
    public let userRules: UserRules
    /// Count sends the service rejected (and FCM `validate_only` sends) too; by default only
    /// notifications that reached a device count.
    public let countRejected: Bool

    /// A policy built in code; checks that names are unique and every referenced type exists.
    public init(
        name: String? = nil,
        types: [NotificationType] = [],
        timeZones: TimeZones = TimeZones(),
        quietHours: [QuietHours] = [],
        frequencyCaps: [FrequencyCap] = [],
        priorityRules: [PriorityRule] = [],
        deliveryWindows: [DeliveryWindow] = [],
        eventRules: [EventRule] = [],
        userRules: UserRules = UserRules(),
        countRejected: Bool = false
    ) throws(PolicyError) {
        var typeNames = Set<String>()
        for (index, type) in types.enumerated() {
            guard typeNames.insert(type.name).inserted else {
                throw PolicyError(.duplicateName, "another type is already named \"\(type.name)\"", location: "types[\(index)].name")
            }
        }
        func checkTypes(_ names: [String]?, at location: String) throws(PolicyError) {
            for name in names ?? [] where !typeNames.contains(name) {
                let known = typeNames.isEmpty ? "the file defines no types" : "known types: \(typeNames.sorted().joined(separator: ", "))"
                throw PolicyError(.unknownType, "unknown type \"\(name)\" (\(known))", location: location)
            }
        }
        var ruleNames = Set<String>()
        func checkName(_ name: String, at location: String) throws(PolicyError) {
            guard ruleNames.insert(name).inserted else {
                throw PolicyError(.duplicateName, "another rule is already named \"\(name)\"", location: location)
            }
        }
        for (index, rule) in quietHours.enumerated() {
            try checkName(rule.name, at: "quietHours[\(index)].name")
            try checkTypes(rule.types, at: "quietHours[\(index)].types")
            try checkTypes(rule.exemptTypes, at: "quietHours[\(index)].exemptTypes")
            try checkTypes(rule.exempt?.referencedTypes, at: "quietHours[\(index)].exempt")
        }
        for (index, rule) in frequencyCaps.enumerated() {
            try checkName(rule.name, at: "frequencyCaps[\(index)].name")
            try checkTypes(rule.types, at: "frequencyCaps[\(index)].types")
        }
        for (index, rule) in priorityRules.enumerated() {
            try checkName(rule.name, at: "priorityRules[\(index)].name")
            try checkTypes(rule.types, at: "priorityRules[\(index)].types")
            try checkTypes(rule.match?.referencedTypes, at: "priorityRules[\(index)].match")
        }
        for (index, rule) in deliveryWindows.enumerated() {
            try checkName(rule.name, at: "deliveryWindows[\(index)].name")
            try checkTypes(rule.types, at: "deliveryWindows[\(index)].types")
            try checkTypes(rule.exemptions.referencedTypes, at: "deliveryWindows[\(index)].exemptTypes")
        }
        for (index, rule) in eventRules.enumerated() {
            try checkName(rule.name, at: "eventRules[\(index)].name")
            try checkTypes(rule.types, at: "eventRules[\(index)].types")
            try checkTypes(rule.match?.referencedTypes, at: "eventRules[\(index)].match")
            try checkTypes(rule.window?.exemptions.referencedTypes, at: "eventRules[\(index)].exemptTypes")
        }
        try checkTypes(userRules.exemptions.referencedTypes, at: "userRules.exemptTypes")
        self.deliveryWindows = deliveryWindows
        self.eventRules = eventRules
        self.userRules = userRules
        self.name = name
        self.types = types
        self.timeZones = timeZones
        self.quietHours = quietHours
        self.frequencyCaps = frequencyCaps
        self.priorityRules = priorityRules
        self.countRejected = countRejected
    }

    /// The first type whose match holds.
    func type(of subject: PolicySubject) -> String? {
        types.first { $0.match.matches(subject) }?.name
    }
}
