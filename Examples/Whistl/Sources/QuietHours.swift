public import Foundation

/// The guide's quiet hours: 22:00 to 07:00 in the user's time zone; only critical
/// interventions are delivered then, the rest are suppressed (not queued: a risk alert from
/// last night is no help in the morning).
public struct QuietHours: Sendable, Hashable {
    public var startHour: Int
    public var endHour: Int

    public init(startHour: Int = 22, endHour: Int = 7) {
        self.startHour = startHour
        self.endHour = endHour
    }

    public func suppresses(_ level: RiskLevel, at date: Date, in timeZone: TimeZone) -> Bool {
        guard !level.bypassesQuietHours else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let hour = calendar.component(.hour, from: date)
        return hour >= startHour || hour < endHour
    }
}
