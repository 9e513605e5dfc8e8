public import PushMockJSON

/// Structural differences between two JSON documents, named by path — for golden-file
/// mismatches and for "nearest miss" explanations in assertion failures.
///
/// * Objects are compared member by member (by name; for duplicate names the last one counts,
///   as in ``JSONObject``). Member order never matters.
/// * Values compare with ``JSONValue``'s equality (`1 == 1.0`).
/// * Arrays are aligned like lines in a text diff (longest common subsequence), so inserting one
///   element reports one addition rather than a change at every later index. An element removed
///   in one place and added unchanged in another is reported as moved. Remaining removals and
///   additions between the same unchanged elements are paired by similarity (order kept) and
///   compared inside, so a changed element shows the exact fields that changed.
///
/// ```swift
/// let differences = JSONDiff.differences(expected: golden, actual: recorded)
/// print(JSONDiff.rendered(differences, expectedLabel: "golden", actualLabel: "recorded"))
/// ```
public enum JSONDiff {
    /// How array elements are matched.
    public enum ArrayMatching: Sendable, Hashable {
        /// Longest-common-subsequence alignment with move detection (the default).
        case aligned
        /// Element `i` against element `i`, then additions or removals at the end.
        case byIndex
    }

    /// Every difference, in document order (expected side first).
    public static func differences(
        expected: JSONValue,
        actual: JSONValue,
        arrays: ArrayMatching = .aligned
    ) -> [JSONDifference] {
        var collector = Collector(arrays: arrays)
        collector.compare(expected, actual, at: [])
        return collector.differences
    }

    /// A readable report: a title line, then one line per difference (at most `limit`, then a
    /// count of the rest). Empty when there are no differences.
    /// - Parameters:
    ///   - expectedLabel: What the expected side is called (`golden`, `expected`).
    ///   - actualLabel: What the actual side is called (`recorded`, `actual`).
    public static func rendered(
        _ differences: [JSONDifference],
        expectedLabel: String = "expected",
        actualLabel: String = "actual",
        style: TextStyle = .plain,
        limit: Int = 50,
        valueLimit: Int = 120
    ) -> String {
        guard !differences.isEmpty else { return "" }
        let noun = differences.count == 1 ? "difference" : "differences"
        var output = "\(differences.count) \(noun) (~ \(expectedLabel) ≠ \(actualLabel), - only \(expectedLabel), + only \(actualLabel)):\n"
        for difference in differences.prefix(max(0, limit)) {
            output += "  " + difference.rendered(style: style, valueLimit: valueLimit) + "\n"
        }
        if differences.count > limit {
            output += style.apply(.note, to: "  … and \(differences.count - limit) more") + "\n"
        }
        return output
    }

    private struct Collector {
        let arrays: ArrayMatching
        var differences: [JSONDifference] = []

        mutating func compare(_ expected: JSONValue, _ actual: JSONValue, at steps: [JSONDifference.Step]) {
            guard expected != actual else { return }
            switch (expected, actual) {
            case (.object(let expectedObject), .object(let actualObject)):
                compareObjects(expectedObject, actualObject, at: steps)
            case (.array(let expectedElements), .array(let actualElements)):
                switch arrays {
                case .aligned: compareAligned(expectedElements, actualElements, at: steps)
                case .byIndex: compareByIndex(expectedElements, actualElements, at: steps)
                }
            default:
                differences.append(JSONDifference(steps: steps, kind: .changed(expected: expected, actual: actual)))
            }
        }

        private mutating func compareObjects(_ expected: JSONObject, _ actual: JSONObject, at steps: [JSONDifference.Step]) {
            var seen = Set<String>()
            for name in expected.keys where seen.insert(name).inserted {
                let path = steps + [.key(name)]
                if let actualValue = actual[name] {
                    compare(expected[name]!, actualValue, at: path)
                } else {
                    differences.append(JSONDifference(steps: path, kind: .removed(expected[name]!)))
                }
            }
            for name in actual.keys where seen.insert(name).inserted {
                differences.append(JSONDifference(steps: steps + [.key(name)], kind: .added(actual[name]!)))
            }
        }

        private mutating func compareByIndex(_ expected: [JSONValue], _ actual: [JSONValue], at steps: [JSONDifference.Step]) {
            for index in 0..<max(expected.count, actual.count) {
                if index < expected.count, index < actual.count {
                    compare(expected[index], actual[index], at: steps + [.index(expected: index, actual: index)])
                } else if index < expected.count {
                    differences.append(
                        JSONDifference(steps: steps + [.index(expected: index, actual: nil)], kind: .removed(expected[index])))
                } else {
                    differences.append(JSONDifference(steps: steps + [.index(expected: nil, actual: index)], kind: .added(actual[index])))
                }
            }
        }

