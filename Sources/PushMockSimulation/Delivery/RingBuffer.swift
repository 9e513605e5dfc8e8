/// A first-in, first-out sequence that forgets from the front: a device's history and
/// timeline (``SimulatedDevice``).
///
/// Why not `Deque` (swift-collections), which this replaced: its `append(_:)` borrows the new
/// element, so each delivery copied its history entry and timeline event into the deques and
/// then destroyed the originals, two passes over their references (≈ 380 of the simulator's
/// ≈ 1,700 instructions per delivery; `Benchmarks/README.md`, twelfth session). Here an
/// append moves the element into its slot.
///
/// The slots are an `Array` of optionals (copy on write, and `Sendable` when the elements
/// are), used as a circle: `nil` outside the live range, which starts at `head` and wraps
/// around the end.
struct RingBuffer<Element> {
    /// Every slot; `count` of them from `head` on (wrapping) hold the elements.
    private var slots: [Element?] = []
    /// The slot of the first element.
    private var head = 0
    private(set) var count = 0
    /// How many elements the ring usually holds at most (its owner trims it there): growing
    /// stops at that capacity instead of doubling past it (a device's timeline trims at 1,251
    /// events, which doubling would have given 2,048 slots). Beyond it, the ring doubles.
    private let usualMaximumCount: Int

    init(usualMaximumCount: Int = .max) {
        self.usualMaximumCount = usualMaximumCount
    }

    /// How many elements fit before the ring grows.
    var capacity: Int { slots.count }

    /// The slot of the element at `index` (0 ≤ `index` ≤ `count`, and `index` < capacity).
    @inline(__always)
    private func slot(_ index: Int) -> Int {
        let slot = head &+ index
        return slot >= slots.count ? slot &- slots.count : slot
    }

    /// Reads the first and the last byte of the slot the next `append(_:)` fills, and the
    /// slots' header; returns the bytes combined, so that the reads stay. Appending checks the
    /// header (copy on write) and writes the slot, and a slot last written a thousand
    /// deliveries ago is not in the cache (a write to it fetches its lines too):
    /// `DeliverySimulator.receive(_:now:)` reads every device's next slots before it applies
    /// any delivery, so that those misses overlap.
    func warmNextSlot() -> UInt8 {
        guard count < slots.count else { return 0 }
        let slot = slot(count)
        return slots.withUnsafeBufferPointer { slots in
            let bytes = UnsafeRawPointer(slots.baseAddress! + slot)
            return bytes.load(as: UInt8.self) ^ bytes.load(fromByteOffset: MemoryLayout<Element?>.size - 1, as: UInt8.self)
        }
    }

    /// Adds `element` at the end, moving it into its slot.
    mutating func append(_ element: consuming Element) {
        if count == slots.count { grow() }
        let slot = slot(count)
        var incoming: Element? = consume element
        slots.withUnsafeMutableBufferPointer { slots in
            // The slot is outside the live range, so it holds `nil`: initialised over, not
            // assigned to. Assigning destroyed its `nil` first, through the optional's generic
            // value witnesses (≈ 100 instructions, on every append).
            (slots.baseAddress! + slot).initialize(to: incoming.take())
        }
        count &+= 1
    }

    /// Forgets the first `n` elements (moves none of the others).
    mutating func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count, "cannot remove more elements than the ring holds")
        guard n > 0 else { return }
        for index in 0..<n {
            // Taken out and destroyed as an element: setting the slot to `nil` destroyed the
            // old value through the optional's generic value witnesses.
            guard let element = slots[slot(index)].take() else { continue }
            _ = consume element
        }
        head = slot(n)
        count &-= n
    }

    /// Forgets every element `shouldBeRemoved` picks; the others keep their order. (Not
    /// `rethrows`: a throw halfway would leave moved-out slots inside the live range.)
    mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        var kept = 0
        for index in 0..<count {
            let from = slot(index)
            if shouldBeRemoved(slots[from]!) {
                slots[from] = nil
                continue
            }
            if kept != index { slots[slot(kept)] = slots[from].take() }
            kept &+= 1
        }
        count = kept
    }

    /// Doubles the slots (at least 8; up to the usual maximum while below it), moving the
    /// elements to the front in order.
    private mutating func grow() {
        let doubled = Swift.max(8, slots.count * 2)
        let capacity = count < usualMaximumCount ? Swift.min(doubled, usualMaximumCount) : doubled
        var grown: [Element?] = []
        grown.reserveCapacity(capacity)
        for index in 0..<count { grown.append(slots[slot(index)].take()) }
        grown.append(contentsOf: repeatElement(nil, count: capacity - count))
        slots = grown
        head = 0
    }
}

extension RingBuffer: RandomAccessCollection, MutableCollection {
    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "index out of range")
            return slots[slot(position)]!
        }
        _modify {
            precondition(position >= 0 && position < count, "index out of range")
            yield &slots[slot(position)]!
        }
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
