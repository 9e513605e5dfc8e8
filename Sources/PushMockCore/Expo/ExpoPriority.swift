/// The `priority` of an Expo message: `default`, `normal` or `high` — nothing else is accepted.
///
/// `default` means each provider's own default: normal on Android (FCM), high on iOS (APNs).
/// Normal maps to APNs priority 5, high to 10 (Expo docs, "Note on priority").
package struct ExpoPriority: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    private enum Value: String, CaseIterable, Sendable {
        case `default`
        case normal
        case high
    }

    private let value: Value

    private init(_ value: Value) { self.value = value }

    package static let `default` = ExpoPriority(.default)
    package static let normal = ExpoPriority(.normal)
    package static let high = ExpoPriority(.high)

    package static var allCases: [ExpoPriority] { Value.allCases.map(ExpoPriority.init) }

    /// Reads the wire value (exact case); `nil` for anything else.
    package init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue) else { return nil }
        self.value = value
    }

    /// The wire value.
    package var rawValue: String { value.rawValue }

    package var description: String { rawValue }

    /// The `apns-priority` Expo relays for an iOS device.
    package var apnsPriority: Int {
        switch value {
        case .default, .high: return 10
        case .normal: return 5
        }
    }

    /// Whether FCM gets `android.priority: HIGH` (`default` is FCM's own default, normal).
    package var isHighOnAndroid: Bool { value == .high }
}

/// The iOS `interruptionLevel` of an Expo message (`UNNotificationInterruptionLevel`).
package struct ExpoInterruptionLevel: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    private enum Value: String, CaseIterable, Sendable {
        case active
        case critical
        case passive
        case timeSensitive = "time-sensitive"
    }

    private let value: Value

    private init(_ value: Value) { self.value = value }

    package static let active = ExpoInterruptionLevel(.active)
    package static let critical = ExpoInterruptionLevel(.critical)
    package static let passive = ExpoInterruptionLevel(.passive)
    package static let timeSensitive = ExpoInterruptionLevel(.timeSensitive)

    package static var allCases: [ExpoInterruptionLevel] { Value.allCases.map(ExpoInterruptionLevel.init) }

    package init?(rawValue: String) {
        guard let value = Value(rawValue: rawValue) else { return nil }
        self.value = value
    }

    /// The wire value, which is also the APNs `interruption-level` value.
    package var rawValue: String { value.rawValue }

    package var description: String { rawValue }
}