        private mutating func compareAligned(_ expected: [JSONValue], _ actual: [JSONValue], at steps: [JSONDifference.Step]) {
            let edits = SequenceDiff.edits(from: expected, to: actual)
            let removed = edits.compactMap { edit -> Int? in
                if case .delete(let old) = edit { return old }
                return nil
            }
            let added = edits.compactMap { edit -> Int? in
                if case .insert(let new) = edit { return new }
                return nil
            }

            // Moves: an unchanged element that left one place and appeared in another.
            var movedTo: [Int: Int] = [:]
            var movedFrom: [Int: Int] = [:]
            for old in removed {
                if let new = added.first(where: { movedFrom[$0] == nil && expected[old] == actual[$0] }) {
                    movedTo[old] = new
                    movedFrom[new] = old
                }
            }

            // Walk the script gap by gap; within a gap, pair the elements that look alike.
            var gapRemoved: [Int] = []
            var gapAdded: [Int] = []
            func flushGap(_ collector: inout Collector) {
                for step in Self.alignGap(removed: gapRemoved, added: gapAdded, expected: expected, actual: actual) {
                    switch step {
                    case .pair(let old, let new):
                        collector.compare(expected[old], actual[new], at: steps + [.index(expected: old, actual: new)])
                    case .removed(let old):
                        collector.differences.append(
                            JSONDifference(steps: steps + [.index(expected: old, actual: nil)], kind: .removed(expected[old])))
                    case .added(let new):
                        collector.differences.append(
                            JSONDifference(steps: steps + [.index(expected: nil, actual: new)], kind: .added(actual[new])))
                    }
                }
                gapRemoved.removeAll()
                gapAdded.removeAll()
            }
            for edit in edits {
                switch edit {
                case .equal:
                    flushGap(&self)
                case .delete(let old):
                    if let new = movedTo[old] {
                        differences.append(
                            JSONDifference(steps: steps + [.index(expected: old, actual: new)], kind: .moved(expected[old])))
                    } else {
                        gapRemoved.append(old)
                    }
                case .insert(let new):
                    if movedFrom[new] == nil { gapAdded.append(new) }
                }
            }
            flushGap(&self)
        }

        enum GapStep {
            case pair(old: Int, new: Int)
            case removed(old: Int)
            case added(new: Int)
        }

        /// Pairs removed and added elements of one gap, keeping their order, so that the sum of
        /// the pairs' similarity is highest; unpaired elements are plain removals and additions.
        /// (A changed notification among unrelated insertions is compared with its old self,
        /// not with whatever happens to sit at the same position.)
        static func alignGap(removed: [Int], added: [Int], expected: [JSONValue], actual: [JSONValue]) -> [GapStep] {
            let rows = removed.count
            let columns = added.count
            guard rows > 0, columns > 0 else {
                return removed.map { GapStep.removed(old: $0) } + added.map { GapStep.added(new: $0) }
            }
            guard rows * columns <= 40_000 else {
                // Too large to align carefully: pair by position.
                let pairs = min(rows, columns)
                let paired = (0..<pairs).map { GapStep.pair(old: removed[$0], new: added[$0]) }
                return paired + removed.dropFirst(pairs).map { GapStep.removed(old: $0) }
                    + added.dropFirst(pairs).map { GapStep.added(new: $0) }
            }
            var similarity = Array(repeating: Array(repeating: 0.0, count: columns), count: rows)
            for row in 0..<rows {
                for column in 0..<columns {
                    similarity[row][column] = Self.similarity(expected[removed[row]], actual[added[column]])
                }
            }
            var score = Array(repeating: Array(repeating: 0.0, count: columns + 1), count: rows + 1)
            for row in 1...rows {
                for column in 1...columns {
                    var best = max(score[row - 1][column], score[row][column - 1])
                    let pairSimilarity = similarity[row - 1][column - 1]
                    if pairSimilarity > 0 { best = max(best, score[row - 1][column - 1] + pairSimilarity) }
                    score[row][column] = best
                }
            }
            var steps: [GapStep] = []
            var row = rows
            var column = columns
            while row > 0 || column > 0 {
                if row > 0, column > 0, similarity[row - 1][column - 1] > 0,
                    score[row][column] == score[row - 1][column - 1] + similarity[row - 1][column - 1]
                {
                    steps.append(.pair(old: removed[row - 1], new: added[column - 1]))
                    row -= 1
                    column -= 1
                } else if column > 0, row == 0 || score[row][column] == score[row][column - 1] {
                    steps.append(.added(new: added[column - 1]))
                    column -= 1
                } else {
                    steps.append(.removed(old: removed[row - 1]))
                    row -= 1
                }
            }
            return steps.reversed()
        }

        /// 0 (nothing in common) to 1 (equal): for objects the share of members with equal
        /// values; for arrays the share of equal elements at the same index; a little for two
        /// scalars of the same kind, so that a lone changed value still pairs with its old self.
        static func similarity(_ left: JSONValue, _ right: JSONValue) -> Double {
            if left == right { return 1 }
            switch (left, right) {
            case (.object(let leftObject), .object(let rightObject)):
                let names = Set(leftObject.keys).union(rightObject.keys)
                guard !names.isEmpty else { return 0 }
                let equal = names.filter { leftObject[$0] != nil && leftObject[$0] == rightObject[$0] }.count
                return Double(equal) / Double(names.count)
            case (.array(let leftElements), .array(let rightElements)):
                let length = max(leftElements.count, rightElements.count)
                guard length > 0 else { return 0 }
                let equal = zip(leftElements, rightElements).filter { $0 == $1 }.count
                return Double(equal) / Double(length)
            default:
                return left.kind == right.kind ? 0.01 : 0
            }
        }
    }
}
