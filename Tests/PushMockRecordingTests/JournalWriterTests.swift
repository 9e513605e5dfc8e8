import Foundation
@_spi(Locking) import PushMockCore
import PushMockRecording
import Testing

@Suite("JournalWriter")
struct JournalWriterTests {
    static let durabilities: [JournalWriter.Durability] = [.written, .fsyncEachBatch, .fsyncInterval(.milliseconds(5))]

    /// Collects errors reported through the hook.
    final class ErrorLog: Sendable {
        private let errors = SanitizerVisibleMutex<[JournalIOError]>([])
        func record(_ error: JournalIOError) { errors.withLock { $0.append(error) } }
        var all: [JournalIOError] { errors.withLock { $0 } }
    }

    @Test("file content equals the appends in order", arguments: durabilities)
    func sequentialContent(_ durability: JournalWriter.Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("nested/deeper/journal.jsonl")
        let writer = try JournalWriter(path: path, durability: durability)
        var expected: [UInt8] = []
        for index in 0..<200 {
            let line = Array("line \(index) \(String(repeating: "é", count: index % 17))\n".utf8)
            expected += line
            try await writer.append(line)
        }
        try writer.close()
        #expect(readFile(path) == expected)
        let statistics = writer.statistics
        #expect(statistics.appends == 200)
        #expect(statistics.bytesWritten == UInt64(expected.count))
        #expect(statistics.failures == 0)
        if durability == .fsyncEachBatch {
            #expect(statistics.syncs == statistics.batches)
            #expect(statistics.batches >= 1)
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o644)
    }

