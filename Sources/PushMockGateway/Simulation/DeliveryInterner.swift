import PushMockCore
package import PushMockSimulation

/// Lets the notifications of one connection share what they repeat: a bulk send's template
/// (app, kind, keys and payload) as one ``NotificationContent``, and the buffers of its
/// payload and app name when templates alternate.
///
/// A device remembers every notification it received (up to ``DeliveryLimits``) with its
/// payload and app, so without sharing each push pins a request body and a string of its own
/// until the device's history forgets it — long after they left the cache, so releasing them
/// then is a miss each. Measured on the default server, TLS 4×100 with one payload for every
/// token (2026-11-25, `Benchmarks/README.md`): 12.1–12.4 → 11.7–11.8 µs per request.
/// Personalised payloads are not helped and cost one hash and compare each.
///
/// One per connection, used only on its event loop (no lock); it remembers the last
/// ``capacity`` distinct values of each kind.
package final class DeliveryInterner {
    package static let capacity = 64
    private var payloads: [Int: [UInt8]] = [:]
    private var apps: [String: String] = [:]
    private var lastPayload: [UInt8]?
    private var lastApp: String?
    private var lastContent: NotificationContent?
    /// Where the contents made here count their payloads (the simulator's).
    private let ledger: ContentLedger?

    package init(ledger: ContentLedger? = nil) {
        self.ledger = ledger
    }

    /// The app, kind, keys and payload of one notification as one shared object: the last one
    /// handed out when they are the same (a bulk send's every push), else a new one over shared
    /// buffers. Devices keep a reference to it instead of five strings and arrays each.
    package func content(app: String, collapseKey: String?, displayKey: String?, kind: String, payload: [UInt8]) -> NotificationContent {
        if let last = lastContent, last.hasValues(app: app, collapseKey: collapseKey, displayKey: displayKey, kind: kind, payload: payload)
        {
            return last
        }
        let made = NotificationContent(
            app: self.app(app), collapseKey: collapseKey, displayKey: displayKey, kind: kind, payload: self.payload(payload), ledger: ledger
        )
        lastContent = made
        return made
    }

    /// `bytes`, or an equal buffer handed out before.
    package func payload(_ bytes: [UInt8]) -> [UInt8] {
        // A bulk send repeats one payload back to back: one compare instead of hashing it.
        if let last = lastPayload, last.hasSameBytes(as: bytes) { return last }
        let shared = sharedPayload(bytes)
        lastPayload = shared
        return shared
    }

    private func sharedPayload(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        let key = hasher.finalize()
        if let known = payloads[key], known.hasSameBytes(as: bytes) { return known }
        if payloads.count >= Self.capacity { payloads.removeAll(keepingCapacity: true) }
        payloads[key] = bytes
        return bytes
    }

    /// `app`, or an equal string handed out before.
    package func app(_ app: String) -> String {
        // A connection's pushes are nearly always for one app: one compare instead of hashing.
        if let last = lastApp, last == app { return last }
        let shared = sharedApp(app)
        lastApp = shared
        return shared
    }

    private func sharedApp(_ app: String) -> String {
        if let known = apps[app] { return known }
        if apps.count >= Self.capacity { apps.removeAll(keepingCapacity: true) }
        apps[app] = app
        return app
    }
}
