import Foundation
public import PushMockCore

/// Plays an in-app notification config forward on the virtual clock for one user: what the
/// app on the phone would schedule and show, and when, given the app events (and the device
/// properties they carry) a test posted to the gateway. Nothing here passes through a push
/// service — the phone decides — so this is PushMock's model of the SDK's planner, documented
/// rule by rule in `docs/on-device-scheduling.md`:
///
/// - the app (re)plans every notification when the config arrives (`from`), at every event
///   that triggers or cancels one of them, after each delivery, and at the background checks
///   of notifications waiting for ideal conditions (every ``Options/backgroundCheckInterval``);
/// - a plan: delivered once already (timestamp, `first`, `latest-once`) → nothing; any
///   cancelation event so far → canceled for good; `scheduleCondition` false → not scheduled;
///   the due time (timestamp, or anchoring event + offset per `eventInstance`); with
///   `idealDeliveryConditions`, delivered at a check inside [due, due + maxWait] in the window
///   where the condition holds, else at due + maxWait; finally moved forward into the
///   time-of-day window and days of the week in the user's time zone.
public struct OnDeviceScheduler: Sendable {
    public struct Options: Sendable, Hashable {
        /// How often the app's background work re-checks ideal delivery conditions. Default
        /// 15 minutes, the SDK's shortest; iOS decides when background work really runs,
        /// PushMock runs it exactly on time.
        public var backgroundCheckInterval: Duration

        public init(backgroundCheckInterval: Duration = .seconds(15 * 60)) {
            self.backgroundCheckInterval = backgroundCheckInterval
        }
    }

    public let config: InAppNotificationConfig
    public let options: Options

    /// How many steps a schedule plays between two questions to its `isCancelled`.
    public static let cancellationCheckSteps = 4096

    public init(config: InAppNotificationConfig, options: Options = Options()) {
        self.config = config
        self.options = options
    }

    /// The schedule of `user` from `from` (the config is on the device) to `until`, with the
    /// user's `events` (others' events are ignored). Times in the user's time zone (UTC when
    /// it has none).
    ///
    /// A schedule over years with frequent background checks plays up to a million steps;
    /// `isCancelled` is asked every ``cancellationCheckSteps`` of them, and once it says yes
    /// the schedule ends there (what was played so far; the caller no longer wants it).
    public func schedule(
        for user: PushUser, events: [AppEvent], from: Timestamp, until: Timestamp, isCancelled: () -> Bool = { false }
    ) -> OnDeviceSchedule {
        let zoneName = user.timeZone ?? "UTC"
        var run = ScheduleRun(
            config: config, options: options, zone: TimeZoneText.zone(named: zoneName) ?? TimeZone(identifier: "UTC")!,
            events: events.filter { $0.user == user.id }.sorted { ($0.timeMilliseconds, $0.sequence) < ($1.timeMilliseconds, $1.sequence) })
        let entries = run.play(from: from, until: until, isCancelled: isCancelled)
        return OnDeviceSchedule(user: user.id, timeZone: zoneName, from: from, until: until, entries: entries)
    }
}

/// The schedule one user's device would follow: per notification of the config, its
/// deliveries and where it stands at the end.
public struct OnDeviceSchedule: Sendable, Hashable, CustomStringConvertible {
    public var user: String
    public var timeZone: String
    public var from: Timestamp
    public var until: Timestamp
    public var entries: [Entry]

    public struct Entry: Sendable, Hashable {
        public var name: String
        public var deliveries: [Delivery]
        /// Where the notification stands at `until`.
        public var outcome: Outcome
    }

    public struct Delivery: Sendable, Hashable {
        /// When the phone shows it (gateway clock).
        public var time: Timestamp
        /// `Mon 2026-01-05 13:10` in the user's zone.
        public var localTime: String
        /// The time it was due before ideal conditions and the window moved it.
        public var due: Timestamp
        public var reason: Reason
        /// The event it followed (event-relative delivery).
        public var anchor: AppEvent?
    }

    public enum Reason: String, Sendable, Hashable {
        /// At the due time, which was inside the window.
        case onTime = "on time"
        /// The due time was outside the time of day or days of the week; moved to the next allowed time.
        case movedIntoWindow = "moved into the delivery window"
        /// A background check inside the ideal-delivery wait found the condition true.
        case idealConditionsMet = "ideal delivery conditions met"
        /// The condition never held during the wait; delivered anyway at its end (then moved into the window).
        case idealWaitEnded = "ideal delivery wait ended"
    }

    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// Delivered; it delivers only once.
        case delivered
        /// Scheduled for a time after `until`.
        case scheduled(Timestamp)
        /// Its event has not happened (again).
        case waitingForEvent(String)
        /// Waiting forever (`maxWaitTimeSeconds: -1`) for its ideal delivery condition.
        case waitingForIdealConditions
        /// A cancelation event happened; never scheduled again.
        case canceled(by: AppEvent)
        /// `scheduleCondition` was false (or undecidable) at the last plan.
        case conditionNotMet(String)
        /// Its time had passed before the config reached the device (a timestamp in the past,
        /// or an event long ago); the SDK takes it as delivered earlier.
        case missed(Timestamp)

