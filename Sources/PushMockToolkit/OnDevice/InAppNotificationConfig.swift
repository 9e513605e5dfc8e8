import Foundation
public import PushMockCore
import PushMockJSON

/// The `notifications` section of an in-app notification config (the Critical Moments seed):
/// notifications the app schedules on the device itself, each with content, a delivery time
/// (a timestamp, or an offset after an app event), a time-of-day window, days of the week,
/// cancelation events, a `scheduleCondition` and `idealDeliveryConditions`. The whole config
/// file may be given; members beside `notifications` are the app's business and ignored.
/// Inside a notification, unknown members are errors (`docs/on-device-scheduling.md`).
public struct InAppNotificationConfig: Sendable, Hashable {
    public var notifications: [Notification]

    public init(notifications: [Notification]) {
        self.notifications = notifications
    }

    /// One named notification of the config.
    public struct Notification: Sendable, Hashable {
        public var name: String
        public var title: String?
        public var body: String?
        public var actionName: String?
        public var sound: String?
        public var badgeCount: Int?
        public var interruptionLevel: String?
        public var deliveryTime: DeliveryTime
        /// Empty: every day.
        public var deliveryDaysOfWeek: [PolicyFile.Weekday]
        public var deliveryTimeOfDayStart: PolicyFile.TimeOfDay?
        public var deliveryTimeOfDayEnd: PolicyFile.TimeOfDay?
        public var cancelationEvents: [String]
        /// Checked whenever the app plans its notifications; false: not scheduled.
        public var scheduleCondition: DeviceCondition?
        public var idealDeliveryConditions: IdealDeliveryConditions?

        public init(
            name: String, title: String? = nil, body: String? = nil, actionName: String? = nil, sound: String? = nil,
            badgeCount: Int? = nil, interruptionLevel: String? = nil, deliveryTime: DeliveryTime,
            deliveryDaysOfWeek: [PolicyFile.Weekday] = [], deliveryTimeOfDayStart: PolicyFile.TimeOfDay? = nil,
            deliveryTimeOfDayEnd: PolicyFile.TimeOfDay? = nil, cancelationEvents: [String] = [],
            scheduleCondition: DeviceCondition? = nil, idealDeliveryConditions: IdealDeliveryConditions? = nil
        ) {
            self.name = name
            self.title = title
            self.body = body
            self.actionName = actionName
            self.sound = sound
            self.badgeCount = badgeCount
            self.interruptionLevel = interruptionLevel
            self.deliveryTime = deliveryTime
            self.deliveryDaysOfWeek = deliveryDaysOfWeek
            self.deliveryTimeOfDayStart = deliveryTimeOfDayStart
            self.deliveryTimeOfDayEnd = deliveryTimeOfDayEnd
            self.cancelationEvents = cancelationEvents
            self.scheduleCondition = scheduleCondition
            self.idealDeliveryConditions = idealDeliveryConditions
        }

        /// The time-of-day and day-of-week filter as a delivery window (`nil`: any time).
        var window: PolicyFile.DeliveryWindow? {
            guard deliveryTimeOfDayStart != nil || deliveryTimeOfDayEnd != nil || !deliveryDaysOfWeek.isEmpty else { return nil }
            let midnight = PolicyFile.TimeOfDay(hour: 0, minute: 0)!
            return try? PolicyFile.DeliveryWindow(
                name: name, start: deliveryTimeOfDayStart ?? midnight, end: deliveryTimeOfDayEnd ?? midnight,
                days: deliveryDaysOfWeek)
        }

        /// Delivered at most once: a timestamp, `first` and `latest-once`.
        var deliversOnce: Bool {
            if case .afterEvent(_, _, .latest) = deliveryTime { return false }
            return true
        }
    }

    /// `deliveryTime`: exactly one of a Unix timestamp and an event.
    public enum DeliveryTime: Sendable, Hashable {
        case timestamp(Timestamp)
        case afterEvent(name: String, offset: Duration, instance: PolicyFile.EventInstance)
    }

    /// `idealDeliveryConditions`: from the delivery time on, wait up to ``maxWait`` for
    /// ``condition`` to hold (checked when the app runs its background work), then deliver
    /// anyway; `maxWait == nil` (`-1` in the config) waits forever.
    public struct IdealDeliveryConditions: Sendable, Hashable {
        public var condition: DeviceCondition
        public var maxWait: Duration?

        public init(condition: DeviceCondition, maxWait: Duration?) {
            self.condition = condition
            self.maxWait = maxWait
        }
    }

    /// Reads a config file (the whole app config or just `{"notifications": {…}}`).
    public init(contentsOfFile path: String) throws(InAppConfigError) {
        let bytes: Data
        do {
            bytes = try FileContents.read(path)
        } catch {
            throw InAppConfigError("", error.description)
        }
        try self.init(json: Array(bytes))
    }

    public init(json bytes: some Collection<UInt8>) throws(InAppConfigError) {
        do {
            let document = try DefinitionObject.parseDocument(bytes)
            guard case .object(let root) = document, let section = root["notifications"] else {
                throw DefinitionProblem("", "expected an object with a \"notifications\" member")
            }
            guard case .object(let entries) = section else {
                throw DefinitionProblem("notifications", "expected an object of named notifications")
            }
            var notifications: [Notification] = []
            for (name, value) in entries.members {
                guard !notifications.contains(where: { $0.name == name }) else {
                    throw DefinitionProblem("notifications.\(name)", "appears twice")
                }
                notifications.append(try Self.readNotification(name, value, at: "notifications.\(name)"))
            }
            self.init(notifications: notifications)
        } catch let problem as DefinitionProblem {
            throw InAppConfigError(problem.location, problem.message)
        } catch let error as InAppConfigError {
            throw error
        } catch {
            throw InAppConfigError("", "\(readable: error)")
        }
    }

