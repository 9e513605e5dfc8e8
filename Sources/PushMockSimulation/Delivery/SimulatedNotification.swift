public import PushMockCore

/// One accepted notification as the delivery simulation sees it: what decides its fate
/// (priority, expiry, collapse keys) and what identifies it (id, recording sequence). The
/// payload is kept as sent and only parsed when someone looks at the device.
public struct SimulatedNotification: Sendable, Hashable {
    // What notifications sent from one template have in common (app, kind, keys, payload) is
    // one shared object, ``NotificationContent``; only what is each notification's own is
    // inline. A device keeps one of these per remembered notification, and copying five
    // strings and arrays into and out of its history — a reference count each, and releases
    // when the history is trimmed — was most of delivery simulation's work per request. Stored
    // in this order: 8-byte fields first, so that fewer fields are padded; and the optional
    // sequence and the expiry as a plain word each plus a bit in ``Presence`` (as `UInt64?`
    // and an enum each took a tag byte padded to a whole word: 72 bytes, 56 now).

    /// The app, kind, collapse keys and payload (shared with other notifications of the same
    /// template: the gateway's intake hands out one object per connection and template).
    package var content: NotificationContent
    /// When the gateway accepted it (gateway clock).
    public var sentAt: Timestamp
    /// ``expiry``'s instant (unused when it expires immediately).
    private var expiryLimit: Timestamp
    /// ``sequence``, or 0 when there is none.
    private var sequenceValue: UInt64
    /// ``id`` as the device keeps it (a UUID inline, see ``NotificationID``).
    package var identifier: NotificationID
    public var priority: DeliveryPriority
    private var presence: Presence

    /// Which of the optional fields are there.
    private struct Presence: OptionSet, Sendable {
        let rawValue: UInt8
        static let sequence = Presence(rawValue: 1)
        static let expiresImmediately = Presence(rawValue: 2)
    }

    public var expiry: DeliveryExpiry {
        get { presence.contains(.expiresImmediately) ? .immediately : .at(expiryLimit) }
        set {
            switch newValue {
            case .immediately:
                presence.insert(.expiresImmediately)
                expiryLimit = Timestamp(millisecondsSince1970: 0)
            case .at(let limit):
                presence.remove(.expiresImmediately)
                expiryLimit = limit
            }
        }
    }
    /// The recording's sequence number, linking to the full exchange.
    public var sequence: UInt64? {
        get { presence.contains(.sequence) ? sequenceValue : nil }
        set {
            sequenceValue = newValue ?? 0
            if newValue == nil { presence.remove(.sequence) } else { presence.insert(.sequence) }
        }
    }

    /// `apns-id`, or the FCM message name.
    public var id: String {
        get { identifier.description }
        set { identifier = NotificationID(newValue) }
    }
    /// The app: APNs bundle ID (topic without suffix), FCM project.
    public var app: String {
        get { content.app }
        set { content = content.replacing { $0.app = newValue } }
    }
    /// Replaces a stored notification with the same key (APNs `apns-collapse-id`, FCM
    /// `android.collapse_key`, web `Topic`). `nil`: not collapsible.
    public var collapseKey: String? {
        get { content.collapseKey }
        set { content = content.replacing { $0.collapseKey = newValue } }
    }
    /// Replaces a delivered notification with the same key on screen (APNs
    /// `apns-collapse-id`, Android `notification.tag`, web `notification.tag`).
    public var displayKey: String? {
        get { content.displayKey }
        set { content = content.replacing { $0.displayKey = newValue } }
    }
    /// The APNs push type, or `fcm` details such as `notification`/`data`.
    public var kind: String {
        get { content.kind }
        set { content = content.replacing { $0.kind = newValue } }
    }
    /// The body as sent: the APNs payload, or FCM's `message` object (compact JSON).
    public var payload: [UInt8] {
        get { content.payload }
        set { content = content.replacing { $0.payload = newValue } }
    }

