import Dispatch
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Gives the heap's free memory back to the system once the gateway has gone quiet after
/// traffic (glibc's `malloc_trim`).
///
/// Why: every store the gateway keeps is bounded, but glibc keeps the memory a burst freed
/// for reuse instead of returning it. A 30-minute soak under load settled 11–15 % above its
/// early level; `malloc_trim(0)` in the running gateway gave 51 MiB back at once
/// (`Benchmarks/README.md`, seventeenth session). A gateway left running on a laptop or a CI
/// agent after a load test should not hold that memory until it exits.
///
/// When: after a full ``quietPeriod`` in which no exchange was recorded, if any was recorded
/// since the last return. So a busy gateway never pays for it (the trim walks the heap under
/// glibc's arena locks), and an idle one returns memory once per burst, not once per period.
/// The trim runs on a Dispatch thread, not on an event loop or the cooperative pool.
struct IdleMemoryReturn: Sendable {
    /// How long without a recorded exchange counts as quiet.
    let quietPeriod: Duration
    /// The number of exchanges recorded so far (the recording store's last sequence number).
    let activity: @Sendable () -> UInt64
    let metrics: GatewayMetrics?
    let logger: Logger

    /// Checks once per ``quietPeriod`` until the task is cancelled.
    func run() async {
        var lastSeen = activity()
        // Nothing to give back before the first exchange: start-up memory is in use.
        var returnedAt = lastSeen
        while true {
            do {
                try await Task.sleep(for: quietPeriod)
            } catch {
                return
            }
            let seen = activity()
            defer { lastSeen = seen }
            guard seen == lastSeen, seen != returnedAt else { continue }
            returnedAt = seen
            guard let returned = await Self.returnFreeMemory() else { return }
            metrics?.memoryReturned(bytes: returned)
            logger.debug(
                "returned free heap memory to the system after \(quietPeriod) without requests",
                metadata: ["bytes": "\(returned)"]
            )
        }
    }

    /// Trims the heap on a Dispatch thread; returns how much the resident set shrank (0 if it
    /// did not), or `nil` where there is no `malloc_trim` (not glibc).
    static func returnFreeMemory() async -> Int? {
        #if canImport(Glibc)
        guard let trim = mallocTrim else { return nil }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                let before = residentBytes()
                _ = trim(0)
                let after = residentBytes()
                continuation.resume(returning: max(0, before - after))
            }
        }
        #else
        return nil
        #endif
    }

    #if canImport(Glibc)
    /// glibc's `malloc_trim`, looked up at run time: it is declared in `<malloc.h>`, which the
    /// `Glibc` module does not include, and a C target for one declaration is more than it is
    /// worth. `nil` under another C library (musl has no such function).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// The resident set size from `/proc/self/statm` (its second field, in pages); 0 if it
    /// cannot be read.
    static func residentBytes() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }
    #endif
}
