import PushMockCore
public import PushMockJSON

/// A simulated device as the control API, the CLI and tests see it. Times are ISO 8601 with
/// milliseconds (gateway clock).
public struct DeviceReport: Codable, Sendable, Hashable {
    public var service: PushService
    public var token: String
    /// `apns` (one stored notification per app) or `fcm` (100 messages, 4 collapse keys).
    public var storage: StoragePolicy
    public var connectivity: Connectivity
    /// Whether the app may show notifications: `granted`, `provisional` (quietly) or `denied`.
    public var permission: NotificationPermission?
    /// How many notifications are in each state (`delivered`, `stored`, …).
    public var counts: [String: Int]
    /// The ids of the notifications the user would see now, oldest first: delivered, showing
    /// an alert, not replaced.
    public var showing: [String]
    /// FCM discarded stored messages; the app hears about it when next reachable.
    public var deletedMessagesPending: Bool
    public var lastActivity: String
    /// Every remembered notification, oldest first (left out of listings).
    public var notifications: [NotificationReport]?
    /// What happened, in order (left out of listings).
    public var timeline: [TimelineEntry]?

    /// One notification on the device.
    public struct NotificationReport: Codable, Sendable, Hashable {
        /// `apns-id` or FCM message name.
        public var id: String
        /// The recording's sequence number.
        public var sequence: UInt64?
        public var app: String
        /// APNs push type, or FCM `notification`/`data`.
        public var kind: String
        public var priority: String
        public var sentAt: String
        /// When the service stops trying; `nil` with ``deliverNowOrNever``.
        public var expiresAt: String?
        public var deliverNowOrNever: Bool
        public var collapseKey: String?
        public var status: DeliveryStatus
        public var statusAt: String
        public var deliveredAt: String?
        public var reason: String?
        /// Whether the user sees it now (delivered with an alert, permission not denied, not yet
        /// opened, dismissed or acted on).
        public var shown: Bool
        /// The payload's category (`aps.category`, `click_action`/`data.category`, `categoryId`).
        public var category: String?
        /// When a test said it was displayed.
        public var displayedAt: String?
        /// `opened`, `dismissed` or `action`, once the user did it.
        public var engagement: String?
        public var engagedAt: String?
        /// The action identifier, for `action`.
        public var action: String?
        /// What the behaviour model will do, and when (until it happens).
        public var planned: String?
        public var plannedAt: String?
        /// The alert's title and body, when it has one.
        public var title: String?
        public var body: String?
        /// The APNs payload, or FCM's `message` object, as sent.
        public var payload: JSONValue?
    }

    /// One line of the timeline.
    public struct TimelineEntry: Codable, Sendable, Hashable {
        public var at: String
        /// `delivered`, `stored`, `expired`, `collapsed`, `dropped`, `connectivity`,
        /// `deleted-messages`, `displayed`, `opened`, `dismissed`, `action`, `permission`.
        public var event: String
        public var id: String?
        public var sequence: UInt64?
        public var connectivity: Connectivity?
        /// The action identifier, for `action`.
        public var action: String?
        /// The new permission, for `permission`.
        public var permission: NotificationPermission?
        public var reason: String?
    }

    /// The report of `device`; `detailed` adds notifications and the timeline.
    public init(_ device: SimulatedDevice, detailed: Bool) {
        self.service = device.address.service
        self.token = device.address.token
        self.storage = device.policy
        self.connectivity = device.connectivity
        self.permission = device.permission
        self.deletedMessagesPending = device.deletedMessagesPending
        self.lastActivity = device.lastActivity.description
        var counts: [String: Int] = [:]
        for (status, count) in device.counts {
            counts[status.rawValue] = count
        }
        self.counts = counts
        let notifications = device.notifications.map {
            NotificationReport($0, service: device.address.service, permission: device.permission)
        }
        self.showing = notifications.filter(\.shown).map(\.id)
        if detailed {
            self.notifications = notifications
            self.timeline = device.timeline.map(TimelineEntry.init)
        }
    }
}