    /// Whether the notification has expired by `now` (it is valid strictly before its expiry).
    func hasExpired(by now: Timestamp) -> Bool {
        switch expiry {
        case .immediately: return true
        case .at(let limit): return limit <= now
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.identifier == rhs.identifier && lhs.sequence == rhs.sequence && lhs.sentAt == rhs.sentAt
            && lhs.priority == rhs.priority && lhs.expiry == rhs.expiry && lhs.content.hasSameValues(as: rhs.content)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(sequence)
        hasher.combine(sentAt)
        hasher.combine(priority)
        hasher.combine(expiry)
        content.hash(into: &hasher)
    }
}

extension SimulatedNotification {
    // In an extension, so that the struct keeps its memberwise initialiser and these go
    // through it (see the same on ``DeviceNotification``).

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
        self.init(
            id: id, sequence: sequence, sentAt: sentAt, priority: priority, expiry: expiry,
            content: NotificationContent(app: app, collapseKey: collapseKey, displayKey: displayKey, kind: kind, payload: payload))
    }

    /// A notification whose app, kind, keys and payload are `content` (shared, not copied).
    package init(
        id: String, sequence: UInt64? = nil, sentAt: Timestamp, priority: DeliveryPriority, expiry: DeliveryExpiry,
        content: NotificationContent
    ) {
        self.init(identifier: NotificationID(id), sequence: sequence, sentAt: sentAt, priority: priority, expiry: expiry, content: content)
    }

    /// A notification whose identifier is already in the form the device keeps.
    package init(
        identifier: NotificationID, sequence: UInt64? = nil, sentAt: Timestamp, priority: DeliveryPriority, expiry: DeliveryExpiry,
        content: NotificationContent
    ) {
        var presence: Presence = sequence == nil ? [] : .sequence
        let expiryLimit: Timestamp
        switch expiry {
        case .immediately:
            presence.insert(.expiresImmediately)
            expiryLimit = Timestamp(millisecondsSince1970: 0)
        case .at(let limit):
            expiryLimit = limit
        }
        self.init(
            content: content, sentAt: sentAt, expiryLimit: expiryLimit, sequenceValue: sequence ?? 0, identifier: identifier,
            priority: priority, presence: presence)
    }
}

