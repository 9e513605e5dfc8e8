import Foundation
import PushMockCore
import PushMockRecording
import Testing

@Suite("JournalReader")
struct JournalReaderTests {
    @Test("streams a large file across chunk boundaries")
    func streamsLargeFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        var bytes: [UInt8] = []
        var expected: [ExchangeRecord] = []
        for index in 1...2_000 {
            var record = makeAPNsRecord(sequence: UInt64(index))
            record.request.body = .text(String(repeating: "x", count: index % 300))
            expected.append(record)
            record.encodeJSONLine(into: &bytes)
        }
        let path = directory.file("big.jsonl")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let (records, problems) = try JournalReader.readAll(path: path)
        #expect(problems.isEmpty)
        #expect(records == expected)
        #expect(bytes.count > 3 * 64 * 1024)
    }

    /// Every line used to be searched for its newline from its start after each 64 KiB read
    /// (a 16 MB line took minutes), and a line was held however long it grew.
    @Test("a line of many reads decodes; a line over 64 MiB is reported and skipped, and reading goes on")
    func longLines() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        var big = makeAPNsRecord(sequence: 1)
        big.request.body = .text(String(repeating: "x", count: 1 << 20))
        let after = makeAPNsRecord(sequence: 2)
        var bytes = big.jsonLine
        let tooLongStart = bytes.count
        bytes += [UInt8](repeating: UInt8(ascii: "z"), count: (64 << 20) + 100_000) + [0x0A]
        bytes += after.jsonLine
        let path = directory.file("long.jsonl")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let entries = Array(try JournalReader(path: path))
        #expect(entries.count == 3)
        guard entries.count == 3 else { return }
        #expect(entries[0] == .record(big, line: 1))
        if case .problem(let problem) = entries[1] {
            #expect(problem.line == 2)
            #expect(problem.byteOffset == Int64(tooLongStart))
            #expect(problem.message == "the line is longer than 64 MiB, more than any record; skipped")
        } else {
            Issue.record("expected a problem on line 2, got \(entries[1])")
        }
        #expect(entries[2] == .record(after, line: 3))
    }

    @Test("reports bad lines with line numbers and keeps going; detects a torn last line")
    func badLinesAndTornTail() throws {
        let first = makeAPNsRecord(sequence: 1)
        let second = makeAPNsRecord(sequence: 2)
        let third = makeAPNsRecord(sequence: 3)
        var bytes = first.jsonLine
        bytes += Array("{\"v\":1,\"seq\":\n".utf8)  // line 2: corrupt
        bytes += Array("\n   \n".utf8)  // lines 3–4: blank, skipped silently
        bytes += second.jsonLine  // line 5
        bytes += Array(#"{"v":9,"seq":1}"#.utf8) + [0x0A]  // line 6: newer version
        bytes += third.jsonLine.dropLast(20)  // line 7: torn
        let entries = JournalReader.entries(in: bytes)
        #expect(entries.count == 5)
        guard entries.count == 5 else { return }
        #expect(entries[0] == .record(first, line: 1))
        #expect(entries[2] == .record(second, line: 5))
        if case .problem(let problem) = entries[1] {
            #expect(problem.line == 2)
            #expect(problem.byteOffset == Int64(first.jsonLine.count))
            #expect(!problem.isTornLastLine)
            #expect(problem.message.contains("invalid JSON"))
        } else {
            Issue.record("expected a problem on line 2")
        }
        if case .problem(let problem) = entries[3] {
            #expect(problem.line == 6)
            #expect(problem.message.contains("unsupported journal format version 9"))
        } else {
            Issue.record("expected a problem on line 6")
        }
        if case .problem(let problem) = entries[4] {
            #expect(problem.line == 7)
            #expect(problem.isTornLastLine)
            #expect(problem.description.contains("torn last line"))
        } else {
            Issue.record("expected a torn last line")
        }
    }

    @Test("a complete last line without its newline is still a record")
    func missingFinalNewline() {
        let record = makeAPNsRecord(sequence: 1)
        let entries = JournalReader.entries(in: Array(record.jsonLine.dropLast()))
        #expect(entries == [.record(record, line: 1)])
    }

    @Test("CRLF line endings are accepted")
    func crlf() {
        let record = makeAPNsRecord(sequence: 1)
        var bytes = Array(record.jsonLine.dropLast())
        bytes += [0x0D, 0x0A]
        #expect(JournalReader.entries(in: bytes + bytes) == [.record(record, line: 1), .record(record, line: 2)])
    }

    @Test("a missing file is an open error")
    func missingFile() {
        #expect(throws: JournalIOError.self) {
            _ = try JournalReader(path: "/nonexistent/pushmock/journal.jsonl")
        }
        do {
            _ = try JournalReader(path: "/nonexistent/pushmock/journal.jsonl")
        } catch {
            #expect(error.operation == .open)
            #expect(error.description.contains("No such file"))
        }
    }

    @Test("an empty file yields nothing")
    func emptyFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("empty.jsonl")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(Array(try JournalReader(path: path)).isEmpty)
    }
}
