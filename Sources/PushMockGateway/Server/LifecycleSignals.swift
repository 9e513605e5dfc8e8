import NIOCore
@_spi(Locking) import PushMockCore
import PushMockTransport

/// Completes waiters once the listeners are bound (or failed to bind).
final class ReadinessSignal: Sendable {
    private enum State {
        case waiting([CheckedContinuation<GatewayServerInfo, any Error>])
        case ready(GatewayServerInfo)
        case failed(any Error)
    }

    private let state = SanitizerVisibleMutex(State.waiting([]))

    func succeed(_ info: GatewayServerInfo) {
        let waiters = state.withLock { state -> [CheckedContinuation<GatewayServerInfo, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .ready(info)
            return waiters
        }
        waiters.forEach { $0.resume(returning: info) }
    }

    func fail(_ error: any Error) {
        let waiters = state.withLock { state -> [CheckedContinuation<GatewayServerInfo, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .failed(error)
            return waiters
        }
        waiters.forEach { $0.resume(throwing: error) }
    }

    func wait() async throws -> GatewayServerInfo {
        try await withCheckedThrowingContinuation { continuation in
            let immediate: Result<GatewayServerInfo, any Error>? = state.withLock { state in
                switch state {
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                case .ready(let info):
                    return .success(info)
                case .failed(let error):
                    return .failure(error)
                }
            }
            if let immediate {
                continuation.resume(with: immediate)
            }
        }
    }
}

/// A one-shot signal: `wait()` returns once `signal()` was called (before or after).
final class ShutdownSignal: Sendable {
    private struct State {
        var signalled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = SanitizerVisibleMutex(State())

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.signalled else { return [] }
            state.signalled = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let signalled = state.withLock { state -> Bool in
                if state.signalled { return true }
                state.waiters.append(continuation)
                return false
            }
            if signalled {
                continuation.resume()
            }
        }
    }
}

/// Tracks open connections so shutdown can ask them to quiesce and, after a grace period,
/// close what is left (for example streams an injected fault left hanging).
final class ConnectionTracker: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var drainWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = SanitizerVisibleMutex(State())

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { $0.channels[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            let waiter = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.channels.removeValue(forKey: id)
                guard state.channels.isEmpty else { return nil }
                defer { state.drainWaiter = nil }
                return state.drainWaiter
            }
            waiter?.resume()
        }
    }

    var count: Int { state.withLock { $0.channels.count } }

    /// Tracks `channel` if fewer than `limit` connections are open; `false` (not tracked)
    /// otherwise. Counting and adding happen under one lock, so the cap holds under a burst.
    func admit(_ channel: any Channel, limit: Int) -> Bool {
        let admitted = state.withLock { state -> Bool in
            guard state.channels.count < limit else { return false }
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
        if admitted { add(channel) }
        return admitted
    }

    /// Asks every connection to quiesce (HTTP/2: GOAWAY; HTTP/1.1: close after the current
    /// response), waits up to `gracePeriod`, then closes the rest.
    func drain(gracePeriod: Duration) async {
        let channels = state.withLock { Array($0.channels.values) }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let done = self.state.withLock { state -> Bool in
                        if state.channels.isEmpty { return true }
                        state.drainWaiter = continuation
                        return false
                    }
                    if done { continuation.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(for: gracePeriod)
            }
            await group.next()
            group.cancelAll()
            // Force-close whatever is still open; this also releases the waiter above.
            let remaining = self.state.withLock { Array($0.channels.values) }
            for channel in remaining {
                try? await channel.close()
            }
            await group.waitForAll()
        }
    }
}

/// Closes a connection on which nothing was read or written for the idle timeout
/// (``ConnectionLimits/idleTimeout``); `IdleStateHandler` before it says when.
final class IdleConnectionCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            // HTTP/2 gets a GOAWAY {"reason":"IdleTimeout"} first (APNs lists that reason);
            // the connection closes a moment later either way.
            context.fireUserInboundEventTriggered(ConnectionIdleEvent())
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(100)) {
                context.close(promise: nil)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
