import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

@Suite("Golden files: readable differences")
struct GoldenMismatchTests {
    static func mismatch(golden: [ExchangeRecord], recorded: [ExchangeRecord]) -> GoldenMismatch {
        GoldenMismatch(
            path: "Recordings/golden/dose.golden.json", golden: GoldenDocument(records: golden), recorded: GoldenDocument(records: recorded)
        )
    }

    /// Four notifications to two devices, built from `seed`.
    static func notifications(seed: UInt64, titles: [String] = ["One", "Two", "Three", "Four"]) -> [ExchangeRecord] {
        var factory = RecordFactory(seed: seed)
        let phone = factory.apnsToken()
        let tablet = factory.apnsToken()
        return titles.enumerated().map { index, title in factory.apns(token: index.isMultiple(of: 2) ? phone : tablet, title: title) }
    }

    @Test("a changed value: its path in the structural report, one replaced line in the text diff")
    func changedValue() {
        let mismatch = Self.mismatch(
            golden: Self.notifications(seed: 1, titles: ["One", "Two", "Time for your BPC-157", "Four"]),
            recorded: Self.notifications(seed: 2, titles: ["One", "Two", "Time for your {{compound_name}}", "Four"])
        )
        #expect(
            mismatch.differences.map(\.description) == [
                #"~ [2].payload.aps.alert.title: "Time for your BPC-157" ≠ "Time for your {{compound_name}}""#
            ])
        let hunk = mismatch.textDiff.hunks.first
        #expect(mismatch.textDiff.hunks.count == 1)
        #expect(hunk?.lines.filter { $0.kind == .removed }.map(\.text) == [#"            "title": "Time for your BPC-157""#])
        #expect(hunk?.lines.filter { $0.kind == .added }.map(\.text) == [#"            "title": "Time for your {{compound_name}}""#])
    }

    @Test("an added notification")
    func addedEntry() {
        let mismatch = Self.mismatch(
            golden: Self.notifications(seed: 1, titles: ["One", "Two", "Three"]),
            recorded: Self.notifications(seed: 2, titles: ["One", "Two", "Three", "Four"])
        )
        #expect(mismatch.differences.count == 1)
        #expect(
            mismatch.differences[0].description.hasPrefix(
                #"+ [3]: {"platform":"apns","environment":"sandbox","method":"POST","path":"/3/device/<token-2>""#))
        // A pure insertion: the new entry's lines go in before the old last entry's closing
        // brace, which then closes the new entry (the shortest script, as git shows it too).
        #expect(mismatch.textDiff.changeCounts.removed == 0)
        #expect(mismatch.textDiff.changeCounts.added > 0)
    }

    @Test("a removed notification")
    func removedEntry() {
        let mismatch = Self.mismatch(
            golden: Self.notifications(seed: 1, titles: ["One", "Two", "Three", "Four"]),
            recorded: Self.notifications(seed: 2, titles: ["One", "Two", "Four"])
        )
        // Two now comes third: its token alias and apns-id placeholder shift, so the tail
        // differs in those fields; the report names them instead of one opaque blob.
        let lines = mismatch.differences.map(\.description)
        #expect(lines.contains { $0.hasPrefix("- [") })
        #expect(mismatch.report().contains("does not match the recording."))
    }

    @Test("reordered notifications are shown as moves")
    func reorderedEntries() {
        var factory = RecordFactory(seed: 5)
        let token = factory.apnsToken()
        var records = ["One", "Two", "Three"].map { factory.apns(token: token, title: $0) }
        var configuration = GoldenConfiguration()
        configuration.responseHeaders = .none  // no numbered apns-ids, so entries are position-independent
        let golden = GoldenDocument(records: records, configuration: configuration)
        records.swapAt(0, 2)
        let recorded = GoldenDocument(records: records, configuration: configuration)
        let mismatch = GoldenMismatch(path: "x", golden: golden, recorded: recorded)
        #expect(mismatch.differences.count == 2)
        #expect(mismatch.differences.allSatisfy { if case .moved = $0.kind { true } else { false } })
        // Swapping the first and last of three leaves one element in place by the alignment
        // (here the last); the other two are moves, one of them back to its own index.
        #expect(Set(mismatch.differences.map(\.pathDescription)) == ["[0→2]", "[1]"])
    }

    @Test("the report: title, structural differences, unified diff, and how to accept the change")
    func report() {
        let mismatch = Self.mismatch(
            golden: Self.notifications(seed: 1, titles: ["One", "Two"]),
            recorded: Self.notifications(seed: 2, titles: ["One", "2"])
        )
        #expect(
            mismatch.report() == """
                Golden file Recordings/golden/dose.golden.json does not match the recording.
                1 difference (~ golden ≠ recorded, - only golden, + only recorded):
                  ~ [1].payload.aps.alert.title: "Two" ≠ "2"

                --- Recordings/golden/dose.golden.json
                +++ recorded
                @@ -65,7 +65,7 @@
                         "aps": {
                           "alert": {
                             "body": "Take 250 mcg now",
                -            "title": "Two"
                +            "title": "2"
                           },
                           "sound": "default"
                         },

                If the change is intended, re-record with PUSHMOCK_RECORD_GOLDEN=1 (locally, not in CI) and review the file's diff in the pull request.
                """)
    }
}
