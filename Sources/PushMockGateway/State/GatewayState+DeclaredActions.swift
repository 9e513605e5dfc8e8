package import PushMockCore
package import PushMockSimulation

extension GatewayState {
    /// When the notification's category is declared (`/categories`, the config file's
    /// `categories`) with actions, `action` must be one of them, as a device only offers those
    /// buttons: the refusal (400) otherwise, `nil` when the action may be taken. The control API
    /// and the Swift harness both ask this before an `action` engagement.
    package func undeclaredActionRefusal(
        _ action: String, notificationID id: String, on address: DeviceAddress, now: Timestamp
    ) -> EngagementRefusal? {
        guard let device = simulatedDevices.device(address, now: now),
            let entry = device.notifications.last(where: { $0.notification.id == id }),
            let category = NotificationFace(entry.notification, service: address.service).category
        else { return nil }
        let declared = notificationCategories.all.filter { $0.id == category && ($0.app == nil || $0.app == entry.notification.app) }
        let actions = declared.flatMap(\.actions).map(\.id)
        guard !declared.isEmpty, !actions.contains(action) else { return nil }
        return EngagementRefusal(
            status: 400, message: "category \(category) offers the actions \(actions.joined(separator: ", ")); \(action) is not one of them"
        )
    }
}
