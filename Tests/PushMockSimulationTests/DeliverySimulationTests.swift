import PushMockCore
import PushMockSimulation
import Testing

private let start = Timestamp(secondsSince1970: 1_800_000_000)
private let apnsToken = "00fc13adff785122b4ad28809a3420982341241421348097878e577c991de8f0"

private func apns(
    _ id: String,
    at time: Timestamp = start,
    app: String = "com.example.app",
    priority: DeliveryPriority = .high,
    expiry: DeliveryExpiry? = nil,
    collapseID: String? = nil
) -> SimulatedNotification {
    SimulatedNotification(
        id: id,
        app: app,
        sentAt: time,
        priority: priority,
        expiry: expiry ?? .at(time + .seconds(30 * 86_400)),
        collapseKey: collapseID,
        displayKey: collapseID,
        kind: "alert",
        payload: Array(#"{"aps":{"alert":"\#(id)"}}"#.utf8)
    )
}

private func fcm(
    _ id: String,
    at time: Timestamp = start,
    priority: DeliveryPriority = .normal,
    ttl: Duration = .seconds(2_419_200),
    collapseKey: String? = nil
) -> SimulatedNotification {
    SimulatedNotification(
        id: id,
        app: "demo-project",
        sentAt: time,
        priority: priority,
        expiry: ttl == .zero ? .immediately : .at(time + ttl),
        collapseKey: collapseKey,
        kind: "data",
        payload: Array(#"{"data":{"id":"\#(id)"}}"#.utf8)
    )
}

private func statuses(_ device: SimulatedDevice) -> [String: DeliveryStatus] {
    #expect(device.storedCount == device.stored.count, "the stored counter follows every transition")
    return Dictionary(uniqueKeysWithValues: device.notifications.map { ($0.notification.id, $0.status) })
}

@Suite("Delivery simulation: APNs")
struct APNsDeliveryTests {
    let address = DeviceAddress(service: .apns, token: apnsToken.uppercased())

    @Test("an online device gets every notification at once")
    func online() {
        var device = SimulatedDevice(address: address, policy: .apns, now: start)
        device.receive(apns("a"), now: start)
        device.receive(apns("b", expiry: .immediately), now: start + .seconds(1))
        #expect(statuses(device) == ["a": .delivered, "b": .delivered])
        #expect(device.timeline.map(\.kind) == [.delivered, .delivered])
        #expect(device.address.token == apnsToken, "APNs tokens are canonical lower-case hex")
    }

    @Test("offline, five notifications with one collapse id: the last one that has not expired is shown")
    func collapseWhileOffline() {
        var device = SimulatedDevice(address: address, policy: .apns, now: start)
        device.setConnectivity(.offline, now: start)
        for index in 1...5 {
            let sent = start + .seconds(Int64(index))
            // The fifth expires after ten minutes, the others after an hour.
            let expiry = index == 5 ? sent + .seconds(600) : sent + .seconds(3600)
            device.receive(apns("n\(index)", at: sent, expiry: .at(expiry), collapseID: "score"), now: sent)
        }
        #expect(statuses(device) == ["n1": .collapsed, "n2": .collapsed, "n3": .collapsed, "n4": .collapsed, "n5": .stored])

        // Back within ten minutes: n5 is delivered.
        var early = device
        early.setConnectivity(.online, now: start + .seconds(300))
        #expect(early.displayed.map(\.notification.id) == ["n5"])
        #expect(early.displayed.first?.deliveredAt == start + .seconds(300))

        // Back after twenty minutes: n5 expired at its own instant; nothing is shown.
        device.setConnectivity(.online, now: start + .seconds(1200))
        #expect(device.displayed.isEmpty)
        let expired = device.timeline.first { $0.kind == .expired }
        #expect(expired?.notificationID == "n5")
        #expect(expired?.at == start + .seconds(605), "expiry is recorded when it happened, not when someone looked")
        #expect(device.timeline.last?.kind == .connectivity)
    }

    @Test("offline: APNs keeps only the newest notification per app")
    func onePerApp() {
        var device = SimulatedDevice(address: address, policy: .apns, now: start)
        device.setConnectivity(.offline, now: start)
        device.receive(apns("a1"), now: start)
        device.receive(apns("b1", app: "com.example.other"), now: start)
        device.receive(apns("a2", collapseID: "x"), now: start + .seconds(1))
        #expect(statuses(device) == ["a1": .dropped, "b1": .stored, "a2": .stored])
        #expect(device.notifications[0].reason?.contains("newest notification per app") == true)
        device.setConnectivity(.online, now: start + .seconds(2))
        #expect(device.displayed.map(\.notification.id) == ["b1", "a2"])
    }

    @Test("apns-expiration 0 is delivered now or dropped")
    func expirationZero() {
        var device = SimulatedDevice(address: address, policy: .apns, connectivity: .offline, now: start)
        device.receive(apns("now-or-never", expiry: .immediately), now: start)
        #expect(statuses(device) == ["now-or-never": .dropped])
        #expect(device.notifications[0].reason?.contains("apns-expiration 0") == true)
        device.setConnectivity(.online, now: start + .seconds(1))
        #expect(device.displayed.isEmpty)
    }

    @Test("an expiration already in the past acts like 0")
    func pastExpiration() {
        var device = SimulatedDevice(address: address, policy: .apns, connectivity: .offline, now: start)
        device.receive(apns("late", expiry: .at(start - .seconds(1))), now: start)
        #expect(statuses(device) == ["late": .dropped])
    }

    @Test("idle: high priority arrives, priority 5 waits for the device to wake")
    func idle() {
        var device = SimulatedDevice(address: address, policy: .apns, connectivity: .idle, now: start)
        device.receive(apns("urgent"), now: start)
        device.receive(apns("later", app: "com.example.other", priority: .normal), now: start)
        #expect(statuses(device) == ["urgent": .delivered, "later": .stored])
        device.setConnectivity(.online, now: start + .seconds(60))
        #expect(statuses(device) == ["urgent": .delivered, "later": .delivered])
        #expect(device.notifications[1].statusAt == start + .seconds(60))
    }

    @Test("online: a notification with the same collapse id replaces the one on screen")
    func collapseOnScreen() {
        var device = SimulatedDevice(address: address, policy: .apns, now: start)
        device.receive(apns("first", collapseID: "score"), now: start)
        device.receive(apns("other"), now: start)
        device.receive(apns("second", collapseID: "score"), now: start + .seconds(1))
        #expect(statuses(device) == ["first": .collapsed, "other": .delivered, "second": .delivered])
        #expect(device.notifications[0].deliveredAt == start, "it was delivered before it was replaced")
        #expect(device.displayed.map(\.notification.id) == ["other", "second"])
    }
}

@Suite("Delivery simulation: FCM")
struct FCMDeliveryTests {
    let address = DeviceAddress(service: .fcm, token: "fcm-token-1")

    @Test("ttl 0s is delivered now or dropped")
    func ttlZero() {
        var device = SimulatedDevice(address: address, policy: .fcm, connectivity: .offline, now: start)
        device.receive(fcm("zero", ttl: .zero), now: start)
        #expect(statuses(device) == ["zero": .dropped])
        #expect(device.notifications[0].reason?.contains("ttl 0s") == true)
    }

    @Test("ttl passes while stored")
    func ttlExpiry() {
        var device = SimulatedDevice(address: address, policy: .fcm, connectivity: .offline, now: start)
        device.receive(fcm("short", ttl: .seconds(60)), now: start)
        device.receive(fcm("long", ttl: .seconds(3600)), now: start)
        device.setConnectivity(.online, now: start + .seconds(120))
        #expect(statuses(device) == ["short": .expired, "long": .delivered])
    }

    @Test("a stored message with the same collapse key is replaced")
    func collapseKey() {
        var device = SimulatedDevice(address: address, policy: .fcm, connectivity: .offline, now: start)
        device.receive(fcm("s1", collapseKey: "sync"), now: start)
        device.receive(fcm("s2", collapseKey: "sync"), now: start + .seconds(1))
        device.receive(fcm("chat"), now: start + .seconds(2))
        #expect(statuses(device) == ["s1": .collapsed, "s2": .stored, "chat": .stored])
        device.setConnectivity(.online, now: start + .seconds(3))
        #expect(device.displayed.map(\.notification.id) == ["s2", "chat"])
    }

    @Test("at most four collapse keys are stored; the oldest key goes")
    func fourCollapseKeys() {
        var device = SimulatedDevice(address: address, policy: .fcm, connectivity: .offline, now: start)
        for (index, key) in ["k1", "k2", "k3", "k4", "k5"].enumerated() {
            device.receive(fcm(key, collapseKey: key), now: start + .seconds(Int64(index)))
        }
        #expect(statuses(device) == ["k1": .dropped, "k2": .stored, "k3": .stored, "k4": .stored, "k5": .stored])
        #expect(device.notifications[0].reason?.contains("at most 4 collapse keys") == true)
    }

    @Test("beyond 100 stored messages FCM discards them all and the app hears onDeletedMessages")
    func hundredMessages() {
        var device = SimulatedDevice(address: address, policy: .fcm, connectivity: .offline, now: start)
        for index in 1...101 {
            device.receive(fcm("m\(index)"), now: start + .milliseconds(Int64(index)))
        }
        let counts = device.counts
        #expect(counts[.dropped] == 100)
        #expect(counts[.stored] == 1)
        #expect(device.deletedMessagesPending)
        device.setConnectivity(.online, now: start + .seconds(5))
        #expect(device.displayed.map(\.notification.id) == ["m101"])
        let kinds = device.timeline.suffix(3).map(\.kind)
        #expect(kinds == [.connectivity, .deletedMessages, .delivered])
        #expect(!device.deletedMessagesPending)
    }

    @Test("Doze: HIGH is delivered, NORMAL waits")
    func doze() {
        var device = SimulatedDevice(address: address, policy: .fcm, connectivity: .idle, now: start)
        device.receive(fcm("high", priority: .high), now: start)
        device.receive(fcm("normal", priority: .normal), now: start)
        #expect(statuses(device) == ["high": .delivered, "normal": .stored])
    }
}

@Suite("Delivery simulator")
struct DeliverySimulatorTests {
    @Test("devices appear on their first notification with the default connectivity")
    func creation() {
        let simulator = DeliverySimulator(defaultConnectivity: .offline)
        let address = DeviceAddress(service: .apns, token: apnsToken)
        simulator.receive([(address, .apns, apns("a"))], now: start)
        let device = simulator.device(address, now: start)
        #expect(device?.connectivity == .offline)
        #expect(device?.stored.count == 1)
        #expect(simulator.count == 1)
        let online = simulator.setConnectivity(.online, for: address, now: start + .seconds(1))
        #expect(online.displayed.count == 1)
        #expect(simulator.remove(address))
        #expect(simulator.device(address, now: start) == nil)
    }

    @Test("reading a device settles expirations first")
    func settleOnRead() {
        let simulator = DeliverySimulator(defaultConnectivity: .offline)
        let address = DeviceAddress(service: .fcm, token: "t")
        simulator.receive([(address, .fcm, fcm("m", ttl: .seconds(10)))], now: start)
        #expect(simulator.device(address, now: start + .seconds(9))?.stored.count == 1)
        #expect(simulator.device(address, now: start + .seconds(10))?.counts[.expired] == 1)
    }

    @Test("memory stays bounded: per-device history and device count")
    func limits() {
        let limits = DeliveryLimits(notificationsPerDevice: 5, timelineEventsPerDevice: 7, devices: 10)
        let simulator = DeliverySimulator(limits: limits)
        let address = DeviceAddress(service: .fcm, token: "busy")
        for index in 0..<20 {
            simulator.receive([(address, .fcm, fcm("m\(index)"))], now: start + .seconds(Int64(index)))
        }
        let device = simulator.device(address, now: start + .seconds(30))
        // Trimmed in batches: between the limit and a quarter over it.
        let kept = device?.notifications.map(\.notification.id) ?? []
        #expect((5...6).contains(kept.count))
        #expect(kept.last == "m19")
        #expect(!kept.contains("m13"), "the oldest settled ones are forgotten")
        #expect((7...8).contains(device?.timeline.count ?? 0))
        for index in 0..<25 {
            simulator.receive(
                [(DeviceAddress(service: .fcm, token: "d\(index)"), .fcm, fcm("x"))], now: start + .seconds(100 + Int64(index)))
        }
        #expect(simulator.count <= 10)
        #expect(simulator.device(DeviceAddress(service: .fcm, token: "d24"), now: start + .seconds(200)) != nil, "recent devices stay")
    }

    @Test("trimming keeps what the service still holds, wherever it sits in the history")
    func trimKeepsStored() {
        let limits = DeliveryLimits(notificationsPerDevice: 4, timelineEventsPerDevice: 100, devices: 10)
        let address = DeviceAddress(service: .fcm, token: "idle")
        var device = SimulatedDevice(address: address, policy: .fcm, connectivity: .idle, limits: limits, now: start)
        // The oldest entry is held (normal priority waits while idle); the rest arrive.
        device.receive(fcm("held", priority: .normal), now: start)
        for index in 0..<7 {
            device.receive(fcm("d\(index)", priority: .high), now: start + .seconds(Int64(index + 1)))
        }
        device.receive(fcm("held2", priority: .normal), now: start + .seconds(10))
        for index in 7..<20 {
            device.receive(fcm("d\(index)", priority: .high), now: start + .seconds(Int64(index + 11)))
        }
        let kept = device.notifications.map(\.notification.id)
        #expect(kept.contains("held") && kept.contains("held2"), "stored notifications are never forgotten")
        #expect(device.stored.map(\.notification.id) == ["held", "held2"])
        #expect(device.storedCount == 2)
        #expect(kept.last == "d19")
        #expect(kept.count <= 4 + 1 + 2, "the limit, its slack, and what cannot be forgotten")
        #expect(!kept.contains("d0") && !kept.contains("d12"), "the oldest delivered ones are forgotten first")
        let delivered = kept.filter { $0.hasPrefix("d") }
        #expect(delivered == delivered.sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }, "order is kept")
    }
}

@Suite("Duration text")
struct DurationTextTests {
    @Test(
        arguments: [
            ("90s", 90_000), ("2m", 120_000), ("1h30m", 5_400_000), ("1.5h", 5_400_000), ("500ms", 500), ("2d", 172_800_000),
            ("1w", 604_800_000), ("45", 45_000), ("0.25", 250), ("-10m", -600_000), ("+5s", 5000), (" 3s ", 3000),
        ] as [(String, Int64)])
    func parses(text: String, milliseconds: Int64) {
        #expect(DurationText.parse(text)?.wholeMilliseconds == milliseconds)
    }

    @Test(arguments: ["", "abc", "5x", "m", "1h-2m", "--5s"])
    func rejects(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test(arguments: [(Int64(5_400_000), "1h30m"), (250, "250ms"), (0, "0s"), (-120_000, "-2m"), (90_061_001, "1d1h1m1s1ms")])
    func formats(milliseconds: Int64, text: String) {
        #expect(DurationText.format(.milliseconds(milliseconds)) == text)
    }
}
