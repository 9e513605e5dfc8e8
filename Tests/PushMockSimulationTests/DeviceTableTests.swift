import PushMockCore
import PushMockTestSupport
import Testing

@testable import PushMockSimulation

/// The simulator's device table (open addressing over keyed address digests) must behave
/// exactly like the dictionary it replaced, and addresses must stay equal exactly when their
/// service and token bytes are.
struct DeviceTableTests {
    private static let now = Timestamp(secondsSince1970: 1_800_000_000)

    private static func device(_ address: DeviceAddress, at second: Int64) -> SimulatedDevice {
        SimulatedDevice(address: address, policy: .apns, now: Timestamp(secondsSince1970: second))
    }

    /// A small key space, so that the same addresses come and go and probe sequences overlap.
    private static func address(_ number: Int) -> DeviceAddress {
        let services: [PushService] = [.apns, .fcm, .expo]
        let hex = String(number / 3, radix: 16)
        return DeviceAddress(service: services[number % 3], token: String(repeating: "0", count: 64 - hex.count) + hex)
    }

    @Test("random inserts, replacements, removals and lookups agree with a dictionary", arguments: [1, 2, 3] as [UInt64])
    func agreesWithDictionary(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var table = DeviceTable()
        var model: [DeviceAddress: Int64] = [:]
        for step in 0..<20_000 {
            let address = Self.address(random.below(300))
            switch random.below(10) {
            case 0..<5:
                table[address] = Self.device(address, at: Int64(step))
                model[address] = Int64(step)
            case 5..<8:
                #expect(
                    table.removeValue(forKey: address)?.lastActivity.millisecondsSince1970
                        == model.removeValue(forKey: address).map { $0 * 1000 })
            case 8:
                if let position = table.position(of: address) {
                    table[position].setConnectivity(.offline, now: Timestamp(secondsSince1970: Int64(step)))
                    model[address] = Int64(step)
                }
            default:
                // Eviction's path: forget the least recently active (every step is a distinct
                // second, so the order has no ties).
                let count = random.below(model.count / 4 + 1)
                table.removeLeastRecentlyActive(count)
                for (address, _) in model.sorted(by: { $0.value < $1.value }).prefix(count) { model[address] = nil }
            }
            #expect(table.count == model.count)
            if step % 500 == 0 { Self.expectSame(table, model) }
        }
        Self.expectSame(table, model)
    }

    @Test("batches of lookups find every device, and add new ones once even when a batch repeats them", arguments: [1, 2] as [UInt64])
    func batchedLookups(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var table = DeviceTable()
        var model: [DeviceAddress: Int] = [:]
        for round in 0..<400 {
            // New addresses keep coming (some repeated within the batch), old ones come back.
            let batch = (0..<random.below(60)).map { _ in
                SimulatedDelivery(
                    address: Self.address(random.below(40 + round * 2)), policy: .apns,
                    notification: SimulatedNotification(
                        id: "n", app: "app", sentAt: Self.now, priority: .high, expiry: .immediately, kind: "alert", payload: []))
            }
            var created: [DeviceAddress] = []
            batch.withUnsafeBufferPointer { deliveries in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: deliveries.count) { positions in
                    table.positions(of: deliveries, into: positions) { delivery in
                        created.append(delivery.address)
                        return Self.device(delivery.address, at: 0)
                    }
                    for index in deliveries.indices {
                        #expect(table[positions[index]].address == deliveries[index].address)
                    }
                    positions.deinitialize()
                }
            }
            for address in created {
                #expect(model[address] == nil, "created twice: \(address)")
                model[address] = 1
            }
            #expect(table.count == model.count)
            if random.below(8) == 0, let gone = model.keys.randomElement(using: &random) {
                table.removeValue(forKey: gone)
                model[gone] = nil
            }
        }
    }

    private static func expectSame(_ table: DeviceTable, _ model: [DeviceAddress: Int64]) {
        for number in 0..<300 {
            let address = address(number)
            let found = table.position(of: address).map { table[$0] }
            #expect(found?.address == (model[address] == nil ? nil : address))
            #expect(found?.lastActivity == model[address].map { Timestamp(secondsSince1970: $0) })
        }
        #expect(Set(table.devices.map(\.address)) == Set(model.keys))
    }

    @Test("tokens of every length, ASCII or not, in every service; removed keys do not pile up", arguments: [1, 2] as [UInt64])
    func keysOfEveryLength(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let services: [PushService] = [.apns, .fcm, .expo]
        // Tokens that share prefixes and differ in length by one byte, so that a key compared
        // by prefix or without its length or service would match the wrong device.
        let addresses = (0..<120).map { number in
            DeviceAddress(service: services[number % 3], token: String(repeating: number % 2 == 0 ? "a" : "é", count: number / 3))
        }
        var table = DeviceTable()
        var model: [DeviceAddress: Int64] = [:]
        for step in 0..<30_000 {
            let address = addresses[random.below(addresses.count)]
            if random.below(2) == 0 {
                table[address] = Self.device(address, at: Int64(step))
                model[address] = Int64(step)
            } else {
                #expect(table.removeValue(forKey: address)?.address == model.removeValue(forKey: address).map { _ in address })
            }
            #expect(table.count == model.count)
        }
        for address in addresses {
            #expect(table.position(of: address).map { table[$0].address } == (model[address] == nil ? nil : address))
            #expect(table[address]?.lastActivity == model[address].map { Timestamp(secondsSince1970: $0) })
        }
        // 15,000 removals of keys up to ~80 bytes: without rewriting, megabytes of dead keys.
        let liveBytes = addresses.reduce(0) { $0 + 5 + $1.token.utf8.count }
        #expect(table.keyStorageBytes <= 2 * liveBytes + 4096 + 100)
    }

    @Test("grows past many sizes, and every device stays where its position says")
    func growth() {
        var table = DeviceTable()
        for number in 0..<5_000 {
            let position = table.insert(Self.device(Self.address(number), at: Int64(number)))
            #expect(table[position].address == Self.address(number))
        }
        for number in stride(from: 0, to: 5_000, by: 7) {
            #expect(table.position(of: Self.address(number)).map { table[$0].address } == Self.address(number))
        }
        #expect(table.position(of: Self.address(5_000)) == nil)
        table.removeAll()
        #expect(table.count == 0)
        #expect(table.position(of: Self.address(1)) == nil)
    }

    @Test("addresses are equal exactly when service and token bytes are; equal ones hash alike")
    func addressEquality() {
        let token = String(repeating: "ab", count: 32)
        let apns = DeviceAddress(service: .apns, token: token)
        #expect(apns == DeviceAddress(service: .apns, token: token.uppercased()))  // canonical form
        #expect(apns.hashValue == DeviceAddress(service: .apns, token: token.uppercased()).hashValue)
        #expect(apns != DeviceAddress(service: .fcm, token: token))
        #expect(apns != DeviceAddress(service: .apns, token: String(token.dropLast()) + "c"))
        #expect(apns != DeviceAddress(service: .apns, token: token + "ab"))
        // The gateway's path: a token already made canonical by the endpoint.
        #expect(DeviceAddress(apnsToken: APNsDeviceToken(token.uppercased())) == apns)
        #expect(DeviceAddress(apnsToken: APNsDeviceToken(token.uppercased())).hashValue == apns.hashValue)
        // Changing the token through the property gives the same value as making it anew.
        var changed = DeviceAddress(service: .fcm, token: "a")
        changed.token = "fcm-token:APA91b"
        #expect(changed == DeviceAddress(service: .fcm, token: "fcm-token:APA91b"))
        #expect(changed.hashValue == DeviceAddress(service: .fcm, token: "fcm-token:APA91b").hashValue)
        // Tokens of every length up to two words and a bit, and non-ASCII bytes.
        for length in 0...20 {
            let text = String(repeating: "é", count: length)
            #expect(DeviceAddress(service: .fcm, token: text) == DeviceAddress(service: .fcm, token: text))
            #expect(DeviceAddress(service: .fcm, token: text) != DeviceAddress(service: .fcm, token: text + "x"))
            #expect(
                DeviceAddress.digest(of: String(repeating: "x", count: length))
                    != DeviceAddress.digest(of: String(repeating: "y", count: length))
                    || length == 0)
        }
    }

    @Test("no pair of token edits collides under every key", arguments: [1, 2, 3] as [UInt64])
    func digestDependsOnKey(seed: UInt64) {
        // Flipping a word's top bit and compensating in the next word collided under every key
        // while each word was mixed by a multiply and a rotate alone (the difference after the
        // first word was the constant 1 << 28).
        var random = SeededGenerator(seed: seed)
        let first = random.next()
        let second = random.next()
        let original = [first, second]
        let edited = [first ^ (1 << 63), second ^ (1 << 28)]
        for _ in 0..<8 {
            let key = random.next()
            let a = original.withUnsafeBytes { DeviceAddress.digest(of: $0, key: key) }
            let b = edited.withUnsafeBytes { DeviceAddress.digest(of: $0, key: key) }
            #expect(a != b)
        }
        // And one key spreads neighbouring tokens over the low bits the table uses.
        let homes = Set(
            (0..<256).map { number in
                [first, UInt64(number)].withUnsafeBytes { DeviceAddress.digest(of: $0, key: second) } & 1023
            })
        #expect(homes.count > 150)
    }

    @Test("changing any one byte of a token of any length changes its digest", arguments: [1, 2, 3] as [UInt64])
    func digestSeesEveryByte(seed: UInt64) {
        // Every length up to three 16-byte blocks and a bit: whole blocks, the zero-padded
        // tail, and the length folded in (a token and the same token plus a zero byte differ).
        var random = SeededGenerator(seed: seed)
        let key = random.next()
        for length in 0...50 {
            let token = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let digest = token.withUnsafeBytes { DeviceAddress.digest(of: $0, key: key) }
            #expect((token + [0]).withUnsafeBytes { DeviceAddress.digest(of: $0, key: key) } != digest)
            for position in token.indices {
                for flip in [0x01, 0x80, 0xFF] as [UInt8] {
                    var edited = token
                    edited[position] ^= flip
                    #expect(edited.withUnsafeBytes { DeviceAddress.digest(of: $0, key: key) } != digest, "\(position) of \(length)")
                }
            }
        }
    }

    @Test("a simulator with many devices finds each one again")
    func simulatorLookups() throws {
        let simulator = DeliverySimulator()
        let deliveries = (0..<2_000).map { number in
            SimulatedDelivery(
                address: Self.address(number), policy: .fcm,
                notification: SimulatedNotification(
                    id: "n\(number)", app: "app", sentAt: Self.now, priority: .high, expiry: .immediately, kind: "data", payload: []))
        }
        simulator.receive(deliveries, now: Self.now)
        #expect(simulator.count == 2_000)
        for number in stride(from: 0, to: 2_000, by: 13) {
            let device = try #require(simulator.device(Self.address(number), now: Self.now))
            #expect(device.notifications.map(\.notification.id) == ["n\(number)"])
        }
        #expect(simulator.remove(Self.address(5)))
        #expect(!simulator.remove(Self.address(5)))
        #expect(simulator.device(Self.address(6), now: Self.now)?.notifications.first?.notification.id == "n6")
        #expect(simulator.devices(now: Self.now).count == 1_999)
    }
}
