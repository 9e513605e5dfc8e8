import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PushMockCore
import PushMockTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The event-loop API the sender drives the client handler with: tagged requests reported
/// through a callback, batches sent without flushing, the end-of-read-cycle hook, cancelling
/// by stream, and the future-based connect.
@Suite("HTTP/2 client: tagged requests")
struct HTTP2ClientTaggedTests {
    /// What the callbacks saw, collected on the event loop and read afterwards.
    final class Observed: Sendable {
        let results = NIOLockedValueBox<[(UInt64, Int?)]>([])
        let readCycles = NIOLockedValueBox(0)
        /// Whether the test was told it may go on (a promise completes once).
        let finished = NIOLockedValueBox(false)
    }

    @Test("a batch sent without flushing goes out in one write; every tag is answered once")
    func batch() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.makeConnection(to: .init(host: "127.0.0.1", port: port)).get()
        try await client.remoteSettingsReceived().get()
        let observed = Observed()
        let done = client.eventLoop.makePromise(of: Void.self)
        let handler = client.loopBoundHandler
        try await client.eventLoop.submit {
            handler.value.onTaggedResponse = { tag, result in
                let status = try? result.get().status
                observed.results.withLockedValue { $0.append((tag, status)) }
            }
            // Done at the end of the read cycle that brought the last answer: succeeding in the
            // answer's callback let the test read `readCycles` before that cycle's hook ran.
            handler.value.onReadCycleProcessed = {
                let cycles = observed.readCycles.withLockedValue { cycles in
                    cycles += 1
                    return cycles
                }
                guard observed.results.withLockedValue({ $0.count }) == 50, cycles > 0 else { return }
                let first = observed.finished.withLockedValue { finished in
                    defer { finished = true }
                    return !finished
                }
                if first { done.succeed() }
            }
            for tag in 0..<50 {
                let sent = handler.value.send(
                    HTTPRequestMessage(method: "POST", path: "/n/\(tag)", body: [1]), tag: UInt64(tag), flush: false)
                #expect((try? sent.get()) == Int32(2 * tag + 1))
            }
            #expect(handler.value.inFlightCount == 50)
            handler.value.flushPending()
        }.get()
        try await done.futureResult.get()
        let results = observed.results.withLockedValue { $0 }
        #expect(results.map(\.0).sorted() == (0..<50).map(UInt64.init))
        #expect(results.allSatisfy { $0.1 == 200 })
        #expect(observed.readCycles.withLockedValue { $0 } >= 1)
        #expect(try await client.inFlightCount == 0)
        await client.close()
        try await server.close()
    }

    @Test(
        "a path suffix is sent joined to the request's path",
        arguments: [
            ("/3/device/", ""), ("/3/device/", "a"), ("/3/device/", String(repeating: "ab12", count: 16)),
            ("/", String(repeating: "x", count: 300)), ("", "/only-suffix"),
        ]
    )
    func pathSuffix(path: String, suffix: String) async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.makeConnection(to: .init(host: "127.0.0.1", port: port)).get()
        try await client.remoteSettingsReceived().get()
        let echoed = client.eventLoop.makePromise(of: String.self)
        let handler = client.loopBoundHandler
        try await client.eventLoop.submit {
            handler.value.onTaggedResponse = { _, result in
                echoed.completeWith(result.map { String(decoding: $0.body, as: UTF8.self) }.mapError { $0 as any Error })
            }
            let sent = handler.value.send(
                HTTPRequestMessage(method: "POST", path: path, body: [1]), pathSuffix: suffix, tag: 1, flush: true)
            #expect((try? sent.get()) == 1)
        }.get()
        // The echo responder answers with the method, the `:path` it received and the body size.
        #expect(try await echoed.futureResult.get() == "POST \(path + suffix) 1")
        await client.close()
        try await server.close()
    }

    @Test("within a read cycle the refill hook runs after every refillInterval responses; what it sends is answered")
    func refillWithinReadCycle() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.makeConnection(to: .init(host: "127.0.0.1", port: port)).get()
        try await client.remoteSettingsReceived().get()
        /// Event-loop state: responses since the hook last ran, the longest such run, the next tag.
        final class Progress {
            var sinceHook = 0
            var longestRun = 0
            var nextTag: UInt64 = 0
            var hookRuns = 0
        }
        let observed = Observed()
        let done = client.eventLoop.makePromise(of: Void.self)
        let handler = client.loopBoundHandler
        let total = 200
        let summary = try await client.eventLoop.submit { () -> NIOLoopBound<Progress> in
            let progress = NIOLoopBound(Progress(), eventLoop: client.eventLoop)
            handler.value.refillInterval = 10
            handler.value.onTaggedResponse = { tag, result in
                progress.value.sinceHook += 1
                progress.value.longestRun = max(progress.value.longestRun, progress.value.sinceHook)
                let status = try? result.get().status
                let count = observed.results.withLockedValue { results in
                    results.append((tag, status))
                    return results.count
                }
                if count == total { done.succeed() }
            }
            // Keeps 50 in flight, as the sender does: each hook refills what was answered.
            handler.value.onReadCycleProcessed = {
                progress.value.hookRuns += 1
                progress.value.sinceHook = 0
                while handler.value.inFlightCount < 50, progress.value.nextTag < UInt64(total) {
                    let tag = progress.value.nextTag
                    progress.value.nextTag += 1
                    _ = handler.value.send(HTTPRequestMessage(method: "POST", path: "/n/\(tag)", body: [1]), tag: tag, flush: false)
                }
            }
            handler.value.onReadCycleProcessed?()
            handler.value.flushPending()
            return progress
        }.get()
        try await done.futureResult.get()
        let results = observed.results.withLockedValue { $0 }
        #expect(results.map(\.0).sorted() == (0..<total).map(UInt64.init))
        #expect(results.allSatisfy { $0.1 == 200 })
        let (longestRun, hookRuns) = try await client.eventLoop.submit { (summary.value.longestRun, summary.value.hookRuns) }.get()
        // Without the mid-cycle hook a read cycle of 50 answers is one run of 50.
        #expect(longestRun <= 10)
        #expect(hookRuns >= total / 10)
        #expect(try await client.inFlightCount == 0)
        await client.close()
        try await server.close()
    }

    @Test("resets are reported with their tag; a cancelled stream is not reported at all")
    func resetAndCancel() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        let observed = Observed()
        let done = client.eventLoop.makePromise(of: Void.self)
        let handler = client.loopBoundHandler
        try await client.eventLoop.submit {
            handler.value.onTaggedResponse = { tag, result in
                var status: Int?
                if case .failure(let error) = result, error == HTTP2ClientError(.streamReset(.refusedStream)) { status = -1 }
                if case .success(let response) = result { status = response.status }
                let count = observed.results.withLockedValue { results in
                    results.append((tag, status))
                    return results.count
                }
                if count == 2 { done.succeed() }
            }
            let slow = try handler.value.send(HTTPRequestMessage(method: "GET", path: "/slow"), tag: 1, flush: false).get()
            _ = handler.value.send(HTTPRequestMessage(method: "GET", path: "/reset"), tag: 2, flush: false)
            #expect(handler.value.cancel(streamID: slow))
            #expect(!handler.value.cancel(streamID: slow))
            _ = handler.value.send(HTTPRequestMessage(method: "GET", path: "/fine"), tag: 3, flush: true)
        }.get()
        try await done.futureResult.get()
        // Give the (cancelled) slow reply time to arrive, had it not been reset.
        try await Task.sleep(for: .milliseconds(80))
        let results = observed.results.withLockedValue { $0 }.sorted { $0.0 < $1.0 }
        #expect(results.map(\.0) == [2, 3])
        #expect(results.map(\.1) == [-1, 200])
        await client.close()
        try await server.close()
    }

    @Test("after GOAWAY, tagged sends fail at once and in-flight tags get the GOAWAY")
    func goAway() async throws {
        let server = try await startCleartextServer()
        let port = try #require(server.localAddress?.port)
        let client = try await HTTP2ClientConnection.connect(to: .init(host: "127.0.0.1", port: port))
        let observed = NIOLockedValueBox<[HTTP2ClientError]>([])
        let done = client.eventLoop.makePromise(of: Void.self)
        let handler = client.loopBoundHandler
        try await client.eventLoop.submit {
            handler.value.onTaggedResponse = { _, result in
                if case .failure(let error) = result { observed.withLockedValue { $0.append(error) } }
                done.succeed()
            }
            _ = handler.value.send(HTTPRequestMessage(method: "GET", path: "/goaway"), tag: 7, flush: true)
        }.get()
        try await done.futureResult.get()
        let errors = observed.withLockedValue { $0 }
        guard case .goAway(let goAway) = errors.first?.kind else {
            Issue.record("\(errors)")
            return
        }
        #expect(String(decoding: goAway.debugData, as: UTF8.self) == #"{"reason":"Shutdown"}"#)
        let refused = try await client.eventLoop.submit {
            (handler.value.isAcceptingRequests, handler.value.send(HTTPRequestMessage(method: "GET", path: "/x"), tag: 8, flush: true))
        }.get()
        #expect(!refused.0)
        #expect(throws: HTTP2ClientError.self) { try refused.1.get() }
        await client.closeFuture()
        try await server.close()
    }

    @Test("makeConnection fails as a future when nothing listens")
    func connectFailure() async throws {
        // A port bound but never listened on: refused for as long as the socket is held, so no
        // other test's server can take the port in between (closing a server could let one).
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { Glibc.close(socket) }
        // Addresses go through NIO's `SocketAddress`, not `sockaddr_in`'s fields: which module
        // owns those fields for MemberImportVisibility (Glibc or NIO's C shim) depended on the
        // order this module's files were compiled in, and a clean build failed on them.
        let bound = try SocketAddress(ipAddress: "127.0.0.1", port: 0).withSockAddr { Glibc.bind(socket, $0, socklen_t($1)) }
        try #require(bound == 0)
        var named = [UInt8](repeating: 0, count: MemoryLayout<sockaddr_in>.size)
        var length = socklen_t(named.count)
        let result = named.withUnsafeMutableBytes { getsockname(socket, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length) }
        try #require(result == 0)
        let port = try #require(SocketAddress(named.withUnsafeBytes { $0.loadUnaligned(as: sockaddr_in.self) }).port)
        await #expect(throws: (any Error).self) {
            _ = try await HTTP2ClientConnection.makeConnection(to: .init(host: "127.0.0.1", port: port)).get()
        }
    }
}
