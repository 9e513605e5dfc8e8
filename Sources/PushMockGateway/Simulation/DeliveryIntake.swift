import PushMockCore
import PushMockJSON
import PushMockSimulation

/// Turns accepted notifications into deliveries for the simulated devices: which device,
/// under which storage rules, with what priority, expiry and collapse keys — read from the
/// request exactly as the real service reads it.
struct DeliveryIntake {
    let options: SimulationOptions
    let fcmTokens: FCMRegistry
    /// Shares what this connection's notifications repeat: payloads, app names, templates.
    let interner: DeliveryInterner

    init(options: SimulationOptions, fcmTokens: FCMRegistry, ledger: ContentLedger) {
        self.options = options
        self.fcmTokens = fcmTokens
        interner = DeliveryInterner(ledger: ledger)
    }

    typealias Delivery = SimulatedDelivery

    /// An accepted `POST /3/device/<token>`.
    func apns(_ outcome: APNsExchange, now: Timestamp) -> Delivery? {
        guard outcome.status == 200, let headers = outcome.headers, let token = outcome.canonicalDeviceToken, let topic = outcome.topic
        else {
            return nil
        }
        let pushType = outcome.pushType ?? .alert
        let collapseID = headers.collapseID
        let notification = SimulatedNotification(
            identifier: outcome.apnsIDValue.map { NotificationID(outcome.apnsID, uuid: $0) } ?? NotificationID(outcome.apnsID),
            sentAt: now,
            priority: DeliveryPriority(headers.effectivePriority),
            expiry: apnsExpiry(headers.expiration, now: now),
            content: interner.content(
                app: pushType.bundleID(fromTopic: topic) ?? topic,
                collapseKey: collapseID,
                displayKey: pushType == .alert ? collapseID : nil,
                kind: pushType.rawValue,
                payload: outcome.request.body
            )
        )
        return Delivery(address: DeviceAddress(apnsToken: token), policy: .apns, notification: notification)
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
                    sentAt: now,
                    priority: DeliveryPriority(values.priority ?? .immediate),
                    expiry: apnsExpiry(values.expiration, now: now),
                    content: interner.content(
                        app: project.rawValue,
                        collapseKey: collapseID,
                        displayKey: collapseID,
                        kind: kind,
                        payload: payload
                    )
                )
                return Delivery(address: DeviceAddress(service: .fcm, token: token.rawValue), policy: .apns, notification: notification)
            case .web:
                let headers = message.webpush?.headers
                let urgency = headers.flatMap { Self.value(named: "Urgency", in: $0) }?.lowercased()
                let ttl =
                    headers.flatMap { Self.value(named: "TTL", in: $0) }.flatMap { Int64($0) } ?? FCMMessageValidator.maximumTTLSeconds
                notification = SimulatedNotification(
                    id: name,
                    sentAt: now,
                    priority: urgency == "high" ? .high : (urgency == "low" || urgency == "very-low" ? .low : .normal),
                    expiry: Self.expiry(afterMilliseconds: Double(ttl) * 1000, from: now),
                    content: interner.content(
                        app: project.rawValue,
                        collapseKey: headers.flatMap { Self.value(named: "Topic", in: $0) },
                        displayKey: nil,
                        kind: kind,
                        payload: payload
                    )
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
                    sentAt: now,
                    priority: priority,
                    expiry: Self.expiry(afterMilliseconds: Double(ttl) * 1000, from: now),
                    content: interner.content(
                        app: project.rawValue,
                        collapseKey: android?.collapseKey,
                        displayKey: android?.notification?.tag,
                        kind: kind,
                        payload: payload
                    )
                )
            }
            return Delivery(address: DeviceAddress(service: .fcm, token: token.rawValue), policy: .fcm, notification: notification)
        }
    }

    /// An accepted Expo send: one delivery per ok ticket relayed, following the storage rules
    /// of the service Expo relays to (APNs for iOS tokens, FCM for Android).
    func expo(_ outcome: ExpoSendExchange, now: Timestamp) -> [Delivery] {
        guard outcome.status == 200, let send = outcome.send, !outcome.relayed.isEmpty else { return [] }
        return outcome.relayed.compactMap { index -> Delivery? in
            let message = send.entries[index].message
            guard case .ok(let id) = outcome.tickets[index] else { return nil }
            let platform = outcome.platforms[index] ?? .ios
            let hasAlert = message.title != nil || message.body != nil || message.subtitle != nil
            let expiry: DeliveryExpiry
            if let ttl = message.ttl {
                expiry = Self.expiry(afterMilliseconds: ttl * 1000, from: now)
            } else if let expiration = message.expiration {
                let at = Self.clamped(millisecondsSince1970: expiration * 1000)
                expiry = at <= now ? .immediately : .at(at)
            } else {
                // Expo leaves the default to the provider.
                switch platform {
                case .ios: expiry = .at(now + options.apnsDefaultStorage)
                case .android: expiry = .at(now + .seconds(FCMMessageValidator.maximumTTLSeconds))
                }
            }
            let priority: DeliveryPriority
            switch platform {
            // Expo: "default" is high on iOS and normal on Android.
            case .ios: priority = message.priority == .normal ? .normal : .high
            case .android: priority = message.priority == .high ? .high : .normal
            }
            let notification = SimulatedNotification(
                id: id.rawValue,
                sentAt: now,
                priority: priority,
                expiry: expiry,
                content: interner.content(
                    app: send.project ?? "expo",
                    collapseKey: message.collapseID,
                    displayKey: platform == .ios ? message.collapseID : message.tag,
                    kind: hasAlert ? "notification" : "data",
                    payload: JSONValue.object(message.object).compactBytes
                )
            )
            return Delivery(
                address: DeviceAddress(service: .expo, token: message.to), policy: platform == .ios ? .apns : .fcm,
                notification: notification)
        }
    }

    private func apnsExpiry(_ expiration: Int64?, now: Timestamp) -> DeliveryExpiry {
        guard let expiration else { return .at(now + options.apnsDefaultStorage) }
        return expiration == 0 ? .immediately : .at(Self.clamped(millisecondsSince1970: Double(expiration) * 1000))
    }

    /// Kept for `milliseconds` after `now`; none when zero or less.
    private static func expiry(afterMilliseconds milliseconds: Double, from now: Timestamp) -> DeliveryExpiry {
        milliseconds <= 0 ? .immediately : .at(clamped(millisecondsSince1970: Double(now.millisecondsSince1970) + milliseconds))
    }

    /// A sender's expiry as a time the gateway handles (years 1–9999): the wire takes any
    /// 64-bit `apns-expiration` and any safe number in Expo's `ttl`, whose far-future values
    /// mean "as long as storage keeps it" and must not overflow the millisecond count.
    private static func clamped(millisecondsSince1970 milliseconds: Double) -> Timestamp {
        let range = InputLimits.timestampMilliseconds
        return Timestamp(millisecondsSince1970: Int64(min(max(milliseconds, Double(range.lowerBound)), Double(range.upperBound))))
    }

    /// RFC 8030 header names are case-insensitive; FCM passes the map as sent.
    private static func value(named name: String, in headers: FCMStringMap) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}
