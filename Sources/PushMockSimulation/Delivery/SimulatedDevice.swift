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
    /// Payload bytes all devices' notifications may hold, in MiB (a payload several devices
    /// remember counts once); beyond it the least recently active devices are forgotten.
    /// Default 256, as the recordings' bytes.
    public var payloadMebibytes: Int

    public init(
        notificationsPerDevice: Int = 200,
        timelineEventsPerDevice: Int = 1000,
        devices: Int = 100_000,
        fcmStoredMessages: Int = 100,
        fcmCollapseKeys: Int = 4,
        payloadMebibytes: Int = 256
    ) {
        self.notificationsPerDevice = notificationsPerDevice
        self.timelineEventsPerDevice = timelineEventsPerDevice
        self.devices = devices
        self.fcmStoredMessages = fcmStoredMessages
        self.fcmCollapseKeys = fcmCollapseKeys
        self.payloadMebibytes = payloadMebibytes
    }

    /// ``payloadMebibytes`` in bytes.
    var payloadBytes: Int { payloadMebibytes.multipliedReportingOverflow(by: 1 << 20).partialValue }

    public static let defaults = DeliveryLimits()
}

/// The part of ``DeliveryLimits`` one device reads, kept in every device: the simulator-wide
/// bounds stay out of its 208 bytes.
struct DeviceLimits: Sendable, Hashable {
    let notificationsPerDevice: Int
    let timelineEventsPerDevice: Int
    let fcmStoredMessages: Int
    let fcmCollapseKeys: Int

    init(_ limits: DeliveryLimits) {
        notificationsPerDevice = limits.notificationsPerDevice
        timelineEventsPerDevice = limits.timelineEventsPerDevice
        fcmStoredMessages = limits.fcmStoredMessages
        fcmCollapseKeys = limits.fcmCollapseKeys
    }
}

/// One simulated device: its connectivity, the notifications the service holds for it or
/// delivered to it, and the timeline of what happened when.
///
/// Time only moves when something happens: every operation first settles expirations up to
/// its `now` (each expiry is recorded at its own instant, not at the time someone looked), so
/// a virtual clock that jumps ahead gives the same timeline as real waiting.
public struct SimulatedDevice: Sendable {
    // Stored in this order: what every delivery reads or writes first (the address, the
    // one-byte states, both rings, the counters, the limits `trim()` reads, the behaviour
    // model's presence), the rest after. The devices are one dense array that no other
    // request touches, so every line a delivery reads there misses the cache; grouped (and the
    // one-byte fields packed behind the address), the hot fields take the first 176 of 208
    // bytes, where they were spread over all 232 (`Benchmarks/README.md`, nineteenth session).
    public let address: DeviceAddress
    /// The rules of the service that stores notifications for this device.
    public var policy: StoragePolicy
    public private(set) var connectivity: Connectivity
    /// Whether the app may show notifications on this device. Default `granted`.
    public private(set) var permission: NotificationPermission = .granted
    /// Whether someone listens for delivery receipts and engagement (webhooks): then those
    /// timeline events are also kept in ``outbox`` until the simulator hands them on.
    var emitting = false
    /// FCM discarded stored messages; the app hears about it when it is next reachable.
    public private(set) var deletedMessagesPending = false
    /// ``notifications`` and ``timeline`` as kept: rings, so that forgetting the oldest
    /// entries does not move the survivors (trimming arrays moved ≈ 1.4 kB per delivery, 15 %
    /// of delivery simulation's instructions).
    private var history: RingBuffer<DeviceNotification>
    private var events: RingBuffer<DeviceTimelineEvent>
    /// How many notifications are `stored` (kept so the common case, nothing stored, costs
    /// no scan of the history).
    public private(set) var storedCount = 0
    /// How many delivered notifications wait for an engagement the behaviour model planned
    /// (kept so settling costs nothing when there is no model or nothing is due).
    public private(set) var plannedCount = 0
    /// The last time anything happened to the device.
    public private(set) var lastActivity: Timestamp
    let limits: DeviceLimits
    /// The gateway's behaviour model, handed in by the simulator before each operation; `nil`:
    /// no engagement is planned and delivery does no extra work.
    var behaviour: EngagementModel?
    var outbox: [DeviceTimelineEvent] = []
    /// How many notifications the behaviour model has judged on this device: the draw for the
    /// n-th is keyed by n rather than by the notification's id, because FCM message names and
    /// Expo ticket ids are random — the same run must give the same engagement.
    private var judgedCount: UInt64 = 0
    /// The earliest planned engagement, so settling before it scans nothing.
    private var nextPlannedAt: Timestamp?

