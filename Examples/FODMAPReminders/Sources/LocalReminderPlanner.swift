public import Foundation

/// How often the app reminds (`NotificationFrequency`).
public enum NotificationFrequency: String, Sendable, Hashable {
    /// The daily symptom reminder and a reminder before every dose.
    case full
    /// Dose reminders only: the user logs symptoms without being asked.
    case reduced
    /// Only the day's first dose reminder.
    case minimal
}

/// The design's `AdherenceAnalyzer`, reduced to its recommendation: seven days of consistent
/// logging reduce the reminders, fourteen make them minimal, two missed days in the last three
/// restore them.
public enum AdherenceAnalyzer {
    /// `loggedDays`: one entry per past day, oldest first, whether the user logged that day.
    public static func recommend(loggedDays: [Bool]) -> NotificationFrequency {
        if loggedDays.suffix(3).filter({ !$0 }).count >= 2 { return .full }
        let streak = loggedDays.reversed().prefix { $0 }.count
        if streak >= 14 { return .minimal }
        if streak >= 7 { return .reduced }
        return .full
    }
}

/// One local notification the app schedules on the phone with
/// `Notifications.scheduleNotificationAsync` (no push service sees it).
public struct LocalNotification: Sendable, Hashable {
    public var type: ReminderType
    public var fireAt: Date
    public var title: String
    public var url: String
}

/// The on-device part of the design (`NotificationScheduler`): the day's local notifications
/// from the user's preferences and adherence, after the same rules the backend's pushes keep.
public struct LocalReminderPlanner: Sendable {
    public var rules: ReminderRules
    public var zone: TimeZone
    /// `dailyReminderTime`; nil when the daily reminder is off.
    public var dailyReminderTime: TimeOfDay?
    /// The dose times of the current test step.
    public var doseTimes: [TimeOfDay]
    /// `doseReminderAdvanceMinutes` (default 30).
    public var doseReminderAdvanceMinutes: Int
    public var stepID: String

    public init(
        rules: ReminderRules = ReminderRules(), zone: TimeZone, dailyReminderTime: TimeOfDay?, doseTimes: [TimeOfDay],
        doseReminderAdvanceMinutes: Int = 30, stepID: String
    ) {
        self.rules = rules
        self.zone = zone
        self.dailyReminderTime = dailyReminderTime
        self.doseTimes = doseTimes
        self.doseReminderAdvanceMinutes = doseReminderAdvanceMinutes
        self.stepID = stepID
    }

    /// The local notifications for the local day that contains `day`, in firing order, and the
    /// ones the rules dropped (over the daily cap).
    public func plan(day: Date, frequency: NotificationFrequency) -> (scheduled: [LocalNotification], dropped: [LocalNotification]) {
        let calendar = ReminderRules.calendar(zone)
        let midnight = calendar.startOfDay(for: day)
        func at(_ time: TimeOfDay, minus minutes: Int = 0) -> Date {
            midnight.addingTimeInterval(TimeInterval((time.minutes - minutes) * 60))
        }
        var candidates: [LocalNotification] = []
        let doses = frequency == .minimal ? Array(doseTimes.sorted().prefix(1)) : doseTimes.sorted()
        for dose in doses {
            candidates.append(
                LocalNotification(
                    type: .doseReminder, fireAt: at(dose, minus: doseReminderAdvanceMinutes),
                    title: "Dose in \(doseReminderAdvanceMinutes) minutes",
                    url: "fodmap://tests/\(stepID)"))
        }
        if frequency == .full, let daily = dailyReminderTime {
            candidates.append(LocalNotification(type: .dailyReminder, fireAt: at(daily), title: "How was your day?", url: "fodmap://log"))
        }
        candidates.sort { $0.fireAt < $1.fireAt }
        var scheduled: [LocalNotification] = []
        var dropped: [LocalNotification] = []
        for candidate in candidates {
            switch rules.decide(candidate.type, due: candidate.fireAt, earlier: scheduled.map { ($0.type, $0.fireAt) }, in: zone) {
            case .deliver(let time):
                var moved = candidate
                moved.fireAt = time
                scheduled.append(moved)
            case .drop:
                dropped.append(candidate)
            }
        }
        return (scheduled.sorted { $0.fireAt < $1.fireAt }, dropped)
    }
}
