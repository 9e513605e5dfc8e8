#if canImport(Glibc)
import Glibc

/// Deepens glibc's per-thread allocation cache for this process by re-executing it once with
/// `GLIBC_TUNABLES=glibc.malloc.tcache_count=…` (glibc reads tunables only at start-up, and
/// `mallopt` has no knob for the cache).
///
/// Why: the gateway answers a read batch of up to a few hundred requests at once, and each
/// request allocates and frees a few dozen small blocks. glibc keeps only 7 free blocks of a
/// size per thread (`tcache_count` default), so a batch spills into the shared bins, and
/// `_int_malloc`, `_int_free`, `unlink_chunk` and `malloc_consolidate` took ≈ 17 % of the
/// default server's CPU (perf, 2026-11-25). With 512 per size: 17–19 µs → 13.5–14.5 µs of
/// server CPU per request on the TLS 4×100 benchmark (`Benchmarks/README.md`). The cost is
/// memory that a thread keeps for reuse: at most 512 blocks of each size class up to 1 KiB.
///
/// Left alone when the process was started with a `tcache_count` of its own, when
/// `PUSHMOCK_ALLOCATOR_TUNING=off`, or when re-executing fails (the process then just goes on).
/// After the re-exec the environment is restored, so child processes do not inherit it.
enum AllocatorTuning {
    static let tcacheCount = 512
    static let switchVariable = "PUSHMOCK_ALLOCATOR_TUNING"
    /// Set for the re-executed process: the original `GLIBC_TUNABLES` (possibly empty), or
    /// `"-"` when there was none.
    static let originalVariable = "PUSHMOCK_ORIGINAL_GLIBC_TUNABLES"

    static func apply() {
        if let original = environment(originalVariable) {
            // The re-executed process: the tunables are in force; hand children the original.
            if original == "-" {
                unsetenv("GLIBC_TUNABLES")
            } else {
                setenv("GLIBC_TUNABLES", original, 1)
            }
            unsetenv(originalVariable)
            return
        }
        if environment(switchVariable) == "off" { return }
        let current = environment("GLIBC_TUNABLES")
        if let current, current.contains("glibc.malloc.tcache_count") { return }
        let ours = "glibc.malloc.tcache_count=\(tcacheCount)"
        let tunables = current.map { $0.isEmpty ? ours : "\($0):\(ours)" } ?? ours
        setenv(originalVariable, current ?? "-", 1)
        setenv("GLIBC_TUNABLES", tunables, 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Only reached when exec failed (no /proc, say): go on untuned, as started.
        unsetenv(originalVariable)
        if let current { setenv("GLIBC_TUNABLES", current, 1) } else { unsetenv("GLIBC_TUNABLES") }
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
#else
enum AllocatorTuning {
    /// Only glibc has the per-thread cache this tunes.
    static func apply() {}
}
#endif
