import PushMockCore
import PushMockJSON
import PushMockRecording
import PushMockSimulation

/// One push to one device, as far as it got: the facts `GET /_pushmock/report` turns into the
/// toolkit's funnel (the gateway does not depend on the toolkit).
package struct FunnelFacts: Sendable, Hashable {
    package var platform: String
    package var type: String?
    package var category: String?
    package var priority: String?
    package var accepted: Bool
    package var deliveryLatencyMilliseconds: Int64?
    package var displayed = false
    package var opened = false
    package var acted = false
    package var dismissed = false
}

extension GatewayState {
    /// Every notification on a simulated device (accepted, one per device), plus every recorded
    /// push the service refused (not accepted, one per request), settled at the gateway's now.
    package func funnelFacts() -> [FunnelFacts] {
        var facts: [FunnelFacts] = []
        for device in simulatedDevices.devices(now: clock.now()) {
            for entry in device.notifications {
                let notification = entry.notification
                let face = NotificationFace(notification, service: device.address.service)
                // Displayed when it was delivered with something to show and notifications were
                // allowed then, or when the app said it displayed it.
                let onScreen = entry.deliveredAt != nil && !entry.suppressed && (face.visible || entry.engagement != nil)
                var fact = FunnelFacts(
                    platform: device.address.service.rawValue,
                    type: notification.kind,
                    category: face.category,
                    priority: notification.priority.rawValue,
                    accepted: true,
                    deliveryLatencyMilliseconds: entry.deliveredAt.map {
                        $0.millisecondsSince1970 - notification.sentAt.millisecondsSince1970
                    }
                )
                fact.displayed = onScreen || entry.displayedAt != nil
                switch entry.engagement {
                case .opened?: fact.opened = true
                case .dismissed?: fact.dismissed = true
                case .acted?: fact.acted = true
                default: break
                }
                facts.append(fact)
            }
        }
        // Only the exchanges whose summary can qualify are decoded: a store of 100,000 accepted
        // pushes decoded every record twice here (six seconds per report in a release build).
        let refused = decodedRecords { Platform.pushServices.contains($0.platform) && !(200..<300).contains($0.status) }
        for record in refused where record.notification != nil {
            let info = record.notification
            let priority: String? =
                record.platform == .apns
                ? info?.priority.map { $0 == 10 ? "high" : $0 == 5 ? "normal" : "low" } ?? "high" : nil
            facts.append(FunnelFacts(platform: record.platform.rawValue, type: info?.pushType, priority: priority, accepted: false))
        }
        // Expo answers a batch with 200 and one ticket per message: error tickets are refusals.
        let expoSends = decodedRecords { $0.platform == .expo && $0.status == 200 }
        for record in expoSends where record.request.path.hasPrefix("/--/api/v2/push/send") {
            guard let answer = try? JSONValue(parsing: record.response.body.bytes), let tickets = answer["data"]?.arrayValue else {
                continue
            }
            for ticket in tickets where ticket["status"]?.stringValue == "error" {
                facts.append(FunnelFacts(platform: Platform.expo.rawValue, accepted: false))
            }
        }
        return facts
    }

    /// The records whose summaries pass `filter`, newest first, decoded.
    private func decodedRecords(where filter: (ExchangeSummary) -> Bool) -> [ExchangeRecord] {
        recordings.entries(matching: filter).compactMap { try? $0.record() }
    }
}
