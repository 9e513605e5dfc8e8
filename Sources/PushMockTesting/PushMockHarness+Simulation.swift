public import PushMockControl
public import PushMockCore
import PushMockGateway
public import PushMockSimulation

extension PushMockHarness {
    /// The gateway's clock: freeze, set and advance it to test expirations, TTLs, token
    /// lifecycles and fault windows without waiting. `withPushMock` runs on a ``VirtualClock``
    /// unless you pass another clock.
    public var clock: VirtualClock {
        guard let clock = state.virtualClock else {
            preconditionFailure("this gateway was started with a clock that is not a VirtualClock")
        }
        return clock
    }

    /// The simulated device behind an APNs device token or FCM registration token, settled at
    /// the gateway's now (`nil` until it received a notification or had its connectivity set).
    public func device(_ token: String, service: PushService = .apns) -> SimulatedDevice? {
        state.simulatedDevices.device(DeviceAddress(service: service, token: token), now: state.clock.now())
    }

    /// Takes a device online, idle or offline now.
    @discardableResult
    public func setConnectivity(_ connectivity: Connectivity, token: String, service: PushService = .apns) -> SimulatedDevice {
        let address = DeviceAddress(service: service, token: token)
        return state.simulatedDevices.setConnectivity(
            connectivity, for: address, policy: state.storagePolicy(for: address), now: state.clock.now())
    }

    /// The user of a device displays, opens, dismisses or acts on the notification `id`
    /// (the `apns-id`, FCM message name or Expo ticket id) at the gateway's now. Throws
    /// ``EngagementRefusal`` when a real user could not: not on screen, no alert, already
    /// engaged, notifications denied, or (400) an action its declared category does not offer.
    @discardableResult
    public func engage(
        _ engagement: Engagement, notification id: String, token: String, service: PushService = .apns
    ) throws(EngagementRefusal) -> DeviceNotification {
        let address = DeviceAddress(service: service, token: token)
        let now = state.clock.now()
        // A declared category offers only its own buttons, as on the control API.
        if case .acted(let action) = engagement,
            let refusal = state.undeclaredActionRefusal(action, notificationID: id, on: address, now: now)
        {
            throw refusal
        }
        return try state.simulatedDevices.engage(engagement, notificationID: id, on: address, now: now).notification
    }

    /// The user taps the notification `id`.
    @discardableResult
    public func open(_ id: String, token: String, service: PushService = .apns) throws(EngagementRefusal) -> DeviceNotification {
        try engage(.opened, notification: id, token: token, service: service)
    }

    /// The user swipes the notification `id` away.
    @discardableResult
    public func dismiss(_ id: String, token: String, service: PushService = .apns) throws(EngagementRefusal) -> DeviceNotification {
        try engage(.dismissed, notification: id, token: token, service: service)
    }

    /// The user chooses the action button `action` on the notification `id`.
    @discardableResult
    public func act(_ action: String, on id: String, token: String, service: PushService = .apns) throws(EngagementRefusal)
        -> DeviceNotification
    {
        try engage(.acted(actionID: action), notification: id, token: token, service: service)
    }

    /// Sets whether the app may show notifications on a device now: `granted`, `provisional`
    /// or `denied` (the services still accept and deliver; nothing is displayed).
    @discardableResult
    public func setPermission(_ permission: NotificationPermission, token: String, service: PushService = .apns) -> SimulatedDevice {
        state.simulatedDevices.setPermission(permission, for: DeviceAddress(service: service, token: token), now: state.clock.now())
    }

    /// The seeded behaviour model that decides opens, dismissals and actions at delivery
    /// (`nil`: only ``engage(_:notification:token:service:)`` engages).
    public var engagementModel: EngagementModel? {
        get { state.simulatedDevices.engagementModel }
        nonmutating set { state.simulatedDevices.engagementModel = newValue }
    }

    /// A control-API client for this gateway (cleartext listener), as another process would
    /// use it. Its per-request timeout (default 5 minutes) outlasts the longest long poll the
    /// control API takes, so a slow CI machine never cuts a `wait` short.
    public func controlClient(timeout: Duration = .seconds(300)) throws -> PushMockControlClient {
        PushMockControlClient(endpoint: try .init(url: "http://127.0.0.1:\(cleartextPort)"), timeout: timeout)
    }
}
