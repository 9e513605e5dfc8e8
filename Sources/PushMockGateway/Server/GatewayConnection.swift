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
    private let fcm: FCMService
    private let oauth: OAuthService
    private let iid: IIDService
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
        self.fcm = FCMService(options: state.fcmOptions, tokens: state.accessTokens, registry: state.fcmTokens)
        self.oauth = OAuthService(options: state.fcmOptions, accounts: state.serviceAccounts, tokens: state.accessTokens)
        self.iid = IIDService(options: state.fcmOptions, tokens: state.accessTokens, registry: state.fcmTokens)
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
            case .fcm:
                let outcome = fcm.handle(request, now: now, random: &context.random)
                replies.append(outcome.reply)
                records.append(
                    ExchangeRecorder.fcmRecord(
                        request: request,
                        outcome: outcome,
                        connection: context,
                        time: now,
                        latencyMicroseconds: Self.microseconds(since: started)
                    )
                )
            case .oauth:
                let outcome = oauth.handle(request, now: now)
                replies.append(outcome.reply)
                records.append(
                    ExchangeRecorder.oauthRecord(
                        request: request,
                        outcome: outcome,
                        connection: context,
                        time: now,
                        latencyMicroseconds: Self.microseconds(since: started)
                    )
                )
            case .iid:
                let outcome = iid.handle(request, now: now)
                replies.append(outcome.reply)
                records.append(
                    ExchangeRecorder.iidRecord(
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
    /// `/v1/projects/…`, `/projects/…`, and the retired legacy `/fcm/send` and `/batch`: FCM.
    case fcm
    /// `/token`, `/oauth2/v4/token`: Google's OAuth2 token endpoint.
    case oauth
    /// `/iid/…`: the Instance ID topic API.
    case iid
    /// Anything else: APNs answers 404 BadPath (Google hosts get Google's 404).
    case unknown

    static let controlPrefix = "/_pushmock/"

    init(_ request: HTTPRequestMessage) {
        let path = request.pathWithoutQuery
        if path.hasPrefix("/3/device") {
            self = .apnsDevice
        } else if path.hasPrefix("/v1/") || path.hasPrefix("/projects/") || path == "/fcm/send" || path == "/batch" {
            self = .fcm
        } else if path == "/token" || path == "/oauth2/v4/token" {
            self = .oauth
        } else if path.hasPrefix("/iid/") {
            self = .iid
        } else if path.hasPrefix(Self.controlPrefix) || path == "/_pushmock" {
            self = .control
        } else if let authority = request.authority, Self.isGoogleHost(authority) {
            self = .fcm
        } else {
            self = .unknown
        }
    }

    static func isGoogleHost(_ authority: String) -> Bool {
        let host = authority.split(separator: ":").first.map(String.init)?.lowercased() ?? ""
        return host.hasSuffix(".googleapis.com")
    }
}
