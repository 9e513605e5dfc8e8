import Foundation
import PushMockToolkit
import Testing

@Suite("Diff: unified text diffs")
struct DiffUnifiedTests {
    static let old = (1...12).map { "line \($0)" }.joined(separator: "\n") + "\n"

    @Test("one changed line with three lines of context")
    func changedLine() {
        let new = Self.old.replacingOccurrences(of: "line 6\n", with: "line six\n")
        let diff = UnifiedDiff(old: Self.old, new: new)
        #expect(
            diff.rendered(oldLabel: "golden", newLabel: "recorded") == """
                --- golden
                +++ recorded
                @@ -3,7 +3,7 @@
                 line 3
                 line 4
                 line 5
                -line 6
                +line six
                 line 7
                 line 8
                 line 9

                """)
        #expect(diff.changeCounts.removed == 1)
        #expect(diff.changeCounts.added == 1)
    }

    @Test("distant changes make separate hunks; close ones share one")
    func hunks() {
        var lines = (1...30).map { "line \($0)" }
        lines[1] = "changed 2"
        lines[27] = "changed 28"
        let separate = UnifiedDiff(old: Self.lines(30), new: lines.joined(separator: "\n"))
        #expect(separate.hunks.map(\.header) == ["@@ -1,5 +1,5 @@", "@@ -25,6 +25,6 @@"])

        var close = (1...30).map { "line \($0)" }
        close[9] = "changed 10"
        close[15] = "changed 16"
        let shared = UnifiedDiff(old: Self.lines(30), new: close.joined(separator: "\n"))
        #expect(shared.hunks.map(\.header) == ["@@ -7,13 +7,13 @@"])
    }

    @Test("insertions into and deletions from empty texts")
    func emptySides() {
        #expect(UnifiedDiff(old: "", new: "a\nb\n").hunks.map(\.header) == ["@@ -0,0 +1,2 @@"])
        #expect(UnifiedDiff(old: "a\nb\n", new: "").hunks.map(\.header) == ["@@ -1,2 +0,0 @@"])
        #expect(UnifiedDiff(old: "a\nc\n", new: "a\nb\nc\n", contextLines: 0).hunks.map(\.header) == ["@@ -1,0 +2 @@"])
    }

    @Test("a replaced block lists removals before additions")
    func replacedBlock() {
        let diff = UnifiedDiff(old: "keep\nold 1\nold 2\nkeep\n", new: "keep\nnew 1\nnew 2\nkeep\n")
        #expect(diff.hunks.first?.lines.map(\.kind) == [.context, .removed, .removed, .added, .added, .context])
    }

    @Test("equal texts, CRLF line endings and a missing final newline give no hunks")
    func equalTexts() {
        #expect(UnifiedDiff(old: Self.old, new: Self.old).isEmpty)
        #expect(UnifiedDiff(old: Self.old, new: Self.old.replacingOccurrences(of: "\n", with: "\r\n")).isEmpty)
        #expect(UnifiedDiff(old: "a\nb", new: "a\nb\n").isEmpty)
        #expect(UnifiedDiff(old: Self.old, new: Self.old).rendered() == "")
    }

    @Test("colour wraps removed, added and header lines in ANSI escapes")
    func color() {
        let text = UnifiedDiff(old: "a\n", new: "b\n").rendered(style: .colored)
        #expect(text.contains("\u{1B}[31m-a\u{1B}[0m"))
        #expect(text.contains("\u{1B}[32m+b\u{1B}[0m"))
        #expect(text.contains("\u{1B}[36m@@ -1 +1 @@\u{1B}[0m"))
        #expect(!UnifiedDiff(old: "a\n", new: "b\n").rendered(style: .plain).contains("\u{1B}"))
    }

    @Test(
        "automatic colour follows NO_COLOR, TERM=dumb and FORCE_COLOR",
        arguments: [
            (["NO_COLOR": "1"], false),
            (["TERM": "dumb"], false),
            (["FORCE_COLOR": "1", "NO_COLOR": "1"], true),
        ] as [([String: String], Bool)]
    )
    func automaticColor(environment: [String: String], usesColor: Bool) {
        #expect(TextStyle.automatic(environment: environment).usesColor == usesColor)
    }

    static func lines(_ count: Int) -> String {
        (1...count).map { "line \($0)" }.joined(separator: "\n")
    }
}
