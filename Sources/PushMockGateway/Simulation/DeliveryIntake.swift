import PushMockCore
import PushMockJSON
import PushMockSimulation

/// Turns accepted notifications into deliveries for the simulated devices: which device,
/// under which storage rules, with what priority, expiry and collapse keys — read from the
/// request exactly as the real service reads it.
struct DeliveryIntake {
    let options: SimulationOptions
    let fcmTokens: FCMRegistry

    typealias Delivery = (address: DeviceAddress, policy: StoragePolicy, notification: SimulatedNotification)

    /// An accepted `POST /3/device/<token>`.
    func apns(_ outcome: APNsExchange, now: Timestamp) -> Delivery? {
        guard outcome.status == 200, let headers = outcome.headers, let token = outcome.deviceToken, let topic = outcome.topic else {
            return nil
        }
        let pushType = outcome.pushType ?? .alert
        let collapseID = headers.collapseID
        let notification = SimulatedNotification(
            id: outcome.apnsID,
            app: pushType.bundleID(fromTopic: topic) ?? topic,
            sentAt: now,
            priority: DeliveryPriority(headers.effectivePriority),
            expiry: apnsExpiry(headers.expiration, now: now),
            collapseKey: collapseID,
            displayKey: pushType == .alert ? collapseID : nil,
            kind: pushType.rawValue,
            payload: outcome.request.body
        )
        return (DeviceAddress(service: .apns, token: token), .apns, notification)
    }

    /// An accepted FCM `messages:send` (not a dry run): one delivery per resolved token.
    func fcm(_ outcome: FCMSendExchange, now: Timestamp) -> [Delivery] {
        guard outcome.status == 200, let send = outcome.send, !send.validateOnly, let name = outcome.messageName,
              let project = outcome.project, !outcome.resolvedTokens.isEmpty
        else { return [] }
        let message = send.message
        let payload = send.rawMessage.compactBytes
        let hasNotification = message.notification != nil || message.android?.notification != nil
        let kind = hasNotification ? "notification" : "data"
        return outcome.resolvedTokens.map { token in
            let platform = fcmTokens.lookup(token)?.platform ?? .android
            let notification: SimulatedNotification
            switch platform {
            case .ios:
                // FCM hands iOS messages to APNs: APNs's storage rules and headers apply.
                let values = message.apns?.headerValues ?? APNsNotificationHeaders()
                let collapseID = values.collapseID
                notification = SimulatedNotification(
                    id: name,
                    app: project,
                    sentAt: now,
                    priority: DeliveryPriority(values.priority ?? .immediate),
                    expiry: apnsExpiry(values.expiration, now: now),
                    collapseKey: collapseID,
                    displayKey: collapseID,
                    kind: kind,
                    payload: payload
                )
                return (DeviceAddress(service: .fcm, token: token), .apns, notification)
            case .web:
                let headers = message.webpush?.headers
                let urgency = headers.flatMap { Self.value(named: "Urgency", in: $0) }?.lowercased()
                let ttl = headers.flatMap { Self.value(named: "TTL", in: $0) }.flatMap { Int64($0) } ?? FCMMessageValidator.maximumTTLSeconds
                notification = SimulatedNotification(
                    id: name,
                    app: project,
                    sentAt: now,
                    priority: urgency == "high" ? .high : (urgency == "low" || urgency == "very-low" ? .low : .normal),
                    expiry: ttl <= 0 ? .immediately : .at(now + .seconds(ttl)),
                    collapseKey: headers.flatMap { Self.value(named: "Topic", in: $0) },
                    displayKey: nil,
                    kind: kind,
                    payload: payload
                )
            case .android:
                let android = message.android
                let priority: DeliveryPriority
                switch android?.priority {
                case .some(let value) where value == .high: priority = .high
                case .some: priority = .normal
                // FCM: notification messages default to high priority, data messages to normal.
                case .none: priority = hasNotification ? .high : .normal
                }
                let ttl = android?.ttlSeconds ?? FCMMessageValidator.maximumTTLSeconds
                notification = SimulatedNotification(
                    id: name,
                    app: project,
                    sentAt: now,
                    priority: priority,
                    expiry: ttl <= 0 ? .immediately : .at(now + .seconds(ttl)),
                    collapseKey: android?.collapseKey,
                    displayKey: android?.notification?.tag,
                    kind: kind,
                    payload: payload
                )
            }
            return (DeviceAddress(service: .fcm, token: token), .fcm, notification)
        }
    }

    private func apnsExpiry(_ expiration: Int64?, now: Timestamp) -> DeliveryExpiry {
        guard let expiration else { return .at(now + options.apnsDefaultStorage) }
        return expiration == 0 ? .immediately : .at(Timestamp(secondsSince1970: expiration))
    }

    /// RFC 8030 header names are case-insensitive; FCM passes the map as sent.
    private static func value(named name: String, in headers: FCMStringMap) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}
