import Foundation
package import NIOCore
import NIOPosix

/// How many event loops the gateway runs when `--threads` is not given, and the sender when
/// it is given no group: one per CPU this process may run on.
///
/// SwiftNIO's `System.coreCount` counts the machine's online CPUs (or a cgroup quota), not the
/// process's CPU affinity, so under `taskset -c 1` or a one-CPU cpuset the gateway ran two
/// event loops that took turns on one CPU: measured 66.9k against 71.5k req/s for one loop
/// (TLS 4×100, 2026-11-25, `Benchmarks/README.md`). The affinity mask is what Go's
/// GOMAXPROCS and Java's `availableProcessors` go by too.
package enum EventLoopCount {
    /// The most event loops a gateway runs. Each holds a thread and three descriptors (epoll,
    /// eventfd, timerfd), and NIO traps in the new thread when it cannot create them (with
    /// `--threads 100000` the process died of EMFILE); beyond the CPU count more loops only
    /// take turns anyway.
    package static let maximum = 1024

    /// Descriptors one event loop holds (epoll, eventfd, timerfd).
    package static let descriptorsPerLoop = 3

    /// Why `count` event loops cannot run in this process (out of 1…``maximum``, or more
    /// descriptors than ``DescriptorLimit/available`` leaves), or `nil` when they can.
    package static func problem(running count: Int) -> String? {
        guard (1...maximum).contains(count) else { return "event-loop threads must be 1 to \(maximum), not \(count)" }
        guard let limit = DescriptorLimit.current else { return nil }
        guard count * descriptorsPerLoop > limit - DescriptorLimit.reserved else { return nil }
        return
            "\(count) event-loop threads need \(count * descriptorsPerLoop) file descriptors; this process may open \(limit) (ulimit -n)"
    }

    /// The group to run on when none is given: NIO's shared singleton, or, in a process
    /// confined to fewer CPUs than the machine has, one shared group with a loop per allowed
    /// CPU (created once, never shut down, like the singleton). The sender pinned to one CPU
    /// ran its connections on two loops that took turns.
    package static var sharedGroup: any EventLoopGroup {
        confinedGroup ?? MultiThreadedEventLoopGroup.singleton
    }

    private static let confinedGroup: MultiThreadedEventLoopGroup? = {
        let count = Self.default
        return count < System.coreCount ? MultiThreadedEventLoopGroup(numberOfThreads: count) : nil
    }()

    package static var `default`: Int {
        let machine = System.coreCount
        guard let allowed = affinityCPUCount, allowed > 0 else { return machine }
        return min(machine, allowed)
    }

    /// CPUs in this process's affinity mask (`Cpus_allowed_list` in `/proc/self/status`, as
    /// `sched_getaffinity` would say; glibc's declaration needs `_GNU_SOURCE`, which Swift's
    /// Glibc module does not set); `nil` where it cannot be read.
    package static var affinityCPUCount: Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        return cpuCount(inList: line.dropFirst("Cpus_allowed_list:".count))
    }

    /// Counts a Linux CPU list such as `0-3,8,10-11`; `nil` if it is not one.
    package static func cpuCount(inList list: Substring) -> Int? {
        var count = 0
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
            guard let low = bounds.first.flatMap({ Int($0) }) else { return nil }
            let high = bounds.count == 2 ? Int(bounds[1]) : (bounds.count == 1 ? low : nil)
            guard let high, high >= low else { return nil }
            count += high - low + 1
        }
        return count > 0 ? count : nil
    }
}
