/// The requests one connection has in flight, keyed by the slot that holds each and that
/// slot's generation.
///
/// Why not a `Dictionary` keyed by a counter: inserting and removing hashed the key with
/// SipHash, ≈ 1.5 % of the sender's samples at 4 × 100 streams. Slots are reused (a
/// connection has at most its stream limit in flight, so the arrays stay small), and the
/// generation in the key makes a stale key — one whose slot was freed and reused — find
/// nothing, as a removed counter key would.
struct InFlightTable<Value> {
    private var values: [Value?] = []
    private var generations: [UInt32] = []
    private var freeSlots: [Int] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Stores `value` and returns its key.
    mutating func insert(_ value: Value) -> UInt64 {
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            values[slot] = value
        } else {
            slot = values.count
            values.append(value)
            generations.append(0)
        }
        count += 1
        return UInt64(generations[slot]) << 32 | UInt64(slot)
    }

    /// The value stored under `key`, if it is still there.
    subscript(key: UInt64) -> Value? {
        guard let slot = slot(of: key) else { return nil }
        return values[slot]
    }

    /// Changes the value stored under `key` in place; does nothing if it is gone.
    mutating func update(_ key: UInt64, _ change: (inout Value) -> Void) {
        guard let slot = slot(of: key), values[slot] != nil else { return }
        change(&values[slot]!)
    }

    /// Removes and returns the value stored under `key`, if it is still there.
    mutating func removeValue(forKey key: UInt64) -> Value? {
        guard let slot = slot(of: key), let value = values[slot].take() else { return nil }
        generations[slot] &+= 1
        freeSlots.append(slot)
        count -= 1
        return value
    }

    /// The keys of the values that satisfy `predicate`, in slot order.
    func keys(where predicate: (Value) -> Bool) -> [UInt64] {
        var keys: [UInt64] = []
        for slot in values.indices {
            if let value = values[slot], predicate(value) {
                keys.append(UInt64(generations[slot]) << 32 | UInt64(slot))
            }
        }
        return keys
    }

    private func slot(of key: UInt64) -> Int? {
        let slot = Int(truncatingIfNeeded: key & 0xFFFF_FFFF)
        guard slot < values.count, generations[slot] == UInt32(truncatingIfNeeded: key >> 32) else { return nil }
        return slot
    }
}