extension DeviceReport.NotificationReport {
    init(_ entry: DeviceNotification, service: PushService, permission: NotificationPermission) {
        let notification = entry.notification
        let payload = try? JSONValue(parsing: notification.payload)
        let alert = payload.flatMap { payload -> AlertText? in
            if service == .apns { return AlertText(apnsPayload: payload) }
            if service == .expo { return AlertText(expoMessage: payload) }
            return AlertText(fcmMessage: payload)
        }
        self.id = notification.id
        self.sequence = notification.sequence
        self.app = notification.app
        self.kind = notification.kind
        self.priority = notification.priority.rawValue
        self.sentAt = notification.sentAt.description
        switch notification.expiry {
        case .immediately:
            self.expiresAt = nil
            self.deliverNowOrNever = true
        case .at(let time):
            self.expiresAt = time.description
            self.deliverNowOrNever = false
        }
        self.collapseKey = notification.collapseKey
        self.status = entry.status
        self.statusAt = entry.statusAt.description
        self.deliveredAt = entry.deliveredAt?.description
        self.reason = entry.reason
        self.title = alert?.title
        self.body = alert?.body
        self.shown =
            entry.status == .delivered && (alert?.isVisible ?? false) && permission.displays && !entry.suppressed
            && entry.engagement == nil
        self.category = payload.flatMap { NotificationFace.category(of: $0, service: service) }
        self.displayedAt = entry.displayedAt?.description
        self.engagement = entry.engagement?.kind.rawValue
        self.engagedAt = entry.engagedAt?.description
        self.action = entry.engagement?.actionID
        self.planned = entry.planned?.engagement.description
        self.plannedAt = entry.planned?.at.description
        self.payload = payload
    }
}

extension DeviceReport.TimelineEntry {
    init(_ event: DeviceTimelineEvent) {
        self.at = event.at.description
        self.event = event.kind.rawValue
        self.id = event.notificationID
        self.sequence = event.sequence
        self.connectivity = event.connectivity
        self.action = event.actionID
        self.permission = event.permission
        self.reason = event.reason
    }
}

/// What engagement needs to know of a notification: whether it shows anything, and its category.
package struct NotificationFace {
    package var visible: Bool
    package var category: String?

    package init(_ notification: SimulatedNotification, service: PushService) {
        guard let payload = try? JSONValue(parsing: notification.payload) else {
            self.visible = false
            return
        }
        let alert: AlertText?
        switch service {
        case .apns: alert = AlertText(apnsPayload: payload)
        case .expo: alert = AlertText(expoMessage: payload)
        default: alert = AlertText(fcmMessage: payload)
        }
        self.visible = alert?.isVisible ?? false
        self.category = Self.category(of: payload, service: service)
    }

    static func category(of payload: JSONValue, service: PushService) -> String? {
        switch service {
        case .apns: return payload["aps"]?["category"]?.stringValue
        case .expo: return payload["categoryId"]?.stringValue
        default:
            return payload["android"]?["notification"]?["click_action"]?.stringValue
                ?? payload["data"]?["category"]?.stringValue
                ?? payload["apns"]?["payload"]?["aps"]?["category"]?.stringValue
        }
    }
}

/// What a notification shows: the title and body a device would display.
struct AlertText {
    var title: String?
    var body: String?
    var hasOther = false

    var isVisible: Bool { !(title ?? "").isEmpty || !(body ?? "").isEmpty || hasOther }

    /// `aps.alert` as a string (the body) or a dictionary (`title`, `body`, or loc keys).
    init?(apnsPayload payload: JSONValue) {
        guard let alert = payload["aps"]?["alert"] else { return nil }
        if let text = alert.stringValue {
            body = text
        } else if alert.objectValue != nil {
            title = alert["title"]?.stringValue
            body = alert["body"]?.stringValue
            hasOther = alert["title-loc-key"] != nil || alert["loc-key"] != nil || !(alert["subtitle"]?.stringValue ?? "").isEmpty
        } else {
            return nil
        }
    }

    /// An Expo message: `title`, `subtitle` and `body` at the top level.
    init?(expoMessage message: JSONValue) {
        let title = message["title"]?.stringValue
        let body = message["body"]?.stringValue
        let subtitle = message["subtitle"]?.stringValue
        guard title != nil || body != nil || subtitle != nil else { return nil }
        self.title = title
        self.body = body
        self.hasOther = !(subtitle ?? "").isEmpty
    }

    /// FCM `message`: platform notification first, then the common `notification`, then the
    /// APNs payload (for iOS), then web.
    init?(fcmMessage message: JSONValue) {
        let candidates = [
            message["android"]?["notification"],
            message["notification"],
            message["webpush"]?["notification"],
        ]
        for case let candidate? in candidates {
            let title = candidate["title"]?.stringValue
            let body = candidate["body"]?.stringValue
            if title != nil || body != nil {
                self.title = title
                self.body = body
                return
            }
        }
        if let payload = message["apns"]?["payload"], let alert = AlertText(apnsPayload: payload) {
            self = alert
            return
        }
        return nil
    }
}
