public import PushMockCore

/// One accepted notification as the delivery simulation sees it: what decides its fate
/// (priority, expiry, collapse keys) and what identifies it (id, recording sequence). The
/// payload is kept as sent and only parsed when someone looks at the device.
public struct SimulatedNotification: Sendable, Hashable {
    /// `apns-id`, or the FCM message name.
    public var id: String {
        get { identifier.description }
        set { identifier = NotificationID(newValue) }
    }
    /// ``id`` as the device keeps it (a UUID inline, see ``NotificationID``).
    package var identifier: NotificationID
    /// The recording's sequence number, linking to the full exchange.
    public var sequence: UInt64?
    /// The app: APNs bundle ID (topic without suffix), FCM project.
    public var app: String
    /// When the gateway accepted it (gateway clock).
    public var sentAt: Timestamp
    public var priority: DeliveryPriority
    public var expiry: DeliveryExpiry
    /// Replaces a stored notification with the same key (APNs `apns-collapse-id`, FCM
    /// `android.collapse_key`, web `Topic`). `nil`: not collapsible.
    public var collapseKey: String?
    /// Replaces a delivered notification with the same key on screen (APNs
    /// `apns-collapse-id`, Android `notification.tag`, web `notification.tag`).
    public var displayKey: String?
    /// The APNs push type, or `fcm` details such as `notification`/`data`.
    public var kind: String
    /// The body as sent: the APNs payload, or FCM's `message` object (compact JSON).
    public var payload: [UInt8]

    public init(
        id: String,
        sequence: UInt64? = nil,
        app: String,
        sentAt: Timestamp,
        priority: DeliveryPriority,
        expiry: DeliveryExpiry,
        collapseKey: String? = nil,
        displayKey: String? = nil,
        kind: String,
        payload: [UInt8]
    ) {
        self.identifier = NotificationID(id)
        self.sequence = sequence
        self.app = app
        self.sentAt = sentAt
        self.priority = priority
        self.expiry = expiry
        self.collapseKey = collapseKey
        self.displayKey = displayKey
        self.kind = kind
        self.payload = payload
    }

    /// Whether the notification has expired by `now` (it is valid strictly before its expiry).
    func hasExpired(by now: Timestamp) -> Bool {
        switch expiry {
        case .immediately: return true
        case .at(let limit): return limit <= now
        }
    }
}

/// One accepted notification on its way to one device: which device, under which service's
/// storage rules, and what.
public struct SimulatedDelivery: Sendable {
    public var address: DeviceAddress
    /// The rules of the service that stores it (an FCM token on iOS follows APNs's).
    public var policy: StoragePolicy
    public var notification: SimulatedNotification

    public init(address: DeviceAddress, policy: StoragePolicy, notification: SimulatedNotification) {
        self.address = address
        self.policy = policy
        self.notification = notification
    }
}

/// A notification on a device, with where it stands.
public struct DeviceNotification: Sendable, Hashable {
    public var notification: SimulatedNotification
    public var status: DeliveryStatus
    /// When it reached ``status``.
    public var statusAt: Timestamp
    /// Why, in words (for anything but a plain delivery).
    public var reason: String?
    /// When it was delivered (kept when a delivered notification is later collapsed on screen).
    public var deliveredAt: Timestamp?
    /// When a test said the app or system displayed it (``Engagement/displayed``).
    public var displayedAt: Timestamp?
    /// What the user did with it (opened, dismissed, an action), once.
    public var engagement: Engagement?
    public var engagedAt: Timestamp?
    /// What the behaviour model decided at delivery, until it happens.
    public var planned: PlannedEngagement?
    /// Delivered while the app's notifications were denied: never displayed, even if the user
    /// allows notifications later.
    public var suppressed = false
}

/// One line of a device's delivery timeline.
public struct DeviceTimelineEvent: Sendable, Hashable {
    /// What happened.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        // One byte rather than the name: a device keeps up to a thousand events (the event
        // was 104 bytes with a `String` here, 88 now).
        enum Value: UInt8, Hashable, Sendable {
            case delivered, stored, expired, collapsed, dropped
            case connectivity, deletedMessages, displayed, opened, dismissed, action, permission
        }

