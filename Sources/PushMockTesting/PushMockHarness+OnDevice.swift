public import PushMockCore
public import PushMockToolkit

extension PushMockHarness {
    /// What the app on `user`'s phone would schedule and show from an in-app notification
    /// config (`docs/on-device-scheduling.md`), played from `from` (when the config reached the
    /// device) to `until` (default: the gateway clock's now) over the app events posted for the
    /// user (``postEvent(_:user:properties:)``; their properties are the condition variables).
    public func onDeviceSchedule(
        _ config: InAppNotificationConfig, user: String, from: Timestamp, until: Timestamp? = nil,
        options: OnDeviceScheduler.Options = OnDeviceScheduler.Options()
    ) throws -> OnDeviceSchedule {
        let directory = userDirectory
        guard let owner = directory.users.first(where: { $0.id == user }) else {
            throw UserDefinitionError("no user \"\(user)\"; add it with addUser(_:) first")
        }
        return OnDeviceScheduler(config: config, options: options)
            .schedule(for: owner, events: directory.events, from: from, until: until ?? clock.now())
    }
}
