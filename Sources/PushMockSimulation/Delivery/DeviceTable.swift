import PushMockCore

/// The simulator's devices by address: the devices in one dense array, found through an
/// open-addressing index of their positions that keeps each address's digest beside it.
///
/// Why not `[DeviceAddress: SimulatedDevice]`: every delivery looks its device up, and a
/// `Dictionary` stores no hashes, so each probe compared whole addresses (an out-of-line `==`
/// per occupied bucket on the way) after hashing the address again: ≈ 800 instructions a
/// lookup, a quarter of delivery simulation (`Benchmarks/README.md`, eighth session). Here a
/// probe compares two integers, and addresses are compared once, on the match.
///
/// The match is compared against ``keys``, a copy of every address's service and token bytes
/// in one array that only this table reads, rather than against the device's `String` token:
/// comparing through `String` retained the device's token object first, and that object,
/// last touched a thousand deliveries ago, made the lookup's cache miss an atomic one, which
/// no other miss can overlap (`Benchmarks/README.md`, twentieth session).
///
/// Linear probing over a power-of-two index at most half full; removal shifts the following
/// entries back (no tombstones) and moves the last device into the hole.
struct DeviceTable {
    /// Every device, in no particular order.
    private(set) var devices: [SimulatedDevice] = []
    /// The index: per slot, a position in ``devices`` and the digest of that device's address.
    /// One array of both, so that a probe reads one cache line rather than one in each of two
    /// arrays (a device last looked up a thousand deliveries ago is not in the cache).
    private var slots: [Slot] = []
    /// Every device's key, at the offset its index slot keeps: the token's length (four
    /// bytes), the service (one byte), then the token's UTF-8 bytes. Keys of removed devices
    /// stay until ``garbage`` outweighs the rest, then every key is written anew.
    private var keys: [UInt8] = []
    /// Bytes of ``keys`` no device uses any more.
    private var garbage = 0

    private struct Slot {
        /// The digest of the device's address, compared before the address.
        var digest: UInt64
        /// The position in ``devices`` plus one (0: empty).
        var position: Int32
        /// Where the device's key starts in ``keys``.
        var key: Int32

        static let empty = Slot(digest: 0, position: 0, key: 0)
    }

    var count: Int { devices.count }

    /// The bytes ``keys`` holds, removed devices' included (for tests).
    var keyStorageBytes: Int { keys.count }

