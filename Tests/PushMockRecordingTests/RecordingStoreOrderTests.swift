import Foundation
@_spi(Locking) import PushMockCore
import PushMockJSON
import Synchronization
import Testing

@testable import PushMockRecording

/// The store's ordering guarantees under concurrent appenders: sequence order, ring order and
/// journal order are one and the same, whatever thread appends.
@Suite("RecordingStore order and bounds")
struct RecordingStoreOrderTests {
    static func record(_ namespace: String? = nil, body: Int = 0) -> ExchangeRecord {
        var record = ExchangeRecord(namespace: namespace, platform: .apns)
        if body > 0 {
            record.request.body = .text(String(repeating: "x", count: body))
        }
        return record
    }

    /// Runs `work(thread)` on `count` OS threads at once (not the cooperative pool's two), and
    /// returns when all have finished.
    static func onThreads(_ count: Int, _ work: @escaping @Sendable (Int) -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let thread = Thread {
                            work(index)
                            continuation.resume()
                        }
                        thread.stackSize = 1 << 20
                        thread.start()
                    }
                }
            }
        }
    }

    /// Sequence numbers of journal bytes, line by line.
    static func sequences(inJournal bytes: [UInt8]) throws -> [UInt64] {
        try bytes.split(separator: UInt8(ascii: "\n")).map { try ExchangeRecord.decode(jsonLine: $0).sequence }
    }

    @Test(
        "a line assembled from its start and the rest is the full journal line",
        arguments: [
            0, 1, 9, 10, 99, 100, 12_345, 1 << 32, UInt64.max,
        ] as [UInt64])
    func lineStart(_ sequence: UInt64) throws {
        var record = makeAPNsRecord(sequence: sequence)
        let headroom = ExchangeRecord.lineStartCapacity
        var line = [UInt8](repeating: 0, count: headroom)
        var memo = JournalLineMemo.disabled
        record.encodeJSONLineAfterSequence(into: &line, memo: &memo)
        let start = ExchangeRecord.writeLineStart(sequence: sequence, into: &line, endingAt: headroom)
        #expect(start >= 0)
        #expect(Array(line[start...]) == record.jsonLine)
        record.sequence = sequence
        #expect(try ExchangeRecord.decode(jsonLine: line[start..<(line.count - 1)]) == record)
    }

    @Test("the journal bytes of a batch are handed over under the lock, in sequence order")
    func journalClosureSeesBatch() throws {
        let store = RecordingStore(configuration: .init(lastAssignedSequence: 41))
        var batch = [Self.record("a"), Self.record("b"), Self.record("c")]
        let bytes = store.append(&batch) { Array($0) }
        #expect(batch.map(\.sequence) == [42, 43, 44])
        #expect(try Self.sequences(inJournal: bytes) == [42, 43, 44])
        #expect(bytes == batch.flatMap(\.jsonLine))
        #expect(store.records(newestFirst: false) == batch)
    }

    @Test("8 threads × 10,000 appends: numbering, ring and journal agree, while queries, pages and long polls run")
    func concurrentAppenders() async throws {
        let threads = 8
        let perThread = 10_000
        let total = UInt64(threads * perThread)
        let store = RecordingStore(configuration: .init(capacity: 1_000))
        let journal = SharedBytes()
        let appending = SharedCounter(threads)

        await withTaskGroup(of: Void.self) { group in
            // Long polls for points along the way and for the end.
            for target in stride(from: total / 8, through: total, by: Int(total / 8)) {
                group.addTask {
                    #expect(await store.wait(forSequence: target, timeout: .seconds(600)))
                }
            }
            group.addTask {
                #expect(await store.wait(timeout: .seconds(600)) { $0.last?.sequence == total })
            }
            // Readers: every view of the ring is in strict sequence order.
            group.addTask {
                while appending.value > 0 {
                    let newest = store.entries(limit: 200)
                    #expect(zip(newest, newest.dropFirst()).allSatisfy { $0.sequence > $1.sequence })
                    if let cursor = newest.last?.sequence {
                        let older = store.entries(limit: 50, after: cursor)
                        #expect(older.allSatisfy { $0.sequence < cursor })
                        #expect(zip(older, older.dropFirst()).allSatisfy { $0.sequence > $1.sequence })
                    }
                    let oldest = store.entries(newestFirst: false, limit: 100)
                    #expect(zip(oldest, oldest.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
                    #expect(store.count <= 1_000)
                    await Task.yield()
                }
            }
            group.addTask {
                await Self.onThreads(threads) { thread in
                    var appended = 0
                    var batchSize = 1
                    while appended < perThread {
                        let size = min(batchSize, perThread - appended)
                        var batch = (0..<size).map { _ in Self.record("t\(thread)") }
                        store.append(&batch) { bytes in
                            journal.append(bytes)
                        }
                        precondition(zip(batch, batch.dropFirst()).allSatisfy { $0.sequence + 1 == $1.sequence })
                        appended += size
                        batchSize = batchSize % 7 + 1
                    }
                    appending.add(-1)
                }
            }
        }

        #expect(store.lastSequence == total)
        #expect(store.count == 1_000)
        #expect(store.evictedCount == total - 1_000)
        #expect(store.entries(newestFirst: false).map(\.sequence) == Array((total - 999)...total))
        let journaled = try Self.sequences(inJournal: journal.bytes)
        #expect(journaled.count == Int(total))
        #expect(journaled == Array(1...total))
        #expect(store.pendingWaiterCount == 0)
    }

    @Test(
        "concurrent appenders through a real journal: the file is in sequence order and matches the store",
        arguments: [
            JournalWriter.Durability.written, .fsyncEachBatch,
        ])
    func journalFileOrder(_ durability: JournalWriter.Durability) async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("concurrent.jsonl")
        let writer = try JournalWriter(path: path, durability: durability)
        let threads = 8
        let perThread = durability == .written ? 2_000 : 500
        let store = RecordingStore(configuration: .init(capacity: threads * perThread * 2))
        let failures = SharedCounter(0)
        await Self.onThreads(threads) { thread in
            for index in 0..<perThread {
                var batch = [Self.record("t\(thread)", body: index % 50)]
                if index % 3 == 0 { batch.append(Self.record("t\(thread)")) }
                _ = store.append(&batch) { bytes in
                    writer.append(bytes) { result in
                        if case .failure = result { failures.add(1) }
                    }
                }
            }
        }
        try writer.close()
        #expect(failures.value == 0)
        let (records, problems) = try JournalReader.readAll(path: path)
        #expect(problems.isEmpty)
        #expect(records.map(\.sequence) == Array(1...store.lastSequence))
        #expect(records == store.records(newestFirst: false))
    }

    @Test("newest-first and oldest-first pages with cursors cover the ring exactly once, across evictions and clears")
    func cursorsAcrossGaps() {
        let store = RecordingStore(configuration: .init(capacity: 40))
        for index in 0..<100 { store.append(Self.record(index % 3 == 0 ? "gone" : "kept")) }
        store.clear(namespace: "gone")
        let all = store.entries(newestFirst: false).map(\.sequence)
        #expect(all.first! > 60 && all.last == 99)  // 100 was in "gone"
        for pageSize in [1, 3, 7, 40] {
            var newestFirst: [UInt64] = []
            var cursor: UInt64?
            while true {
                let page = store.entries(limit: pageSize, after: cursor).map(\.sequence)
                if page.isEmpty { break }
                newestFirst += page
                cursor = page.last
            }
            #expect(newestFirst == all.reversed())
            var oldestFirst: [UInt64] = []
            cursor = nil
            while true {
                let page = store.entries(newestFirst: false, limit: pageSize, after: cursor).map(\.sequence)
                if page.isEmpty { break }
                oldestFirst += page
                cursor = page.last
            }
            #expect(oldestFirst == all)
        }
    }

    @Test("the byte capacity evicts the oldest records, whatever the record capacity allows")
    func byteCapacity() {
        let byteCapacity = 200_000
        let store = RecordingStore(configuration: .init(capacity: 100_000, byteCapacity: byteCapacity))
        for _ in 0..<1_000 { store.append(Self.record(body: 1_000)) }
        #expect(store.retainedBytes <= byteCapacity)
        #expect(store.count < 1_000)
        #expect(store.count > 10)
        #expect(store.evictedCount == UInt64(1_000 - store.count))
        #expect(store.records(newestFirst: false).map(\.sequence) == Array(UInt64(1_001 - store.count)...1_000))
        // Small records after large ones: more of them fit.
        let largeCount = store.count
        for _ in 0..<1_000 { store.append(Self.record()) }
        #expect(store.count > largeCount)
        #expect(store.retainedBytes <= byteCapacity)
    }

    @Test("one record larger than the byte capacity is kept alone until the next append")
    func oversizedRecord() {
        let store = RecordingStore(configuration: .init(byteCapacity: 10_000))
        store.append(Self.record())
        store.append(Self.record())
        store.append(Self.record(body: 50_000))
        #expect(store.count == 1)
        #expect(store.records().map(\.sequence) == [3])
        #expect(store.evictedCount == 2)
        store.append(Self.record())
        #expect(store.records().map(\.sequence) == [4])
        #expect(store.retainedBytes < 10_000)
        store.clear()
        #expect(store.retainedBytes == 0)
    }

    @Test("clear(namespace:) gives back the removed records' bytes")
    func clearNamespaceBytes() {
        let store = RecordingStore()
        for index in 0..<10 { store.append(Self.record(index < 5 ? "a" : "b", body: 500)) }
        let before = store.retainedBytes
        #expect(store.clear(namespace: "a") == 5)
        #expect(store.retainedBytes < before)
        #expect(store.retainedBytes > 0)
        #expect(store.clear(namespace: "b") == 5)
        #expect(store.retainedBytes == 0)
    }
}

/// Bytes appended from many threads.
final class SharedBytes: Sendable {
    private let storage = SanitizerVisibleMutex<[UInt8]>([])

    func append(_ bytes: [UInt8]) {
        storage.withLock { $0.append(contentsOf: bytes) }
    }

    var bytes: [UInt8] { storage.withLock { $0 } }
}

/// A counter shared between threads and tasks.
final class SharedCounter: Sendable {
    private let storage: Atomic<Int>

    init(_ value: Int) { storage = Atomic(value) }

    func add(_ delta: Int) { storage.add(delta, ordering: .sequentiallyConsistent) }

    var value: Int { storage.load(ordering: .sequentiallyConsistent) }
}
