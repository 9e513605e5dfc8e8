/// Shortest edit scripts between two sequences: Myers' O((N+M)·D) algorithm in its
/// linear-space form (find a point on an optimal path from both ends at once, split there,
/// recurse), so two unrelated 10 000-line files cost memory proportional to their length, not
/// to the square of the number of differences.
///
/// The script is minimal (fewest deletions plus insertions). Among equally short scripts it
/// prefers to keep earlier elements of the old sequence matched, which reads naturally in
/// line diffs.
///
/// ```swift
/// let edits = SequenceDiff.edits(from: ["a", "b", "c"], to: ["a", "c", "d"])
/// // [.equal(old: 0, new: 0), .delete(old: 1), .equal(old: 2, new: 1), .insert(new: 2)]
/// ```
public enum SequenceDiff {
    /// The shortest edit script turning `old` into `new`.
    public static func edits<Element: Hashable>(from old: [Element], to new: [Element]) -> [DiffEdit] {
        // Compare small integers instead of elements: each distinct element gets a number once,
        // so long lines are hashed once rather than compared again and again.
        var numbers: [Element: Int] = [:]
        numbers.reserveCapacity(old.count + new.count)
        func number(_ element: Element) -> Int {
            if let existing = numbers[element] { return existing }
            let assigned = numbers.count
            numbers[element] = assigned
            return assigned
        }
        let oldNumbers = old.map(number)
        let newNumbers = new.map(number)
        return edits(oldCount: old.count, newCount: new.count) { oldNumbers[$0] == newNumbers[$1] }
    }

    /// The shortest edit script between sequences known only through their lengths and an
    /// equality test on positions (`areEqual(oldIndex, newIndex)`), for elements that are not
    /// `Hashable` or should be compared by a custom rule.
    public static func edits(oldCount: Int, newCount: Int, areEqual: (Int, Int) -> Bool) -> [DiffEdit] {
        withoutActuallyEscaping(areEqual) { areEqual in
            var search = MyersSearch(areEqual: areEqual, capacity: oldCount + newCount)
            search.compare(old: 0..<oldCount, new: 0..<newCount)
            return search.edits
        }
    }
}

/// The state of one diff: the equality test, two reusable diagonal tables and the script built
/// so far (emitted strictly in order, because each region is finished before the next starts).
private struct MyersSearch {
    let areEqual: (Int, Int) -> Bool
    /// Furthest x reached on each diagonal by the forward search (-1: unreachable).
    var forward: [Int]
    /// Furthest distance from the end reached on each diagonal by the backward search.
    var backward: [Int]
    var edits: [DiffEdit] = []

    init(areEqual: @escaping (Int, Int) -> Bool, capacity: Int) {
        self.areEqual = areEqual
        // 2·⌈(N+M)/2⌉ + 3 diagonals at most, for the largest region (the whole input).
        let size = capacity + 5
        forward = Array(repeating: -1, count: size)
        backward = Array(repeating: -1, count: size)
        edits.reserveCapacity(capacity)
    }

    mutating func compare(old: Range<Int>, new: Range<Int>) {
        var oldLow = old.lowerBound
        var oldHigh = old.upperBound
        var newLow = new.lowerBound
        var newHigh = new.upperBound
        // Common prefix and suffix cost nothing and make most real diffs trivial.
        while oldLow < oldHigh, newLow < newHigh, areEqual(oldLow, newLow) {
            edits.append(.equal(old: oldLow, new: newLow))
            oldLow += 1
            newLow += 1
        }
        var suffixLength = 0
        while oldLow < oldHigh, newLow < newHigh, areEqual(oldHigh - 1, newHigh - 1) {
            oldHigh -= 1
            newHigh -= 1
            suffixLength += 1
        }

        if oldLow == oldHigh {
            for index in newLow..<newHigh { edits.append(.insert(new: index)) }
        } else if newLow == newHigh {
            for index in oldLow..<oldHigh { edits.append(.delete(old: index)) }
        } else if let middle = findSplit(old: oldLow..<oldHigh, new: newLow..<newHigh),
            middle != (oldLow, newLow), middle != (oldHigh, newHigh)
        {
            compare(old: oldLow..<middle.old, new: newLow..<middle.new)
            compare(old: middle.old..<oldHigh, new: middle.new..<newHigh)
        } else {
            // Not reachable for a correct split (kept so a mistake degrades the diff, never
            // loops): replace the whole region.
            for index in oldLow..<oldHigh { edits.append(.delete(old: index)) }
            for index in newLow..<newHigh { edits.append(.insert(new: index)) }
        }

        for offset in 0..<suffixLength {
            edits.append(.equal(old: oldHigh + offset, new: newHigh + offset))
        }
    }