    /// The position of the device at `address` in ``devices``.
    func position(of address: DeviceAddress) -> Int? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            keys.withUnsafeBytes { keys in Self.find(address, slots: slots, keys: keys) }
        }
    }

    /// Finds the device of each of `deliveries` (inserting `newDevice(delivery)` for an
    /// address not in the table), and puts its position at the same index of `positions`.
    ///
    /// One borrow of the index and the keys for the whole batch, not one per lookup: looking
    /// up through ``position(of:)`` from the simulator's locked state retained and released
    /// the table's three arrays and the token on every delivery, eight atomic operations.
    mutating func positions(
        of deliveries: UnsafeBufferPointer<SimulatedDelivery>,
        into positions: UnsafeMutableBufferPointer<Int>,
        newDevice: (borrowing SimulatedDelivery) -> SimulatedDevice
    ) {
        precondition(positions.count >= deliveries.count, "one position per delivery")
        var next = 0
        while next < deliveries.count {
            if !slots.isEmpty {
                next = slots.withUnsafeBufferPointer { slots in
                    keys.withUnsafeBytes { keys in
                        var index = next
                        while index < deliveries.count, let position = Self.find(deliveries[index].address, slots: slots, keys: keys) {
                            positions.initializeElement(at: index, to: position)
                            index += 1
                        }
                        return index
                    }
                }
            }
            guard next < deliveries.count else { break }
            // Not in the table (the lookup above just missed, or the table is empty): a new
            // device, inserted before the next lookup, since a later delivery of the batch
            // may be for it too.
            positions.initializeElement(at: next, to: insert(newDevice(deliveries[next])))
            next += 1
        }
    }

    /// Where the device at `address` is, through the index `slots` and the keys `keys`.
    private static func find(_ address: DeviceAddress, slots: UnsafeBufferPointer<Slot>, keys: UnsafeRawBufferPointer) -> Int? {
        let digest = address.digest
        let service = address.service.code
        let mask = slots.count - 1
        return withKeyBytes(of: address) { token in
            var slot = home(of: digest, mask: mask)
            while true {
                let entry = slots[slot]
                if entry.position == 0 { return nil }
                if entry.digest == digest, key(at: Int(entry.key), in: keys, equals: token, service: service) {
                    return Int(entry.position) - 1
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// The device at a position from ``position(of:)`` or ``insert(_:)``, changed in place.
    subscript(position: Int) -> SimulatedDevice {
        get { devices[position] }
        _modify { yield &devices[position] }
    }

    /// Reads the device at `position` and what its next delivery reads first (see
    /// ``SimulatedDevice/warmNextSlots()``).
    func warmNextSlots(at position: Int) -> UInt8 {
        devices.withUnsafeBufferPointer { $0[position].warmNextSlots() }
    }

    /// The device at `address`; setting `nil` removes it.
    subscript(address: DeviceAddress) -> SimulatedDevice? {
        get { position(of: address).map { devices[$0] } }
        set {
            if let newValue {
                if let position = position(of: address) {
                    devices[position] = newValue
                } else {
                    insert(newValue)
                }
            } else {
                removeValue(forKey: address)
            }
        }
    }

    /// Adds a device whose address is not in the table; returns its position.
    @discardableResult
    mutating func insert(_ device: SimulatedDevice) -> Int {
        precondition(devices.count < Int(Int32.max), "too many simulated devices")
        if (devices.count + 1) * 2 > slots.count { grow() }
        precondition(keys.count < Int(Int32.max) - 8 - device.address.token.utf8.count, "simulated device tokens too long in total")
        let key = appendKey(of: device.address)
        devices.append(device)
        place(digest: device.address.digest, position: devices.count - 1, key: key)
        return devices.count - 1
    }

    /// Removes the device at `address` and returns it.
    @discardableResult
    mutating func removeValue(forKey address: DeviceAddress) -> SimulatedDevice? {
        guard let position = position(of: address) else { return nil }
        unplace(slot: slot(of: position, digest: address.digest))
        garbage += Self.keyHeaderSize + address.token.utf8.count
        let last = devices.count - 1
        if position != last {
            // The last device fills the hole: its index entry points at the new position.
            let moved = slot(of: last, digest: devices[last].address.digest)
            slots[moved].position = Int32(position + 1)
            devices.swapAt(position, last)
        }
        let removed = devices.removeLast()
        // The removed key's bytes are garbage now; rewrite the keys when they are most of it.
        if garbage > 4096, garbage * 2 > keys.count { rebuild(capacity: slots.count) }
        return removed
    }

    mutating func removeAll() {
        devices.removeAll()
        slots.removeAll()
        keys.removeAll()
        garbage = 0
    }

    /// Forgets the `count` devices least recently active, in place (the others keep their
    /// order). Sorts positions, not devices: sorting the devices themselves copied all of them,
    /// and a filtered copy of 100,000 devices would briefly double the table's memory.
    mutating func removeLeastRecentlyActive(_ count: Int) {
        guard count > 0 else { return }
        let oldest: Set<Int> = devices.withUnsafeBufferPointer { devices in
            Set(devices.indices.sorted { devices[$0].lastActivity < devices[$1].lastActivity }.prefix(count))
        }
        remove(oldest)
    }

    /// Forgets the least recently active devices whose payloads, each counted, add up to at
    /// least `bytes` (all of them if they hold less).
    mutating func removeLeastRecentlyActive(holdingAtLeast bytes: Int) {
        let chosen: Set<Int> = devices.withUnsafeBufferPointer { devices in
            var total = 0
            var chosen = Set<Int>()
            for position in devices.indices.sorted(by: { devices[$0].lastActivity < devices[$1].lastActivity }) {
                guard total < bytes else { break }
                total += devices[position].payloadBytes
                chosen.insert(position)
            }
            return chosen
        }
        remove(chosen)
    }

    private mutating func remove(_ oldest: Set<Int>) {
        guard !oldest.isEmpty else { return }
        var kept = 0
        for position in devices.indices where !oldest.contains(position) {
            if kept != position { devices.swapAt(kept, position) }
            kept += 1
        }
        devices.removeLast(devices.count - kept)
        rebuild(capacity: slots.count)
    }

    /// Applies `change` to every device in place.
    mutating func updateEach(_ change: (inout SimulatedDevice) -> Void) {
        for position in devices.indices { change(&devices[position]) }
    }

    // MARK: Index

    private static func home(of digest: UInt64, mask: Int) -> Int {
        // The digest is already mixed (and keyed per process): its low bits serve.
        Int(truncatingIfNeeded: digest) & mask
    }

    /// The index slot that holds `position`.
    private func slot(of position: Int, digest: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Self.home(of: digest, mask: mask)
        while slots[slot].position != Int32(position + 1) { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func place(digest: UInt64, position: Int, key: Int32) {
        let mask = slots.count - 1
        var slot = Self.home(of: digest, mask: mask)
        while slots[slot].position != 0 { slot = (slot + 1) & mask }
        slots[slot] = Slot(digest: digest, position: Int32(position + 1), key: key)
    }

    /// Empties `slot`, then moves back every entry after it that its home allows, so that
    /// no probe sequence crosses a hole.
    private mutating func unplace(slot: Int) {
        let mask = slots.count - 1
        var hole = slot
        var next = (hole + 1) & mask
        while slots[next].position != 0 {
            let home = Self.home(of: slots[next].digest, mask: mask)
            // The entry at `next` may move to `hole` when its home is not in (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = .empty
    }

    private mutating func grow() {
        rebuild(capacity: max(16, slots.count * 2))
    }

    /// A new index of `capacity` slots (or more, to stay at most half full), and every key
    /// written anew (so that removed devices' keys are gone).
    private mutating func rebuild(capacity: Int) {
        var capacity = max(16, capacity)
        while devices.count * 2 > capacity { capacity *= 2 }
        slots = Array(repeating: .empty, count: capacity)
        keys.removeAll(keepingCapacity: true)
        garbage = 0
        for position in devices.indices {
            let key = appendKey(of: devices[position].address)
            place(digest: devices[position].address.digest, position: position, key: key)
        }
    }

    // MARK: Keys

    /// The length (a `UInt32`) and the service code before each key's token bytes.
    private static let keyHeaderSize = 5

    /// Appends the key of `address` to ``keys``; returns where it starts.
    private mutating func appendKey(of address: DeviceAddress) -> Int32 {
        let start = keys.count
        Self.withKeyBytes(of: address) { token in
            withUnsafeBytes(of: UInt32(token.count).littleEndian) { keys.append(contentsOf: $0) }
            keys.append(address.service.code)
            keys.append(contentsOf: token)
        }
        return Int32(start)
    }

    /// Calls `body` with the token's UTF-8 bytes (in place when the string is contiguous).
    private static func withKeyBytes<Result>(of address: DeviceAddress, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = address.token.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(address.token.utf8).withUnsafeBytes(body)
    }

    /// Whether the key at `start` is `service` and the bytes of `token`.
    private static func key(at start: Int, in keys: UnsafeRawBufferPointer, equals token: UnsafeRawBufferPointer, service: UInt8) -> Bool {
        let length = Int(UInt32(littleEndian: keys.loadUnaligned(fromByteOffset: start, as: UInt32.self)))
        guard length == token.count, keys[start + 4] == service else { return false }
        return UnsafeRawBufferPointer(rebasing: keys[(start + keyHeaderSize)...].prefix(length)).hasSameBytes(as: token)
    }
}
