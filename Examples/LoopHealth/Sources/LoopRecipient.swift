public import Foundation

/// A Loop user as the backend knows them: Knock's recipient with its Expo push tokens, and the
/// quiet hours the scheduling keeps — the user's own (the seed's
/// `NotificationPreferences.quietHours`) and Loop's promise to everyone (policy.json's night).
public struct LoopRecipient: Sendable, Hashable {
    public var id: String
    public var timeZone: TimeZone
    public var pushTokens: [String]
    public var quietHours: [QuietHours]

    public init(id: String, timeZone: TimeZone, pushTokens: [String], quietHours: [QuietHours] = []) {
        self.id = id
        self.timeZone = timeZone
        self.pushTokens = pushTokens
        self.quietHours = quietHours
    }

    /// The first instant at or after `date` outside every quiet-hours window; `nil` when `date`
    /// itself is outside them.
    public func endOfQuietHours(after date: Date) -> Date? {
        var end = date
        var moved = false
        // Windows may overlap (21:00–07:00 and 22:00–08:00): step to each end until none holds.
        for _ in 0..<quietHours.count * 2 + 1 {
            guard let window = quietHours.first(where: { $0.contains(end, in: timeZone) }) else { break }
            end = window.end(after: end, in: timeZone)
            moved = true
        }
        return moved ? end : nil
    }
}

/// `start`–`end` local time (`"22:00"`–`"08:00"`), crossing midnight when start > end; start
/// inclusive, end exclusive — as PushMock's policy checks read quiet hours.
public struct QuietHours: Sendable, Hashable {
    public var startMinute: Int
    public var endMinute: Int

    /// `"HH:MM"` times; nil when either is not one.
    public init?(start: String, end: String) {
        guard let start = Self.minutes(start), let end = Self.minutes(end) else { return nil }
        self.startMinute = start
        self.endMinute = end
    }

    /// Whether `date` falls inside the quiet hours in `zone`.
    public func contains(_ date: Date, in zone: TimeZone) -> Bool {
        let minute = Self.minuteOfDay(date, in: zone)
        if startMinute <= endMinute { return minute >= startMinute && minute < endMinute }
        return minute >= startMinute || minute < endMinute
    }

    /// The next end of the quiet hours at or after `date` in `zone`.
    public func end(after date: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(hour: endMinute / 60, minute: endMinute % 60, second: 0)
        return calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime) ?? date
    }

    static func minuteOfDay(_ date: Date, in zone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }
}
