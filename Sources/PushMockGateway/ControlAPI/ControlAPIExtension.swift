package import NIOPosix
package import PushMockCore
import Synchronization

/// Endpoints another target adds to the control API. The gateway knows only queries over
/// recordings; the check endpoints (`POST /_pushmock/expectations`, `/_pushmock/checks/…`) need
/// the toolkit's assertions, policies and route tables, so `PushMockCheckAPI` supplies them
/// through this protocol and `pushmock serve` and `withPushMock` install it
/// (``GatewayConfiguration/controlAPIExtensions``).
///
/// An extension owns whole areas: every request whose first path segment after `/_pushmock/`
/// is one of its ``areas`` goes to it, including the ones it must refuse (405, 404), so it
/// writes its own messages. The built-in areas (`recordings`, `faults`, …) cannot be taken.
package protocol ControlAPIExtension: Sendable {
    /// First path segments it serves, e.g. `["expectations", "checks"]`.
    var areas: Set<String> { get }

    /// Answers one request in its areas. Throw ``ControlAPIError`` for the answers the control
    /// API gives as `{"error": …}` (other errors become 500 or, for decoding errors, 400).
    func handle(_ request: ControlRequest, context: ControlAPIContext) throws -> ControlAPIReply
}

/// What an extension may use of the gateway it runs in.
package struct ControlAPIContext: Sendable {
    /// Registries, recordings and clock of the gateway.
    package let state: GatewayState
    /// The only way to read a file named in a request body (`--checks-dir`).
    package let files: ControlFileAccess

    /// The gateway's threads for blocking work (``runBlocking(_:)``).
    let blockingPool: NIOThreadPool

    package init(state: GatewayState, files: ControlFileAccess, blockingPool: NIOThreadPool) {
        self.state = state
        self.files = files
        self.blockingPool = blockingPool
    }

    /// Runs CPU-heavy work (a check over the whole store, a schedule of a million steps) on
    /// the gateway's own threads for blocking work: neither an event loop nor a thread of
    /// Swift's cooperative pool (which the long polls' timers and the webhooks need) waits for
    /// it, nor anything else of the process that uses NIO's shared pool (another gateway of a
    /// test run, an app's file I/O).
    ///
    /// When the waiting task is cancelled (its client hung up, the gateway is stopping), `work`
    /// is told through its ``BlockingWorkCancellation`` so that a long loop can stop early
    /// instead of holding a thread for seconds nobody waits for.
    package func runBlocking<Result: Sendable>(
        _ work: @escaping @Sendable (BlockingWorkCancellation) throws -> Result
    ) async throws -> Result {
        let cancellation = BlockingWorkCancellation()
        return try await withTaskCancellationHandler {
            try await blockingPool.runIfActive { try work(cancellation) }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

/// An extension's answer: now, or — for requests that wait (`within`) — computed later, off
/// the event loop.
package enum ControlAPIReply: Sendable {
    case now(HTTPResponseMessage)
    case later(@Sendable () async throws -> HTTPResponseMessage)
}

/// Tells blocking work that nobody waits for its result any more (``ControlAPIContext/runBlocking(_:)``).
package final class BlockingWorkCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)

    package init() {}

    package var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func cancel() { cancelled.store(true, ordering: .relaxed) }
}
