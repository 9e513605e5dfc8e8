/// The ``RecordingStore``'s storage: a first-in first-out ring of stored exchanges with O(1)
/// access by position, amortised O(1) append at the end and O(1) removal from the front.
///
/// It grows by doubling up to whatever the store lets it hold, so a store with a large record
/// capacity costs nothing up front (time to ready, RSS of an idle gateway).
struct ExchangeRing {
    /// Physical storage; `nil` outside the live range.
    private var slots: [StoredExchange?] = []
    /// Physical index of the oldest entry.
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The entry at logical `position` (0 = oldest).
    subscript(position: Int) -> StoredExchange {
        slots[physical(position)]!
    }

    var last: StoredExchange? {
        isEmpty ? nil : self[count - 1]
    }

    mutating func append(_ entry: consuming StoredExchange) {
        if count == slots.count { grow() }
        slots[physical(count)] = entry
        count += 1
    }

    /// Replaces the entry at logical `position` and returns the old one.
    mutating func replace(at position: Int, with entry: StoredExchange) -> StoredExchange {
        let index = physical(position)
        let old = slots[index]!
        slots[index] = entry
        return old
    }

    /// Removes and returns the oldest entry. Precondition: not empty.
    mutating func removeFirst() -> StoredExchange {
        let entry = slots[head].take()!
        head += 1
        if head == slots.count { head = 0 }
        count -= 1
        return entry
    }

    /// Removes every entry and gives the memory back.
    mutating func removeAll() {
        slots = []
        head = 0
        count = 0
    }

    /// Every entry, oldest first.
    var ordered: [StoredExchange] {
        (0..<count).map { self[$0] }
    }

    /// First position whose sequence number is ≥ `sequence` (binary search: sequences ascend).
    func lowerBound(_ sequence: UInt64) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].sequence < sequence {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    private func physical(_ position: Int) -> Int {
        let index = head + position
        return index < slots.count ? index : index - slots.count
    }

    private mutating func grow() {
        var grown: [StoredExchange?] = []
        grown.reserveCapacity(Swift.max(16, slots.count * 2))
        for position in 0..<count {
            grown.append(slots[physical(position)].take())
        }
        while grown.count < grown.capacity {
            grown.append(nil)
        }
        slots = grown
        head = 0
    }
}
