import Logging
import NIOCore
import PushMockCore
import PushMockRecording
import PushMockTransport

/// The responder of one connection: routes each request, answers it, records it, and makes the
/// records durable before any answer of the batch goes out. Runs on the connection's event loop.
final class GatewayConnection: HTTPConnectionResponder {
    private let context: GatewayConnectionContext
    private let state: GatewayState
    private let apns: APNsService
    private let controlAPI: ControlAPI
    private let recorder: ExchangeRecorder
    private let eventLoop: any EventLoop
    private let logger: Logger

    init(
        context: GatewayConnectionContext,
        state: GatewayState,
        controlAPI: ControlAPI,
        eventLoop: any EventLoop,
        logger: Logger
    ) {
        self.context = context
        self.state = state
        self.apns = APNsService(options: state.apnsOptions, keys: state.apnsKeys, devices: state.devices)
        self.controlAPI = controlAPI
        self.recorder = ExchangeRecorder(store: state.recordings, journal: state.journal)
        self.eventLoop = eventLoop
        self.logger = logger
    }

    func respond(to requests: [HTTPRequestMessage]) -> HTTPReplyBatch {
        let now = state.clock.now()
        var replies: [HTTPReply] = []
        replies.reserveCapacity(requests.count)
        var records: [ExchangeRecord] = []
        records.reserveCapacity(requests.count)
        for request in requests {
            let started = ContinuousClock.now
            switch GatewayRoute(request) {
            case .control:
                replies.append(controlAPI.handle(request))
            case .apnsDevice:
                let outcome = apns.handle(request, connection: context, now: now)
                replies.append(outcome.reply)
                records.append(
                    ExchangeRecorder.apnsRecord(
                        request: request,
                        outcome: outcome,
                        connection: context,
                        time: now,
                        latencyMicroseconds: Self.microseconds(since: started)
                    )
                )
            case .unknown:
                let outcome = apns.handleUnknownPath(request, connection: context)
                replies.append(outcome.reply)
                records.append(
                    ExchangeRecorder.apnsRecord(
                        request: request,
                        outcome: outcome,
                        connection: context,
                        time: now,
                        latencyMicroseconds: Self.microseconds(since: started)
                    )
                )
            }
        }
        guard !records.isEmpty else { return .immediate(replies) }

        switch recorder.commit(&records, eventLoop: eventLoop) {
        case .done:
            return .immediate(replies)
        case .pending(let durable):
            let logger = self.logger
            let fallback = Self.internalErrorReplies(for: replies)
            let answered = replies
            return .deferred(
                durable.map { answered }.recover { error in
                    logger.error("journal write failed; answering 500", metadata: ["error": "\(error)"])
                    return fallback
                }
            )
        case .failed(let error):
            logger.error("journal write failed; answering 500", metadata: ["error": "\(error)"])
            return .immediate(Self.internalErrorReplies(for: replies))
        }
    }

    func connectionClosed() {}

    /// When an exchange cannot be made durable, the client must not believe it succeeded.
    private static func internalErrorReplies(for replies: [HTTPReply]) -> [HTTPReply] {
        replies.map { _ in
            let error = APNsError(.internalServerError)
            var headers = HTTPHeaderList()
            headers.append(name: "content-type", value: "application/json")
            return HTTPReply(.respond(HTTPResponseMessage(status: error.status, headers: headers, body: error.body)))
        }
    }

    private static func microseconds(since start: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}

/// Where a request goes, by path. All services share one port, as they share a process.
enum GatewayRoute {
    /// `/_pushmock/…`: the control API (not recorded).
    case control
    /// `/3/device/…`: the APNs provider API.
    case apnsDevice
    /// Anything else: APNs answers 404 BadPath.
    case unknown

    static let controlPrefix = "/_pushmock/"

    init(_ request: HTTPRequestMessage) {
        let path = request.path
        if path.hasPrefix("/3/device") {
            self = .apnsDevice
        } else if path.hasPrefix(Self.controlPrefix) || path == "/_pushmock" {
            self = .control
        } else {
            self = .unknown
        }
    }
}
