/// Per-stream state keyed by HTTP/2 stream identifier: an open-addressing table with linear
/// probing, for the lookups every frame and header callback makes.
///
/// Why not a `Dictionary`: `Int32` keys are hashed with SipHash, and a request's headers,
/// data, stream close and reply look its stream up half a dozen times on each side; in a
/// profile of the sender (4 × 100 streams) hashing and probing stream keys were ≈ 3 % of the
/// CPU. Stream identifiers are positive and those open at once are close together (each side
/// numbers its streams upwards by two), so half the identifier, multiplied into the high bits,
/// spreads them evenly without a seed.
///
/// Removal shifts later entries of the probe run back (no tombstones), so a long-lived
/// connection that opens and closes millions of streams keeps short probe runs. Iteration
/// order is unspecified, as a dictionary's is.
package struct StreamTable<Value> {
    /// `0` marks a free slot (stream 0 is the connection and never has stream state).
    private var keys: [Int32]
    private var values: [Value?]
    package private(set) var count = 0
    /// Slots minus one (the slot count is a power of two).
    private var mask: Int
    /// 64 minus log2 of the slot count: the hash's top bits pick the home slot.
    private var shift: UInt64

    package init(minimumCapacity: Int = 16) {
        var slots = 16
        var bits: UInt64 = 4
        while slots < 2 * minimumCapacity {
            slots *= 2
            bits += 1
        }
        keys = Array(repeating: 0, count: slots)
        values = Array(repeating: nil, count: slots)
        mask = slots - 1
        shift = 64 - bits
    }

    package var isEmpty: Bool { count == 0 }

    package subscript(streamID: Int32) -> Value? {
        get {
            guard let slot = slot(of: streamID) else { return nil }
            return values[slot]
        }
        set {
            if let newValue {
                insert(newValue, for: streamID)
            } else {
                removeValue(forKey: streamID)
            }
        }
    }

    /// Removes and returns the value of `streamID`, if any.
    @discardableResult
    package mutating func removeValue(forKey streamID: Int32) -> Value? {
        guard var hole = slot(of: streamID) else { return nil }
        let removed = values[hole]
        keys[hole] = 0
        values[hole] = nil
        count -= 1
        // Backward shift: move up every later entry of the run whose home slot does not lie
        // cyclically in (hole, its slot], so that each stays reachable from its home.
        var next = (hole + 1) & mask
        while keys[next] != 0 {
            let ideal = home(of: keys[next])
            if (next &- ideal) & mask >= (next &- hole) & mask {
                keys.swapAt(hole, next)
                values.swapAt(hole, next)
                hole = next
            }
            next = (next + 1) & mask
        }
        return removed
    }

    package mutating func removeAll() {
        guard count > 0 else { return }
        for index in keys.indices where keys[index] != 0 {
            keys[index] = 0
            values[index] = nil
        }
        count = 0
    }

    /// Every stored value, in no particular order.
    package var allValues: [Value] {
        var result: [Value] = []
        result.reserveCapacity(count)
        for index in keys.indices where keys[index] != 0 {
            if let value = values[index] { result.append(value) }
        }
        return result
    }

    /// Every stored stream identifier, in no particular order.
    package var streamIDs: [Int32] { keys.filter { $0 != 0 } }

    private func slot(of streamID: Int32) -> Int? {
        guard streamID > 0 else { return nil }
        var index = home(of: streamID)
        while true {
            let key = keys[index]
            if key == streamID { return index }
            if key == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    private mutating func insert(_ value: Value, for streamID: Int32) {
        precondition(streamID > 0, "stream state is kept only for streams 1 and above")
        if let existing = slot(of: streamID) {
            values[existing] = value
            return
        }
        // At most half full: probe runs stay short.
        if 2 * (count + 1) > keys.count { grow() }
        var index = home(of: streamID)
        while keys[index] != 0 { index = (index + 1) & mask }
        keys[index] = streamID
        values[index] = value
        count += 1
    }

    private mutating func grow() {
        var larger = StreamTable(minimumCapacity: keys.count)
        for index in keys.indices where keys[index] != 0 {
            if let value = values[index] { larger.insert(value, for: keys[index]) }
        }
        self = larger
    }

    /// Fibonacci hashing of the stream number (identifiers of one side differ by two): the
    /// top bits of the product, so that neighbouring streams land far apart and a peer that
    /// spaces its identifiers by a power of two does not pile them into one probe run.
    private func home(of streamID: Int32) -> Int {
        let number = UInt64(UInt32(bitPattern: streamID) >> 1)
        return Int(truncatingIfNeeded: (number &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }
}
