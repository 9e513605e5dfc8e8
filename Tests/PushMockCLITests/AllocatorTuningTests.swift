import Foundation
import PushMockGateway
import PushMockTestSupport
import Testing

/// `pushmock` re-executes itself once with a deeper glibc allocation cache
/// (`Sources/pushmock/Support/AllocatorTuning.swift`). `/proc/<pid>/environ` shows the
/// environment the running image was started with, so it tells whether the re-exec happened
/// and with what (the process restores its own environment afterwards for its children).
@Suite("pushmock: allocator tuning (glibc)", .serialized)
struct AllocatorTuningTests {
    static func startEnvironment(of server: ServeProcess) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(server.process.pid)/environ"))
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    static var isGlibcLinux: Bool {
        #if canImport(Glibc)
        FileManager.default.fileExists(atPath: "/proc/self/environ")
        #else
        false
        #endif
    }

    @Test(
        "by default the gateway runs with tcache_count=512; other tunables are kept; a user's own count or the switch wins",
        .enabled(if: isGlibcLinux),
        arguments: [
            ([], "glibc.malloc.tcache_count=512", "-"),
            (
                ["GLIBC_TUNABLES=glibc.malloc.trim_threshold=1048576"],
                "glibc.malloc.trim_threshold=1048576:glibc.malloc.tcache_count=512", "glibc.malloc.trim_threshold=1048576"
            ),
            (["GLIBC_TUNABLES=glibc.malloc.tcache_count=64"], "glibc.malloc.tcache_count=64", nil),
            (["PUSHMOCK_ALLOCATOR_TUNING=off"], nil, nil),
        ] as [([String], String?, String?)]
    )
    func reexec(environment: [String], tunables: String?, original: String?) async throws {
        let server = try await ServeProcess(launcher: environment.isEmpty ? [] : ["/usr/bin/env"] + environment)
        defer { server.removeDirectory() }
        let started = try Self.startEnvironment(of: server)
        // glibc rewrites the variable in place while parsing it (2.36 leaves only the first of
        // several tunables visible there), so a longer value is compared by its start.
        let seen = started.first { $0.hasPrefix("GLIBC_TUNABLES=") }
        if let tunables {
            let visible = "GLIBC_TUNABLES=" + (tunables.split(separator: ":").first.map(String.init) ?? tunables)
            #expect(seen?.hasPrefix(visible) == true, "\(seen ?? "none")")
        } else {
            #expect(seen == nil)
        }
        #expect(
            started.first { $0.hasPrefix("PUSHMOCK_ORIGINAL_GLIBC_TUNABLES=") }
                == original.map { "PUSHMOCK_ORIGINAL_GLIBC_TUNABLES=" + $0 })
        // And it serves.
        #expect(server.info.cleartext != nil)
        _ = await server.stop()
    }

    /// The event-loop threads of a running `pushmock serve` (NIO names them `NIO-ELT-…` for
    /// a group of its own, `NIO-SGLTN-…` for the shared one).
    static func eventLoopThreads(of server: ServeProcess) throws -> [String] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.pid)/task")
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(server.process.pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }.filter { $0.hasPrefix("NIO-ELT-") || $0.hasPrefix("NIO-SGLTN-") }
    }

    @Test(
        "confined to one CPU (taskset), the gateway runs one event loop; --threads still wins",
        .enabled(if: isGlibcLinux && FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")))
    func oneLoopPerAllowedCPU() async throws {
        let pinned = try await ServeProcess(launcher: ["/usr/bin/taskset", "-c", "0"])
        defer { pinned.removeDirectory() }
        #expect(try Self.eventLoopThreads(of: pinned).count == 1)
        _ = await pinned.stop()

        let explicit = try await ServeProcess(arguments: ["--threads", "3"], launcher: ["/usr/bin/taskset", "-c", "0"])
        defer { explicit.removeDirectory() }
        #expect(try Self.eventLoopThreads(of: explicit).count == 3)
        _ = await explicit.stop()
    }
}