    @Test("appends to an existing file instead of truncating it")
    func appendsToExisting() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old\n".utf8)))
        let writer = try JournalWriter(path: path)
        #expect(writer.append(Array("new\n".utf8)) { _ in Issue.record("completion must not run") })
        try writer.close()
        #expect(readFile(path) == Array("old\nnew\n".utf8))
    }

    @Test("concurrent appenders never interleave within a line", arguments: durabilities)
    func concurrentAppenders(_ durability: JournalWriter.Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let writer = try JournalWriter(path: path, durability: durability)
        let tasks = 8
        let perTask = 1000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in 0..<perTask {
                        // Lines of varying length so torn or interleaved writes would show.
                        let padding = String(repeating: Character(UnicodeScalar(UInt8(97 + task))), count: (index * 7) % 300)
                        try await writer.append(Array("\(task) \(index) \(padding)\n".utf8))
                    }
                }
            }
            try await group.waitForAll()
        }
        try writer.close()
        let lines = String(decoding: readFile(path), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == tasks * perTask + 1)
        #expect(lines.last == "")
        var nextIndex = [Int](repeating: 0, count: tasks)
        for line in lines.dropLast() {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, let task = Int(parts[0]), let index = Int(parts[1]), (0..<tasks).contains(task) else {
                Issue.record("malformed line: \(line.prefix(80))")
                return
            }
            let letter = Character(UnicodeScalar(UInt8(97 + task)))
            #expect(parts[2].count == (index * 7) % 300 && parts[2].allSatisfy { $0 == letter })
            // Each task awaited its appends, so its lines appear in its own order.
            #expect(index == nextIndex[task])
            nextIndex[task] = index + 1
        }
        #expect(nextIndex == [Int](repeating: perTask, count: tasks))
        #expect(writer.statistics.appends == UInt64(tasks * perTask))
    }

    @Test("group commit shares one fsync among concurrent appends")
    func groupCommitBatches() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let writer = try JournalWriter(path: path, durability: .fsyncEachBatch)
        let completed = Counter()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    // Fire 100 appends without waiting, then wait for all of them.
                    await withTaskGroup(of: Void.self) { inner in
                        for index in 0..<100 {
                            inner.addTask {
                                try? await writer.append(Array("\(task)-\(index)\n".utf8))
                                completed.increment()
                            }
                        }
                    }
                }
            }
        }
        try writer.close()
        let statistics = writer.statistics
        #expect(completed.current == 800)
        #expect(statistics.appends == 800)
        #expect(statistics.syncs == statistics.batches)
        #expect(statistics.syncs < statistics.appends)
        #expect(statistics.writeCalls == statistics.batches)
    }

    @Test("callback API: completion runs exactly once, on success after the sync")
    func callbackContract() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let writer = try JournalWriter(path: path, durability: .fsyncEachBatch)
        let calls = Counter()
        let done = DispatchSemaphoreLike()
        let synchronous = writer.append(Array("x\n".utf8)) { result in
            #expect((try? result.get()) != nil)
            calls.increment()
            done.signal()
        }
        #expect(!synchronous)
        done.wait()
        #expect(calls.current == 1)
        #expect(writer.statistics.syncs >= 1)
        try writer.close()
        #expect(calls.current == 1)
    }

    @Test("close flushes queued appends and runs their completions")
    func closeFlushes() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let writer = try JournalWriter(path: path, durability: .fsyncEachBatch)
        let successes = Counter()
        var expected: [UInt8] = []
        for index in 0..<500 {
            let line = Array("queued \(index)\n".utf8)
            expected += line
            _ = writer.append(line) { result in
                if case .success = result { successes.increment() }
            }
        }
        try writer.close()
        #expect(successes.current == 500)
        #expect(readFile(path) == expected)
        // Idempotent, and appends after close fail synchronously through the completion.
        try writer.close()
        let failure = SanitizerVisibleMutex<(any Error)?>(nil)
        #expect(
            !writer.append(Array("late\n".utf8)) { result in
                if case .failure(let error) = result { failure.withLock { $0 = error } }
            })
        #expect((failure.withLock { $0 } as? JournalIOError)?.operation == .appendAfterClose)
        #expect(readFile(path) == expected)
    }

    @Test("close() called from a completion on the writer thread does not deadlock")
    func closeFromCompletion() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let writer = try JournalWriter(path: path, durability: .fsyncEachBatch)
        let done = DispatchSemaphoreLike()
        _ = writer.append(Array("first\n".utf8)) { _ in
            try? writer.close()
            done.signal()
        }
        done.wait()
        let rejected = Counter()
        #expect(
            !writer.append(Array("late\n".utf8)) { result in
                if case .failure = result { rejected.increment() }
            })
        #expect(rejected.current == 1)
        try writer.close()  // waits for the thread, which has closed the file itself
        #expect(readFile(path) == Array("first\n".utf8))
    }

    @Test("interval mode syncs in the background and at close")
    func intervalSyncs() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("journal.jsonl")
        let writer = try JournalWriter(path: path, durability: .fsyncInterval(.milliseconds(1)))
        #expect(writer.append(Array("a\n".utf8)) { _ in })
        // The background sync, waited for (not slept for): a loaded machine may take a while.
        let deadline = ContinuousClock.now + .seconds(60)
        while writer.statistics.syncs < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(writer.statistics.syncs >= 1)
        #expect(writer.append(Array("b\n".utf8)) { _ in })
        try writer.close()
        #expect(writer.statistics.syncs >= 2)
        #expect(readFile(path) == Array("a\nb\n".utf8))
    }

    @Test("a directory path makes init throw")
    func directoryPath() {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        do {
            _ = try JournalWriter(path: directory.path)
            Issue.record("init should have thrown")
        } catch {
            #expect(error.operation == .open)
            #expect(error.code == EISDIR)
        }
    }

    @Test("a file where a parent directory should be makes init throw")
    func parentIsFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let blocker = directory.file("blocker")
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        #expect(throws: JournalIOError.self) { try JournalWriter(path: blocker + "/journal.jsonl") }
    }

    @Test(
        "write errors surface to the caller and the hook, and the writer stays failed",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")),
        arguments: durabilities
    )
    func writeErrors(_ durability: JournalWriter.Durability) async throws {
        let log = ErrorLog()
        let writer = try JournalWriter(path: "/dev/full", durability: durability, onError: log.record)
        await #expect(throws: JournalIOError.self) { try await writer.append(Array("x\n".utf8)) }
        do {
            try await writer.append(Array("y\n".utf8))
            Issue.record("the failed writer accepted an append")
        } catch let error as JournalIOError {
            #expect(error.operation == .write)
            #expect(error.code == ENOSPC)
        }
        #expect(log.all.count == 1)
        #expect(log.all.first?.code == ENOSPC)
        #expect(writer.statistics.failures == 1)
        #expect(writer.statistics.appends == 0)
        try? writer.close()
    }

    @Test("records written through the writer read back identically", arguments: durabilities)
    func journalRoundTrip(_ durability: JournalWriter.Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("run.jsonl")
        let store = RecordingStore()
        let writer = try JournalWriter(path: path, durability: durability)
        var line: [UInt8] = []
        for index in 0..<300 {
            var batch = [makeAPNsRecord(namespace: "ns-\(index % 3)")]
            batch[0].request.body = index % 2 == 0 ? .text("body \(index)\n") : .binary([UInt8(index % 256), 0, 0xFF])
            store.append(&batch)  // assigns the sequence number the journal will carry
            line.removeAll(keepingCapacity: true)
            batch[0].encodeJSONLine(into: &line)
            try await writer.append(line)
        }
        try writer.close()
        let (records, problems) = try JournalReader.readAll(path: path)
        #expect(problems.isEmpty)
        #expect(records == store.records(newestFirst: false))
        #expect(records.map(\.sequence) == Array(1...300))
    }
}

/// A one-shot signal for synchronous tests (avoids importing Dispatch just for a semaphore).
final class DispatchSemaphoreLike: Sendable {
    private let condition = NSCondition()
    private let signalled = SanitizerVisibleMutex(false)

    func signal() {
        condition.lock()
        signalled.withLock { $0 = true }
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        while !signalled.withLock({ $0 }) {
            condition.wait()
        }
        condition.unlock()
    }
}