    /// A point on a shortest path through the region: where the furthest-reaching forward path
    /// meets the furthest-reaching backward path. Both ranges are non-empty and differ in their
    /// first and last elements.
    private mutating func findSplit(old: Range<Int>, new: Range<Int>) -> (old: Int, new: Int)? {
        let width = old.count
        let height = new.count
        let delta = width - height
        let deltaIsOdd = delta & 1 != 0
        let maximumSteps = (width + height + 1) / 2
        let offset = maximumSteps + 1
        // Diagonal k holds points with x - y == k; both tables are indexed by offset + k.
        for index in 0...(2 * maximumSteps + 2) {
            forward[index] = -1
            backward[index] = -1
        }

        for step in 0...maximumSteps {
            // Forward: from the top-left corner.
            for diagonal in stride(from: -step, through: step, by: 2) {
                guard
                    let x = furthest(
                        in: forward, diagonal: diagonal, step: step, offset: offset, width: width, height: height)
                else {
                    forward[offset + diagonal] = -1
                    continue
                }
                var endX = x
                var endY = x - diagonal
                while endX < width, endY < height, areEqual(old.lowerBound + endX, new.lowerBound + endY) {
                    endX += 1
                    endY += 1
                }
                forward[offset + diagonal] = endX
                // An odd delta means the paths can only meet after a forward step.
                let mirrored = delta - diagonal
                if deltaIsOdd, step > 0, abs(mirrored) <= step - 1, backward[offset + mirrored] >= 0,
                    endX + backward[offset + mirrored] >= width
                {
                    return (old.lowerBound + endX, new.lowerBound + endY)
                }
            }
            // Backward: from the bottom-right corner, in reversed coordinates.
            for diagonal in stride(from: -step, through: step, by: 2) {
                guard
                    let x = furthest(
                        in: backward, diagonal: diagonal, step: step, offset: offset, width: width, height: height)
                else {
                    backward[offset + diagonal] = -1
                    continue
                }
                var endX = x
                var endY = x - diagonal
                while endX < width, endY < height,
                    areEqual(old.upperBound - 1 - endX, new.upperBound - 1 - endY)
                {
                    endX += 1
                    endY += 1
                }
                backward[offset + diagonal] = endX
                let mirrored = delta - diagonal
                if !deltaIsOdd, abs(mirrored) <= step, forward[offset + mirrored] >= 0,
                    forward[offset + mirrored] + endX >= width
                {
                    let meetX = forward[offset + mirrored]
                    return (old.lowerBound + meetX, new.lowerBound + meetX - mirrored)
                }
            }
        }
        return nil
    }

    /// The x where a path with `step` edits enters `diagonal` (before following matches):
    /// one step right from diagonal k-1 or one step down from k+1, whichever gets further while
    /// staying inside the grid; `nil` if neither neighbour was reachable.
    private func furthest(in table: [Int], diagonal: Int, step: Int, offset: Int, width: Int, height: Int) -> Int? {
        if step == 0 { return 0 }
        var best: Int?
        if diagonal + 1 <= step - 1, table[offset + diagonal + 1] >= 0 {
            let x = table[offset + diagonal + 1]
            if x - diagonal <= height { best = x }
        }
        if diagonal - 1 >= -(step - 1), table[offset + diagonal - 1] >= 0 {
            let x = table[offset + diagonal - 1] + 1
            if x <= width, x > (best ?? -1) { best = x }
        }
        return best
    }
}
