public import PushMockCore

/// Bounds that keep a long-running gateway's memory flat, and the services' storage limits.
public struct DeliveryLimits: Sendable, Hashable {
    /// Notifications remembered per device; the oldest settled ones (not `stored`) are
    /// forgotten first. Default 200.
    public var notificationsPerDevice: Int
    /// Timeline events remembered per device. Default 1000.
    public var timelineEventsPerDevice: Int
    /// Devices remembered; beyond it the least recently active are forgotten. Default 100 000.
    public var devices: Int
    /// FCM: non-collapsible messages stored per device before all are discarded. Default 100.
    public var fcmStoredMessages: Int
    /// FCM: distinct collapse keys stored per device. Default 4.
    public var fcmCollapseKeys: Int

    public init(
        notificationsPerDevice: Int = 200,
        timelineEventsPerDevice: Int = 1000,
        devices: Int = 100_000,
        fcmStoredMessages: Int = 100,
        fcmCollapseKeys: Int = 4
    ) {
        self.notificationsPerDevice = notificationsPerDevice
        self.timelineEventsPerDevice = timelineEventsPerDevice
        self.devices = devices
        self.fcmStoredMessages = fcmStoredMessages
        self.fcmCollapseKeys = fcmCollapseKeys
    }

    public static let defaults = DeliveryLimits()
}

/// One simulated device: its connectivity, the notifications the service holds for it or
/// delivered to it, and the timeline of what happened when.
///
/// Time only moves when something happens: every operation first settles expirations up to
/// its `now` (each expiry is recorded at its own instant, not at the time someone looked), so
/// a virtual clock that jumps ahead gives the same timeline as real waiting.
public struct SimulatedDevice: Sendable {
    public let address: DeviceAddress
    /// The rules of the service that stores notifications for this device.
    public var policy: StoragePolicy
    public private(set) var connectivity: Connectivity
    /// Every remembered notification, oldest first.
    public private(set) var notifications: [DeviceNotification] = []
    /// What happened, in order.
    public private(set) var timeline: [DeviceTimelineEvent] = []
    /// How many notifications are `stored` (kept so the common case, nothing stored, costs
    /// no scan of the history).
    public private(set) var storedCount = 0
    /// FCM discarded stored messages; the app hears about it when it is next reachable.
    public private(set) var deletedMessagesPending = false
    /// The last time anything happened to the device.
    public private(set) var lastActivity: Timestamp
    let limits: DeliveryLimits

    public init(
        address: DeviceAddress,
        policy: StoragePolicy,
        connectivity: Connectivity = .online,
        limits: DeliveryLimits = .defaults,
        now: Timestamp
    ) {
        self.address = address
        self.policy = policy
        self.connectivity = connectivity
        self.limits = limits
        self.lastActivity = now
    }

    /// Notifications the user would see now: delivered, visible kinds, not replaced.
    public var displayed: [DeviceNotification] {
        notifications.filter { $0.status == .delivered }
    }

    /// Notifications the service still holds.
    public var stored: [DeviceNotification] {
        notifications.filter { $0.status == .stored }
    }

    /// How many notifications are in each state.
    public var counts: [DeliveryStatus: Int] {
        var counts: [DeliveryStatus: Int] = [:]
        for entry in notifications {
            counts[entry.status, default: 0] += 1
        }
        return counts
    }

    // MARK: Operations

    /// A notification the service accepted for this device at `now`.
    public mutating func receive(_ notification: SimulatedNotification, now: Timestamp) {
        settle(upTo: now)
        lastActivity = now
        if connectivity.reaches(notification.priority) {
            // The common case, built once in place (the entry is large: no copies through
            // `deliver`).
            var entry = DeviceNotification(notification: notification, status: .delivered, statusAt: now)
            entry.deliveredAt = now
            collapseOnScreen(by: entry, at: now)
            append(entry, at: now)
        } else if notification.hasExpired(by: now) {
            let reason =
                notification.expiry == .immediately
                ? "\(expiryName(immediate: true)): the device could not be reached and the service does not store it"
                : "already expired when sent: the device could not be reached"
            append(DeviceNotification(notification: notification, status: .dropped, statusAt: now, reason: reason), at: now)
        } else {
            store(notification, now: now)
        }
        trim()
    }

