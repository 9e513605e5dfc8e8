import Foundation
internal import PushMockCore
import PushMockJSON

extension PolicyFile {
    /// A day of the week, as the in-app config seed writes it (`"Monday"`, case-insensitive;
    /// `Mon` too).
    public struct Weekday: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// 1 = Sunday … 7 = Saturday, as `Calendar` numbers them.
        public let number: Int

        public static let sunday = Self(number: 1)
        public static let monday = Self(number: 2)
        public static let tuesday = Self(number: 3)
        public static let wednesday = Self(number: 4)
        public static let thursday = Self(number: 5)
        public static let friday = Self(number: 6)
        public static let saturday = Self(number: 7)
        public static let weekdays: [Self] = [.monday, .tuesday, .wednesday, .thursday, .friday]
        public static let weekend: [Self] = [.saturday, .sunday]

        static let names = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

        init(number: Int) { self.number = number }

        /// `Monday`, `mon`; `nil` for anything else.
        public init?(_ text: String) {
            let lowered = text.lowercased()
            guard let index = Self.names.firstIndex(where: { $0.lowercased() == lowered || $0.lowercased().prefix(3) == lowered }) else {
                return nil
            }
            number = index + 1
        }

        public var description: String { Self.names[number - 1] }
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.number < rhs.number }

        /// `["weekdays"]`, `["Saturday", "Sunday"]`, `["weekend"]`.
        static func parse(_ texts: [String], at location: String) throws(DefinitionProblem) -> [Self] {
            var days: [Self] = []
            for text in texts {
                switch text.lowercased() {
                case "weekdays": days += weekdays
                case "weekend", "weekends": days += weekend
                default:
                    guard let day = Self(text) else {
                        throw DefinitionProblem(location, "\"\(text)\" is not a day of the week (Monday … Sunday, weekdays, weekend)")
                    }
                    days.append(day)
                }
            }
            return Array(Set(days)).sorted()
        }
    }

    /// What lets a notification through a time rule: interruption levels, priorities (APNs
    /// `1`/`5`/`10`, Android and Expo `normal`/`high`), types, silence, or any match.
    public struct Exemptions: Sendable, Hashable {
        public let interruptionLevels: [String]
        /// `"10"`, `"high"`: compared with the APNs priority and the Android priority.
        public let priorities: [String]
        public let types: [String]
        public let silent: Bool
        public let match: PolicyMatch?

        public init(
            interruptionLevels: [String] = ["critical", "time-sensitive"], priorities: [String] = [], types: [String] = [],
            silent: Bool = true, match: PolicyMatch? = nil
        ) {
            self.interruptionLevels = interruptionLevels
            self.priorities = priorities
            self.types = types
            self.silent = silent
            self.match = match
        }

        func exempts(_ subject: PolicySubject) -> Bool {
            if silent && subject.facts.isSilent { return true }
            if interruptionLevels.contains(subject.facts.interruptionLevel) { return true }
            if let priority = subject.facts.apnsPriority, priorities.contains(String(priority)) { return true }
            if subject.facts.platform != .apns, let priority = subject.facts.androidPriority, priorities.contains(priority) { return true }
            if let type = subject.type, types.contains(type) { return true }
            if let match, match.matches(subject) { return true }
            return false
        }

        static func read(_ object: DefinitionObject, defaultLevels: [String]) throws -> Self {
            let levels = try object.strings("exemptInterruptionLevels") ?? defaultLevels
            try InterruptionLevels.check(levels, at: object.place("exemptInterruptionLevels"))
            var priorities: [String] = []
            if let value = object.value("exemptPriorities") {
                for element in value.arrayValue ?? [value] {
                    if let number = element.intValue, [1, 5, 10].contains(number) {
                        priorities.append(String(number))
                    } else if let text = element.stringValue?.lowercased(), ["normal", "high", "1", "5", "10"].contains(text) {
                        priorities.append(text)
                    } else {
                        throw DefinitionProblem(object.place("exemptPriorities"), "expected APNs priorities (1, 5, 10) or normal/high")
                    }
                }
            }
            return Self(
                interruptionLevels: levels,
                priorities: priorities,
                types: try object.strings("exemptTypes") ?? [],
                silent: try object.bool("exemptSilent") ?? true,
                match: try object.value("exempt").map { try PolicyMatch.read($0, at: object.place("exempt"), allowType: true) }
            )
        }

        static let members = ["exemptInterruptionLevels", "exemptPriorities", "exemptTypes", "exemptSilent", "exempt"]

        var referencedTypes: [String] { types + (match?.referencedTypes ?? []) }
    }

    /// Deliver only between ``start`` (inclusive) and ``end`` (exclusive) local time, on
    /// ``days`` (every day when empty): `09:00–21:00`, weekdays only. Equal times mean the
    /// whole day (a window of days only).
    public struct DeliveryWindow: Sendable, Hashable {
        public let name: String
        public let types: [String]?
        public let start: TimeOfDay
        public let end: TimeOfDay
        public let days: [Weekday]
        /// Default: critical interruption level and silent notifications.
        public let exemptions: Exemptions

        public init(
            name: String, types: [String]? = nil, start: TimeOfDay, end: TimeOfDay, days: [Weekday] = [],
            exemptions: Exemptions = Exemptions(interruptionLevels: ["critical"])
        ) throws(PolicyError) {
            guard start != end || !days.isEmpty else {
                throw PolicyError(.invalidDefinition, "start and end are both \(start); a window needs two times or days of the week")
            }
            self.name = name
            self.types = types
            self.start = start
            self.end = end
            self.days = days
            self.exemptions = exemptions
        }

        /// `09:00–21:00 Monday–Friday`.
        public var description: String {
            (start == end ? "all day" : "\(start)–\(end)") + (days.isEmpty ? "" : " " + days.map(\.description).joined(separator: "/"))
        }

        /// Whether a local time and weekday lie in the window. A window crossing midnight
        /// (`21:00–02:00`) belongs to the day it starts on.
        func contains(secondsOfDay: Int, weekday: Int) -> Bool {
            if start == end { return allows(weekday) }
            if start < end {
                return (start.secondsOfDay..<end.secondsOfDay).contains(secondsOfDay) && allows(weekday)
            }
            if secondsOfDay >= start.secondsOfDay { return allows(weekday) }
            if secondsOfDay < end.secondsOfDay { return allows(weekday == 1 ? 7 : weekday - 1) }
            return false
        }

        private func allows(_ weekday: Int) -> Bool { days.isEmpty || days.contains { $0.number == weekday } }
    }

    /// Which instance of the anchoring event a notification follows (the in-app config seed's
    /// `eventInstance`).
    public enum EventInstance: String, Sendable, Hashable, CaseIterable {
        /// After the latest instance; once delivered, never again (the default).
        case latestOnce = "latest-once"
        /// After the latest instance; again after each new instance.
        case latest
        /// Once, after the first instance only.
        case first
    }

    /// "Deliver at least ``offset`` after event ``event`` (per ``instance``), inside the window,
    /// never after any of ``cancelationEvents``" — the in-app config seed's `deliveryTime`,
    /// `cancelationEvents`, `deliveryTimeOfDayStart/End` and `deliveryDaysOfWeek`.
    public struct EventRule: Sendable, Hashable {
        public let name: String
        public let types: [String]?
        public let match: PolicyMatch?
        /// The anchoring event; `nil` for a rule with only cancelation and window.
        public let event: String?
        public let offset: Duration
        public let instance: EventInstance
        public let cancelationEvents: [String]
        public let window: DeliveryWindow?

        public init(
            name: String, types: [String]? = nil, match: PolicyMatch? = nil, event: String?, offset: Duration = .zero,
            instance: EventInstance = .latestOnce, cancelationEvents: [String] = [], window: DeliveryWindow? = nil
        ) throws(PolicyError) {
            guard types != nil || match != nil else {
                throw PolicyError(.invalidDefinition, "an event rule needs \"types\" or \"match\" to say which notifications it governs")
            }
            guard event != nil || !cancelationEvents.isEmpty || window != nil else {
                throw PolicyError(.invalidDefinition, "an event rule needs deliveryTime.eventName, cancelationEvents or a window")
            }
            guard offset >= .zero else { throw PolicyError(.invalidDefinition, "eventOffsetSeconds cannot be negative") }
            self.name = name
            self.types = types
            self.match = match
            self.event = event
            self.offset = offset
            self.instance = instance
            self.cancelationEvents = cancelationEvents
            self.window = window
        }
    }

    /// How the recipients' own preferences are applied: what breaks through their opt-outs and
    /// quiet hours (by default critical and time-sensitive notifications, and silent ones).
    public struct UserRules: Sendable, Hashable {
        public let exemptions: Exemptions

        public init(exemptions: Exemptions = Exemptions()) {
            self.exemptions = exemptions
        }
    }
}
