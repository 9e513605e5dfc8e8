import Foundation
@_spi(Locking) package import PushMockCore
import PushMockJSON
package import PushMockQuery
import PushMockRecording
package import PushMockSimulation
package import PushMockWebhooks
import Synchronization

/// Webhooks on receipt: each committed recording that a webhook's filter selects becomes a
/// `recording` event for the ``WebhookDispatcher``. On the request path it costs one atomic
/// load per batch while no webhook is configured; with webhooks, the batch's matching records
/// are encoded (their journal line) and queued under one lock, never waited for.
package final class RecordingWebhooks: Sendable {
    private struct Hook: Sendable {
        var id: String
        var query: RecordingQuery
        var filter: String?
        var events: Set<String>
    }

    /// The event types a webhook may ask for.
    package static let eventTypes: [WebhookEventType] = [.recording, .deliveryReceipt, .engagement]

    package let dispatcher: WebhookDispatcher
    private let hooks = SanitizerVisibleMutex<[Hook]>([])
    private let hookCount = Atomic<Int>(0)
    /// Told whether any webhook wants delivery receipts or engagement, so the simulator only
    /// collects them then.
    private let deviceEventsWanted = SanitizerVisibleMutex<(@Sendable (Bool) -> Void)?>(nil)

    package init(dispatcher: WebhookDispatcher) {
        self.dispatcher = dispatcher
    }

    /// A set without a metrics registry (tests and bare gateway states).
    package convenience init() {
        self.init(dispatcher: WebhookDispatcher())
    }

    // MARK: Configuration

    /// The longest wait for one receiver's answer.
    static let longestTimeout = Duration.seconds(3600)
    /// The longest wait between two attempts.
    static let longestBackoff = Duration.seconds(86_400)

    /// Adds a webhook; returns its id. Relative times in its filter (`since=-5m`) are resolved
    /// now, against `now` (the gateway's clock).
    @discardableResult
    package func add(_ definition: WebhookDefinition, now: @autoclosure () -> Timestamp = SystemClock().now()) throws -> String {
        let query = try Self.query(definition.filter, now: now())
        let events = Set(definition.events ?? [WebhookEventType.recording.name])
        let known = Self.eventTypes.map(\.name)
        if let unknown = events.first(where: { !known.contains($0) }) {
            throw DefinitionError("webhook events: unknown \"\(unknown)\" (expected \(known.joined(separator: ", ")))")
        }
        guard !events.isEmpty else { throw DefinitionError("webhook events: name at least one of \(known.joined(separator: ", "))") }
        let id = definition.id ?? dispatcher.unusedID()
        var retry = WebhookRetryPolicy()
        if let attempts = definition.maxAttempts {
            guard (1...20).contains(attempts) else { throw DefinitionError("webhook maxAttempts must be 1…20, not \(attempts)") }
            retry.maximumAttempts = attempts
        }
        // Bounded so that a wait is a wait: nanosecond arithmetic on a duration of centuries
        // traps, and no receiver is waited on for longer than an hour.
        for (name, wait) in [("initialBackoff", definition.initialBackoff), ("maxBackoff", definition.maxBackoff)] {
            guard let wait = wait?.duration else { continue }
            guard wait >= .zero, wait <= Self.longestBackoff else {
                throw DefinitionError("webhook \(name) must be 0s to 1d, not \(DurationText.format(wait))")
            }
        }
        if let wait = definition.initialBackoff?.duration { retry.initialBackoff = wait }
        if let wait = definition.maxBackoff?.duration { retry.maximumBackoff = wait }
        let timeout = definition.timeout?.duration ?? .seconds(5)
        guard timeout > .zero, timeout <= Self.longestTimeout else {
            throw DefinitionError("webhook timeout must be more than 0s and at most 1h, not \(DurationText.format(timeout))")
        }
        do {
            try dispatcher.add(
                WebhookSubscription(
                    id: id,
                    target: try WebhookTarget(url: definition.url),
                    secret: definition.secret.flatMap { $0.isEmpty ? nil : $0 },
                    timeout: timeout,
                    retry: retry,
                    verifyCertificate: definition.verifyCertificate ?? true,
                    trustedCertificates: try definition.caCertificate.map { path throws(WebhookConfigurationError) in
                        try WebhookSubscription.certificates(pemFile: path)
                    } ?? []
                )
            )
        } catch {
            throw DefinitionError(error.description)
        }
        hooks.withLock { hooks in
            hooks.append(Hook(id: id, query: query, filter: definition.filter, events: events))
            hookCount.store(hooks.count, ordering: .releasing)
        }
        announceDeviceEvents()
        return id
    }

    /// Removes a webhook; `false` when there is none with that id.
    package func remove(id: String) -> Bool {
        let removed = hooks.withLock { hooks -> Bool in
            let before = hooks.count
            hooks.removeAll { $0.id == id }
            hookCount.store(hooks.count, ordering: .releasing)
            return hooks.count != before
        }
        announceDeviceEvents()
        return dispatcher.remove(id: id) || removed
    }

    /// The filter of each webhook, by id.
    package var filters: [String: String] {
        hooks.withLock { hooks in Dictionary(hooks.map { ($0.id, $0.filter ?? "") }, uniquingKeysWith: { $1 }) }
    }

    /// The event types of each webhook, by id.
    package var eventTypes: [String: [String]] {
        hooks.withLock { hooks in Dictionary(hooks.map { ($0.id, $0.events.sorted()) }, uniquingKeysWith: { $1 }) }
    }

    /// Calls `handler` now and whenever webhooks change, with whether any wants delivery
    /// receipts or engagement.
    package func onDeviceEventsWanted(_ handler: @escaping @Sendable (Bool) -> Void) {
        deviceEventsWanted.withLock { $0 = handler }
        announceDeviceEvents()
    }

    /// Reads the webhooks and tells the handler under one lock, so concurrent changes cannot
    /// announce out of order (a late "not wanted" would silence a webhook just added).
    private func announceDeviceEvents() {
        deviceEventsWanted.withLock { handler in
            let wanted = hooks.withLock { hooks in
                hooks.contains {
                    $0.events.contains(WebhookEventType.deliveryReceipt.name) || $0.events.contains(WebhookEventType.engagement.name)
                }
            }
            handler?(wanted)
        }
    }

    /// Queues delivery receipts and engagement events for the webhooks that asked for them.
    package func offer(deviceEvents: [DeliverySimulator.DeviceEvent]) {
        guard !deviceEvents.isEmpty, hookCount.load(ordering: .acquiring) > 0 else { return }
        let current = hooks.withLock { $0 }
        var events: [(webhook: String, event: WebhookEvent)] = []
        for (address, event) in deviceEvents {
            let type: WebhookEventType = event.kind == .delivered ? .deliveryReceipt : .engagement
            let wanting = current.filter { $0.events.contains(type.name) }
            guard !wanting.isEmpty else { continue }
            var object = JSONObject()
            object.members.append((key: "service", value: .string(address.service.rawValue)))
            object.members.append((key: "token", value: .string(address.token)))
            object.members.append((key: "event", value: .string(event.kind.rawValue)))
            object.members.append((key: "at", value: .string(event.at.description)))
            if let id = event.notificationID { object.members.append((key: "id", value: .string(id))) }
            if let sequence = event.sequence { object.members.append((key: "sequence", value: JSONValue(Int(sequence)))) }
            if let action = event.actionID { object.members.append((key: "action", value: .string(action))) }
            if let reason = event.reason { object.members.append((key: "reason", value: .string(reason))) }
            let data = JSONValue.object(object).compactBytes
            // The same id on every attempt, so the receiver can deduplicate.
            let id = "\(type.name)-\(event.kind.rawValue)-\(address.service.rawValue)-\(address.token)-\(event.notificationID ?? "")"
            for hook in wanting {
                events.append((hook.id, WebhookEvent(type: type, id: id, data: data)))
            }
        }
        dispatcher.enqueue(events)
    }

    /// Stops delivering (shutdown).
    package func shutdown() {
        dispatcher.shutdown()
    }

    // MARK: Request path

    /// Queues the committed records (with their sequence numbers) for the webhooks whose
    /// filters select them.
    func offer(_ records: [ExchangeRecord]) {
        guard !records.isEmpty, hookCount.load(ordering: .acquiring) > 0 else { return }
        let current = hooks.withLock { $0 }
        var events: [(webhook: String, event: WebhookEvent)] = []
        for record in records {
            var data: [UInt8]?
            for hook in current where hook.events.contains(WebhookEventType.recording.name) && hook.query.matches(record) {
                if data == nil {
                    var line: [UInt8] = []
                    record.encodeJSONLine(into: &line)
                    if line.last == 0x0A { line.removeLast() }
                    data = line
                }
                events.append((hook.id, WebhookEvent(type: .recording, id: "recording-\(record.sequence)", data: data!)))
            }
        }
        dispatcher.enqueue(events)
    }

    // MARK: Filters

    /// A filter in the REST query language; unknown item names are an error (a typo must not
    /// quietly select every recording).
    package static func query(_ filter: String?, now: @autoclosure () -> Timestamp = SystemClock().now()) throws -> RecordingQuery {
        guard let filter, !filter.isEmpty else { return RecordingQuery() }
        let text = filter.hasPrefix("?") ? filter.dropFirst() : Substring(filter)
        let items = ControlAPI.parseQueryItems(text)
        for item in items where !RecordingQuery.queryItemNames.contains(item.name) {
            throw DefinitionError(
                "webhook filter: unknown item \"\(item.name)\" (expected one of \(RecordingQuery.queryItemNames.sorted().joined(separator: ", ")))"
            )
        }
        return try RecordingQuery(queryItems: items, now: now())
    }
}
