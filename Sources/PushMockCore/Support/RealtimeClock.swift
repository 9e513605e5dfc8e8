#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the operating system's real-time clock without Foundation.
enum RealtimeClock {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    static func milliseconds() -> Int64 {
        var spec = timespec()
        // CLOCK_REALTIME cannot fail with a valid pointer; a failure would leave zeros, which is
        // still a defined (if wrong) answer rather than a crash.
        _ = clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
