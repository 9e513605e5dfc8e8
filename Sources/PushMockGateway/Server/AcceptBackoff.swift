import Logging
import NIOCore

/// On a listener: after an accept fails (EMFILE: the descriptor limit; ENFILE, ENOBUFS,
/// ENOMEM), stops accepting for ``pause`` and then tries again; says so in the log at most
/// once every ``warningInterval``, with the number of failures since the last warning. The
/// listener stays open and connections already accepted are not touched.
///
/// NIO's `AcceptBackoffHandler` does not stop the spinning on Linux (swift-nio 2.101): after a
/// failed `accept4` the server channel still counts a read as pending, so it stays registered
/// for readable events; the waiting connections keep the listening socket readable
/// (level-triggered epoll) and the event loop calls `accept4` again at once — about 15,000
/// times a second on one core, measured with strace under `DescriptorExhaustionTests`.
/// Turning `autoRead` off unregisters the listener from epoll; turning it back on after the
/// pause registers it and reads again.
final class AcceptBackoff: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private let logger: Logger
    private let pause: TimeAmount
    private let warningInterval: TimeAmount
    private var lastWarning: NIODeadline?
    private var failuresSinceWarning = 0
    private var resumption: Scheduled<Void>?

    init(logger: Logger, pause: TimeAmount = .milliseconds(250), warningInterval: TimeAmount = .seconds(10)) {
        self.logger = logger
        self.pause = pause
        self.warningInterval = warningInterval
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let ioError = error as? IOError else {
            context.fireErrorCaught(error)
            return
        }
        failuresSinceWarning += 1
        warnIfDue(context, ioError)
        guard resumption == nil, let options = context.channel.syncOptions else { return }
        do {
            try options.setOption(.autoRead, value: false)
        } catch {
            return
        }
        resumption = context.eventLoop.assumeIsolated().scheduleTask(in: pause) {
            self.resumption = nil
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resumption?.cancel()
        resumption = nil
        context.fireChannelInactive()
    }

    private func warnIfDue(_ context: ChannelHandlerContext, _ error: IOError) {
        let now = NIODeadline.now()
        if let lastWarning, now - lastWarning < warningInterval { return }
        let port = context.channel.localAddress?.port.map(String.init) ?? "?"
        logger.warning(
            "cannot accept connections on port \(port): \(error); pausing accepts \(pause.nanoseconds / 1_000_000) ms at a time until descriptors are free (\(failuresSinceWarning) failure(s) since the last warning; see --max-connections and ulimit -n)"
        )
        lastWarning = now
        failuresSinceWarning = 0
    }
}
