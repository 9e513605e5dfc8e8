#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file descriptors this process may open (`RLIMIT_NOFILE`, as `ulimit -n` shows it), and
/// what is left of them for connections and event loops once some are kept aside.
///
/// The gateway sizes two things by it: how many connections it accepts before closing new ones
/// (``ConnectionLimits``) and how many event loops `--threads` may ask for. Both keep
/// ``reserved`` descriptors free, so the listeners, the journal and the files the control API
/// opens never meet EMFILE because of idle clients or threads.
package enum DescriptorLimit {
    /// Descriptors kept for listeners, the journal and files.
    package static let reserved = 64

    /// The soft limit, or `nil` when it cannot be read or there is none.
    package static var current: Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int.max) else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// ``current`` less ``reserved`` (may be zero or less under a tiny limit), or `nil` when
    /// there is no limit to go by.
    package static var available: Int? {
        current.map { $0 - reserved }
    }
}
