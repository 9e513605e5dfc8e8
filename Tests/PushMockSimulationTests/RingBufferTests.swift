import PushMockCore
import PushMockTestSupport
import Testing

@testable import PushMockSimulation

/// A device's history and timeline ring must behave exactly like an array that appends at the
/// end and forgets from the front, through every wrap-around and growth, and stay a value.
struct RingBufferTests {
    /// A reference in each element, so that a lost, duplicated or early-destroyed element
    /// shows up in the identity checks and in the sanitizer runs.
    private final class Box: Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    private static func values(_ ring: RingBuffer<Box>) -> [Int] { ring.map(\.value) }

    @Test(
        "random appends, prefix removals, filtered removals and in-place changes agree with an array", arguments: [1, 2, 3, 4] as [UInt64])
    func agreesWithArray(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var ring = RingBuffer<Box>()
        var model: [Int] = []
        var next = 0
        for _ in 0..<20_000 {
            switch random.below(12) {
            case 0..<6:
                ring.append(Box(next))
                model.append(next)
                next += 1
            case 6..<8:
                let n = random.below(model.count + 1)
                ring.removeFirst(n)
                model.removeFirst(n)
            case 8:
                let modulus = 2 + random.below(5)
                ring.removeAll { $0.value % modulus == 0 }
                model.removeAll { $0 % modulus == 0 }
            case 9 where !model.isEmpty:
                let index = random.below(model.count)
                ring[index] = Box(-ring[index].value)
                model[index] = -model[index]
            case 10:
                #expect(ring.lastIndex { $0.value % 3 == 0 } == model.lastIndex { $0 % 3 == 0 })
            default:
                // What the simulator reads ahead of a delivery: it must change nothing.
                _ = ring.warmNextSlot()
                #expect(ring.suffix(3).map(\.value) == Array(model.suffix(3)))
            }
            #expect(ring.count == model.count)
        }
        #expect(Self.values(ring) == model)
    }

    @Test("every element ever appended is released once it is removed, through wrap-arounds and growth", arguments: [1, 2] as [UInt64])
    func releasesEverything(seed: UInt64) {
        // Appending initialises a free slot without destroying what it held (it must hold
        // nothing): an element left behind in a free slot would be leaked here, or released
        // twice under the sanitizer.
        var random = SeededGenerator(seed: seed)
        var watched: [Weak] = []
        var ring = RingBuffer<Box>(usualMaximumCount: 16)
        for step in 0..<5_000 {
            switch random.below(6) {
            case 0..<3:
                let box = Box(step)
                watched.append(Weak(box))
                ring.append(box)
            case 3, 4:
                ring.removeFirst(random.below(ring.count + 1))
            default:
                ring.removeAll { _ in random.below(3) == 0 }
            }
            let alive = watched.filter { $0.box != nil }.count
            #expect(alive == ring.count)
        }
        ring.removeFirst(ring.count)
        #expect(watched.allSatisfy { $0.box == nil })
    }

    private struct Weak {
        weak var box: Box?
        init(_ box: Box) { self.box = box }
    }

    @Test("the live range wraps around the end of the slots and survives growth in order")
    func wrapsAndGrows() {
        var ring = RingBuffer<Box>()
        for value in 0..<8 { ring.append(Box(value)) }
        ring.removeFirst(5)
        for value in 8..<13 { ring.append(Box(value)) }  // wraps: slots 0–4 hold 8–12
        #expect(Self.values(ring) == Array(5..<13))
        for value in 13..<40 { ring.append(Box(value)) }  // grows twice from a wrapped state
        #expect(Self.values(ring) == Array(5..<40))
        ring.removeFirst(35)
        #expect(ring.isEmpty)
        ring.append(Box(40))
        #expect(Self.values(ring) == [40])
    }

    @Test("growth stops at the usual maximum while below it, and doubles beyond it", arguments: [1, 8, 11, 251, 1251])
    func growthStopsAtUsualMaximum(usualMaximum: Int) {
        var ring = RingBuffer<Box>(usualMaximumCount: usualMaximum)
        for value in 0..<usualMaximum { ring.append(Box(value)) }
        #expect(ring.capacity == usualMaximum)
        ring.append(Box(usualMaximum))
        #expect(ring.capacity == max(8, 2 * usualMaximum))
        #expect(Self.values(ring) == Array(0...usualMaximum))
        // Trimmed back and refilled, it keeps its slots.
        ring.removeFirst(ring.count - 1)
        for value in 0..<usualMaximum { ring.append(Box(value)) }
        #expect(ring.capacity == max(8, 2 * usualMaximum))
    }

    @Test("a device's rings stop growing at what trimming lets them reach")
    func deviceRingsAreSizedToTheirLimits() {
        let limits = DeliveryLimits(notificationsPerDevice: 20, timelineEventsPerDevice: 100)
        var device = SimulatedDevice(
            address: DeviceAddress(service: .apns, token: String(repeating: "a", count: 64)), policy: .apns, limits: limits,
            now: Timestamp(secondsSince1970: 1_800_000_000))
        for index in 0..<500 {
            var notification = SimulatedNotification(
                id: "n\(index)", app: "app", sentAt: Timestamp(secondsSince1970: 1_800_000_000), priority: .high,
                expiry: .immediately, kind: "alert", payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
            notification.sequence = UInt64(index + 1)
            device.receive(notification, now: Timestamp(secondsSince1970: 1_800_000_000 + Int64(index)))
        }
        #expect(device.notifications.count <= 25)
        #expect(device.timeline.count <= 125)
        #expect(device.ringCapacities == (history: 26, timeline: 126))
    }

    @Test("a copy is independent of the original (copy on write)")
    func valueSemantics() {
        var original = RingBuffer<Box>()
        for value in 0..<10 { original.append(Box(value)) }
        var copy = original
        copy.removeFirst(3)
        copy.append(Box(10))
        copy[0] = Box(-1)
        original.removeAll { $0.value.isMultiple(of: 2) }
        #expect(Self.values(original) == [1, 3, 5, 7, 9])
        #expect(Self.values(copy) == [-1, 4, 5, 6, 7, 8, 9, 10])
    }

    @Test("removing moves the survivors and releases exactly the removed elements")
    func releasesRemovedElements() {
        weak var removed: Box?
        weak var kept: Box?
        var ring = RingBuffer<Box>()
        do {
            let first = Box(1)
            let second = Box(2)
            removed = first
            kept = second
            ring.append(first)
            ring.append(second)
        }
        ring.removeFirst(1)
        #expect(removed == nil)
        #expect(kept?.value == 2)
        ring.removeAll { _ in true }
        #expect(kept == nil)
        _ = ring.warmNextSlot()
        #expect(ring.isEmpty)
    }
}
