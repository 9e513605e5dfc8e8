public import Synchronization

/// The standard library's `Mutex`, plus a hand-over that ThreadSanitizer can see. Every lock
/// in PushMock is one of these (`scripts/lint` refuses a bare `Mutex`).
///
/// Why: on Linux a contended `Mutex` is handed from one thread to the next inside the standard
/// library's slow path (a spin, then `FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI` in the kernel). That
/// code is not instrumented, so ThreadSanitizer sees no acquire and no release, and reports two
/// `withLock` closures of the same lock as a "Swift access race" whenever the lock was
/// contended. Suppressing those per type hid any real race in the suppressed types, and every
/// newly contended lock failed CI at random until it had its own entry (stop 42's did).
///
/// The fix costs two plain moves on x86-64: the first thing a critical section does is an
/// acquiring load of `handOver`, the last a releasing store to it. The lock orders critical
/// sections, so each load reads the previous holder's store, and ThreadSanitizer, which does
/// see atomics in our code, gets the happens-before edge the futex hid. Checked with a
/// standalone program (8 threads on one contended lock): 10 reports with a bare `Mutex`, none
/// with this type, 10 again with the load removed.
///
/// Public behind an SPI (`@_spi(Locking) import PushMockCore`) rather than `package`: the
/// compiler does not inline a `package` inlinable function into another module, so `withLock`
/// stayed a generic call that instantiated `Mutex<Value>`'s metadata on every lock (+0.3 % of
/// the default server's samples in `swift_getGenericMetadata`). Users do not see it without
/// that import.
@_spi(Locking) public struct SanitizerVisibleMutex<Value: ~Copyable>: ~Copyable, Sendable {
    // Usable from inlined code: `withLock` is inlined into every caller (see there).
    @usableFromInline let mutex: Mutex<Value>
    @usableFromInline let handOver = Atomic<Bool>(false)

    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value while holding the lock, as `Mutex.withLock` does.
    ///
    /// Inlined into every caller, as `Mutex.withLock` is (`@_transparent`).
    @inlinable @inline(__always)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            _ = handOver.load(ordering: .acquiring)
            defer { handOver.store(true, ordering: .releasing) }
            return try body(&value)
        }
    }
}
