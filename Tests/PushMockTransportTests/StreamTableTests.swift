import PushMockTestSupport
import PushMockTransport
import Testing

/// The per-stream table must behave exactly like the dictionary it replaced, whatever order
/// streams open and close in: every lookup after every insert and removal is checked against
/// a `Dictionary` model.
@Suite("Stream table: per-stream state by stream identifier")
struct StreamTableTests {
    /// How identifiers are drawn: a client's (odd, rising, closing in any order), identifiers
    /// spaced by a power of two (all would share a home slot under plain masking), and any
    /// positive identifier.
    enum Pattern: String, CaseIterable, CustomTestStringConvertible {
        case rising, spaced, random
        var testDescription: String { rawValue }
    }

    @Test("matches a dictionary through opens, lookups and closes", arguments: Pattern.allCases)
    func matchesDictionary(pattern: Pattern) {
        var random = SeededGenerator(seed: 42)
        var table = StreamTable<String>()
        var model: [Int32: String] = [:]
        var nextRising: Int32 = 1
        for step in 0..<20_000 {
            let open = model.count < 300 && (model.isEmpty || random.below(100) < 55)
            if open {
                let id: Int32
                switch pattern {
                case .rising:
                    id = nextRising
                    nextRising += 2
                case .spaced:
                    id = Int32(1 + 1024 * random.below(2000))
                case .random:
                    id = Int32(1 + random.below(Int(Int32.max - 1)))
                }
                table[id] = "v\(step)"
                model[id] = "v\(step)"
            } else {
                let keys = Array(model.keys)
                let id = keys[random.below(keys.count)]
                #expect(table.removeValue(forKey: id) == model.removeValue(forKey: id))
            }
            if step % 97 == 0 {
                for (id, value) in model { #expect(table[id] == value) }
                #expect(table[0] == nil)
                #expect(table[-1] == nil)
            }
            #expect(table.count == model.count)
        }
        for (id, value) in model { #expect(table[id] == value) }
        #expect(Set(table.streamIDs) == Set(model.keys))
        #expect(table.allValues.sorted() == model.values.sorted())
        #expect(table.removeValue(forKey: nextRising + 1000) == nil)
        table.removeAll()
        #expect(table.isEmpty)
        for id in model.keys { #expect(table[id] == nil) }
    }

    @Test("assigning replaces, assigning nil removes")
    func assignment() {
        var table = StreamTable<Int>()
        table[1] = 10
        table[1] = 11
        #expect(table[1] == 11)
        #expect(table.count == 1)
        table[1] = nil
        #expect(table[1] == nil)
        #expect(table.isEmpty)
        // Grows past its initial slots and keeps everything.
        for id in stride(from: Int32(1), through: 2001, by: 2) { table[id] = Int(id) }
        #expect(table.count == 1001)
        for id in stride(from: Int32(1), through: 2001, by: 2) { #expect(table[id] == Int(id)) }
    }
}
