import Foundation
import PushMockCore
package import PushMockGateway
import PushMockJSON
package import PushMockToolkit

/// `GET /_pushmock/report`: the funnel sent → accepted → delivered → displayed → opened/acted
/// per type, category, priority and platform, and delivery latency per priority against the
/// targets given as `target=critical=high:5s` (repeatable). `format=json` (default), `text` or
/// `junit`; 200 when every target holds, 417 when one is missed (`docs/engagement.md`).
extension CheckControlAPI {
    func report(_ request: ControlRequest, context: ControlAPIContext) throws -> HTTPResponseMessage {
        guard request.matches("GET", "report") else {
            throw ControlAPIError(
                405, "\(request.method) is not supported on /_pushmock/\(request.segments.joined(separator: "/")); GET report")
        }
        // As `GET /recordings`: an item the report does not take is a mistake to name, not one
        // to ignore (`?targt=…` judged no target and passed).
        for item in request.queryItems where item.name != "format" && item.name != "target" {
            throw ControlAPIError(400, "unknown query item \(item.name); GET /_pushmock/report takes format and target")
        }
        let format = request.query["format"] ?? "json"
        guard ["json", "junit", "text"].contains(format) else { throw ControlAPIError(400, "format is json, junit or text") }
        var targets: [LatencyTarget] = []
        for item in request.queryItems where item.name == "target" {
            do {
                targets.append(try LatencyTarget(parsing: item.value))
            } catch {
                throw ControlAPIError(400, error.description)
            }
        }
        let report = FunnelReport(entries: Self.funnelEntries(context.state), targets: targets)
        let status = report.passed ? 200 : 417
        var headers = HTTPHeaderList()
        switch format {
        case "text":
            headers.append(name: "content-type", value: "text/plain; charset=utf-8")
            return HTTPResponseMessage(status: status, headers: headers, body: Array(report.text.utf8))
        case "junit":
            headers.append(name: "content-type", value: "application/xml")
            return HTTPResponseMessage(status: status, headers: headers, body: Array(report.junit.utf8))
        default:
            return try ControlAPI.encoded(report, status: status)
        }
    }

    /// The funnel entries of a running gateway: its simulated devices and refused recordings.
    package static func funnelEntries(_ state: GatewayState) -> [FunnelEntry] {
        state.funnelFacts().map { fact in
            FunnelEntry(
                platform: fact.platform,
                type: fact.type,
                category: fact.category,
                priority: fact.priority,
                accepted: fact.accepted,
                deliveryLatencyMilliseconds: fact.deliveryLatencyMilliseconds,
                displayed: fact.displayed,
                opened: fact.opened,
                acted: fact.acted,
                dismissed: fact.dismissed
            )
        }
    }
}
