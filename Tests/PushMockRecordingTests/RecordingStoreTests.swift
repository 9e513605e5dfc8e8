import PushMockCore
import PushMockRecording
import Testing

@Suite("RecordingStore")
struct RecordingStoreTests {
    static func record(_ namespace: String? = nil, platform: Platform = .apns) -> ExchangeRecord {
        ExchangeRecord(namespace: namespace, platform: platform)
    }

    @Test("assigns increasing sequence numbers in place")
    func sequences() {
        let store = RecordingStore(configuration: .init(capacity: 10, lastAssignedSequence: 100))
        var batch = [Self.record(), Self.record(), Self.record()]
        store.append(&batch)
        #expect(batch.map(\.sequence) == [101, 102, 103])
        #expect(store.append(Self.record()) == 104)
        #expect(store.lastSequence == 104)
        #expect(store.count == 4)
        var empty: [ExchangeRecord] = []
        store.append(&empty)
        #expect(store.lastSequence == 104)
    }

    @Test("concurrent appends from many tasks get unique, gap-free sequence numbers")
    func concurrentAppends() async {
        let store = RecordingStore()
        let tasks = 16
        let perTask = 500
        let assigned = await withTaskGroup(of: [UInt64].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var numbers: [UInt64] = []
                    for index in 0..<perTask {
                        if index % 5 == 0 {
                            var batch = [Self.record("t\(task)"), Self.record("t\(task)")]
                            store.append(&batch)
                            numbers += batch.map(\.sequence)
                        } else {
                            numbers.append(store.append(Self.record("t\(task)")))
                        }
                    }
                    return numbers
                }
            }
            var all: [UInt64] = []
            for await numbers in group {
                #expect(numbers == numbers.sorted())
                all += numbers
            }
            return all
        }
        let expectedCount = tasks * (perTask + perTask / 5)
        #expect(assigned.count == expectedCount)
        #expect(Set(assigned).count == expectedCount)
        #expect(assigned.sorted() == Array(1...UInt64(expectedCount)))
        let stored = store.records(newestFirst: false)
        #expect(stored.map(\.sequence) == Array(1...UInt64(expectedCount)))
    }

    @Test("evicts the oldest records when full", arguments: [1, 3, 7])
    func eviction(_ capacity: Int) {
        let store = RecordingStore(configuration: .init(capacity: capacity))
        for _ in 0..<20 { store.append(Self.record()) }
        #expect(store.count == capacity)
        #expect(store.evictedCount == UInt64(20 - capacity))
        #expect(store.records(newestFirst: false).map(\.sequence) == Array(UInt64(21 - capacity)...20))
        #expect(store.records().map(\.sequence) == Array((UInt64(21 - capacity)...20).reversed()))
        #expect(store.record(sequence: 20)?.sequence == 20)
        #expect(store.record(sequence: UInt64(20 - capacity)) == nil)
    }

    @Test("capacity below one is treated as one")
    func tinyCapacity() {
        let store = RecordingStore(configuration: .init(capacity: 0))
        store.append(Self.record())
        store.append(Self.record())
        #expect(store.count == 1)
        #expect(store.evictedCount == 1)
    }

    @Test("filters, limits and pages in both directions")
    func queries() {
        let store = RecordingStore(configuration: .init(capacity: 8))
        for index in 1...12 { store.append(Self.record(platform: index % 2 == 0 ? .fcm : .apns)) }
        // Retained: 5...12 (ring wrapped).
        #expect(store.records(limit: 3).map(\.sequence) == [12, 11, 10])
        #expect(store.records(limit: 3, after: 10).map(\.sequence) == [9, 8, 7])
        #expect(store.records(limit: 3, after: 6).map(\.sequence) == [5])
        #expect(store.records(newestFirst: false, limit: 3).map(\.sequence) == [5, 6, 7])
        #expect(store.records(newestFirst: false, limit: 3, after: 7).map(\.sequence) == [8, 9, 10])
        #expect(store.records(newestFirst: false, after: 12).isEmpty)
        #expect(store.records(newestFirst: false, after: 2).map(\.sequence) == Array(5...12))
        #expect(store.records(newestFirst: false, after: .max).isEmpty)
        #expect(store.records(filter: { $0.platform == .fcm }).map(\.sequence) == [12, 10, 8, 6])
        #expect(store.records(filter: { $0.platform == .fcm }, newestFirst: false, limit: 2, after: 6).map(\.sequence) == [8, 10])
        #expect(store.records(limit: 0).isEmpty)
        #expect(store.record(sequence: 4) == nil)
        #expect(store.record(sequence: 13) == nil)
        #expect(store.record(sequence: 7)?.sequence == 7)
    }

    @Test("clear and clear(namespace:) keep sequence numbering")
    func clearing() {
        let store = RecordingStore(configuration: .init(capacity: 5))
        for index in 0..<8 { store.append(Self.record(index % 2 == 0 ? "a" : nil)) }
        // Retained: 4...8; namespaces: 4→nil, 5→a, 6→nil, 7→a, 8→nil.
        #expect(store.clear(namespace: "a") == 2)
        #expect(store.records(newestFirst: false).map(\.sequence) == [4, 6, 8])
        #expect(store.clear(namespace: nil) == 3)
        #expect(store.count == 0)
        store.append(Self.record())
        #expect(store.records().map(\.sequence) == [9])
        for _ in 0..<10 { store.append(Self.record("b")) }
        #expect(store.count == 5)
        #expect(store.clear() == 5, "counted in the clear itself")
        #expect(store.count == 0)
        #expect(store.clear() == 0)
        #expect(store.append(Self.record()) == 20)
        #expect(store.evictedCount == 9)  // 3 before the clears, 6 after
    }

    /// The deadline of a wait that is expected to succeed: it returns as soon as the condition
    /// holds, so only a starved machine ever gets near it. 30 s ran out in a CI run on a
    /// machine loaded with two other builds (the waiting task was not scheduled in time).
    static let expectedToSucceed: Duration = .seconds(120)

    /// Until a waiter has suspended on `store`. Sleeps between looks rather than spinning on
    /// `Task.yield()`, which kept a cooperative thread busy on a 2-core machine.
    static func untilSomeoneWaits(on store: RecordingStore) async {
        while store.pendingWaiterCount == 0 { try? await Task.sleep(for: .milliseconds(1)) }
    }

    @Test("wait resumes when an append satisfies the predicate")
    func waitResumes() async {
        let store = RecordingStore()
        store.append(Self.record("x"))
        async let satisfied = store.wait(timeout: Self.expectedToSucceed) { records in
            records.filter { $0.namespace == "target" }.count >= 2
        }
        // Let the waiter suspend, then append what it waits for (and some noise).
        await Self.untilSomeoneWaits(on: store)
        store.append(Self.record("target"))
        store.append(Self.record("noise"))
        store.append(Self.record("target"))
        #expect(await satisfied)
        #expect(store.pendingWaiterCount == 0)
    }

    @Test("wait returns immediately when the predicate already holds")
    func waitImmediate() async {
        let store = RecordingStore()
        store.append(Self.record())
        #expect(await store.wait(timeout: Self.expectedToSucceed) { $0.count == 1 })
        #expect(await store.wait(forSequence: 1, timeout: Self.expectedToSucceed))
    }

    @Test("wait times out")
    func waitTimesOut() async {
        let store = RecordingStore()
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await store.wait(timeout: .milliseconds(50)) { !$0.isEmpty } == false)
        #expect(clock.now - start >= .milliseconds(50))
        #expect(await store.wait(forSequence: 1, timeout: .milliseconds(10)) == false)
        #expect(store.pendingWaiterCount == 0)
    }

    @Test("a clear wakes waiters too")
    func clearWakes() async {
        let store = RecordingStore()
        store.append(Self.record())
        async let emptied = store.wait(timeout: Self.expectedToSucceed) { $0.isEmpty }
        await Self.untilSomeoneWaits(on: store)
        store.clear()
        #expect(await emptied)
    }

    @Test("wait(forSequence:) resumes on the append that reaches it")
    func waitForSequence() async {
        let store = RecordingStore()
        async let reached = store.wait(forSequence: 3, timeout: Self.expectedToSucceed)
        await Self.untilSomeoneWaits(on: store)
        store.append(Self.record())
        store.append(Self.record())
        store.append(Self.record())
        #expect(await reached)
    }

    @Test("cancelling a waiting task resumes it with false and leaves no waiter behind")
    func cancellation() async {
        let store = RecordingStore()
        let task = Task { await store.wait(timeout: .seconds(3600)) { _ in false } }
        await Self.untilSomeoneWaits(on: store)
        task.cancel()
        #expect(await task.value == false)
        #expect(store.pendingWaiterCount == 0)
    }

    @Test("a task cancelled before waiting returns false at once")
    func cancelledBeforeWaiting() async {
        let store = RecordingStore()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await store.wait(timeout: .seconds(3600)) { _ in false }
        }
        #expect(await task.value == false)
        #expect(store.pendingWaiterCount == 0)
    }

    @Test("many concurrent waiters and appenders all finish")
    func waitersUnderLoad() async {
        let store = RecordingStore(configuration: .init(capacity: 50))
        await withTaskGroup(of: Bool.self) { group in
            for target in 1...20 {
                group.addTask { await store.wait(forSequence: UInt64(target * 50), timeout: .seconds(300)) }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<250 {
                        store.append(Self.record())
                        await Task.yield()
                    }
                    return true
                }
            }
            for await result in group {
                #expect(result)
            }
        }
        #expect(store.lastSequence == 1000)
        #expect(store.pendingWaiterCount == 0)
    }
}
