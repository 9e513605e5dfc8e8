public import Foundation

/// Section 7's `NotificationPreferences`, as the backend stores them per user.
public struct NotificationPreferences: Sendable, Hashable {
    public struct Channels: Sendable, Hashable {
        public var transactional = true
        public var messages = true
        /// Off until the user opts in.
        public var marketing = false

        public init(transactional: Bool = true, messages: Bool = true, marketing: Bool = false) {
            self.transactional = transactional
            self.messages = messages
            self.marketing = marketing
        }
    }

    public struct QuietHours: Sendable, Hashable {
        public var enabled: Bool
        /// "22:00" (HH:mm), local time in `timeZone`.
        public var start: String
        public var end: String
        public var timeZone: TimeZone

        public init(enabled: Bool = true, start: String, end: String, timeZone: TimeZone) {
            self.enabled = enabled
            self.start = start
            self.end = end
            self.timeZone = timeZone
        }
    }

    /// The master toggle.
    public var pushEnabled: Bool
    public var channels: Channels
    public var quietHours: QuietHours?

    public init(pushEnabled: Bool = true, channels: Channels = Channels(), quietHours: QuietHours? = nil) {
        self.pushEnabled = pushEnabled
        self.channels = channels
        self.quietHours = quietHours
    }

    /// Security alerts are always on and cannot be toggled.
    func allows(_ type: NotificationType) -> Bool {
        if type.category == .security { return true }
        guard pushEnabled else { return false }
        switch type.category {
        case .transactional: return channels.transactional
        case .messages: return channels.messages
        case .marketing: return channels.marketing
        case .security: return true
        }
    }
}

extension NotificationPreferences.QuietHours {
    /// When the quiet hours around `date` end, or `nil` when `date` is outside them.
    func end(around date: Date) -> Date? {
        guard enabled, let start = Self.minutes(start), let end = Self.minutes(end) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let inside = start <= end ? (now >= start && now < end) : (now >= start || now < end)
        guard inside else { return nil }
        let midnight = calendar.startOfDay(for: date)
        let endToday = midnight.addingTimeInterval(TimeInterval(end * 60))
        return endToday > date ? endToday : endToday.addingTimeInterval(24 * 3600)
    }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2 else { return nil }
        return parts[0] * 60 + parts[1]
    }
}