    /// The device goes online, idle or offline at `now`; what the service held and can now
    /// reach it is delivered, oldest first.
    public mutating func setConnectivity(_ newValue: Connectivity, now: Timestamp) {
        settle(upTo: now)
        lastActivity = now
        guard newValue != connectivity else { return }
        connectivity = newValue
        record(DeviceTimelineEvent(at: now, kind: .connectivity, connectivity: newValue, reason: nil))
        guard newValue.reaches(.high) || newValue.reaches(.normal) else { return }
        if deletedMessagesPending {
            deletedMessagesPending = false
            record(
                DeviceTimelineEvent(
                    at: now,
                    kind: .deletedMessages,
                    reason: "the app's onDeletedMessages() runs: FCM discarded stored messages while the device was away"
                )
            )
        }
        guard storedCount > 0 else { return }
        let reason = newValue == .online ? "device came online" : "device reachable for this priority"
        for index in notifications.indices where notifications[index].status == .stored {
            guard newValue.reaches(notifications[index].notification.priority) else { continue }
            deliver(notifications[index], at: now, reason: reason, index: index)
        }
        trim()
    }

    /// Settles expirations up to `now` (reading a device does this first).
    public mutating func settle(upTo now: Timestamp) {
        guard storedCount > 0 else { return }
        var expiring: [(at: Timestamp, index: Int)] = []
        for index in notifications.indices where notifications[index].status == .stored {
            if case .at(let limit) = notifications[index].notification.expiry, limit <= now {
                expiring.append((limit, index))
            }
        }
        guard !expiring.isEmpty else { return }
        expiring.sort { ($0.at, $0.index) < ($1.at, $1.index) }
        for (at, index) in expiring {
            notifications[index].status = .expired
            storedCount -= 1
            notifications[index].statusAt = at
            notifications[index].reason = "\(expiryName(immediate: false)) passed while the service held it"
            record(event(for: notifications[index], kind: .expired))
        }
    }

    // MARK: Rules

    private mutating func deliver(_ entry: DeviceNotification, at now: Timestamp, reason: String?, index: Int? = nil) {
        var entry = entry
        entry.status = .delivered
        entry.statusAt = now
        entry.deliveredAt = now
        entry.reason = reason
        collapseOnScreen(by: entry, at: now)
        if let index {
            // Only stored notifications are delivered in place.
            storedCount -= 1
            notifications[index] = entry
            record(event(for: entry, kind: .delivered))
        } else {
            append(entry, at: now)
        }
    }

    /// A delivered notification replaces the one on screen with the same display key (APNs
    /// `apns-collapse-id` of an alert, FCM `tag`) of the same app.
    private mutating func collapseOnScreen(by entry: DeviceNotification, at now: Timestamp) {
        guard let displayKey = entry.notification.displayKey else { return }
        for other in notifications.indices
        where notifications[other].status == .delivered
            && notifications[other].notification.app == entry.notification.app
            && notifications[other].notification.displayKey == displayKey
        {
            notifications[other].status = .collapsed
            notifications[other].statusAt = now
            notifications[other].reason = "replaced on screen by \(entry.notification.id) with the same \(displayKeyName)"
            record(event(for: notifications[other], kind: .collapsed))
        }
    }

