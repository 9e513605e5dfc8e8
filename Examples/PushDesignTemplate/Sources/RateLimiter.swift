import Foundation

/// Section 8's limits, per user and category, over a sliding window: messages 100 per hour,
/// marketing 2 per 7 days, transactional and security unlimited. "Rate limit checked before
/// sending to push service."
public struct RateLimits: Sendable, Hashable {
    public var messagesPerHour: Int
    public var marketingPerWeek: Int

    public init(messagesPerHour: Int = 100, marketingPerWeek: Int = 2) {
        self.messagesPerHour = messagesPerHour
        self.marketingPerWeek = marketingPerWeek
    }

    func limit(for category: NotificationType.Category) -> (limit: Int, window: TimeInterval)? {
        switch category {
        case .messages: (messagesPerHour, 3600)
        case .marketing: (marketingPerWeek, 7 * 24 * 3600)
        case .transactional, .security: nil
        }
    }
}

/// What each user was sent, per category, for the limits.
struct SendLog: Sendable {
    private var sent: [String: [Date]] = [:]

    private static func key(_ user: String, _ category: NotificationType.Category) -> String { "\(user)/\(category.rawValue)" }

    /// `nil` when one more is allowed at `date`; otherwise when the oldest send in the window
    /// leaves it.
    func nextSlot(user: String, category: NotificationType.Category, limits: RateLimits, at date: Date) -> Date? {
        guard let (limit, window) = limits.limit(for: category) else { return nil }
        let recent = (sent[Self.key(user, category)] ?? []).filter { $0 > date.addingTimeInterval(-window) }
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return oldest.addingTimeInterval(window)
    }

    mutating func record(user: String, category: NotificationType.Category, at date: Date) {
        sent[Self.key(user, category), default: []].append(date)
    }
}
