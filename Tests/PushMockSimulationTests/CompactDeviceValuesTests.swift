import PushMockCore
import Testing

@testable import PushMockSimulation

/// The compact forms a device keeps its history in (``NotificationID``, the one-byte timeline
/// kind, the word-wise address comparison) must give back exactly what was put in.
struct CompactDeviceValuesTests {
    @Test(
        "a notification id reads back as sent",
        arguments: [
            "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35",  // lower-case UUID: kept inline
            "4C1B5F0E-9A3D-4E2B-8F6A-0D9C7B2E1A35",  // upper case (what APNs makes): inline
            "12345678-1234-1234-1234-123456789012",  // digits only
            "00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "4c1B5F0E-9a3d-4e2b-8f6a-0d9c7b2e1a35",  // mixed case: kept as text
            "4c1b5f0e9a3d4e2b8f6a0d9c7b2e1a35abcd",  // 36 characters, no hyphens
            "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a3g",  // not hex
            "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a3",  // one short
            "projects/demo/messages/0:1700000000000000%31bd1c9631bd1c96",
            "n5",
            "",
            "é-ü",
        ]
    )
    func notificationIDRoundTrips(_ text: String) {
        let id = NotificationID(text)
        #expect(id.description == text)
        var notification = SimulatedNotification(
            id: text, app: "app", sentAt: Timestamp(secondsSince1970: 0), priority: .high, expiry: .immediately, kind: "alert",
            payload: [])
        #expect(notification.id == text)
        notification.id = text + "x"
        #expect(notification.id == text + "x")
        let event = DeviceTimelineEvent(at: Timestamp(secondsSince1970: 0), kind: .delivered, notificationID: text, reason: nil)
        #expect(event.notificationID == text)
        // What the gateway does with an `apns-id` it already parsed: the same id as from the text.
        if let uuid = Array(text.utf8).withUnsafeBytes({ UUIDText.parse($0) }) {
            #expect(NotificationID(text, uuid: uuid) == id)
            #expect(NotificationID(text, uuid: uuid).description == text)
        }
    }

