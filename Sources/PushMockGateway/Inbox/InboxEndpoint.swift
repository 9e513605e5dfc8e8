import PushMockCore
import PushMockRecording
import PushMockSimulation

/// A request for the web inbox's page or one of its files: never recorded, never faulted.
struct InboxExchange: EndpointExchange {
    let request: HTTPRequestMessage
    var reply: HTTPReply?

    var isAccepted: Bool { false }
    var faultFacts: FaultFacts { FaultFacts() }
}

/// `GET /` and `GET /inbox/…` on a listener that serves the inbox (the cleartext one, and
/// `--inbox-port`): the page, its stylesheet and its script, compiled into the binary
/// (``InboxAssets``). Everything the page shows it then fetches from the control API.
///
/// Routed only for `GET`/`HEAD` of those paths on those listeners, so `/` on the TLS listener,
/// and any other method or path, stay APNs's 404 `BadPath` (``UnroutedEndpoint``).
struct InboxEndpoint: GatewayEndpoint {
    static var faultPlatform: Platform? { nil }

    /// Where the page's files live; `/` is the page itself.
    static let assetPrefix = "/inbox/"

    /// Whether the inbox serves `request` (on a listener that serves the inbox at all).
    static func serves(_ request: HTTPRequestMessage) -> Bool {
        guard request.method == "GET" || request.method == "HEAD" else { return false }
        let path = request.pathWithoutQuery
        return path == "/" || (path.hasPrefix(assetPrefix) && InboxAssets.asset(named: String(path.dropFirst(assetPrefix.count))) != nil)
    }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> InboxExchange {
        InboxExchange(request: request)
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout InboxExchange, in context: PipelineContext) {}

    func applyState(_ exchange: inout InboxExchange, in context: PipelineContext) {
        let path = exchange.request.pathWithoutQuery
        let name = path == "/" ? InboxAssets.pageName : String(path.dropFirst(Self.assetPrefix.count))
        guard let asset = InboxAssets.asset(named: name) else {
            // `serves(_:)` routed only known files here.
            exchange.reply = .respond(HTTPResponseMessage(status: 404, headers: HTTPHeaderList(), body: []))
            return
        }
        var headers = HTTPHeaderList(fields: 6, bytes: 320)
        headers.append(name: "content-type", value: asset.contentType)
        // The page is small and changes with the binary: always revalidate.
        headers.append(name: "cache-control", value: "no-cache")
        headers.append(name: "x-content-type-options", value: "nosniff")
        // Only our own script and style; payload images may come from anywhere (that is what
        // the preview is for). No page may frame the inbox: its buttons clear recordings and
        // change the clock, and a framed inbox's own requests are same-origin (clickjacking).
        headers.append(
            name: "content-security-policy",
            value:
                "default-src 'self'; img-src * data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
        )
        headers.append(name: "x-frame-options", value: "DENY")
        exchange.reply = .respond(HTTPResponseMessage(status: 200, headers: headers, body: asset.bytes))
    }

    func record(_ exchange: InboxExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord)
        -> Bool
    {
        false
    }
}