        let value: Value

        private init(value: Value) { self.value = value }

        public init(_ status: DeliveryStatus) {
            switch status.value {
            case .delivered: value = .delivered
            case .stored: value = .stored
            case .expired: value = .expired
            case .collapsed: value = .collapsed
            case .dropped: value = .dropped
            }
        }

        public static let delivered = Kind(value: .delivered)
        public static let stored = Kind(value: .stored)
        public static let expired = Kind(value: .expired)
        public static let collapsed = Kind(value: .collapsed)
        public static let dropped = Kind(value: .dropped)
        /// The device changed connectivity (``DeviceTimelineEvent/connectivity``).
        public static let connectivity = Kind(value: .connectivity)
        /// FCM told the app that stored messages were discarded (`onDeletedMessages`).
        public static let deletedMessages = Kind(value: .deletedMessages)
        /// The app or system displayed the notification (said by a test).
        public static let displayed = Kind(value: .displayed)
        /// The user tapped it.
        public static let opened = Kind(value: .opened)
        /// The user swiped it away.
        public static let dismissed = Kind(value: .dismissed)
        /// The user chose an action button (``DeviceTimelineEvent/actionID``).
        public static let action = Kind(value: .action)
        /// The user changed the app's notification permission (``DeviceTimelineEvent/permission``).
        public static let permission = Kind(value: .permission)

        /// The name on the wire (`delivered`, `deleted-messages`, …).
        public var rawValue: String {
            switch value {
            case .delivered: return DeliveryStatus.delivered.rawValue
            case .stored: return DeliveryStatus.stored.rawValue
            case .expired: return DeliveryStatus.expired.rawValue
            case .collapsed: return DeliveryStatus.collapsed.rawValue
            case .dropped: return DeliveryStatus.dropped.rawValue
            case .connectivity: return "connectivity"
            case .deletedMessages: return "deleted-messages"
            case .displayed: return "displayed"
            case .opened: return "opened"
            case .dismissed: return "dismissed"
            case .action: return "action"
            case .permission: return "permission"
            }
        }

        public var description: String { rawValue }

        /// Delivery receipts and engagement: what the app's backend hears about (webhooks).
        public var isReported: Bool {
            switch value {
            case .delivered, .displayed, .opened, .dismissed, .action: return true
            default: return false
            }
        }
    }

    public var at: Timestamp
    public var kind: Kind
    /// The notification concerned, if any.
    public var notificationID: String? {
        get { notificationIdentifier?.description }
        set { notificationIdentifier = newValue.map(NotificationID.init) }
    }
    /// ``notificationID`` as the device keeps it.
    package var notificationIdentifier: NotificationID?
    public var sequence: UInt64?
    /// The new connectivity, for ``Kind/connectivity``.
    public var connectivity: Connectivity?
    /// The action identifier, for ``Kind/action``.
    public var actionID: String?
    /// The new permission, for ``Kind/permission``.
    public var permission: NotificationPermission?
    public var reason: String?

    public init(
        at: Timestamp,
        kind: Kind,
        notificationID: String? = nil,
        sequence: UInt64? = nil,
        connectivity: Connectivity? = nil,
        actionID: String? = nil,
        permission: NotificationPermission? = nil,
        reason: String?
    ) {
        self.init(
            at: at, kind: kind, notificationIdentifier: notificationID.map(NotificationID.init), sequence: sequence,
            connectivity: connectivity, actionID: actionID, permission: permission, reason: reason)
    }

    package init(
        at: Timestamp,
        kind: Kind,
        notificationIdentifier: NotificationID?,
        sequence: UInt64? = nil,
        connectivity: Connectivity? = nil,
        actionID: String? = nil,
        permission: NotificationPermission? = nil,
        reason: String?
    ) {
        self.at = at
        self.kind = kind
        self.notificationIdentifier = notificationIdentifier
        self.sequence = sequence
        self.connectivity = connectivity
        self.actionID = actionID
        self.permission = permission
        self.reason = reason
    }
}
