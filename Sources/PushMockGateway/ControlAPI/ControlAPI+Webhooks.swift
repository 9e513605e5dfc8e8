import Foundation
import PushMockCore
import PushMockJSON
import PushMockWebhooks

/// `/_pushmock/webhooks…`: webhooks on receipt (`docs/webhooks.md`).
///
/// | Method | Path | Body |
/// |---|---|---|
/// | GET | /webhooks | every webhook with counts and recent deliveries (each with its attempts) |
/// | POST | /webhooks | one or many ``WebhookDefinition``s; answers the added webhooks (201) |
/// | GET | /webhooks/{id} | one webhook |
/// | DELETE | /webhooks/{id} | remove it (its queued events are dropped, retries stop) |
extension ControlAPI {
    func webhookRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        let webhooks = state.webhooks
        if request.matches("GET", "webhooks") {
            let filters = webhooks.filters
            return try Self.encoded(
                webhooks.dispatcher.reports().map { WebhookView(report: $0, filter: filters[$0.id], events: webhooks.eventTypes[$0.id]) },
                key: "webhooks")
        }
        if request.matches("POST", "webhooks") {
            let definitions: [WebhookDefinition] = try Self.decodeOneOrMany(request.body)
            let limit = state.registryLimits.webhooks
            let known = Set(webhooks.dispatcher.reports().map(\.id))
            let new = Set(definitions.compactMap(\.id)).subtracting(known).count + definitions.filter { $0.id == nil }.count
            try RegistryFull.check(count: known.count, adding: new, limit: limit, registry: .webhooks)
            var added: [String] = []
            do {
                for definition in definitions {
                    added.append(try webhooks.add(definition, now: state.clock.now()))
                }
            } catch {
                // All or nothing: a list with one bad definition adds none.
                for id in added { _ = webhooks.remove(id: id) }
                throw error
            }
            let filters = webhooks.filters
            let views = added.compactMap { id in
                webhooks.dispatcher.report(id: id).map { WebhookView(report: $0, filter: filters[id], events: webhooks.eventTypes[id]) }
            }
            return try Self.encoded(views, status: 201, key: "webhooks")
        }
        if request.matches("GET", "webhooks", "*") {
            let id = request.segments[1]
            guard let report = webhooks.dispatcher.report(id: id) else { throw ControlAPIError(404, "no webhook \"\(id)\"") }
            return try Self.encoded(WebhookView(report: report, filter: webhooks.filters[id], events: webhooks.eventTypes[id]))
        }
        if request.matches("DELETE", "webhooks", "*") {
            let id = request.segments[1]
            guard webhooks.remove(id: id) else { throw ControlAPIError(404, "no webhook \"\(id)\"") }
            return Self.json(status: 200, ["removed": .string(id)])
        }
        return nil
    }
}

/// A webhook as the API shows it: the dispatcher's report plus the recording filter.
struct WebhookView: Encodable {
    let report: WebhookReport
    let filter: String?
    /// `recording`, `delivery-receipt`, `engagement`.
    let events: [String]?

    private enum CodingKeys: String, CodingKey { case filter, events }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(filter ?? "", forKey: .filter)
        try container.encode(events ?? ["recording"], forKey: .events)
    }
}
