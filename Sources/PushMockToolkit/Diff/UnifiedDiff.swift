/// A line diff in the unified format `diff -u` and `git diff` print: hunks of changed lines
/// with a few lines of context, each introduced by `@@ -oldStart,oldCount +newStart,newCount @@`.
///
/// Lines are split on `\n`; a `\r` before it is ignored, and so is a missing final newline, so
/// a file checked out with CRLF line endings does not differ from the same file with LF.
///
/// ```swift
/// let diff = UnifiedDiff(old: goldenText, new: recordedText)
/// print(diff.rendered(oldLabel: "golden", newLabel: "recorded", style: .plain))
/// ```
public struct UnifiedDiff: Sendable, Hashable {
    /// One line of a hunk.
    public struct Line: Sendable, Hashable {
        /// How the line takes part in the change.
        public enum Kind: Sendable, Hashable {
            /// In both texts (shown for context).
            case context
            /// Only in the old text (`-`).
            case removed
            /// Only in the new text (`+`).
            case added
        }

        public var kind: Kind
        /// The line without its terminator.
        public var text: String
    }

    /// A group of nearby changes with their context.
    public struct Hunk: Sendable, Hashable {
        /// 1-based number of the first old line shown (for an empty old side: the line before).
        public var oldStart: Int
        public var oldCount: Int
        /// 1-based number of the first new line shown (for an empty new side: the line before).
        public var newStart: Int
        public var newCount: Int
        public var lines: [Line]

        /// `@@ -oldStart,oldCount +newStart,newCount @@` (a count of 1 is left out, as git does).
        public var header: String {
            func range(_ start: Int, _ count: Int) -> String {
                count == 1 ? "\(start)" : "\(start),\(count)"
            }
            return "@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@"
        }
    }

    /// The hunks, in order; empty when the texts have the same lines.
    public var hunks: [Hunk]

    /// `true` when the texts have the same lines.
    public var isEmpty: Bool { hunks.isEmpty }

    /// Lines removed and added over all hunks.
    public var changeCounts: (removed: Int, added: Int) {
        var removed = 0
        var added = 0
        for line in hunks.lazy.flatMap(\.lines) {
            switch line.kind {
            case .removed: removed += 1
            case .added: added += 1
            case .context: break
            }
        }
        return (removed, added)
    }

    /// Diffs two texts line by line.
    /// - Parameters:
    ///   - old: The text before (for golden files: the file on disk).
    ///   - new: The text after (for golden files: what was recorded now).
    ///   - contextLines: Unchanged lines shown around each change; changes closer than twice
    ///     this share a hunk.
    public init(old: String, new: String, contextLines: Int = 3) {
        self.init(oldLines: Self.lines(of: old), newLines: Self.lines(of: new), contextLines: contextLines)
    }

    /// Diffs two lists of lines (without terminators).
    public init(oldLines: [String], newLines: [String], contextLines: Int = 3) {
        let edits = Self.deletionsFirst(SequenceDiff.edits(from: oldLines, to: newLines))
        hunks = Self.hunks(from: edits, oldLines: oldLines, newLines: newLines, context: max(0, contextLines))
    }

    /// The diff as text: `--- oldLabel` / `+++ newLabel` headers, then the hunks; empty when
    /// there are no changes. Ends with a newline.
    public func rendered(oldLabel: String = "old", newLabel: String = "new", style: TextStyle = .plain) -> String {
        guard !hunks.isEmpty else { return "" }
        var output = style.apply(.fileHeader, to: "--- " + oldLabel) + "\n"
        output += style.apply(.fileHeader, to: "+++ " + newLabel) + "\n"
        for hunk in hunks {
            output += style.apply(.hunkHeader, to: hunk.header) + "\n"
            for line in hunk.lines {
                switch line.kind {
                case .context: output += " " + line.text + "\n"
                case .removed: output += style.apply(.removed, to: "-" + line.text) + "\n"
                case .added: output += style.apply(.added, to: "+" + line.text) + "\n"
                }
            }
        }
        return output
    }

    // MARK: Building

    /// Splits on `\n`, drops one `\r` before each `\n` and the empty piece after a final `\n`.
    static func lines(of text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        // Split on scalars: "\r\n" is one Character in Swift, so a Character split would not
        // see the "\n" of a CRLF file.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.last == "\r" ? String(String.UnicodeScalarView(line.dropLast())) : String(String.UnicodeScalarView(line))
        }
        if text.unicodeScalars.last == "\n" { lines.removeLast() }
        return lines
    }

    /// Within each run of changes, lists all deletions before the insertions, the way people
    /// read a replaced block (the script stays valid: the run's elements keep their order).
    static func deletionsFirst(_ edits: [DiffEdit]) -> [DiffEdit] {
        var result: [DiffEdit] = []
        result.reserveCapacity(edits.count)
        var insertions: [DiffEdit] = []
        for edit in edits {
            switch edit {
            case .equal:
                result.append(contentsOf: insertions)
                insertions.removeAll(keepingCapacity: true)
                result.append(edit)
            case .delete:
                result.append(edit)
            case .insert:
                insertions.append(edit)
            }
        }
        result.append(contentsOf: insertions)
        return result
    }

    private static func hunks(from edits: [DiffEdit], oldLines: [String], newLines: [String], context: Int) -> [Hunk] {
        let changed = edits.indices.filter { !edits[$0].isEqual }
        guard !changed.isEmpty else { return [] }

        // Group change positions whose gap of unchanged edits is small enough to share context.
        var groups: [ClosedRange<Int>] = []
        var start = changed[0]
        var end = changed[0]
        for index in changed.dropFirst() {
            if index - end - 1 <= 2 * context {
                end = index
            } else {
                groups.append(start...end)
                start = index
                end = index
            }
        }
        groups.append(start...end)

        // Old/new line positions before each edit, to number the hunks.
        var oldPosition = Array(repeating: 0, count: edits.count + 1)
        var newPosition = Array(repeating: 0, count: edits.count + 1)
        for (index, edit) in edits.enumerated() {
            oldPosition[index + 1] = oldPosition[index] + (edit.consumesOld ? 1 : 0)
            newPosition[index + 1] = newPosition[index] + (edit.consumesNew ? 1 : 0)
        }

        return groups.map { group in
            let first = max(0, group.lowerBound - context)
            let last = min(edits.count - 1, group.upperBound + context)
            var lines: [Line] = []
            for edit in edits[first...last] {
                switch edit {
                case .equal(let old, _): lines.append(Line(kind: .context, text: oldLines[old]))
                case .delete(let old): lines.append(Line(kind: .removed, text: oldLines[old]))
                case .insert(let new): lines.append(Line(kind: .added, text: newLines[new]))
                }
            }
            let oldCount = oldPosition[last + 1] - oldPosition[first]
            let newCount = newPosition[last + 1] - newPosition[first]
            // Unified diff numbers an empty side by the line before it.
            return Hunk(
                oldStart: oldCount == 0 ? oldPosition[first] : oldPosition[first] + 1,
                oldCount: oldCount,
                newStart: newCount == 0 ? newPosition[first] : newPosition[first] + 1,
                newCount: newCount,
                lines: lines
            )
        }
    }
}

extension DiffEdit {
    var consumesOld: Bool {
        if case .insert = self { return false }
        return true
    }

    var consumesNew: Bool {
        if case .delete = self { return false }
        return true
    }
}