/// The part of a notification that notifications sent from one template share: app, kind,
/// collapse keys and payload. Immutable, so that any number of notifications (and the devices
/// that remember them) can refer to one; changing a field of a ``SimulatedNotification`` makes
/// it a new one.
package final class NotificationContent: Sendable {
    package let app: String
    package let collapseKey: String?
    package let displayKey: String?
    package let kind: String
    package let payload: [UInt8]
    /// Where this content's payload bytes are counted while it lives; `nil`: nowhere.
    private let ledger: ContentLedger?

    package init(app: String, collapseKey: String?, displayKey: String?, kind: String, payload: [UInt8], ledger: ContentLedger? = nil) {
        self.app = app
        self.collapseKey = collapseKey
        self.displayKey = displayKey
        self.kind = kind
        self.payload = payload
        self.ledger = ledger
        ledger?.add(payload.count)
    }

    deinit {
        ledger?.remove(payload.count)
    }

    /// Whether both hold the same values (the same object, or equal fields and payload bytes).
    package func hasSameValues(as other: NotificationContent) -> Bool {
        self === other
            || hasValues(
                app: other.app, collapseKey: other.collapseKey, displayKey: other.displayKey, kind: other.kind, payload: other.payload)
    }

    /// Whether this content holds exactly these values (the payload compared with `memcmp`).
    package func hasValues(app: String, collapseKey: String?, displayKey: String?, kind: String, payload: [UInt8]) -> Bool {
        self.app == app && self.kind == kind && self.collapseKey == collapseKey && self.displayKey == displayKey
            && self.payload.hasSameBytes(as: payload)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(app)
        hasher.combine(collapseKey)
        hasher.combine(displayKey)
        hasher.combine(kind)
        payload.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    fileprivate struct Values {
        var app: String
        var collapseKey: String?
        var displayKey: String?
        var kind: String
        var payload: [UInt8]
    }

    /// A new content with `change` applied to a copy of these values.
    fileprivate func replacing(_ change: (inout Values) -> Void) -> NotificationContent {
        var values = Values(app: app, collapseKey: collapseKey, displayKey: displayKey, kind: kind, payload: payload)
        change(&values)
        return NotificationContent(
            app: values.app, collapseKey: values.collapseKey, displayKey: values.displayKey, kind: values.kind, payload: values.payload,
            ledger: ledger)
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
    // Stored in this order, and the rarely set fields out of line (``Details``): a device keeps
    // up to ``DeliveryLimits/notificationsPerDevice`` of these, and each delivery writes one
    // into memory the cache has not seen (272 bytes with every field inline, 168 with the
    // notification's content inline, 104 with the optionals' tag bytes, 80 now). The one-byte
    // fields come right after the notification, in the bytes its last word leaves free.
    public var notification: SimulatedNotification
    public var status: DeliveryStatus
    /// Delivered while the app's notifications were denied: never displayed, even if the user
    /// allows notifications later.
    public var suppressed: Bool
    /// Whether ``deliveredAt`` is set.
    private var wasDelivered: Bool
    /// When it reached ``status``.
    public var statusAt: Timestamp
    private var details: Details?
    /// ``deliveredAt``'s value when ``wasDelivered``.
    private var deliveredAtValue: Timestamp

    /// When it was delivered (kept when a delivered notification is later collapsed on screen).
    public var deliveredAt: Timestamp? {
        get { wasDelivered ? deliveredAtValue : nil }
        set {
            wasDelivered = newValue != nil
            deliveredAtValue = newValue ?? Timestamp(millisecondsSince1970: 0)
        }
    }

    /// Why, in words (for anything but a plain delivery).
    public var reason: String? {
        get { details?.values.reason }
        set { update { $0.reason = newValue } }
    }
    /// When a test said the app or system displayed it (``Engagement/displayed``).
    public var displayedAt: Timestamp? {
        get { details?.values.displayedAt }
        set { update { $0.displayedAt = newValue } }
    }
    /// What the user did with it (opened, dismissed, an action), once.
    public var engagement: Engagement? {
        get { details?.values.engagement }
        set { update { $0.engagement = newValue } }
    }
    public var engagedAt: Timestamp? {
        get { details?.values.engagedAt }
        set { update { $0.engagedAt = newValue } }
    }
    /// What the behaviour model decided at delivery, until it happens.
    public var planned: PlannedEngagement? {
        get { details?.values.planned }
        set { update { $0.planned = newValue } }
    }

    /// The fields a plain delivery leaves unset.
    struct DetailValues: Sendable, Hashable {
        var reason: String?
        var displayedAt: Timestamp?
        var engagement: Engagement?
        var engagedAt: Timestamp?
        var planned: PlannedEngagement?

        var isEmpty: Bool { self == DetailValues() }
    }

    /// Immutable, so copies of the notification share it until one of them changes a field.
    final class Details: Sendable {
        let values: DetailValues
        init(_ values: DetailValues) { self.values = values }
    }

    private mutating func update(_ change: (inout DetailValues) -> Void) {
        var values = details?.values ?? DetailValues()
        change(&values)
        details = values.isEmpty ? nil : Details(values)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.notification == rhs.notification && lhs.status == rhs.status && lhs.statusAt == rhs.statusAt
            && lhs.deliveredAt == rhs.deliveredAt && lhs.suppressed == rhs.suppressed
            && (lhs.details === rhs.details || lhs.details?.values == rhs.details?.values)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(notification)
        hasher.combine(status)
        hasher.combine(statusAt)
        hasher.combine(deliveredAt)
        hasher.combine(suppressed)
        hasher.combine(details?.values)
    }
}

extension DeviceNotification {
    // In an extension, so that the struct keeps its memberwise initialiser and these go
    // through it: written as the struct's own initialisers (assigning each field of `self`),
    // they built the entry twice and copied one into the result — a retain of every
    // reference in it, and a release of the other — on every delivery.

    init(notification: SimulatedNotification, status: DeliveryStatus, statusAt: Timestamp, reason: String? = nil) {
        self.init(
            notification: notification,
            status: status,
            suppressed: false,
            wasDelivered: false,
            statusAt: statusAt,
            details: reason.map { Details(DetailValues(reason: $0)) },
            deliveredAtValue: Timestamp(millisecondsSince1970: 0)
        )
    }
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

    // Stored in this order, with the two strings out of line (``Texts``) and the sequence as a
    // plain word plus a flag: a device keeps up to ``DeliveryLimits/timelineEventsPerDevice``
    // events, one more per delivery (96 bytes each with the strings inline, 56 with a
    // `UInt64?`, 48 now).
    public var at: Timestamp
    private var texts: Texts?
    /// ``sequence``, or 0 when there is none.
    private var sequenceValue: UInt64 = 0
    /// ``notificationID`` as the device keeps it.
    package var notificationIdentifier: NotificationID?
    public var kind: Kind
    /// The new connectivity, for ``Kind/connectivity``.
    public var connectivity: Connectivity?
    /// The new permission, for ``Kind/permission``.
    public var permission: NotificationPermission?
    private var hasSequence = false

    /// The recording's sequence number of the notification concerned, if any.
    public var sequence: UInt64? {
        get { hasSequence ? sequenceValue : nil }
        set {
            hasSequence = newValue != nil
            sequenceValue = newValue ?? 0
        }
    }

    /// The notification concerned, if any.
    public var notificationID: String? {
        get { notificationIdentifier?.description }
        set { notificationIdentifier = newValue.map(NotificationID.init) }
    }
    /// The action identifier, for ``Kind/action``.
    public var actionID: String? {
        get { texts?.actionID }
        set { texts = Texts.make(actionID: newValue, reason: reason) }
    }
    public var reason: String? {
        get { texts?.reason }
        set { texts = Texts.make(actionID: actionID, reason: newValue) }
    }

    /// Immutable, shared by copies of the event.
    final class Texts: Sendable {
        let actionID: String?
        let reason: String?

        private init(actionID: String?, reason: String?) {
            self.actionID = actionID
            self.reason = reason
        }

        static func make(actionID: String?, reason: String?) -> Texts? {
            actionID == nil && reason == nil ? nil : Texts(actionID: actionID, reason: reason)
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.at == rhs.at && lhs.kind == rhs.kind && lhs.notificationIdentifier == rhs.notificationIdentifier
            && lhs.sequence == rhs.sequence && lhs.connectivity == rhs.connectivity && lhs.permission == rhs.permission
            && lhs.actionID == rhs.actionID && lhs.reason == rhs.reason
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(at)
        hasher.combine(kind)
        hasher.combine(notificationIdentifier)
        hasher.combine(sequence)
        hasher.combine(connectivity)
        hasher.combine(permission)
        hasher.combine(actionID)
        hasher.combine(reason)
    }
}

extension DeviceTimelineEvent {
    // In an extension, so that the struct keeps its memberwise initialiser and these go
    // through it (see the same on ``DeviceNotification``: one copy and one destruction of the
    // whole event fewer per delivery).

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
        self.init(
            at: at,
            texts: Texts.make(actionID: actionID, reason: reason),
            sequenceValue: sequence ?? 0,
            notificationIdentifier: notificationIdentifier,
            kind: kind,
            connectivity: connectivity,
            permission: permission,
            hasSequence: sequence != nil
        )
    }
}
