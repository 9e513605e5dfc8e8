import PushMockJSON

/// How a recording differs from its golden file: structural differences named by path, and a
/// unified diff of the two files' text.
public struct GoldenMismatch: Sendable, Hashable {
    /// The golden file.
    public let path: String
    /// Differences between the file's entries (expected) and the recording's (actual); paths
    /// start at the entry index: `[2].payload.aps.alert.title`.
    public let differences: [JSONDifference]
    /// Line diff from the file's text (as PushMock writes it) to the recording's.
    public let textDiff: UnifiedDiff

    /// Creates a mismatch report from the two documents.
    public init(path: String, golden: GoldenDocument, recorded: GoldenDocument) {
        self.path = path
        differences = JSONDiff.differences(expected: .array(golden.entries), actual: .array(recorded.entries))
        textDiff = UnifiedDiff(old: golden.text, new: recorded.text)
    }

    /// The report shown in test failures and by the CLI:
    ///
    /// ```text
    /// Golden file Recordings/golden/dose-reminder.golden.json does not match the recording.
    /// 1 difference (~ golden ≠ recorded, - only golden, + only recorded):
    ///   ~ [2].payload.aps.alert.title: "Time for your BPC-157" ≠ "Time for your {{compound_name}}"
    ///
    /// --- Recordings/golden/dose-reminder.golden.json
    /// +++ recorded
    /// @@ -52,7 +52,7 @@
    /// …
    /// If the change is intended, re-record with PUSHMOCK_RECORD_GOLDEN=1 and review the diff.
    /// ```
    public func report(style: TextStyle = .plain) -> String {
        var text = "Golden file \(path) does not match the recording.\n"
        text += JSONDiff.rendered(differences, expectedLabel: "golden", actualLabel: "recorded", style: style)
        let lines = textDiff.rendered(oldLabel: path, newLabel: "recorded", style: style)
        if !lines.isEmpty {
            text += "\n" + lines
        }
        text += "\nIf the change is intended, re-record with \(GoldenEnvironment.recordVariable)=1"
        text += " (locally, not in CI) and review the file's diff in the pull request."
        return text
    }
}
