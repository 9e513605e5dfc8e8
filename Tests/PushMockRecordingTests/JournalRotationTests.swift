import Foundation
import PushMockCore
import Testing

@testable import PushMockRecording

/// Rotation of the journal by size and age with a cap on kept files, reading a rotated set
/// back, and start-up recovery (torn last line, last sequence number).
@Suite("Journal rotation and recovery")
struct JournalRotationTests {
    static let durabilities: [JournalWriter.Durability] = [.written, .fsyncEachBatch, .fsyncInterval(.milliseconds(5))]

    /// `count` records numbered from `first`, as journal bytes (one line each).
    static func lines(from first: UInt64, count: Int) -> [[UInt8]] {
        (0..<count).map { index in
            var line: [UInt8] = []
            makeAPNsRecord(sequence: first + UInt64(index)).encodeJSONLine(into: &line)
            return line
        }
    }

    @Test("rotation by size keeps at most `keep` rotated files, each under the limit", arguments: durabilities)
    func bySize(_ durability: JournalWriter.Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let lines = Self.lines(from: 1, count: 60)
        let lineLength = Int64(lines[0].count)
        let writer = try JournalWriter(
            path: path,
            durability: durability,
            rotation: .init(maximumBytes: lineLength * 5, keep: 3)
        )
        for line in lines { try await writer.append(line) }
        try writer.close()

        #expect(JournalFiles.rotatedIndices(path) == [1, 2, 3])
        #expect(!FileManager.default.fileExists(atPath: JournalFiles.rotatedPath(path, index: 4)))
        #expect(writer.statistics.rotations >= 10)
        for file in JournalFiles.allPaths(path) {
            #expect(Int64(readFile(file).count) <= lineLength * 5 + 16, "\(file)")
        }
        // The kept files hold the newest records, oldest file first, without gaps.
        let (records, problems) = try JournalFiles.readAll(path: path)
        #expect(problems.isEmpty)
        let sequences = records.map(\.sequence)
        #expect(sequences.last == 60)
        #expect(sequences == Array(sequences.first!...60))
    }

    @Test("rotation by age starts a new file for the next append once the age is reached")
    func byAge() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let writer = try JournalWriter(path: path, rotation: .init(maximumAge: .milliseconds(50), keep: 10))
        let lines = Self.lines(from: 1, count: 3)
        try await writer.append(lines[0])
        try await writer.append(lines[1])
        try await Task.sleep(for: .milliseconds(200))
        try await writer.append(lines[2])
        try writer.close()
        // The sleep outlasts the age, so the last line starts a file of its own. Whether the
        // first two share one depends on how fast the machine is (on a loaded one the second
        // append may come 50 ms after the file was opened), so only their order is checked:
        // rotated files, oldest first, hold them in sequence.
        let rotated = JournalFiles.rotatedIndices(path)
        #expect(rotated.first == 1 && (1...2).contains(rotated.count))
        #expect(rotated.reversed().flatMap { readFile(JournalFiles.rotatedPath(path, index: $0)) } == lines[0] + lines[1])
        #expect(readFile(path) == lines[2])
    }

    @Test("keep 0 deletes the rotated-out file")
    func keepNone() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let lines = Self.lines(from: 1, count: 4)
        let writer = try JournalWriter(path: path, rotation: .init(maximumBytes: 1, keep: 0))
        for line in lines { try await writer.append(line) }
        try writer.close()
        #expect(JournalFiles.rotatedIndices(path).isEmpty)
        #expect(readFile(path) == lines[3])
    }

    @Test("recovery cuts a torn last line, saves it and finds the last sequence number")
    func recoveryCutsTornLine() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let good = Self.lines(from: 7, count: 2).flatMap { $0 }
        let torn = Array(#"{"v":1,"seq":9,"ti"#.utf8)
        try Data(good + torn).write(to: URL(fileURLWithPath: path))

        let recovery = try JournalRecovery.prepare(path: path)
        #expect(recovery.lastSequence == 8)
        #expect(recovery.tornTail == .init(byteOffset: Int64(good.count), byteCount: Int64(torn.count), savedTo: path + ".torn"))
        #expect(readFile(path) == good)
        #expect(readFile(path + ".torn") == torn + [0x0A])
        // Idempotent: a second start finds nothing to repair.
        let again = try JournalRecovery.prepare(path: path)
        #expect(again.tornTail == nil)
        #expect(again.lastSequence == 8)
    }

    @Test("recovery: a journal that is only a fragment, an empty one, a missing one, a device")
    func recoveryEdgeCases() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        try Data(#"{"v":1,"s"#.utf8).write(to: URL(fileURLWithPath: path))
        let onlyFragment = try JournalRecovery.prepare(path: path)
        #expect(onlyFragment.lastSequence == 0)
        #expect(onlyFragment.tornTail?.byteOffset == 0)
        #expect(readFile(path).isEmpty)

        #expect(try JournalRecovery.prepare(path: path).lastSequence == 0)
        #expect(try JournalRecovery.prepare(path: directory.file("missing.jsonl")).lastSequence == 0)
        #expect(try JournalRecovery.prepare(path: "/dev/null").tornTail == nil)
    }

    @Test("recovery skips damaged lines at the end and uses the last whole record's seq")
    func recoverySkipsDamagedLines() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        // A long last record (more than one read chunk) before two damaged lines.
        var big = makeAPNsRecord(sequence: 70)
        big.request.body = .text(String(repeating: "x", count: 200_000))
        var line: [UInt8] = []
        big.encodeJSONLine(into: &line)
        let bytes = Self.lines(from: 68, count: 2).flatMap { $0 } + line + Array("not json\n\n{\"seq\":\"x\"}\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let recovery = try JournalRecovery.prepare(path: path)
        #expect(recovery.lastSequence == 70)
        #expect(recovery.tornTail == nil)
    }

    @Test("the newest rotated file gives the last sequence when the live file is empty")
    func recoveryFromRotated() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        try Data(Self.lines(from: 1, count: 3).flatMap { $0 }).write(to: URL(fileURLWithPath: JournalFiles.rotatedPath(path, index: 2)))
        try Data(Self.lines(from: 4, count: 3).flatMap { $0 }).write(to: URL(fileURLWithPath: JournalFiles.rotatedPath(path, index: 1)))
        #expect(try JournalRecovery.prepare(path: path).lastSequence == 6)
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(try JournalRecovery.prepare(path: path).lastSequence == 6)
        let (records, _) = try JournalFiles.readAll(path: path)
        #expect(records.map(\.sequence) == Array(1...6))
    }
}
