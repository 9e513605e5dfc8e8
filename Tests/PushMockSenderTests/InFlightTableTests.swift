import PushMockTestSupport
import Testing

@testable import PushMockSender

/// The connection driver's table of requests in flight, against a dictionary model.
@Suite("In-flight table")
struct InFlightTableTests {
    @Test("random inserts, updates and removals agree with a dictionary; stale keys find nothing", arguments: [1, 7, 42] as [UInt64])
    func agreesWithDictionary(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var table = InFlightTable<Int>()
        var model: [UInt64: Int] = [:]
        var removed: [UInt64] = []
        for step in 0..<20_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4 where model.count < 300:
                let key = table.insert(step)
                #expect(model[key] == nil, "a live key was handed out twice")
                model[key] = step
            case 4..<8:
                guard let key = model.keys.randomElement(using: &random) else { continue }
                #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
                removed.append(key)
            case 8:
                guard let key = model.keys.randomElement(using: &random) else { continue }
                table.update(key) { $0 = -step }
                model[key] = -step
            default:
                // A key removed before, whose slot may hold another request by now.
                guard let key = removed.randomElement(using: &random) else { continue }
                #expect(table[key] == nil)
                #expect(table.removeValue(forKey: key) == nil)
                table.update(key) { $0 = 0 }
            }
            #expect(table.count == model.count)
        }
        for (key, value) in model {
            #expect(table[key] == value)
        }
        let negative = Set(table.keys { $0 < 0 })
        #expect(negative == Set(model.filter { $0.value < 0 }.keys))
    }

    @Test("a freed slot is reused under a new key")
    func slotReuse() {
        var table = InFlightTable<String>()
        let first = table.insert("a")
        #expect(table.removeValue(forKey: first) == "a")
        let second = table.insert("b")
        #expect(second != first)
        #expect(second & 0xFFFF_FFFF == first & 0xFFFF_FFFF)
        #expect(table[first] == nil)
        #expect(table[second] == "b")
        #expect(table.isEmpty == false)
        #expect(table.removeValue(forKey: second) == "b")
        #expect(table.isEmpty)
    }
}
