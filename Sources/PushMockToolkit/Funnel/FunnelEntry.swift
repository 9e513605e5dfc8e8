import PushMockCore

/// One push to one device, as the funnel sees it: what it was and how far it got. The gateway
/// builds these from its recordings and simulated devices (`GET /_pushmock/report`); a test may
/// build them itself.
public struct FunnelEntry: Sendable, Hashable, Codable {
    /// `apns`, `fcm` or `expo`.
    public var platform: String
    /// APNs push type, or `notification`/`data` for FCM and Expo; `nil` when unknown.
    public var type: String?
    public var category: String?
    /// `high`, `normal` or `low`; `nil` when unknown.
    public var priority: String?
    /// The service answered success (a rejected send never reaches a device).
    public var accepted: Bool
    /// Milliseconds from acceptance to delivery on the device; `nil`: not delivered (yet).
    public var deliveryLatencyMilliseconds: Int64?
    /// The user saw it (an alert on screen with notifications allowed, or displayed by the app).
    public var displayed: Bool
    public var opened: Bool
    /// An action button was chosen.
    public var acted: Bool
    public var dismissed: Bool

    public init(
        platform: String,
        type: String? = nil,
        category: String? = nil,
        priority: String? = nil,
        accepted: Bool,
        deliveryLatencyMilliseconds: Int64? = nil,
        displayed: Bool = false,
        opened: Bool = false,
        acted: Bool = false,
        dismissed: Bool = false
    ) {
        self.platform = platform
        self.type = type
        self.category = category
        self.priority = priority
        self.accepted = accepted
        self.deliveryLatencyMilliseconds = deliveryLatencyMilliseconds
        self.displayed = displayed
        self.opened = opened
        self.acted = acted
        self.dismissed = dismissed
    }

    public var delivered: Bool { deliveryLatencyMilliseconds != nil }
}

/// A delivery-latency target the team states: "critical (high priority) within 5 s", at a
/// percentile (default 100: every one). Undelivered notifications count as infinitely late.
public struct LatencyTarget: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The team's word for it ("critical"); defaults to the priority.
    public var name: String
    public var priority: String
    public var withinMilliseconds: Int64
    /// 1…100.
    public var percentile: Double

    public init(name: String? = nil, priority: String, withinMilliseconds: Int64, percentile: Double = 100) {
        self.name = name ?? priority
        self.priority = priority
        self.withinMilliseconds = withinMilliseconds
        self.percentile = percentile
    }

    /// `[name=]priority:duration[:pNN]`, e.g. `critical=high:5s`, `normal:10m:p95`, `low:90`
    /// (a bare number is seconds; units ms, s, m, h).
    public init(parsing text: String) throws(FunnelError) {
        var rest = Substring(text)
        var name: String?
        if let equals = rest.firstIndex(of: "=") {
            name = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, ["high", "normal", "low"].contains(parts[0].lowercased()) else {
            throw FunnelError("target \"\(text)\": expected [name=]high|normal|low:duration[:pNN], e.g. critical=high:5s")
        }
        guard let milliseconds = Self.milliseconds(parts[1]) else {
            throw FunnelError("target \"\(text)\": \(parts[1]) is not a duration (5s, 500ms, 2m, 1h)")
        }
        var percentile = 100.0
        if parts.count == 3 {
            guard parts[2].hasPrefix("p"), let value = Double(parts[2].dropFirst()), value > 0, value <= 100 else {
                throw FunnelError("target \"\(text)\": the percentile is p1…p100, e.g. p95")
            }
            percentile = value
        }
        self.init(
            name: name.flatMap { $0.isEmpty ? nil : $0 }, priority: parts[0].lowercased(), withinMilliseconds: milliseconds,
            percentile: percentile)
    }

    /// `250ms`, `2s`, `1m`, `1h` or a number of seconds; `nil` when negative or beyond
    /// ``InputLimits/longestDurationSeconds`` (`1e300s` must not overflow the millisecond count).
    static func milliseconds(_ text: String) -> Int64? {
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        let (number, factor) = units.first { text.hasSuffix($0.0) }.map { (text.dropLast($0.0.count), $0.1) } ?? (Substring(text), 1000)
        guard let value = Double(number), value >= 0, value * factor <= InputLimits.longestDurationSeconds * 1000 else { return nil }
        return Int64((value * factor).rounded())
    }

    public var description: String {
        let within = withinMilliseconds % 1000 == 0 ? "\(withinMilliseconds / 1000) s" : "\(withinMilliseconds) ms"
        let share = percentile == 100 ? "every one" : "p\(Self.number(percentile))"
        return "\(name) (\(priority) priority) delivered within \(within), \(share)"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A report input the funnel cannot use.
public struct FunnelError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