    @Test("notifications sharing one content stay independent values")
    func sharedContent() {
        let now = Timestamp(secondsSince1970: 1_800_000_000)
        let content = NotificationContent(
            app: "dev.pushmock.sample", collapseKey: "k", displayKey: nil, kind: "alert", payload: Array(#"{"aps":{}}"#.utf8))
        let first = SimulatedNotification(id: "n1", sentAt: now, priority: .high, expiry: .immediately, content: content)
        var second = SimulatedNotification(id: "n1", sentAt: now, priority: .high, expiry: .immediately, content: content)
        // Built field by field: equal to the shared one, and hashed alike.
        let built = SimulatedNotification(
            id: "n1", app: "dev.pushmock.sample", sentAt: now, priority: .high, expiry: .immediately, collapseKey: "k", kind: "alert",
            payload: Array(#"{"aps":{}}"#.utf8))
        #expect(built == first && built.hashValue == first.hashValue)
        #expect(second == first)
        // Each setter changes its own notification only.
        second.app = "dev.pushmock.other"
        second.collapseKey = nil
        second.displayKey = "d"
        second.kind = "background"
        second.payload = Array("{}".utf8)
        #expect(second.app == "dev.pushmock.other" && second.collapseKey == nil && second.displayKey == "d")
        #expect(second.kind == "background" && second.payload == Array("{}".utf8))
        #expect(first.app == "dev.pushmock.sample" && first.collapseKey == "k" && first.displayKey == nil)
        #expect(first.kind == "alert" && first.payload == Array(#"{"aps":{}}"#.utf8))
        #expect(content.app == "dev.pushmock.sample" && content.collapseKey == "k")
        #expect(second != first)
        second.app = "dev.pushmock.sample"
        second.collapseKey = "k"
        second.displayKey = nil
        second.kind = "alert"
        second.payload = Array(#"{"aps":{}}"#.utf8)
        #expect(second == first && second.hashValue == first.hashValue)
        for change in 0..<5 {
            var changed = first
            switch change {
            case 0: changed.id = "n2"
            case 1: changed.sequence = 7
            case 2: changed.sentAt = now + .seconds(1)
            case 3: changed.priority = .normal
            default: changed.expiry = .at(now)
            }
            #expect(changed != first, "change \(change)")
        }
    }

    @Test("a UUID with a stray byte at any position stays text, and reads back as sent")
    func notificationIDWithStrayByte() {
        let lower = Array("4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35".utf8)
        let digitsOnly = Array("12345678-1234-1234-1234-123456789012".utf8)
        // Neighbours of every range the parser accepts, an upper-case letter in a lower-case
        // UUID, and a hyphen where a digit belongs.
        let strays: [UInt8] = Array("/:@G`g-A".utf8) + [0x00, 0x7F, 0xC3]
        for uuid in [lower, digitsOnly] {
            for position in uuid.indices where uuid[position] != UInt8(ascii: "-") {
                for stray in strays {
                    var bytes = uuid
                    bytes[position] = stray
                    let text = String(decoding: bytes, as: UTF8.self)
                    // A byte taken for a digit would read back as another text.
                    let id = NotificationID(text)
                    #expect(id.description == text)
                    #expect(id != NotificationID(String(decoding: uuid, as: UTF8.self)))
                }
            }
        }
    }

    @Test("equal ids are equal texts: one text, one form")
    func notificationIDEquality() {
        let lower = "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35"
        #expect(NotificationID(lower) == NotificationID(lower))
        #expect(NotificationID(lower) != NotificationID(lower.uppercased()))
        #expect(NotificationID(lower) != NotificationID("4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a36"))
        #expect(
            DeviceTimelineEvent(at: Timestamp(secondsSince1970: 0), kind: .delivered, notificationID: nil, reason: nil).notificationID
                == nil)
    }

    @Test("engaging finds a notification by its id in any form")
    func engageByID() throws {
        let now = Timestamp(secondsSince1970: 1_800_000_000)
        var device = SimulatedDevice(
            address: DeviceAddress(service: .apns, token: String(repeating: "ab", count: 32)), policy: .apns, now: now)
        for id in ["4C1B5F0E-9A3D-4E2B-8F6A-0D9C7B2E1A35", "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35", "projects/p/messages/1"] {
            device.receive(
                SimulatedNotification(
                    id: id, app: "app", sentAt: now, priority: .high, expiry: .immediately, kind: "alert",
                    payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)),
                now: now)
        }
        let opened = try device.engage(.opened, notificationID: "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35", now: now)
        #expect(opened.notification.id == "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35")
        #expect(device.notifications[0].engagement == nil)
        #expect(device.timeline.last?.kind == .opened)
        #expect(device.timeline.last?.notificationID == "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35")
        _ = try device.engage(.dismissed, notificationID: "projects/p/messages/1", now: now)
        #expect(throws: EngagementRefusal.self) { try device.engage(.opened, notificationID: "4c1b5f0e", now: now) }
    }

    @Test(
        "every timeline kind keeps its wire name",
        arguments: [
            (DeviceTimelineEvent.Kind.delivered, "delivered", true), (.stored, "stored", false), (.expired, "expired", false),
            (.collapsed, "collapsed", false), (.dropped, "dropped", false), (.connectivity, "connectivity", false),
            (.deletedMessages, "deleted-messages", false), (.displayed, "displayed", true), (.opened, "opened", true),
            (.dismissed, "dismissed", true), (.action, "action", true), (.permission, "permission", false),
        ]
    )
    func timelineKindNames(_ kind: DeviceTimelineEvent.Kind, _ name: String, _ reported: Bool) {
        #expect(kind.rawValue == name)
        #expect(kind.description == name)
        #expect(kind.isReported == reported)
    }

    @Test("a status becomes the timeline kind of the same name", arguments: DeliveryStatus.all)
    func timelineKindFromStatus(_ status: DeliveryStatus) {
        #expect(DeviceTimelineEvent.Kind(status).rawValue == status.rawValue)
    }

    @Test(
        "device addresses compare their tokens' bytes",
        arguments: [
            (String(repeating: "a", count: 64), String(repeating: "a", count: 64), true),
            (String(repeating: "a", count: 64), String(repeating: "a", count: 63) + "b", false),  // last byte
            ("b" + String(repeating: "a", count: 63), String(repeating: "a", count: 64), false),  // first byte
            (String(repeating: "a", count: 64), String(repeating: "a", count: 65), false),
            ("fcm-token:abc", "fcm-token:abc", true),  // shorter than a word
            ("fcm-token:abc", "fcm-token:abd", false),
            ("", "", true),
            ("e\u{301}", "\u{e9}", false),  // canonically equivalent, different bytes
        ]
    )
    func addressEquality(_ left: String, _ right: String, _ equal: Bool) {
        #expect((DeviceAddress(service: .fcm, token: left) == DeviceAddress(service: .fcm, token: right)) == equal)
        #expect(DeviceAddress(service: .fcm, token: left) != DeviceAddress(service: .expo, token: left))
    }

    /// The rarely set fields live out of line and are shared between copies: setting one on a
    /// copy must not change the original, clearing them all must compare equal to never having
    /// set them, and equal values must hash alike.
    @Test("a notification's out-of-line fields behave like stored ones")
    func deviceNotificationDetails() {
        let now = Timestamp(secondsSince1970: 1_800_000_000)
        let notification = SimulatedNotification(
            id: "4c1b5f0e-9a3d-4e2b-8f6a-0d9c7b2e1a35", app: "app", sentAt: now, priority: .high, expiry: .immediately,
            kind: "alert", payload: [])
        let plain = DeviceNotification(notification: notification, status: .delivered, statusAt: now)
        var engaged = plain
        engaged.reason = "why"
        engaged.displayedAt = now
        engaged.engagement = .acted(actionID: "reply")
        engaged.engagedAt = now + .seconds(1)
        engaged.planned = PlannedEngagement(engagement: .opened, at: now + .seconds(2))
        #expect(plain.reason == nil && plain.engagement == nil && plain.planned == nil)
        #expect(engaged.reason == "why" && engaged.displayedAt == now && engaged.engagement == .acted(actionID: "reply"))
        #expect(engaged.engagedAt == now + .seconds(1) && engaged.planned?.engagement == .opened)
        #expect(engaged != plain)
        var copy = engaged
        copy.reason = "other"
        #expect(engaged.reason == "why")
        #expect(copy != engaged)
        var cleared = engaged
        cleared.reason = nil
        cleared.displayedAt = nil
        cleared.engagement = nil
        cleared.engagedAt = nil
        cleared.planned = nil
        #expect(cleared == plain)
        #expect(cleared.hashValue == plain.hashValue)
        #expect(Set([plain, cleared, engaged]).count == 2)
    }

    @Test("a timeline event's out-of-line texts behave like stored ones")
    func timelineEventTexts() {
        let at = Timestamp(secondsSince1970: 0)
        let plain = DeviceTimelineEvent(at: at, kind: .action, reason: nil)
        var event = DeviceTimelineEvent(at: at, kind: .action, actionID: "reply", reason: "by command")
        #expect(event.actionID == "reply" && event.reason == "by command")
        var copy = event
        copy.reason = nil
        #expect(copy.actionID == "reply" && copy.reason == nil && event.reason == "by command")
        event.actionID = nil
        event.reason = nil
        #expect(event == plain)
        #expect(event.hashValue == plain.hashValue)
    }

    /// The sequence, the expiry and the delivery time are kept as plain words with presence
    /// bits; every value, including the ones a sentinel would have taken, reads back as set.
    @Test(
        "optional sequence, expiry and delivery time read back as set",
        arguments: [nil, 0, 1, 42, UInt64.max] as [UInt64?]
    )
    func packedOptionalsRoundTrip(_ sequence: UInt64?) {
        let instants = [Int64.min, -1, 0, 1, 1_700_000_000_000, Int64.max].map { Timestamp(millisecondsSince1970: $0) }
        for expiry in [DeliveryExpiry.immediately] + instants.map(DeliveryExpiry.at) {
            var notification = SimulatedNotification(
                id: "n", sequence: sequence, app: "app", sentAt: Timestamp(secondsSince1970: 5), priority: .normal, expiry: expiry,
                kind: "alert", payload: [1])
            #expect(notification.sequence == sequence)
            #expect(notification.expiry == expiry)
            #expect(notification.priority == .normal)
            #expect(notification.sentAt == Timestamp(secondsSince1970: 5))
            notification.sequence = 7
            notification.expiry = .immediately
            #expect(notification.sequence == 7)
            #expect(notification.expiry == .immediately)
            notification.sequence = sequence
            notification.expiry = expiry
            #expect(notification.sequence == sequence)
            #expect(notification.expiry == expiry)

            var entry = DeviceNotification(notification: notification, status: .stored, statusAt: Timestamp(secondsSince1970: 6))
            #expect(entry.deliveredAt == nil)
            for instant in instants {
                entry.deliveredAt = instant
                #expect(entry.deliveredAt == instant)
            }
            entry.deliveredAt = nil
            #expect(entry.deliveredAt == nil)
            #expect(entry.notification == notification)
            #expect(entry.status == .stored)
        }
        var event = DeviceTimelineEvent(at: Timestamp(secondsSince1970: 1), kind: .opened, sequence: sequence, reason: nil)
        #expect(event.sequence == sequence)
        event.sequence = 3
        #expect(event.sequence == 3)
        event.sequence = sequence
        #expect(event.sequence == sequence)
        #expect(event == DeviceTimelineEvent(at: Timestamp(secondsSince1970: 1), kind: .opened, sequence: sequence, reason: nil))
        if sequence != nil {
            #expect(event != DeviceTimelineEvent(at: Timestamp(secondsSince1970: 1), kind: .opened, sequence: nil, reason: nil))
        }
    }

    /// What a device keeps per delivery: one notification and one timeline event. Growing
    /// these (a field inline again, or declared out of order) costs every delivery memory
    /// traffic in the gateway (`Benchmarks/README.md`, seventh and nineteenth sessions).
    @Test("a delivery costs a device at most 128 bytes of history")
    func historySizes() {
        #expect(MemoryLayout<DeviceNotification>.stride <= 80)
        #expect(MemoryLayout<DeviceNotification?>.stride <= 80)
        #expect(MemoryLayout<DeviceTimelineEvent>.stride <= 48)
        #expect(MemoryLayout<DeviceTimelineEvent?>.stride <= 48)
    }

    /// Every delivery reads its device; the fields it reads come first and the one-byte ones
    /// are packed (`SimulatedDevice`'s stored-property order).
    @Test("a device is at most 208 bytes")
    func deviceSize() {
        #expect(MemoryLayout<SimulatedDevice>.stride <= 208)
    }
}
