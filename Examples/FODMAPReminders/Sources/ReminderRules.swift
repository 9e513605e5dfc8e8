public import Foundation

/// The design's notification types (`NotificationType`).
public enum ReminderType: String, Sendable, Hashable, CaseIterable {
    case dailyReminder = "daily_reminder"
    case doseReminder = "dose_reminder"
    case washoutStart = "washout_start"
    case washoutEnd = "washout_end"
    case testStartReminder = "test_start_reminder"

    /// Washout start and end count as one type for spacing, as one "washout" notification kind.
    var spacingGroup: String { self == .washoutStart || self == .washoutEnd ? "washout" : rawValue }
}

/// A local time of day (`TimeOfDay`).
public struct TimeOfDay: Sendable, Hashable, Comparable {
    public var hour: Int
    public var minute: Int

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    var minutes: Int { hour * 60 + minute }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.minutes < rhs.minutes }
}

/// The rules every reminder passes, on the device (local notifications) and in the backend
/// (pushes) alike: the design's `QuietHoursManager` and its rate limits — at most 10 a day, at
/// least an hour between two of one type, nothing in quiet hours but dose reminders
/// (`allowCritical`).
public struct ReminderRules: Sendable, Hashable {
    public var quietStart: TimeOfDay
    public var quietEnd: TimeOfDay
    /// Dose reminders may break through quiet hours.
    public var allowCritical: Bool
    public var maximumPerDay: Int
    public var minimumSpacing: TimeInterval

    public init(
        quietStart: TimeOfDay = TimeOfDay(hour: 22, minute: 0),
        quietEnd: TimeOfDay = TimeOfDay(hour: 7, minute: 0),
        allowCritical: Bool = true,
        maximumPerDay: Int = 10,
        minimumSpacing: TimeInterval = 3600
    ) {
        self.quietStart = quietStart
        self.quietEnd = quietEnd
        self.allowCritical = allowCritical
        self.maximumPerDay = maximumPerDay
        self.minimumSpacing = minimumSpacing
    }

    /// What to do with a reminder of `type` due at `date`.
    public enum Decision: Sendable, Hashable {
        case deliver(at: Date)
        /// The day's cap is full.
        case drop
    }

    /// When a reminder of `type` due at `due` may go, given what already went (`earlier`: type
    /// and time), in `zone`: moved past quiet hours (`adjustForQuietHours`) and past the
    /// spacing, dropped when its local day already has `maximumPerDay`.
    public func decide(_ type: ReminderType, due: Date, earlier: [(type: ReminderType, at: Date)], in zone: TimeZone) -> Decision {
        var time = due
        // Each move can land in the other rule's way (spacing into quiet hours): settle both.
        let sameType = earlier.filter { $0.type.spacingGroup == type.spacingGroup }.map(\.at)
        for _ in 0..<(sameType.count + 4) {
            // Too close to one of its type, before or after: go an hour after the latest of them.
            if let conflict = sameType.filter({ abs($0.timeIntervalSince(time)) < minimumSpacing }).max() {
                time = conflict.addingTimeInterval(minimumSpacing)
                continue
            }
            if isQuiet(time, in: zone) && !(allowCritical && type == .doseReminder) {
                time = quietEnd(after: time, in: zone)
                continue
            }
            break
        }
        let day = Self.calendar(zone).startOfDay(for: time)
        let sameDay = earlier.filter { Self.calendar(zone).startOfDay(for: $0.at) == day }
        return sameDay.count >= maximumPerDay ? .drop : .deliver(at: time)
    }

    /// `isInQuietHours`.
    public func isQuiet(_ date: Date, in zone: TimeZone) -> Bool {
        let parts = Self.calendar(zone).dateComponents([.hour, .minute], from: date)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return quietStart < quietEnd
            ? (quietStart.minutes..<quietEnd.minutes).contains(minute)
            : minute >= quietStart.minutes || minute < quietEnd.minutes
    }

    /// `getNextAvailableTime`: the next end of the quiet hours after `date`.
    public func quietEnd(after date: Date, in zone: TimeZone) -> Date {
        Self.calendar(zone).nextDate(
            after: date, matching: DateComponents(hour: quietEnd.hour, minute: quietEnd.minute, second: 0), matchingPolicy: .nextTime)
            ?? date
    }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
