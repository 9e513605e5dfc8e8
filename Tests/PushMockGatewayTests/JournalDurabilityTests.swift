import Foundation
import PushMockControl
import PushMockCore
import PushMockGateway
import PushMockJSON
import PushMockRecording
import PushMockTesting
import PushMockTransport
import Testing

/// The journal across restarts and failures ([hardening] #17): numbering continues in the same
/// file, a torn last line is cut off and reported (never glued to the next record, never
/// fatal), and when a journal write fails the record says what the client was told.
@Suite("Journal durability")
struct JournalDurabilityTests {
    @Test("a restart continues the sequence numbers in the same journal")
    func sequenceContinues() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = directory + "/journal.jsonl"
        for _ in 0..<2 {
            try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: journal) }) { mock in
                for _ in 0..<3 { expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest())) }
            }
        }
        let (records, problems) = try JournalReader.readAll(path: journal)
        #expect(problems.isEmpty)
        #expect(records.map(\.sequence) == Array(1...6))
    }

    /// A running clock set just before the end of the supported range once ran on into year
    /// 10000: the journal took lines that no reader would take back.
    @Test("a running clock stands at the end of the range, and what it records reads back")
    func clockStandsAtTheEnd() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = directory + "/journal.jsonl"
        let end = InputLimits.timestampMilliseconds.upperBound
        try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: journal) }) { mock in
            let control = try mock.controlClient()
            let set = try await control.call("POST", "clock/set", json: Array(#"{"to":"9999-12-31T23:59:59.900Z"}"#.utf8))
                .decode(ClockReading.self)
            #expect(!set.frozen)
            var reading = set
            let deadline = ContinuousClock.now + .seconds(60)
            while reading.nowMilliseconds < end, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                reading = try await control.call("GET", "clock").decode(ClockReading.self)
            }
            #expect(reading.nowMilliseconds == end)
            #expect(!reading.frozen, "it still runs: moved back, it goes on from there")
            try await Task.sleep(for: .milliseconds(100))
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            #expect(try await control.call("GET", "clock").decode(ClockReading.self).nowMilliseconds == end, "it stands at the end")
            let beyond = try await control.request("POST", "clock/advance", json: Array(#"{"by":"1s"}"#.utf8))
            #expect(beyond.status == 400)
            let back = try await control.call("POST", "clock/advance", json: Array(#"{"by":"-1h"}"#.utf8)).decode(ClockReading.self)
            #expect(back.nowMilliseconds >= end - 3_600_000)
            #expect(back.nowMilliseconds < end - 3_500_000, "back from the end, not from where real time would have taken it")
            await control.close()
        }
        let (records, problems) = try JournalReader.readAll(path: journal)
        #expect(problems.isEmpty, "\(problems)")
        #expect(records.map(\.timeMilliseconds) == [end])
    }

    @Test("a torn last line is cut off, saved, reported and never glued to the next record")
    func tornLastLine() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = directory + "/journal.jsonl"
        try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: journal) }) { mock in
            for _ in 0..<2 { expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest())) }
        }
        let fragment = #"{"v":1,"seq":3,"time":"2026-11-21T23:40:00.123Z","timeMs":17953"#
        let handle = try #require(FileHandle(forWritingAtPath: journal))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(fragment.utf8))
        try handle.close()
        let intactLength = try #require(try FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) - fragment.utf8.count

        try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: journal) }) { mock in
            let info = try await mock.server.waitUntilReady()
            let recovery = try #require(info.journalRecovery)
            #expect(recovery.lastSequenceAtStart == 2)
            #expect(recovery.tornLastLine?.byteOffset == Int64(intactLength))
            #expect(recovery.tornLastLine?.byteCount == Int64(fragment.utf8.count))
            #expect(recovery.tornLastLine?.savedTo == journal + ".torn")
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
        }
        let (records, problems) = try JournalReader.readAll(path: journal)
        #expect(problems.isEmpty, "\(problems)")
        #expect(records.map(\.sequence) == [1, 2, 3])
        let saved = try String(contentsOfFile: journal + ".torn", encoding: .utf8)
        #expect(saved == fragment + "\n")
    }

    @Test("GET /_pushmock/info reports the journal recovery")
    func recoveryInInfo() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = directory + "/journal.jsonl"
        try Data(#"{"v":1,"seq":41,"timeMs":0,"platform":"apns"}"#.utf8 + [0x0A] + Array("{\"v\":1,\"se".utf8)).write(
            to: URL(fileURLWithPath: journal)
        )
        try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: journal) }) { mock in
            let info = try await mock.server.waitUntilReady()
            #expect(info.journalRecovery?.lastSequenceAtStart == 41)
            #expect(info.journalRecovery?.tornLastLine?.byteCount == 10)
            let encoded = try JSONValue(parsing: Array(try JSONEncoder().encode(info)))
            #expect(encoded["journalRecovery"]?["tornLastLine"]?["byteCount"]?.intValue == 10)
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            #expect(mock.recordings.lastSequence == 42)
        }
    }

    @Test("a failed journal write: the client gets 500 and the record says 500, not 200")
    func failedWriteAgrees() async throws {
        // /dev/full accepts the open and fails every write with ENOSPC: a full disk.
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        for durability in RecordingOptions.Durability.allCases {
            try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: "/dev/full", durability: durability) }) {
                mock in
                let response = try await mock.sendOnNewConnection(try mock.apnsRequest())
                #expect(response.status == 500, "\(durability)")
                #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"InternalServerError"}"#)
                let record = try #require(mock.recordings.records().first)
                #expect(record.response.status == 500, "\(durability): the record agrees with the answer")
                #expect(record.response.reason == "InternalServerError")
                #expect(record.annotations["intendedStatus"] == "200")
                #expect(record.annotations["journalError"]?.contains("No space left on device") == true)
            }
        }
    }

    @Test("a rotating journal keeps its cap and is read back whole by the readers")
    func rotationThroughTheGateway() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = directory + "/journal.jsonl"
        try await withPushMock(configure: {
            $0.recording = RecordingOptions(journalPath: journal)
            $0.recording.journalMaximumBytes = 4096
            $0.recording.journalKeep = 50
        }) { mock in
            let connection = try await mock.connect()
            for _ in 0..<30 { expectAccepted(try await connection.send(try mock.apnsRequest())) }
            await connection.close()
        }
        #expect(JournalFiles.rotatedIndices(journal).count >= 2)
        for path in JournalFiles.allPaths(journal) {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(size <= 4096, "\(path)")
        }
        let (records, problems) = try JournalFiles.readAll(path: journal)
        #expect(problems.isEmpty)
        #expect(records.map(\.sequence) == Array(1...30))

        // Without a live file, a restart continues after the newest rotated file's numbering.
        try FileManager.default.removeItem(atPath: journal)
        let newestRotated = try JournalReader.readAll(path: JournalFiles.rotatedPath(journal, index: 1)).records
        let expected = try #require(newestRotated.last?.sequence) + 1
        try await withPushMock(configure: { $0.recording = RecordingOptions(journalPath: journal) }) { mock in
            expectAccepted(try await mock.sendOnNewConnection(try mock.apnsRequest()))
            #expect(mock.recordings.lastSequence == expected)
        }
    }
}