        public var description: String {
            switch self {
            case .delivered: "delivered"
            case .scheduled(let time): "scheduled for \(time)"
            case .waitingForEvent(let name): "waiting for event \(name)"
            case .waitingForIdealConditions: "waiting for its ideal delivery condition"
            case .canceled(let event): "canceled by \(event)"
            case .conditionNotMet(let detail): "not scheduled: \(detail)"
            case .missed(let time): "missed: was due \(time), before the config arrived"
            }
        }
    }

    /// The entry of notification `name`.
    public func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// When notification `name` was shown, in order.
    public func deliveryTimes(_ name: String) -> [Timestamp] { entry(name)?.deliveries.map(\.time) ?? [] }

    /// Every delivery of every notification, in time order.
    public var allDeliveries: [(name: String, delivery: Delivery)] {
        entries.flatMap { entry in entry.deliveries.map { (name: entry.name, delivery: $0) } }
            .sorted { $0.delivery.time < $1.delivery.time }
    }

    public var description: String {
        var lines = ["On-device schedule for user \(user) (\(timeZone)), \(from) … \(until)"]
        for entry in entries {
            lines.append("\(entry.name): \(entry.deliveries.count) delivered, \(entry.outcome)")
            for delivery in entry.deliveries {
                let anchor = delivery.anchor.map { " after \($0.name) #\($0.sequence)" } ?? ""
                lines.append("  \(delivery.time) (\(delivery.localTime)) \(delivery.reason.rawValue); due \(delivery.due)\(anchor)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// One play of the config over one user's events.
private struct ScheduleRun {
    let config: InAppNotificationConfig
    let options: OnDeviceScheduler.Options
    let zone: TimeZone
    let events: [AppEvent]
    let calendar: Calendar

    /// What the app has planned for one notification after its latest replan.
    struct Plan {
        var fire: Timestamp?
        var due: Timestamp?
        var reason = OnDeviceSchedule.Reason.onTime
        var anchor: AppEvent?
        /// The next background check (ideal delivery conditions).
        var check: Timestamp?
        var outcome: OnDeviceSchedule.Outcome
    }

    var deliveries: [[OnDeviceSchedule.Delivery]]
    /// Event sequences a `latest` notification has already followed.
    var followed: [Set<UInt64>]

    init(config: InAppNotificationConfig, options: OnDeviceScheduler.Options, zone: TimeZone, events: [AppEvent]) {
        self.config = config
        self.options = options
        self.zone = zone
        self.events = events
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
        deliveries = Array(repeating: [], count: config.notifications.count)
        followed = Array(repeating: [], count: config.notifications.count)
    }

    mutating func play(from: Timestamp, until: Timestamp, isCancelled: () -> Bool) -> [OnDeviceSchedule.Entry] {
        let notifications = config.notifications
        let replanning = Set(
            notifications.flatMap { notification -> [String] in
                var names = notification.cancelationEvents
                if case .afterEvent(let name, _, _) = notification.deliveryTime { names.append(name) }
                return names
            })
        var now = from
        var plans = notifications.indices.map { plan($0, at: now) }
        var nextEvent = events.firstIndex { $0.timeMilliseconds > now.millisecondsSince1970 } ?? events.count
        // A config whose plans keep moving cannot loop forever: each step moves the clock or
        // delivers, and the number of steps is bounded for safety.
        for step in 0..<1_000_000 {
            if step % OnDeviceScheduler.cancellationCheckSteps == 0, step > 0, isCancelled() { break }
            while nextEvent < events.count, !replanning.contains(events[nextEvent].name) { nextEvent += 1 }
            let eventTime = nextEvent < events.count ? Timestamp(millisecondsSince1970: events[nextEvent].timeMilliseconds) : nil
            let fireTime = plans.compactMap { $0.fire }.filter { $0 >= now }.min()
            let checkTime = plans.compactMap { $0.check }.filter { $0 > now }.min()
            guard let next = [eventTime, fireTime, checkTime].compactMap({ $0 }).min(), next <= until else { break }
            now = next
            if eventTime == next {
                // Every event of that instant is in the state; cancelations win over a delivery due now.
                while nextEvent < events.count, events[nextEvent].timeMilliseconds <= next.millisecondsSince1970 { nextEvent += 1 }
            } else if fireTime == next {
                for index in plans.indices where plans[index].fire == next {
                    let plan = plans[index]
                    deliveries[index].append(
                        OnDeviceSchedule.Delivery(
                            time: next, localTime: localText(next), due: plan.due ?? next, reason: plan.reason, anchor: plan.anchor))
                    if let anchor = plan.anchor { followed[index].insert(anchor.sequence) }
                }
            }
            plans = notifications.indices.map { plan($0, at: now) }
        }
        return notifications.indices.map { index in
            OnDeviceSchedule.Entry(name: notifications[index].name, deliveries: deliveries[index], outcome: plans[index].outcome)
        }
    }

    /// The app's plan for notification `index` as it would compute it at `now`.
    func plan(_ index: Int, at now: Timestamp) -> Plan {
        let notification = config.notifications[index]
        if notification.deliversOnce && !deliveries[index].isEmpty { return Plan(outcome: .delivered) }
        let history = events.prefix { $0.timeMilliseconds <= now.millisecondsSince1970 }
        if let cancel = history.first(where: { notification.cancelationEvents.contains($0.name) }) {
            return Plan(outcome: .canceled(by: cancel))
        }
        let state = DeviceState.at(now, events: Array(history))
        if let condition = notification.scheduleCondition {
            switch condition.evaluate(in: state) {
            case .success(true): break
            case .success(false): return Plan(outcome: .conditionNotMet("scheduleCondition \"\(condition)\" is false"))
            case .failure(let error): return Plan(outcome: .conditionNotMet("scheduleCondition \"\(condition)\": \(error)"))
            }
        }
        let due: Timestamp
        var anchor: AppEvent?
        switch notification.deliveryTime {
        case .timestamp(let time):
            due = time
        case .afterEvent(let name, let offset, let instance):
            let instances = history.filter { $0.name == name }
            guard let chosen = Self.anchor(instances, offset: offset, instance: instance) else {
                return Plan(outcome: .waitingForEvent(name))
            }
            if instance == .latest && followed[index].contains(chosen.sequence) { return Plan(outcome: .waitingForEvent(name)) }
            anchor = chosen
            due = Timestamp(millisecondsSince1970: chosen.timeMilliseconds) + offset
        }
        let window = notification.window
        var plan = Plan(due: due, anchor: anchor, outcome: .scheduled(due))
        if let ideal = notification.idealDeliveryConditions {
            let waitEnd = ideal.maxWait.map { due + $0 }
            let inWait = due <= now && (waitEnd.map { now <= $0 } ?? true) && allows(window, now)
            if inWait && ideal.condition.holds(in: state) {
                plan.fire = now
                plan.reason = .idealConditionsMet
                plan.outcome = .scheduled(now)
                return plan
            }
            plan.reason = .idealWaitEnded
            plan.fire = waitEnd.map { moveIntoWindow(window, $0) }
            let check = moveIntoWindow(window, now + options.backgroundCheckInterval)
            if plan.fire.map({ check < $0 }) ?? true { plan.check = check }
            plan.outcome = plan.fire.map { .scheduled($0) } ?? .waitingForIdealConditions
        } else {
            let fire = moveIntoWindow(window, due)
            plan.fire = fire
            plan.reason = fire == due ? .onTime : .movedIntoWindow
            plan.outcome = .scheduled(fire)
        }
        if let fire = plan.fire, fire < now {
            return Plan(due: due, anchor: anchor, outcome: .missed(fire))
        }
        return plan
    }

    /// The instance of the anchoring event a notification follows: `first`, the latest, or
    /// for `latest-once` the first instance not followed by another one within `offset`
    /// (a new instance before the delivery pushes it back; once due, it stays due).
    static func anchor(_ instances: [AppEvent], offset: Duration, instance: PolicyFile.EventInstance) -> AppEvent? {
        switch instance {
        case .first: return instances.first
        case .latest: return instances.last
        case .latestOnce:
            guard var chosen = instances.first else { return nil }
            let offsetMilliseconds = Timestamp(millisecondsSince1970: 0) + offset
            for event in instances.dropFirst() {
                if event.timeMilliseconds > chosen.timeMilliseconds + offsetMilliseconds.millisecondsSince1970 { break }
                chosen = event
            }
            return chosen
        }
    }

    func allows(_ window: PolicyFile.DeliveryWindow?, _ time: Timestamp) -> Bool {
        guard let window else { return true }
        let parts = calendar.dateComponents([.hour, .minute, .second, .weekday], from: date(time))
        let seconds = (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)
        return window.contains(secondsOfDay: seconds, weekday: parts.weekday ?? 1)
    }

    /// `time` if the window allows it, else the window's next opening (at most eight days on).
    func moveIntoWindow(_ window: PolicyFile.DeliveryWindow?, _ time: Timestamp) -> Timestamp {
        guard let window, !allows(window, time) else { return time }
        let start = calendar.startOfDay(for: date(time))
        for day in 0...8 {
            guard let dayStart = calendar.date(byAdding: .day, value: day, to: start),
                let opening = calendar.date(bySettingHour: window.start.hour, minute: window.start.minute, second: 0, of: dayStart)
            else { continue }
            let candidate = Timestamp(millisecondsSince1970: Int64((opening.timeIntervalSince1970 * 1000).rounded()))
            if candidate > time && allows(window, candidate) { return candidate }
        }
        return time
    }

    func date(_ time: Timestamp) -> Date { Date(timeIntervalSince1970: Double(time.millisecondsSince1970) / 1000) }

    /// `Mon 2026-01-05 13:10`.
    func localText(_ time: Timestamp) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date(time))
        func two(_ number: Int?) -> String { (number ?? 0) < 10 ? "0\(number ?? 0)" : "\(number ?? 0)" }
        let day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][((parts.weekday ?? 1) - 1) % 7]
        return "\(day) \(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute))"
    }
}
