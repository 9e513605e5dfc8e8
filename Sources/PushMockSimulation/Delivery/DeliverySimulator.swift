public import PushMockCore
import Synchronization

/// Every simulated device of one gateway. Devices appear on their first notification (with
/// the default connectivity) or when someone sets their connectivity.
///
/// Shared by all connections: one `Mutex` around the device table, held for one device
/// operation at a time.
public final class DeliverySimulator: Sendable {
    public let limits: DeliveryLimits
    private let state: Mutex<State>

    struct State {
        var devices: [DeviceAddress: SimulatedDevice] = [:]
        var defaultConnectivity: Connectivity
        var behaviour: EngagementModel?
    }

    public init(limits: DeliveryLimits = .defaults, defaultConnectivity: Connectivity = .online) {
        self.limits = limits
        self.state = Mutex(State(defaultConnectivity: defaultConnectivity))
    }

    /// The connectivity new devices start with.
    public var defaultConnectivity: Connectivity {
        get { state.withLock { $0.defaultConnectivity } }
        set { state.withLock { $0.defaultConnectivity = newValue } }
    }

    /// The seeded behaviour model that decides opens, dismissals and actions on delivery;
    /// `nil` (the default): only commands engage, and delivery does no extra work.
    public var engagementModel: EngagementModel? {
        get { state.withLock { $0.behaviour } }
        set { state.withLock { $0.behaviour = newValue } }
    }

    /// Hands accepted notifications to their devices.
    public func receive(
        _ deliveries: [(address: DeviceAddress, policy: StoragePolicy, notification: SimulatedNotification)], now: Timestamp
    ) {
        guard !deliveries.isEmpty else { return }
        let limits = self.limits
        state.withLock { state in
            let behaviour = state.behaviour
            for delivery in deliveries {
                let connectivity = state.defaultConnectivity
                state.devices[
                    delivery.address,
                    default: SimulatedDevice(
                        address: delivery.address,
                        policy: delivery.policy,
                        connectivity: connectivity,
                        limits: limits,
                        now: now
                    )
                ].receive(delivery.notification, now: now, policy: delivery.policy, behaviour: behaviour)
            }
            Self.evictIfNeeded(&state, limit: limits.devices)
        }
    }

    /// Sets a device's connectivity (creating it if needed) and returns it settled at `now`.
    @discardableResult
    public func setConnectivity(_ connectivity: Connectivity, for address: DeviceAddress, policy: StoragePolicy? = nil, now: Timestamp)
        -> SimulatedDevice
    {
        let limits = self.limits
        return state.withLock { state in
            var device =
                state.devices[address]
                ?? SimulatedDevice(
                    address: address,
                    policy: policy ?? (address.service == .apns ? .apns : .fcm),
                    connectivity: state.defaultConnectivity,
                    limits: limits,
                    now: now
                )
            if let policy { device.policy = policy }
            device.behaviour = state.behaviour
            device.setConnectivity(connectivity, now: now)
            state.devices[address] = device
            Self.evictIfNeeded(&state, limit: limits.devices)
            return device
        }
    }

    /// One device, settled at `now`.
    public func device(_ address: DeviceAddress, now: Timestamp) -> SimulatedDevice? {
        state.withLock { state in
            guard var device = state.devices[address] else { return nil }
            device.behaviour = state.behaviour
            device.settle(upTo: now)
            state.devices[address] = device
            return device
        }
    }

    /// Every device, settled at `now`, sorted by address.
    public func devices(now: Timestamp) -> [SimulatedDevice] {
        state.withLock { state in
            for address in state.devices.keys {
                state.devices[address]?.behaviour = state.behaviour
                state.devices[address]?.settle(upTo: now)
            }
            return state.devices.values.sorted { $0.address < $1.address }
        }
    }

    /// The user of a device displays, opens, dismisses or acts on a notification at `now`;
    /// returns the device and the notification afterwards.
    public func engage(
        _ engagement: Engagement, notificationID: String, on address: DeviceAddress, now: Timestamp, reason: String? = "by command"
    ) throws(EngagementRefusal) -> (device: SimulatedDevice, notification: DeviceNotification) {
        try state.withLock { state throws(EngagementRefusal) in
            guard var device = state.devices[address] else { throw .noDevice(address) }
            device.behaviour = state.behaviour
            defer { state.devices[address] = device }
            let notification = try device.engage(engagement, notificationID: notificationID, now: now, reason: reason)
            return (device, notification)
        }
    }

    /// Sets whether the app may show notifications on a device (creating it if needed), and
    /// returns it settled at `now`.
    @discardableResult
    public func setPermission(
        _ permission: NotificationPermission, for address: DeviceAddress, policy: StoragePolicy? = nil, now: Timestamp
    ) -> SimulatedDevice {
        let limits = self.limits
        return state.withLock { state in
            var device =
                state.devices[address]
                ?? SimulatedDevice(
                    address: address,
                    policy: policy ?? (address.service == .apns ? .apns : .fcm),
                    connectivity: state.defaultConnectivity,
                    limits: limits,
                    now: now
                )
            if let policy { device.policy = policy }
            device.behaviour = state.behaviour
            device.setPermission(permission, now: now)
            state.devices[address] = device
            Self.evictIfNeeded(&state, limit: limits.devices)
            return device
        }
    }

    /// Forgets one device; returns whether it existed.
    @discardableResult
    public func remove(_ address: DeviceAddress) -> Bool {
        state.withLock { $0.devices.removeValue(forKey: address) != nil }
    }

    /// Forgets every device; returns how many there were.
    @discardableResult
    public func removeAll() -> Int {
        state.withLock { state in
            let count = state.devices.count
            state.devices.removeAll()
            return count
        }
    }

    public var count: Int { state.withLock { $0.devices.count } }

    /// Beyond the limit, forgets the least recently active tenth (amortises the sort).
    private static func evictIfNeeded(_ state: inout State, limit: Int) {
        guard state.devices.count > limit else { return }
        let excess = state.devices.count - limit + max(1, limit / 10)
        let oldest = state.devices.values.sorted { $0.lastActivity < $1.lastActivity }.prefix(excess).map(\.address)
        for address in oldest {
            state.devices.removeValue(forKey: address)
        }
    }
}

extension SimulatedDevice {
    /// Receives with the policy the sender's request implies (an FCM token may turn out to be
    /// an iOS one after it was first seen).
    mutating func receive(_ notification: SimulatedNotification, now: Timestamp, policy: StoragePolicy, behaviour: EngagementModel?) {
        self.policy = policy
        self.behaviour = behaviour
        receive(notification, now: now)
    }
}
