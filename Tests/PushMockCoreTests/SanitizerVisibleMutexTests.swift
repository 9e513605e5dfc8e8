import Dispatch
@_spi(Locking) import PushMockCore
import Testing

/// The lock every PushMock type shares state through. scripts/tsan runs this suite under
/// ThreadSanitizer too: there the contended test fails the run if the sanitizer cannot see the
/// lock change hands (a bare `Mutex` gets reported there; see `SanitizerVisibleMutex`).
@Suite("SanitizerVisibleMutex")
struct SanitizerVisibleMutexTests {
    private struct Failure: Error, Equatable {}

    @Test("contended by eight threads at once: every update is kept and none is lost")
    func contended() {
        let threads = 8
        let updatesPerThread = 20_000
        let counts = SanitizerVisibleMutex<[Int: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for update in 0..<updatesPerThread {
                // A read-modify-write of a dictionary: torn by any update that the lock let
                // through at the same time.
                counts.withLock { $0[update % 4, default: 0] += thread + 1 }
            }
        }
        let total = counts.withLock { $0.values.reduce(0, +) }
        #expect(total == updatesPerThread * (1...threads).reduce(0, +))
    }

    @Test("withLock returns what its body returns, and the body's changes stay")
    func returnsAndKeeps() {
        let value = SanitizerVisibleMutex(10)
        let before = value.withLock { number -> Int in
            defer { number += 5 }
            return number
        }
        #expect(before == 10)
        #expect(value.withLock { $0 } == 15)
    }

    @Test("a typed error thrown by the body comes out as itself, and the lock is free again")
    func passesTypedErrorThrough() {
        let value = SanitizerVisibleMutex(1)
        #expect(throws: Failure()) {
            try value.withLock { (number: inout Int) throws(Failure) in
                number = 2
                throw Failure()
            }
        }
        #expect(value.withLock { $0 } == 2)
    }
}
