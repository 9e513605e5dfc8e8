import PushMockToolkit
import Testing

@Suite("Diff: shortest edit scripts")
struct DiffSequenceTests {
    @Test("a small example")
    func example() {
        let edits = SequenceDiff.edits(from: ["a", "b", "c"], to: ["a", "c", "d"])
        #expect(edits == [.equal(old: 0, new: 0), .delete(old: 1), .equal(old: 2, new: 1), .insert(new: 2)])
    }

    @Test(
        "edge cases",
        arguments: [
            ("", ""), ("", "abc"), ("abc", ""), ("abc", "abc"), ("a", "b"), ("ab", "ba"),
            ("abcabba", "cbabac"), ("xaxbxc", "abc"), ("aaaa", "aa"), ("abcdef", "fedcba"),
        ]
    )
    func edgeCases(old: String, new: String) {
        let oldElements = Array(old)
        let newElements = Array(new)
        let edits = SequenceDiff.edits(from: oldElements, to: newElements)
        #expect(Self.apply(edits, old: oldElements, new: newElements) == newElements)
        #expect(Self.cost(edits) == Self.minimumCost(oldElements, newElements))
    }

    /// Random inputs from a small alphabet (many repeats, the hard case for diff algorithms):
    /// every script must rebuild the new sequence and be as short as the quadratic optimum.
    @Test("random sequences: valid and minimal", arguments: [1, 2, 3, 4])
    func randomSequences(seed: UInt64) {
        var random = SplitMix(seed: seed)
        for _ in 0..<300 {
            let alphabet = Int(random.next() % 4) + 2
            let old = (0..<Int(random.next() % 30)).map { _ in Int(random.next() % UInt64(alphabet)) }
            var new = old
            for _ in 0..<Int(random.next() % 8) {
                let action = random.next() % 3
                if action == 0 || new.isEmpty {
                    new.insert(Int(random.next() % UInt64(alphabet)), at: Int(random.next() % UInt64(new.count + 1)))
                } else if action == 1 {
                    new.remove(at: Int(random.next() % UInt64(new.count)))
                } else {
                    new[Int(random.next() % UInt64(new.count))] = Int(random.next() % UInt64(alphabet))
                }
            }
            if random.next() % 5 == 0 {
                new = (0..<Int(random.next() % 30)).map { _ in Int(random.next() % UInt64(alphabet)) }
            }
            let edits = SequenceDiff.edits(from: old, to: new)
            #expect(Self.apply(edits, old: old, new: new) == new, "old \(old) new \(new)")
            #expect(Self.cost(edits) == Self.minimumCost(old, new), "old \(old) new \(new)")
        }
    }

    @Test("large unrelated inputs finish quickly in linear space")
    func largeInputs() {
        let old = (0..<6000).map { "old line \($0)" }
        let new = (0..<6000).map { "new line \($0)" }
        let edits = SequenceDiff.edits(from: old, to: new)
        #expect(Self.cost(edits) == 12000)
        #expect(Self.apply(edits, old: old, new: new) == new)
    }

    // MARK: Helpers

    /// Rebuilds the new sequence from the script, checking each step consumes elements in order.
    static func apply<Element: Equatable>(_ edits: [DiffEdit], old: [Element], new: [Element]) -> [Element]? {
        var result: [Element] = []
        var oldPosition = 0
        var newPosition = 0
        for edit in edits {
            switch edit {
            case .equal(let oldIndex, let newIndex):
                guard oldIndex == oldPosition, newIndex == newPosition, old[oldIndex] == new[newIndex] else { return nil }
                result.append(old[oldIndex])
                oldPosition += 1
                newPosition += 1
            case .delete(let oldIndex):
                guard oldIndex == oldPosition else { return nil }
                oldPosition += 1
            case .insert(let newIndex):
                guard newIndex == newPosition else { return nil }
                result.append(new[newIndex])
                newPosition += 1
            }
        }
        guard oldPosition == old.count, newPosition == new.count else { return nil }
        return result
    }

    static func cost(_ edits: [DiffEdit]) -> Int {
        edits.filter { !$0.isEqual }.count
    }

    /// N + M − 2·LCS by dynamic programming.
    static func minimumCost<Element: Equatable>(_ old: [Element], _ new: [Element]) -> Int {
        guard !old.isEmpty, !new.isEmpty else { return old.count + new.count }
        var previous = Array(repeating: 0, count: new.count + 1)
        for oldIndex in 1...old.count {
            var current = Array(repeating: 0, count: new.count + 1)
            for newIndex in 1...new.count {
                current[newIndex] =
                    old[oldIndex - 1] == new[newIndex - 1]
                    ? previous[newIndex - 1] + 1 : max(previous[newIndex], current[newIndex - 1])
            }
            previous = current
        }
        return old.count + new.count - 2 * previous[new.count]
    }
}

/// A small deterministic generator (SplitMix64) so random tests repeat exactly.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