    private mutating func store(_ notification: SimulatedNotification, now: Timestamp) {
        let waitReason =
            connectivity == .offline
            ? "device offline"
            : "device idle: \(notification.priority) priority waits until it wakes"
        switch policy {
        case .apns:
            // One stored notification per app: the newest replaces whatever was held.
            guard storedCount > 0 else { break }
            for index in notifications.indices
            where notifications[index].status == .stored && notifications[index].notification.app == notification.app {
                let sameCollapseID =
                    notification.collapseKey != nil && notifications[index].notification.collapseKey == notification.collapseKey
                replaceStored(
                    at: index,
                    now: now,
                    status: sameCollapseID ? .collapsed : .dropped,
                    reason: sameCollapseID
                        ? "replaced in the store by \(notification.id) with the same apns-collapse-id"
                        : "APNs keeps only the newest notification per app while the device is away; replaced by \(notification.id)"
                )
            }
        case .fcm:
            if let key = notification.collapseKey {
                for index in notifications.indices
                where notifications[index].status == .stored && notifications[index].notification.collapseKey == key {
                    replaceStored(
                        at: index, now: now, status: .collapsed,
                        reason: "replaced in the store by \(notification.id) with the same collapse key")
                }
                var keys: [String] = []
                for entry in notifications where entry.status == .stored {
                    if let other = entry.notification.collapseKey, !keys.contains(other) { keys.append(other) }
                }
                if keys.count >= limits.fcmCollapseKeys, let oldest = keys.first {
                    for index in notifications.indices
                    where notifications[index].status == .stored && notifications[index].notification.collapseKey == oldest {
                        replaceStored(
                            at: index,
                            now: now,
                            status: .dropped,
                            reason:
                                "FCM stores at most \(limits.fcmCollapseKeys) collapse keys per device; PushMock discards the oldest (FCM does not say which)"
                        )
                    }
                }
            } else {
                let held = notifications.reduce(0) { $0 + ($1.status == .stored && $1.notification.collapseKey == nil ? 1 : 0) }
                if held >= limits.fcmStoredMessages {
                    for index in notifications.indices where notifications[index].status == .stored {
                        replaceStored(
                            at: index,
                            now: now,
                            status: .dropped,
                            reason:
                                "more than \(limits.fcmStoredMessages) messages waiting: FCM discards all stored messages and tells the app (onDeletedMessages)"
                        )
                    }
                    deletedMessagesPending = true
                }
            }
        }
        append(DeviceNotification(notification: notification, status: .stored, statusAt: now, reason: waitReason), at: now)
    }

    private mutating func replaceStored(at index: Int, now: Timestamp, status: DeliveryStatus, reason: String) {
        storedCount -= 1
        notifications[index].status = status
        notifications[index].statusAt = now
        notifications[index].reason = reason
        record(event(for: notifications[index], kind: DeviceTimelineEvent.Kind(status)))
    }

    private mutating func append(_ entry: DeviceNotification, at now: Timestamp) {
        notifications.append(entry)
        if entry.status == .stored { storedCount += 1 }
        record(event(for: entry, kind: DeviceTimelineEvent.Kind(entry.status)))
    }

    private func event(for entry: DeviceNotification, kind: DeviceTimelineEvent.Kind) -> DeviceTimelineEvent {
        DeviceTimelineEvent(
            at: entry.statusAt,
            kind: kind,
            notificationID: entry.notification.id,
            sequence: entry.notification.sequence,
            reason: entry.reason
        )
    }

    private mutating func record(_ event: DeviceTimelineEvent) {
        timeline.append(event)
    }

    /// Forgets the oldest settled notifications and timeline events beyond the limits. Trims
    /// in batches (a quarter of the limit over it) so a busy device does not pay a shift of its
    /// whole history on every notification.
    private mutating func trim() {
        if notifications.count > limits.notificationsPerDevice + Self.slack(limits.notificationsPerDevice) {
            var excess = notifications.count - limits.notificationsPerDevice
            notifications.removeAll { entry in
                guard excess > 0, entry.status != .stored else { return false }
                excess -= 1
                return true
            }
        }
        if timeline.count > limits.timelineEventsPerDevice + Self.slack(limits.timelineEventsPerDevice) {
            timeline.removeFirst(timeline.count - limits.timelineEventsPerDevice)
        }
    }

    private static func slack(_ limit: Int) -> Int { limit / 4 }

    private func expiryName(immediate: Bool) -> String {
        switch policy {
        case .apns: return immediate ? "apns-expiration 0" : "apns-expiration"
        case .fcm: return immediate ? "ttl 0s" : "ttl"
        }
    }

    private var displayKeyName: String {
        switch (policy, address.service) {
        case (.apns, _): return "apns-collapse-id"
        case (.fcm, _): return "notification tag"
        }
    }
}