    /// Every remembered notification, oldest first.
    public var notifications: [DeviceNotification] { Array(history) }
    /// The payload bytes of the notifications remembered, each counted (for choosing devices
    /// to forget: a payload other devices share is not freed with this one).
    var payloadBytes: Int { history.reduce(0) { $0 + $1.notification.content.payload.count } }
    /// What happened, in order.
    public var timeline: [DeviceTimelineEvent] { Array(events) }

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
        self.limits = DeviceLimits(limits)
        self.lastActivity = now
        // Sized to what `trim()` lets them reach.
        self.history = RingBuffer(usualMaximumCount: limits.notificationsPerDevice + Self.slack(limits.notificationsPerDevice) + 1)
        self.events = RingBuffer(usualMaximumCount: limits.timelineEventsPerDevice + Self.slack(limits.timelineEventsPerDevice) + 1)
    }

    /// Notifications the user would see now: delivered, visible kinds, not replaced.
    public var displayed: [DeviceNotification] {
        history.filter { $0.status == .delivered }
    }

    /// Notifications the service still holds.
    public var stored: [DeviceNotification] {
        history.filter { $0.status == .stored }
    }

    /// How many notifications are in each state.
    public var counts: [DeliveryStatus: Int] {
        var counts: [DeliveryStatus: Int] = [:]
        for entry in history {
            counts[entry.status, default: 0] += 1
        }
        return counts
    }

    /// How many entries the history and the timeline hold before they grow (for tests).
    var ringCapacities: (history: Int, timeline: Int) { (history.capacity, events.capacity) }

    /// Reads what the next delivery's appends read first (see `RingBuffer.warmNextSlot()`).
    func warmNextSlots() -> UInt8 { history.warmNextSlot() ^ events.warmNextSlot() }

    // MARK: Operations

    /// A notification the service accepted for this device at `now`.
    public mutating func receive(_ notification: consuming SimulatedNotification, now: Timestamp) {
        // Each history entry is made in the expression that hands it on. A `var entry` that
        // the branches changed and then consumed was copied whole (and the original
        // destroyed) as it was made: a dozen references' worth of work per delivery.
        settle(upTo: now)
        lastActivity = now
        if connectivity.reaches(notification.priority) {
            collapseOnScreen(by: notification, at: now)
            append(delivered(notification, at: now), at: now)
        } else if notification.hasExpired(by: now) {
            let reason =
                notification.expiry == .immediately
                ? "\(expiryName(immediate: true)): the device could not be reached and the service does not store it"
                : "already expired when sent: the device could not be reached"
            append(DeviceNotification(notification: notification, status: .dropped, statusAt: now, reason: reason), at: now)
        } else {
            store(DeviceNotification(notification: notification, status: .stored, statusAt: now), now: now)
        }
        trim()
    }

    /// The history entry of `notification`, delivered at `now`.
    private mutating func delivered(_ notification: consuming SimulatedNotification, at now: Timestamp) -> DeviceNotification {
        var entry = DeviceNotification(notification: notification, status: .delivered, statusAt: now)
        entry.deliveredAt = now
        if permission != .granted {
            entry.reason = permissionReason
            entry.suppressed = !permission.displays
        }
        if behaviour != nil { plan(&entry, at: now) }
        return entry
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
        for index in history.indices where history[index].status == .stored {
            guard newValue.reaches(history[index].notification.priority) else { continue }
            deliver(history[index], at: now, reason: reason, index: index)
        }
        trim()
    }

    /// Settles expirations and planned engagements up to `now` (reading a device does this
    /// first).
    public mutating func settle(upTo now: Timestamp) {
        if storedCount > 0 { settleExpirations(upTo: now) }
        if plannedCount > 0 { settleEngagements(upTo: now) }
    }

    private mutating func settleExpirations(upTo now: Timestamp) {
        var expiring: [(at: Timestamp, index: Int)] = []
        for index in history.indices where history[index].status == .stored {
            if case .at(let limit) = history[index].notification.expiry, limit <= now {
                expiring.append((limit, index))
            }
        }
        guard !expiring.isEmpty else { return }
        expiring.sort { ($0.at, $0.index) < ($1.at, $1.index) }
        for (at, index) in expiring {
            history[index].status = .expired
            storedCount -= 1
            history[index].statusAt = at
            history[index].reason = "\(expiryName(immediate: false)) passed while the service held it"
            record(event(for: history[index], kind: .expired))
        }
    }

    // MARK: Engagement

    /// The user displays, opens, dismisses or acts on the notification `id` at `now`.
    /// Refused when the notification is not on screen (stored, expired, replaced), carries
    /// nothing to show (a background push), was already opened, dismissed or acted on, or the
    /// app's notifications are denied on this device.
    @discardableResult
    public mutating func engage(
        _ engagement: Engagement, notificationID id: String, now: Timestamp, reason: String? = nil
    ) throws(EngagementRefusal) -> DeviceNotification {
        settle(upTo: now)
        let wanted = NotificationID(id)
        guard let index = history.lastIndex(where: { $0.notification.identifier == wanted }) else {
            throw .noNotification(id, address)
        }
        let entry = history[index]
        guard entry.status == .delivered else {
            throw EngagementRefusal(
                status: 409, message: "notification \(id) is \(entry.status), not on screen: it cannot be \(Self.verb(engagement))")
        }
        guard permission.displays, !entry.suppressed else {
            throw EngagementRefusal(
                status: 409,
                message: "notifications are denied for this app on \(address): \(id) was delivered but never displayed")
        }
        guard NotificationFace(entry.notification, service: address.service).visible else {
            throw EngagementRefusal(
                status: 409,
                message: "notification \(id) has no alert (a background or data-only push): nothing to \(Self.verb(engagement))")
        }
        if let done = entry.engagement {
            throw EngagementRefusal(
                status: 409, message: "notification \(id) was already \(Self.verb(done)) at \(entry.engagedAt?.description ?? "?")")
        }
        if engagement == .displayed, entry.displayedAt != nil {
            throw EngagementRefusal(status: 409, message: "notification \(id) was already displayed")
        }
        apply(engagement, at: now, index: index, reason: reason)
        lastActivity = max(lastActivity, now)
        let engaged = history[index]
        trim()
        return engaged
    }

    /// The user allows, quiets or turns off the app's notifications at `now`. While denied,
    /// nothing shows; allowing again does not bring back what was delivered while denied.
    public mutating func setPermission(_ newValue: NotificationPermission, now: Timestamp) {
        settle(upTo: now)
        lastActivity = now
        guard newValue != permission else { return }
        permission = newValue
        record(DeviceTimelineEvent(at: now, kind: .permission, permission: newValue, reason: permissionReason))
        trim()
    }

    private mutating func apply(_ engagement: Engagement, at now: Timestamp, index: Int, reason: String?) {
        if engagement.isFinal {
            history[index].engagement = engagement
            history[index].engagedAt = now
            if history[index].planned != nil {
                history[index].planned = nil
                plannedCount -= 1
            }
        } else {
            history[index].displayedAt = now
        }
        let entry = history[index]
        record(
            DeviceTimelineEvent(
                at: now,
                kind: engagement.kind,
                notificationIdentifier: entry.notification.identifier,
                sequence: entry.notification.sequence,
                actionID: engagement.actionID,
                reason: reason
            )
        )
    }

    /// Decides at delivery what the behaviour model's user will do, when the user can see it.
    private mutating func plan(_ entry: inout DeviceNotification, at now: Timestamp) {
        guard let behaviour, permission.displays else { return }
        let face = NotificationFace(entry.notification, service: address.service)
        guard face.visible else { return }
        judgedCount &+= 1
        entry.planned = behaviour.plan(
            entry.notification, category: face.category, device: address, ordinal: judgedCount, deliveredAt: now)
    }

    /// Applies the planned engagements due by `now`, each at its own instant.
    private mutating func settleEngagements(upTo now: Timestamp) {
        if let next = nextPlannedAt, now < next { return }
        var due: [(at: Timestamp, index: Int)] = []
        var later: Timestamp?
        for index in history.indices {
            guard let planned = history[index].planned else { continue }
            if planned.at <= now {
                due.append((planned.at, index))
            } else {
                later = min(later ?? planned.at, planned.at)
            }
        }
        nextPlannedAt = later
        guard !due.isEmpty else { return }
        due.sort { ($0.at, $0.index) < ($1.at, $1.index) }
        let seed = behaviour?.seed
        for (at, index) in due {
            guard let planned = history[index].planned else { continue }
            history[index].planned = nil
            plannedCount -= 1
            // Replaced on screen, or the user already acted by command: the plan lapses.
            guard history[index].status == .delivered, history[index].engagement == nil, permission.displays else {
                continue
            }
            apply(planned.engagement, at: at, index: index, reason: "behaviour model" + (seed.map { " (seed \($0))" } ?? ""))
        }
    }

    private var permissionReason: String? {
        switch permission {
        case .granted: return nil
        case .provisional: return "provisional authorization: delivered quietly to Notification Center (no banner or sound)"
        default: return "notifications are denied for this app: delivered, nothing displayed"
        }
    }

    private static func verb(_ engagement: Engagement) -> String {
        switch engagement {
        case .displayed: return "displayed"
        case .opened: return "opened"
        case .dismissed: return "dismissed"
        case .acted(let id): return "acted on (\(id))"
        }
    }

    // MARK: Rules

    private mutating func deliver(_ entry: DeviceNotification, at now: Timestamp, reason: String?, index: Int? = nil) {
        var entry = entry
        entry.status = .delivered
        entry.statusAt = now
        entry.deliveredAt = now
        entry.reason = permission == .granted ? reason : [reason, permissionReason].compactMap { $0 }.joined(separator: "; ")
        entry.suppressed = !permission.displays
        if behaviour != nil { plan(&entry, at: now) }
        collapseOnScreen(by: entry.notification, at: now)
        if let index {
            // Only stored notifications are delivered in place.
            storedCount -= 1
            if let planned = entry.planned {
                plannedCount += 1
                nextPlannedAt = min(nextPlannedAt ?? planned.at, planned.at)
            }
            history[index] = entry
            record(event(for: entry, kind: .delivered))
        } else {
            append(entry, at: now)
        }
    }

    /// A delivered notification replaces the one on screen with the same display key (APNs
    /// `apns-collapse-id` of an alert, FCM `tag`) of the same app.
    private mutating func collapseOnScreen(by notification: borrowing SimulatedNotification, at now: Timestamp) {
        guard let displayKey = notification.displayKey else { return }
        for other in history.indices
        where history[other].status == .delivered
            && history[other].notification.app == notification.app
            && history[other].notification.displayKey == displayKey
        {
            history[other].status = .collapsed
            history[other].statusAt = now
            history[other].reason = "replaced on screen by \(notification.id) with the same \(displayKeyName)"
            record(event(for: history[other], kind: .collapsed))
        }
    }

    private mutating func store(_ entry: consuming DeviceNotification, now: Timestamp) {
        let notification = entry.notification
        let waitReason =
            connectivity == .offline
            ? "device offline"
            : "device idle: \(notification.priority) priority waits until it wakes"
        switch policy {
        case .apns:
            // One stored notification per app: the newest replaces whatever was held.
            guard storedCount > 0 else { break }
            for index in history.indices
            where history[index].status == .stored && history[index].notification.app == notification.app {
                let sameCollapseID =
                    notification.collapseKey != nil && history[index].notification.collapseKey == notification.collapseKey
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
                for index in history.indices
                where history[index].status == .stored && history[index].notification.collapseKey == key {
                    replaceStored(
                        at: index, now: now, status: .collapsed,
                        reason: "replaced in the store by \(notification.id) with the same collapse key")
                }
                var keys: [String] = []
                for entry in history where entry.status == .stored {
                    if let other = entry.notification.collapseKey, !keys.contains(other) { keys.append(other) }
                }
                if keys.count >= limits.fcmCollapseKeys, let oldest = keys.first {
                    for index in history.indices
                    where history[index].status == .stored && history[index].notification.collapseKey == oldest {
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
                let held = history.reduce(0) { $0 + ($1.status == .stored && $1.notification.collapseKey == nil ? 1 : 0) }
                if held >= limits.fcmStoredMessages {
                    for index in history.indices where history[index].status == .stored {
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
        entry.status = .stored
        entry.reason = waitReason
        append(consume entry, at: now)
    }

    private mutating func replaceStored(at index: Int, now: Timestamp, status: DeliveryStatus, reason: String) {
        storedCount -= 1
        history[index].status = status
        history[index].statusAt = now
        history[index].reason = reason
        record(event(for: history[index], kind: DeviceTimelineEvent.Kind(status)))
    }

    /// Takes `entry` and moves it into the history last (a borrowed entry was copied into the
    /// history and then destroyed, two passes over a dozen references per delivery).
    private mutating func append(_ entry: consuming DeviceNotification, at now: Timestamp) {
        if entry.status == .stored { storedCount += 1 }
        if let planned = entry.planned {
            plannedCount += 1
            nextPlannedAt = min(nextPlannedAt ?? planned.at, planned.at)
        }
        record(event(for: entry, kind: DeviceTimelineEvent.Kind(entry.status)))
        history.append(consume entry)
    }

    private func event(for entry: DeviceNotification, kind: DeviceTimelineEvent.Kind) -> DeviceTimelineEvent {
        DeviceTimelineEvent(
            at: entry.statusAt,
            kind: kind,
            notificationIdentifier: entry.notification.identifier,
            sequence: entry.notification.sequence,
            reason: entry.reason
        )
    }

    private mutating func record(_ event: consuming DeviceTimelineEvent) {
        if emitting, event.kind.isReported { outbox.append(copy event) }
        events.append(consume event)
    }

    /// Forgets the oldest settled notifications and timeline events beyond the limits. Trims
    /// in batches (a quarter of the limit over it) so a busy device does not pay a shift of its
    /// whole history on every notification.
    private mutating func trim() {
        if history.count > limits.notificationsPerDevice + Self.slack(limits.notificationsPerDevice) {
            var excess = history.count - limits.notificationsPerDevice
            // The common case: the oldest entries are all settled, and removing a prefix of the
            // ring moves nothing. The general case moves the survivors after the first removed
            // one. Counted through the subscript: `prefix(while:)` copied each entry
            // it looked at.
            var settledPrefix = 0
            while settledPrefix < excess, history[settledPrefix].status != .stored { settledPrefix += 1 }
            history.removeFirst(settledPrefix)
            excess -= settledPrefix
            if excess > 0 {
                history.removeAll { entry in
                    guard excess > 0, entry.status != .stored else { return false }
                    excess -= 1
                    return true
                }
            }
            if plannedCount > 0 {
                plannedCount = history.reduce(0) { $0 + ($1.planned == nil ? 0 : 1) }
            }
        }
        if events.count > limits.timelineEventsPerDevice + Self.slack(limits.timelineEventsPerDevice) {
            events.removeFirst(events.count - limits.timelineEventsPerDevice)
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