    static let notificationMembers = [
        "title", "body", "actionName", "sound", "badgeCount", "launchImageName", "relevanceScore", "interruptionLevel",
        "deliveryTime", "deliveryDaysOfWeek", "deliveryTimeOfDayStart", "deliveryTimeOfDayEnd", "cancelationEvents",
        "scheduleCondition", "idealDeliveryConditions",
    ]

    private static func readNotification(_ name: String, _ value: JSONValue, at location: String) throws -> Notification {
        let object = try DefinitionObject(value, at: location, allowed: notificationMembers)
        func time(_ key: String) throws -> PolicyFile.TimeOfDay? {
            guard let text = try object.string(key) else { return nil }
            guard let time = PolicyFile.TimeOfDay(text) else {
                throw DefinitionProblem(object.place(key), "expected \"HH:MM\", found \"\(text)\"")
            }
            return time
        }
        func condition(_ text: String, at place: String) throws -> DeviceCondition {
            do {
                return try DeviceCondition(text)
            } catch {
                throw DefinitionProblem(place, error.message)
            }
        }
        if let level = try object.string("interruptionLevel"), !["active", "critical", "passive", "timeSensitive"].contains(level) {
            throw DefinitionProblem(object.place("interruptionLevel"), "\"\(level)\": expected active, critical, passive or timeSensitive")
        }
        let ideal: IdealDeliveryConditions?
        if let section = try object.object("idealDeliveryConditions", allowed: ["condition", "maxWaitTimeSeconds"]) {
            let text = try section.requiredString("condition")
            guard let seconds = try section.integer("maxWaitTimeSeconds"), seconds >= -1 else {
                throw DefinitionProblem(section.place("maxWaitTimeSeconds"), "expected a whole number of seconds, or -1 for forever")
            }
            ideal = IdealDeliveryConditions(
                condition: try condition(text, at: section.place("condition")), maxWait: seconds == -1 ? nil : .seconds(seconds))
        } else {
            ideal = nil
        }
        return Notification(
            name: name,
            title: try object.string("title"),
            body: try object.string("body"),
            actionName: try object.string("actionName"),
            sound: try object.string("sound"),
            badgeCount: try object.integer("badgeCount"),
            interruptionLevel: try object.string("interruptionLevel"),
            deliveryTime: try readDeliveryTime(object),
            deliveryDaysOfWeek: try PolicyFile.Weekday.parse(
                try object.strings("deliveryDaysOfWeek") ?? [], at: object.place("deliveryDaysOfWeek")),
            deliveryTimeOfDayStart: try time("deliveryTimeOfDayStart"),
            deliveryTimeOfDayEnd: try time("deliveryTimeOfDayEnd"),
            cancelationEvents: try object.strings("cancelationEvents") ?? [],
            scheduleCondition: try object.string("scheduleCondition").map { try condition($0, at: object.place("scheduleCondition")) },
            idealDeliveryConditions: ideal
        )
    }

    private static func readDeliveryTime(_ object: DefinitionObject) throws -> DeliveryTime {
        guard
            let timing = try object.object(
                "deliveryTime", allowed: ["timestampEpoch", "TimestampEpoch", "eventName", "eventOffsetSeconds", "eventInstance"])
        else { throw DefinitionProblem(object.place("deliveryTime"), "missing (a timestampEpoch or an eventName)") }
        let epochKey = timing.has("timestampEpoch") ? "timestampEpoch" : "TimestampEpoch"
        let epoch = try timing.integer(epochKey)
        let event = try timing.string("eventName")
        switch (epoch, event) {
        case (let seconds?, nil):
            guard !timing.has("eventOffsetSeconds"), !timing.has("eventInstance") else {
                throw DefinitionProblem(timing.location, "eventOffsetSeconds and eventInstance go with eventName, not a timestamp")
            }
            // Seconds, so a large value overflows the millisecond count: bounded like every time.
            let range = InputLimits.timestampMilliseconds
            guard (range.lowerBound / 1000...range.upperBound / 1000).contains(Int64(seconds)) else {
                throw DefinitionProblem(timing.place(epochKey), "must be a time \(InputLimits.timestampRangeText), in seconds since 1970")
            }
            return .timestamp(Timestamp(secondsSince1970: Int64(seconds)))
        case (nil, let name?):
            let offset = try timing.integer("eventOffsetSeconds") ?? 0
            guard offset >= 0 else { throw DefinitionProblem(timing.place("eventOffsetSeconds"), "cannot be negative") }
            guard Double(offset) <= InputLimits.longestDurationSeconds else {
                throw DefinitionProblem(timing.place("eventOffsetSeconds"), "must be \(InputLimits.durationRangeText)")
            }
            var instance = PolicyFile.EventInstance.latestOnce
            if let text = try timing.string("eventInstance") {
                guard let value = PolicyFile.EventInstance(rawValue: text) else {
                    throw DefinitionProblem(timing.place("eventInstance"), "\"\(text)\": expected latest-once, latest or first")
                }
                instance = value
            }
            return .afterEvent(name: name, offset: .seconds(offset), instance: instance)
        default:
            throw DefinitionProblem(timing.location, "needs exactly one of timestampEpoch and eventName")
        }
    }
}

/// An in-app notification config that does not read, located like
/// `notifications.completeSetupReminder.deliveryTime`.
public struct InAppConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: String
    public var message: String

    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { location.isEmpty ? message : "\(location): \(message)" }
}
